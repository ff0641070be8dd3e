// RUN: l0-opt %s -p simplify,verify-uniqueness --split-input-file | filecheck %s

// assert(True) is Checked; Checked and repeated certificates leave cert lists;
// conjoin flattens and drops Checked; conjoin of one certificate is it, of none
// Checked.
func.func @certs(%a: tensor<?xi64>, %i: i64, %c: !soac.cert, %d: !soac.cert) -> (i64, !soac.cert, !soac.cert, !soac.cert) {
  %t = arith.constant true
  %ok = soac.assert %t, "never fails" at "t.l0:1:1"
  %ch = soac.checked
  %e = soac.index %a[%i] <%ok, %c, %ch, %c> : tensor<?xi64> -> i64
  %j = soac.conjoin(%ok, %c, %ch)
  %k = soac.conjoin(%ok, %ch)
  %l = soac.conjoin(%c, %d)
  %m = soac.conjoin(%l, %c, %ok)
  func.return %e, %j, %k, %m : i64, !soac.cert, !soac.cert, !soac.cert
}
// CHECK-LABEL: func.func @certs
// CHECK-NOT:     soac.assert
// CHECK:         %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
// CHECK-DAG:     [[K:%.*]] = soac.checked
// CHECK-DAG:     [[M:%.*]] = soac.conjoin(%c, %d)
// CHECK:         func.return %e, %c, [[K]], [[M]]

// -----

// An assert whose condition folds to false stays: it fails at run time. An assert of
// an unknown condition stays too, of course.
func.func @failing(%x: i64) -> (!soac.cert, !soac.cert) {
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %lt = arith.cmpi slt, %two, %one : i64
  %bad = soac.assert %lt, "always fails" at "t.l0:2:2"
  %ok = arith.cmpi slt, %x, %one : i64
  %c = soac.assert %ok, "maybe" at "t.l0:3:3"
  func.return %bad, %c : !soac.cert, !soac.cert
}
// CHECK-LABEL: func.func @failing
// CHECK:         [[F:%.*]] = arith.constant false
// CHECK-NEXT:    %bad = soac.assert [[F]], "always fails"
// CHECK:         %c = soac.assert %ok, "maybe"

// -----

// Certificates of SOACs and of every other certified op are pruned the same way.
func.func @soac_certs(%a: tensor<?xi64>, %n: i64, %c: !soac.cert) -> (tensor<?xi64>, tensor<?xi64>) {
  %ch = soac.checked
  %b = soac.map(%x = %a : tensor<?xi64>) <%ch, %c> -> tensor<?xi64> {
    soac.yield %x : i64
  }
  %i = soac.iota %n <%ch>
  func.return %b, %i : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @soac_certs
// CHECK-NEXT:    %b = soac.map(%x = %a : tensor<?xi64>) <%c> -> tensor<?xi64> {
// CHECK:         %i = soac.iota %n{{$}}

// -----

// A bounds check on a constant index into a literal proves itself: the check folds
// to Checked and the index to the element.
func.func @proved_bounds(%x: i64, %y: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %l = soac.array [%x, %y] : tensor<?xi64>
  %n = soac.size(0) %l : tensor<?xi64>
  %lo = arith.cmpi sle, %zero, %one : i64
  %hi = arith.cmpi slt, %one, %n : i64
  %ok = arith.andi %lo, %hi : i1
  %c = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%one, %n : i64, i64) at "t.l0:4:4"
  %e = soac.index %l[%one] <%c> : tensor<?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @proved_bounds(%x: i64, %y: i64) -> i64 {
// CHECK-NEXT:    func.return %y : i64
