// RUN: l0-opt %s -p bounds --split-input-file | filecheck %s

// The rows of a map over `m` rows have size `select(m != 0, n, 0)`; inside a lambda
// over the `m` rows an iteration runs, so the select is `n` there: a loop over such a
// row indexes an array of `n` elements without a check (LocVolCalib's tridiagonal
// solves along x).
func.func @row_size_in_map(%c: tensor<?xf64>, %m: i64) -> tensor<?xf64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %f0 = arith.constant 0.0 : f64
  %n = soac.size(0) %c : tensor<?xf64>
  %nz = arith.cmpi ne, %m, %zero : i64
  %s = arith.select %nz, %n, %zero : i64
  %rows = soac.iota %m
  %r = soac.map(%j = %rows : tensor<?xi64>) -> tensor<?xf64> {
    %acc = scf.for %k = %zero to %s step %one iter_args(%x = %f0) -> (f64) : i64 {
      %lo = arith.cmpi sle, %zero, %k : i64
      %hi = arith.cmpi slt, %k, %n : i64
      %ok = arith.andi %lo, %hi : i1
      %ck = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%k, %n : i64, i64) at "t.l0:1:1"
      %e = soac.index %c[%k] <%ck> : tensor<?xf64> -> f64
      %y = arith.addf %x, %e : f64
      scf.yield %y : f64
    }
    soac.yield %acc : f64
  }
  func.return %r : tensor<?xf64>
}
// CHECK-LABEL: func.func @row_size_in_map
// CHECK-NOT:     soac.assert
// CHECK:         soac.checked
// CHECK-NOT:     soac.assert
// CHECK:         func.return

// -----

// A backward loop over a row, `i = s - 2 - k` for k < s - 1, reading `i + 1`: exact
// (both arms of the select are sizes), so proved inside the map too.
func.func @row_size_backward(%c: tensor<?xf64>, %m: i64) -> tensor<?xf64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %mtwo = arith.constant -2 : i64
  %mone = arith.constant -1 : i64
  %f0 = arith.constant 0.0 : f64
  %n = soac.size(0) %c : tensor<?xf64>
  %nz = arith.cmpi ne, %m, %zero : i64
  %s = arith.select %nz, %n, %zero : i64
  %trip = arith.addi %mone, %s : i64
  %top = arith.addi %mtwo, %s : i64
  %rows = soac.iota %m
  %r = soac.map(%j = %rows : tensor<?xi64>) -> tensor<?xf64> {
    %acc = scf.for %k = %zero to %trip step %one iter_args(%x = %f0) -> (f64) : i64 {
      %i = arith.subi %top, %k : i64
      %i1 = arith.addi %one, %i : i64
      %lo = arith.cmpi sle, %zero, %i1 : i64
      %hi = arith.cmpi slt, %i1, %n : i64
      %ok = arith.andi %lo, %hi : i1
      %ck = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%i1, %n : i64, i64) at "t.l0:2:1"
      %e = soac.index %c[%i1] <%ck> : tensor<?xf64> -> f64
      %y = arith.addf %x, %e : f64
      scf.yield %y : f64
    }
    soac.yield %acc : f64
  }
  func.return %r : tensor<?xf64>
}
// CHECK-LABEL: func.func @row_size_backward
// CHECK-NOT:     soac.assert
// CHECK:         func.return

// -----

// Must not fire: outside a loop over `m` rows nothing says `m != 0` (the select may be
// 0 where `n` is not), nor in a map over another count `p`. The checks are not proved;
// they move before their loops (the select is a bounded symbol, `bounds`' other half).
func.func @row_size_outside(%c: tensor<?xf64>, %m: i64, %p: i64) -> (f64, tensor<?xf64>) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %f0 = arith.constant 0.0 : f64
  %n = soac.size(0) %c : tensor<?xf64>
  %nz = arith.cmpi ne, %m, %zero : i64
  %s = arith.select %nz, %n, %zero : i64
  %top = scf.for %k = %zero to %s step %one iter_args(%x = %f0) -> (f64) : i64 {
    %k1 = arith.addi %one, %k : i64
    %hi = arith.cmpi slt, %k1, %n : i64
    %ck = soac.assert %hi, "index {0} out of bounds for array of size {1}" (%k1, %n : i64, i64) at "t.l0:3:1"
    %e = soac.index %c[%k1] <%ck> : tensor<?xf64> -> f64
    %y = arith.addf %x, %e : f64
    scf.yield %y : f64
  }
  %others = soac.iota %p
  %r = soac.map(%j = %others : tensor<?xi64>) -> tensor<?xf64> {
    %acc = scf.for %k = %zero to %s step %one iter_args(%x = %f0) -> (f64) : i64 {
      %hi = arith.cmpi slt, %k, %n : i64
      %ck = soac.assert %hi, "index {0} out of bounds for array of size {1}" (%k, %n : i64, i64) at "t.l0:4:1"
      %e = soac.index %c[%k] <%ck> : tensor<?xf64> -> f64
      %y = arith.addf %x, %e : f64
      scf.yield %y : f64
    }
    soac.yield %acc : f64
  }
  func.return %top, %r : f64, tensor<?xf64>
}
// CHECK-LABEL: func.func @row_size_outside
// CHECK:         [[C3:%.*]] = soac.assert {{.*}} at "t.l0:3:1"
// CHECK:         scf.for
// CHECK:           soac.index %c[%k1] <[[C3]]>
// CHECK:         [[C4:%.*]] = soac.assert {{.*}} at "t.l0:4:1"
// CHECK:         soac.map
