// RUN: l0-opt %s -p bounds --split-input-file | filecheck %s

// A stencil's neighbour under its guard: `if j < n - 1 then a[j + 1]` and
// `if 0 < j then a[j - 1]`. In the then-branch the iterator's range is narrowed by the
// condition, so both checks are proved.
func.func @guarded_neighbours(%a: tensor<?xf64>) -> tensor<?xf64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %mone = arith.constant -1 : i64
  %f0 = arith.constant 0.0 : f64
  %n = soac.size(0) %a : tensor<?xf64>
  %last = arith.addi %mone, %n : i64
  %is = soac.iota %n
  %r = soac.map(%j = %is : tensor<?xi64>) -> tensor<?xf64> {
    %up = arith.cmpi slt, %j, %last : i64
    %hi = scf.if %up -> (f64) {
      %j1 = arith.addi %one, %j : i64
      %ok = arith.cmpi slt, %j1, %n : i64
      %c = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%j1, %n : i64, i64) at "t.l0:1:1"
      %e = soac.index %a[%j1] <%c> : tensor<?xf64> -> f64
      scf.yield %e : f64
    } else {
      scf.yield %f0 : f64
    }
    %down = arith.cmpi slt, %zero, %j : i64
    %lo = scf.if %down -> (f64) {
      %j0 = arith.addi %mone, %j : i64
      %ok = arith.cmpi sle, %zero, %j0 : i64
      %c = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%j0, %n : i64, i64) at "t.l0:1:2"
      %e = soac.index %a[%j0] <%c> : tensor<?xf64> -> f64
      scf.yield %e : f64
    } else {
      scf.yield %f0 : f64
    }
    %s = arith.addf %hi, %lo : f64
    soac.yield %s : f64
  }
  func.return %r : tensor<?xf64>
}
// CHECK-LABEL: func.func @guarded_neighbours
// CHECK-NOT:     soac.assert
// CHECK:         func.return

// -----

// Must not fire: the else-branch says nothing (`j >= n - 1` is not used), a guard that
// does not narrow enough (`j < n`) proves nothing about `j + 1`, and a guard on an
// opaque value (`j < p`, p a parameter) is no fact about `j + 1 < n`.
func.func @unguarded(%a: tensor<?xf64>, %p: i64) -> tensor<?xf64> {
  %one = arith.constant 1 : i64
  %mone = arith.constant -1 : i64
  %f0 = arith.constant 0.0 : f64
  %n = soac.size(0) %a : tensor<?xf64>
  %last = arith.addi %mone, %n : i64
  %is = soac.iota %n
  %r = soac.map(%j = %is : tensor<?xi64>) -> tensor<?xf64> {
    %j1 = arith.addi %one, %j : i64
    %ok = arith.cmpi slt, %j1, %n : i64
    %up = arith.cmpi slt, %j, %last : i64
    %x = scf.if %up -> (f64) {
      scf.yield %f0 : f64
    } else {
      %c = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%j1, %n : i64, i64) at "t.l0:2:1"
      %e = soac.index %a[%j1] <%c> : tensor<?xf64> -> f64
      scf.yield %e : f64
    }
    %in = arith.cmpi slt, %j, %n : i64
    %y = scf.if %in -> (f64) {
      %c = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%j1, %n : i64, i64) at "t.l0:2:2"
      %e = soac.index %a[%j1] <%c> : tensor<?xf64> -> f64
      scf.yield %e : f64
    } else {
      scf.yield %f0 : f64
    }
    %opq = arith.cmpi slt, %j, %p : i64
    %z = scf.if %opq -> (f64) {
      %c = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%j1, %n : i64, i64) at "t.l0:2:3"
      %e = soac.index %a[%j1] <%c> : tensor<?xf64> -> f64
      scf.yield %e : f64
    } else {
      scf.yield %f0 : f64
    }
    %s = arith.addf %x, %y : f64
    %t = arith.addf %s, %z : f64
    soac.yield %t : f64
  }
  func.return %r : tensor<?xf64>
}
// CHECK-LABEL: func.func @unguarded
// CHECK:         soac.assert {{.*}} at "t.l0:2:1"
// CHECK:         soac.assert {{.*}} at "t.l0:2:2"
// CHECK:         soac.assert {{.*}} at "t.l0:2:3"
