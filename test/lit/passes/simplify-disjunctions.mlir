// RUN: l0-opt %s -p simplify,verify-uniqueness --split-input-file | filecheck %s

// `x || y` is true when `x` holds wherever `y` does not (Note [Assuming the other
// side]). The zip check of a fold's lambda, hoisted out of it, on a row of a map's
// output whose size size-hindrance wrote as `select(n != 0, m, 0)`: under `n != 0`
// the select is `m`, and `m = m` holds. The check becomes `Checked` and leaves the
// map's certificates.
func.func @hoisted_zip_check(%n: i64, %m: i64, %a: tensor<?xf64>, %b: tensor<?xf64>) -> tensor<?xf64> {
  %zero = arith.constant 0 : i64
  %ne = arith.cmpi ne, %n, %zero : i64
  %row = arith.select %ne, %m, %zero : i64
  %same = arith.cmpi eq, %m, %row : i64
  %empty = arith.cmpi eq, %n, %zero : i64
  %ok = arith.ori %same, %empty : i1
  %c = soac.assert %ok, "arrays given to zip have different sizes: {0}, {1}" (%m, %row : i64, i64) at "t.l0:1:1"
  %r = soac.map(%x = %a, %y = %b : tensor<?xf64>, tensor<?xf64>) <%c> -> tensor<?xf64> {
    %s = arith.addf %x, %y : f64
    soac.yield %s : f64
  }
  func.return %r : tensor<?xf64>
}
// CHECK-LABEL: func.func @hoisted_zip_check
// CHECK-NOT:     soac.assert
// CHECK:         soac.map(%x = %a, %y = %b : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> {

// -----

// Either side may be the one assumed false, the comparisons may be written with their
// operands swapped (`0 != n`, `n <= 0` against `0 < n`), and a `||` on the assumed
// side gives both its sides.
func.func @other_side(%n: i64, %m: i64, %k: i64, %p: i1) -> (i1, i1) {
  %zero = arith.constant 0 : i64
  %ne = arith.cmpi ne, %zero, %n : i64
  %row = arith.select %ne, %m, %k : i64
  %same = arith.cmpi sle, %row, %m : i64
  %empty = arith.cmpi eq, %n, %zero : i64
  %either = arith.ori %p, %empty : i1
  %ok = arith.ori %either, %same : i1
  %pos = arith.cmpi slt, %zero, %n : i64
  %row2 = arith.select %pos, %m, %k : i64
  %same2 = arith.cmpi eq, %row2, %m : i64
  %le = arith.cmpi sle, %n, %zero : i64
  %ok2 = arith.ori %le, %same2 : i1
  func.return %ok, %ok2 : i1, i1
}
// CHECK-LABEL: func.func @other_side
// CHECK-NEXT:    %ok = arith.constant true
// CHECK-NEXT:    %ok2 = arith.constant true
// CHECK-NEXT:    func.return %ok, %ok2 : i1, i1

// -----

// Must not fire: the select's condition is not decided by the other side (`n != 1`
// against `n = 0`), the selected value differs from the compared one (`k`, not `m`),
// or the assumption decides nothing (`p`).
func.func @not_proved(%n: i64, %m: i64, %k: i64, %p: i1) -> (i1, i1, i1) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %ne1 = arith.cmpi ne, %n, %one : i64
  %row1 = arith.select %ne1, %m, %zero : i64
  %same1 = arith.cmpi eq, %m, %row1 : i64
  %empty = arith.cmpi eq, %n, %zero : i64
  %a = arith.ori %same1, %empty : i1
  %ne = arith.cmpi ne, %n, %zero : i64
  %row2 = arith.select %ne, %k, %zero : i64
  %same2 = arith.cmpi eq, %m, %row2 : i64
  %b = arith.ori %same2, %empty : i1
  %row3 = arith.select %p, %m, %zero : i64
  %same3 = arith.cmpi eq, %m, %row3 : i64
  %c = arith.ori %same3, %empty : i1
  func.return %a, %b, %c : i1, i1, i1
}
// CHECK-LABEL: func.func @not_proved
// CHECK-COUNT-3: arith.ori
// CHECK-NOT:     arith.constant true
