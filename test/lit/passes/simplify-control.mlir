// RUN: l0-opt %s -p simplify,verify-uniqueness --split-input-file | filecheck %s

// if on a constant becomes its branch; results equal in both branches are
// propagated, `if c then True else False` is `c`; unused results go.
func.func @ifs(%c: i1, %x: i64, %y: i64) -> (i64, i64, i1, i1, i64) {
  %t = arith.constant true
  %r = scf.if %t -> (i64) {
    %s = arith.addi %x, %y : i64
    scf.yield %s : i64
  } else {
    scf.yield %y : i64
  }
  %q = scf.if %c -> (i64) {
    scf.yield %x : i64
  } else {
    scf.yield %x : i64
  }
  %b, %nb, %z = scf.if %c -> (i1, i1, i64) {
    %tt = arith.constant true
    %ff = arith.constant false
    %seven = arith.constant 7 : i64
    scf.yield %tt, %ff, %seven : i1, i1, i64
  } else {
    %tt = arith.constant true
    %ff = arith.constant false
    %seven = arith.constant 7 : i64
    scf.yield %ff, %tt, %seven : i1, i1, i64
  }
  func.return %r, %q, %b, %nb, %z : i64, i64, i1, i1, i64
}
// CHECK-LABEL: func.func @ifs
// CHECK-NEXT:    %s = arith.addi %x, %y : i64
// CHECK-NOT:     scf.if
// CHECK:         [[NB:%.*]] = arith.xori %{{.*}}, %c : i1
// CHECK:         func.return %s, %x, %c, [[NB]], %{{.*}}

// -----

// An if with a check in a branch loses the results nobody uses but stays.
func.func @if_with_check(%c: i1, %x: i64) -> i64 {
  %r, %s = scf.if %c -> (i64, i64) {
    %t = arith.constant true
    %ok = arith.cmpi slt, %x, %x : i64
    %k = soac.assert %ok, "fails" at "t.l0:1:1"
    scf.yield %x, %x : i64, i64
  } else {
    scf.yield %x, %x : i64, i64
  }
  func.return %x : i64
}
// CHECK-LABEL: func.func @if_with_check
// CHECK-NEXT:    scf.if %c {
// CHECK:           soac.assert
// CHECK-NEXT:    } else {
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %x

// -----

// A loop that runs zero times is its initial values; once, its body; a merge value
// the body passes on unchanged is its initial value, and is dropped from the loop.
func.func @loops(%n: i64, %a: tensor<?xi64>) -> (i64, i64, i64, tensor<?xi64>) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r0 = scf.for %i = %zero to %zero step %one iter_args(%acc = %n) -> (i64) : i64 {
    %s = arith.addi %acc, %i : i64
    scf.yield %s : i64
  }
  %r1 = scf.for %i = %one to %n step %n iter_args(%acc = %n) -> (i64) : i64 {
    %s = arith.muli %acc, %i : i64
    scf.yield %s : i64
  }
  %five = arith.constant 5 : i64
  %six = arith.constant 6 : i64
  %r2 = scf.for %i = %five to %six step %one iter_args(%acc = %n) -> (i64) : i64 {
    %s = arith.muli %acc, %i : i64
    scf.yield %s : i64
  }
  %r3, %arr = scf.for %i = %zero to %n step %one iter_args(%acc = %zero, %keep = %a) -> (i64, tensor<?xi64>) : i64 {
    %sz = soac.size(0) %keep : tensor<?xi64>
    %s = arith.addi %acc, %sz : i64
    scf.yield %s, %keep : i64, tensor<?xi64>
  }
  func.return %r0, %r2, %r3, %arr : i64, i64, i64, tensor<?xi64>
}
// CHECK-LABEL: func.func @loops
// CHECK:         [[R2:%.*]] = arith.muli {{.*}}, %n : i64
// CHECK:         %r3 = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
// CHECK-NEXT:      %sz = soac.size(0) %a : tensor<?xi64>
// CHECK:         func.return %n, [[R2]], %r3, %a

// -----

