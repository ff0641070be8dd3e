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
