// RUN: l0-opt %s -p presize-allocs | filecheck %s
// RUN: l0-opt %s -p hoist-allocs | filecheck %s

// Both passes first fold every scf.if on a constant condition into the branch it takes
// (`l0.lowering.fold_carries`), innermost first: an if nested in a branch that is
// thrown away goes with it, one nested in the branch that is taken is inlined with it,
// at every depth (Note [Folding nested ifs]). Each function's result shows which
// branch was taken.

// The inner if is in the branch not taken (`if False then (if True then 1 else 2) else x`).
// CHECK-LABEL: func.func private @inner_in_dropped_branch(
// CHECK-NOT:     scf.if
// CHECK:         func.return %x : i64
func.func private @inner_in_dropped_branch(%x: i64) -> i64 {
  %false = arith.constant false
  %true = arith.constant true
  %r = scf.if %false -> (i64) {
    %s = scf.if %true -> (i64) {
      %one = arith.constant 1 : i64
      scf.yield %one : i64
    } else {
      %two = arith.constant 2 : i64
      scf.yield %two : i64
    }
    scf.yield %s : i64
  } else {
    scf.yield %x : i64
  }
  func.return %r : i64
}

// The inner if is in the branch taken: its own taken branch is inlined in its place.
// CHECK-LABEL: func.func private @inner_in_taken_branch(
// CHECK-NOT:     scf.if
// CHECK:         %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %x, %[[TWO]] : i64
// CHECK-NEXT:    func.return %[[SUM]] : i64
func.func private @inner_in_taken_branch(%x: i64) -> i64 {
  %false = arith.constant false
  %true = arith.constant true
  %r = scf.if %true -> (i64) {
    %s = scf.if %false -> (i64) {
      %one = arith.constant 1 : i64
      scf.yield %one : i64
    } else {
      %two = arith.constant 2 : i64
      %sum = arith.addi %x, %two : i64
      scf.yield %sum : i64
    }
    scf.yield %s : i64
  } else {
    scf.yield %x : i64
  }
  func.return %r : i64
}

// Three deep, each level in the else branch of the one above, the middle one not
// taken; the innermost sits in a loop (side effects only, no results).
// CHECK-LABEL: func.func private @three_deep(
// CHECK-NOT:     scf.if
// CHECK:         %[[NINE:.*]] = arith.constant 9 : i64
// CHECK-NEXT:    func.return %[[NINE]] : i64
func.func private @three_deep(%x: i64, %m: memref<?xi64>, %n: index) -> i64 {
  %false = arith.constant false
  %true = arith.constant true
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.if %false -> (i64) {
    scf.yield %x : i64
  } else {
    %s = scf.if %true -> (i64) {
      %nine = arith.constant 9 : i64
      scf.yield %nine : i64
    } else {
      scf.for %i = %c0 to %n step %c1 {
        scf.if %true {
          memref.store %x, %m[%i] : memref<?xi64>
        }
      }
      scf.yield %x : i64
    }
    scf.yield %s : i64
  }
  func.return %r : i64
}

// An inner if on a constant decides the condition of the outer one (a fixpoint).
// CHECK-LABEL: func.func private @decided_by_inner(
// CHECK-NOT:     scf.if
// CHECK:         func.return %x : i64
func.func private @decided_by_inner(%x: i64, %y: i64) -> i64 {
  %true = arith.constant true
  %c = scf.if %true -> (i1) {
    %f = arith.constant false
    scf.yield %f : i1
  } else {
    scf.yield %true : i1
  }
  %r = scf.if %c -> (i64) {
    scf.yield %y : i64
  } else {
    scf.yield %x : i64
  }
  func.return %r : i64
}

// Must not fire: an if on an argument stays, with both branches; a constant if nested
// in either branch is folded inside it.
// CHECK-LABEL: func.func private @outer_not_constant(
// CHECK:         %{{.*}} = scf.if %c -> (i64) {
// CHECK-NOT:       scf.if
// CHECK:           scf.yield %x : i64
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %y : i64
// CHECK-NEXT:    }
func.func private @outer_not_constant(%c: i1, %x: i64, %y: i64) -> i64 {
  %true = arith.constant true
  %r = scf.if %c -> (i64) {
    %s = scf.if %true -> (i64) {
      scf.yield %x : i64
    } else {
      scf.yield %y : i64
    }
    scf.yield %s : i64
  } else {
    scf.yield %y : i64
  }
  func.return %r : i64
}

// Must not fire: nested ifs on arguments stay as they are.
// CHECK-LABEL: func.func private @nothing_constant(
// CHECK:         scf.if %c -> (i64) {
// CHECK-NEXT:      %{{.*}} = scf.if %d -> (i64) {
// CHECK:         } else {
func.func private @nothing_constant(%c: i1, %d: i1, %x: i64, %y: i64) -> i64 {
  %r = scf.if %c -> (i64) {
    %s = scf.if %d -> (i64) {
      scf.yield %x : i64
    } else {
      scf.yield %y : i64
    }
    scf.yield %s : i64
  } else {
    scf.yield %y : i64
  }
  func.return %r : i64
}
