// RUN: l0-opt %s -O --split-input-file | filecheck %s
// The default pipeline reaches a fixed point: running it again changes nothing.
// RUN: l0-opt %s -O --split-input-file > %t.once.mlir
// RUN: l0-opt %t.once.mlir -O --split-input-file > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// Thesis 9.1: size-hindrance makes the zip check take the sizes of the parameters, so
// the maps' outputs are used only by the map that fusion will merge them into.
func.func @zip_of_maps(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %a2 = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %b2 = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %two : i64
    soac.yield %y : i64
  }
  %m = soac.size(0) %a2 : tensor<?xi64>
  %n = soac.size(0) %b2 : tensor<?xi64>
  %ok = arith.cmpi eq, %m, %n : i64
  %c = soac.assert %ok, "zip" at "t.l0:4:5"
  %r = soac.map(%x = %a2, %y = %b2 : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
    %s = arith.addi %x, %y : i64
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @zip_of_maps
// CHECK-DAG: [[M:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK-DAG: [[N:%.*]] = soac.size(0) %b : tensor<?xi64>
// CHECK: arith.cmpi eq, [[M]], [[N]] : i64
// CHECK-NOT: soac.size
// CHECK: func.return

// -----

// Thesis 9.2: b[0] is recomputed from a[0], leaving the reduce the only use of b,
// so that fusion (7.1.1) makes the map and the reduce one redomap.
func.func @min_of_map(%a: tensor<?xi64>) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %n = soac.size(0) %b : tensor<?xi64>
  %in = arith.cmpi slt, %zero, %n : i64
  %c = soac.assert %in, "index {0} out of bounds for array of size {1}" (%zero, %n : i64, i64) at "t.l0:2:20"
  %first = soac.index %b[%zero] <%c> : tensor<?xi64> -> i64
  %m = soac.reduce(%acc = %first : i64) over(%x = %b : tensor<?xi64>) {
    %lt = arith.cmpi slt, %acc, %x : i64
    %r = arith.select %lt, %acc, %x : i64
    soac.yield %r : i64
  }
  func.return %m : i64
}
// CHECK-LABEL: func.func @min_of_map
// CHECK: soac.index %a[%zero]
// CHECK-NOT: soac.index %b
// CHECK-NOT: soac.map
// CHECK: soac.redomap
// CHECK-NOT: soac.map

// -----

// Thesis 9.1.3: once the sizes of the rows are sizes of a and b, the zip check
// inside the lambda no longer depends on it and is hoisted out of the map.
func.func @rows_zip(%a: tensor<?x?xi64>, %b: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %r = soac.map(%ar = %a, %br = %b : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
    %m = soac.size(0) %ar : tensor<?xi64>
    %n = soac.size(0) %br : tensor<?xi64>
    %ok = arith.cmpi eq, %m, %n : i64
    %c = soac.assert %ok, "zip" at "t.l0:2:3"
    %s = soac.map(%x = %ar, %y = %br : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %x, %y : i64
      soac.yield %z : i64
    }
    soac.yield %s : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @rows_zip
// CHECK-DAG: soac.size(1) %a
// CHECK-DAG: soac.size(1) %b
// CHECK: soac.assert
// CHECK: soac.map
// CHECK-NOT: soac.assert
// CHECK: func.return

// -----

// size-hindrance makes the checked size that of `a`, CSE makes it the loop bound, and
// the bounds check is then provably true and goes.
func.func @loop_bounds(%a: tensor<?xi64>) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %n = soac.size(0) %a : tensor<?xi64>
  %s = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %m = soac.size(0) %b : tensor<?xi64>
    %lo = arith.cmpi sle, %zero, %i : i64
    %hi = arith.cmpi slt, %i, %m : i64
    %in = arith.andi %lo, %hi : i1
    %c = soac.assert %in, "index {0} out of bounds for array of size {1}" (%i, %m : i64, i64) at "t.l0:3:9"
    %e = soac.index %b[%i] <%c> : tensor<?xi64> -> i64
    %t = arith.addi %acc, %e : i64
    scf.yield %t : i64
  }
  func.return %s : i64
}
// CHECK-LABEL: func.func @loop_bounds
// CHECK: scf.for %i
// CHECK-NOT: soac.assert
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64
