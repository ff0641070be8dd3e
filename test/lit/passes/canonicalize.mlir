// RUN: l0-opt %s -p canonicalize --split-input-file | filecheck %s

// xDSL's canonicalize on soac IR: arith folds, dead pure ops go, checks stay.

func.func @folds_and_keeps_checks(%ok: i1, %n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.addi %one, %two : i64
  %unused = soac.iota %n
  %c = soac.assert %ok, "assertion failed" at "p.l0:1:1"
  %r = arith.addi %three, %n : i64
  func.return %r : i64
}

// CHECK-LABEL: func.func @folds_and_keeps_checks
// CHECK-NEXT:    %three = arith.constant 3 : i64
// CHECK-NEXT:    soac.assert %ok, "assertion failed" at "p.l0:1:1"
// CHECK-NEXT:    arith.addi %n, %three : i64
// CHECK-NOT:     soac.iota

// -----

// The soac ops' own patterns: assert(True) is Checked, which then leaves conjoin,
// as do repeats and nesting; a conjunction of one certificate is that certificate.

func.func @soac_patterns(%ok: i1, %n: i64, %a: tensor<?x?xf64>) -> (tensor<?xi64>, tensor<?x?xf64>) {
  %t = arith.constant true
  %c0 = soac.assert %t, "never fails" at "p.l0:1:1"
  %c1 = soac.assert %ok, "may fail" at "p.l0:2:1"
  %c2 = soac.assert %ok, "may fail too" at "p.l0:3:1"
  %inner = soac.conjoin(%c1, %c0)
  %c = soac.conjoin(%inner, %c0, %c1, %c2)
  %single = soac.conjoin(%c0, %c1)
  %r = soac.iota %n <%c, %single>
  %same = soac.transpose(1, 0) %a : tensor<?x?xf64>
  func.return %r, %same : tensor<?xi64>, tensor<?x?xf64>
}

// CHECK-LABEL: func.func @soac_patterns
// CHECK-NOT:     "never fails"
// CHECK:         %c1 = soac.assert %ok, "may fail" at "p.l0:2:1"
// CHECK-NEXT:    %c2 = soac.assert %ok, "may fail too" at "p.l0:3:1"
// CHECK-NEXT:    %c = soac.conjoin(%c1, %c2)
// CHECK-NEXT:    %r = soac.iota %n <%c, %c1>
// CHECK-NEXT:    func.return %r, %a : tensor<?xi64>, tensor<?x?xf64>

// -----

// Must not fire: a check that may fail stays, a conjunction of distinct certificates
// stays, a transpose that moves a dimension stays.

func.func @soac_patterns_not(%ok: i1, %a: tensor<?x?xf64>) -> (!soac.cert, tensor<?x?xf64>) {
  %f = arith.constant false
  %c0 = soac.assert %f, "always fails" at "p.l0:1:1"
  %c1 = soac.assert %ok, "may fail" at "p.l0:2:1"
  %c = soac.conjoin(%c0, %c1)
  %t = soac.transpose(0, 1) %a : tensor<?x?xf64>
  func.return %c, %t : !soac.cert, tensor<?x?xf64>
}

// CHECK-LABEL: func.func @soac_patterns_not
// CHECK:         %c0 = soac.assert %f, "always fails" at "p.l0:1:1"
// CHECK-NEXT:    %c1 = soac.assert %ok, "may fail" at "p.l0:2:1"
// CHECK-NEXT:    %c = soac.conjoin(%c0, %c1)
// CHECK-NEXT:    %t = soac.transpose(0, 1) %a : tensor<?x?xf64>