// Not simplified: a loop of unknown trip count whose merge value changes.
func.func @no_loop_fold(%n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %s = arith.addi %acc, %i : i64
    scf.yield %s : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @no_loop_fold
// CHECK:         %r = scf.for

// -----

// Calls of non-recursive functions with constant arguments are evaluated (Note
// [Evaluating constant calls]); not when the callee fails on them (the check must
// still fail at run time), nor when it traces, nor when it is recursive.
func.func @f(%x: i64, %y: i64) -> i64 {
  %s = arith.addi %x, %y : i64
  %t = arith.muli %s, %s : i64
  func.return %t : i64
}
func.func @g(%x: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi ne, %x, %zero : i64
  %c = soac.assert %ok, "division by zero" at "t.l0:9:9"
  %q = arith.floordivsi %x, %x : i64
  func.return %q : i64
}
func.func @traced(%x: i64) -> i64 {
  %t = soac.trace(%x : i64) at "t.l0:3:3"
  func.return %t : i64
}
func.func @rec(%x: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %done = arith.cmpi sle, %x, %zero : i64
  %r = scf.if %done -> (i64) {
    scf.yield %zero : i64
  } else {
    %one = arith.constant 1 : i64
    %y = arith.subi %x, %one : i64
    %z = func.call @rec(%y) : (i64) -> i64
    scf.yield %z : i64
  }
  func.return %r : i64
}
func.func @table(%n: i64) -> tensor<?xi64> {
  %io = soac.iota %n
  %sq = soac.map(%x = %io : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  func.return %sq : tensor<?xi64>
}
func.func @literal(%x: i64) -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %y = arith.addi %x, %one : i64
  %l = soac.array [%x, %y] : tensor<?xi64>
  func.return %l : tensor<?xi64>
}
func.func @main() -> (i64, i64, i64, i64, i64, tensor<?xi64>, tensor<?xi64>) {
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  %zero = arith.constant 0 : i64
  %a = func.call @f(%two, %three) : (i64, i64) -> i64
  %b = func.call @g(%zero) : (i64) -> i64
  %c = func.call @g(%two) : (i64) -> i64
  %d = func.call @traced(%two) : (i64) -> i64
  %e = func.call @rec(%two) : (i64) -> i64
  %t = func.call @table(%three) : (i64) -> tensor<?xi64>
  %l = func.call @literal(%three) : (i64) -> tensor<?xi64>
  func.return %a, %b, %c, %d, %e, %t, %l : i64, i64, i64, i64, i64, tensor<?xi64>, tensor<?xi64>
}
// A call with an array result is evaluated when the result is a literal; so is a
// map over a small constant array (simplify-soacs.mlir).
// CHECK-LABEL: func.func @main()
// CHECK-DAG:     [[A:%.*]] = arith.constant 25 : i64
// CHECK-DAG:     [[B:%.*]] = func.call @g(%zero)
// CHECK-DAG:     [[C:%.*]] = arith.constant 1 : i64
// CHECK-DAG:     [[D:%.*]] = func.call @traced
// CHECK-DAG:     [[E:%.*]] = func.call @rec
// CHECK-DAG:     [[T4:%.*]] = arith.constant 4 : i64
// CHECK-DAG:     [[T:%.*]] = soac.array [%{{.*}}, %{{.*}}, [[T4]]] : tensor<?xi64>
// CHECK-DAG:     [[L4:%.*]] = arith.constant 4 : i64
// CHECK-DAG:     [[L:%.*]] = soac.array [%{{.*}}, [[L4]]] : tensor<?xi64>
// CHECK:         func.return [[A]], [[B]], [[C]], [[D]], [[E]], [[T]], [[L]]

// -----

// A check of an `if`'s condition in its first branch holds there (the guarded index of
// `if 0 <= j && j < n then a[j]` keeps no bounds check); in the second branch, or of
// another condition, it stays.
func.func @check_held_by_branch(%a: tensor<?xi64>, %j: i64, %n: i64, %other: i1) -> i64 {
  %zero = arith.constant 0 : i64
  %lo = arith.cmpi sle, %zero, %j : i64
  %hi = arith.cmpi slt, %j, %n : i64
  %ok = arith.andi %lo, %hi : i1
  %r = scf.if %ok -> (i64) {
    %c = soac.assert %ok, "index {0} out of bounds" (%j : i64) at "t.l0:1:1"
    %e = soac.index %a[%j] <%c> : tensor<?xi64> -> i64
    scf.yield %e : i64
  } else {
    %c = soac.assert %ok, "still checked" at "t.l0:1:2"
    %d = soac.assert %other, "other" at "t.l0:1:3"
    %e = soac.index %a[%j] <%c, %d> : tensor<?xi64> -> i64
    scf.yield %e : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @check_held_by_branch
// CHECK:         scf.if %ok -> (i64) {
// CHECK-NEXT:      %e = soac.index %a[%j] : tensor<?xi64> -> i64
// CHECK-NEXT:      scf.yield %e : i64
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %c = soac.assert %ok, "still checked"
// CHECK-NEXT:      %d = soac.assert %other, "other"
