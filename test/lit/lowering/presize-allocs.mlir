// RUN: l0-opt %s -p presize-allocs | filecheck %s

// presize-allocs (after dealloc, before chunk-parallel): a buffer each iteration of an
// scf.parallel allocates with a size that varies per iteration, computable before the
// loop, becomes a view of a flat buffer of the maximum size: a sequential pre-pass
// before the loop takes the maximum element count (-1 once a count overflows), the flat
// buffer is allocated at the top of the body (an invariant size, which expand-allocs
// expands) and freed at its end.

// The size is the iteration's index (rows of two: the count is i * 2).
// CHECK-LABEL: func.func private @by_index(
// CHECK:         %[[ZERO:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[MAX:.*]] = scf.for %[[J:.*]] = %c0 to %n step %c1 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (index) {
// CHECK:           %[[S:.*]] = arith.maxsi %[[J]], %{{.*}} : index
// CHECK:           %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %{{.*}} = arith.muli %{{.*}}, %[[TWO]] : index
// CHECK:           %[[LOW:.*]] = arith.minsi %[[ACC]], %[[COUNT:.*]] : index
// CHECK:           %[[BAD:.*]] = arith.cmpi slt, %[[LOW]], %{{.*}} : index
// CHECK:           %[[HIGH:.*]] = arith.maxsi %[[ACC]], %[[COUNT]] : index
// CHECK-NEXT:      %[[NEXT:.*]] = arith.select %[[BAD]], %{{.*}}, %[[HIGH]] : index
// CHECK-NEXT:      scf.yield %[[NEXT]] : index
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:      %[[FLAT:.*]] = memref.alloc(%[[MAX]]) : memref<?xf64>
// CHECK-NEXT:      %[[BUF:.*]] = memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [%[[I]], 2], strides: [2, 1] : memref<?xf64> to memref<?x2xf64>
// CHECK-NEXT:      memref.store %z, %[[BUF]][%c0, %c0] : memref<?x2xf64>
// CHECK-NEXT:      memref.dealloc %[[FLAT]] : memref<?xf64>
// CHECK-NEXT:      scf.reduce
func.func private @by_index(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %buf = memref.alloc(%i) : memref<?x2xf64>
    memref.store %z, %buf[%c0, %c0] : memref<?x2xf64>
    memref.dealloc %buf : memref<?x2xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// The size is read from an input the loop does not write (the result is a fresh
// buffer): the pre-pass loads it only in bounds, and an iteration whose load is out of
// bounds counts 0 (it would have failed before allocating).
// CHECK-LABEL: func.func private @by_input(
// CHECK:         %[[MAX:.*]] = scf.for %[[J:.*]] = %c0 to %n step %c1 iter_args(%{{.*}}) -> (index) {
// CHECK:           %[[LO:.*]] = arith.cmpi sle, %{{.*}}, %[[J]] : index
// CHECK:           %[[DIM:.*]] = memref.dim %lens, %{{.*}} : memref<?xi64>
// CHECK-NEXT:      %[[HI:.*]] = arith.cmpi slt, %[[J]], %[[DIM]] : index
// CHECK-NEXT:      %[[OK:.*]] = arith.andi %[[LO]], %[[HI]] : i1
// CHECK-NEXT:      %[[LEN:.*]] = scf.if %[[OK]] -> (i64) {
// CHECK-NEXT:        %[[L:.*]] = memref.load %lens[%[[J]]] : memref<?xi64>
// CHECK-NEXT:        scf.yield %[[L]] : i64
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT:        scf.yield %[[Z]] : i64
// CHECK-NEXT:      }
// CHECK-NEXT:      %{{.*}} = arith.index_cast %[[LEN]] : i64 to index
// CHECK:           %{{.*}} = arith.select %[[OK]], %{{.*}}, %{{.*}} : index
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:      %[[FLAT:.*]] = memref.alloc(%[[MAX]]) : memref<?xf64>
// CHECK-NEXT:      %{{.*}} = memref.load %lens[%[[I]]] : memref<?xi64>
// CHECK-NEXT:      %[[K:.*]] = arith.index_cast
// CHECK-NEXT:      %{{.*}} = memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [%[[K]]], strides: [1]
// CHECK-NOT:       memref.alloc
// CHECK:           memref.dealloc %[[FLAT]] : memref<?xf64>
// CHECK-NEXT:      scf.reduce
func.func private @by_input(%lens: memref<?xi64>) -> memref<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %n = memref.dim %lens, %c0 : memref<?xi64>
  %out = memref.alloc(%n) : memref<?xf64>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %len = memref.load %lens[%i] : memref<?xi64>
    %k = arith.index_cast %len : i64 to index
    %buf = memref.alloc(%k) : memref<?xf64>
    memref.store %z, %buf[%c0] : memref<?xf64>
    %v = memref.load %buf[%c0] : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    memref.store %v, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return %out : memref<?xf64>
}

// The size is the length of the iteration's row of an input plus the index: the
// length is the view's size operand (the pre-pass makes no view).
// CHECK-LABEL: func.func private @row_length(
// CHECK:         %[[K:.*]] = memref.dim %m, %c1 : memref<?x?xf64>
// CHECK-NOT:     memref.subview
// CHECK:         %[[MAX:.*]] = scf.for %[[J:.*]] = %c0 to %n step %c1 iter_args(%{{.*}}) -> (index) {
// CHECK:           %{{.*}} = arith.addi %[[K]], %[[J]] : index
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:      %[[FLAT:.*]] = memref.alloc(%[[MAX]]) : memref<?xf64>
// CHECK:           %[[S:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK-NEXT:      %{{.*}} = memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [%[[S]]], strides: [1]
func.func private @row_length(%m: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?x?xf64>
  %k = memref.dim %m, %c1 : memref<?x?xf64>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %row = memref.subview %m[%i, 0] [1, %k] [1, 1] : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
    %len = memref.dim %row, %c0 : memref<?xf64, strided<[1], offset: ?>>
    %s = arith.addi %len, %i : index
    %buf = memref.alloc(%s) : memref<?xf64>
    "memref.copy"(%row, %buf) : (memref<?xf64, strided<[1], offset: ?>>, memref<?xf64>) -> ()
    memref.dealloc %buf : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// In a sequential loop and a branch of the body (a growing buffer, for hoist-allocs,
// without this pass): the pre-pass runs the inner loop too, and counts the branch's
// allocation only where its condition holds.
// CHECK-LABEL: func.func private @nested(
// CHECK:         %[[MAX:.*]] = scf.for %[[I2:.*]] = %c0 to %n step %c1 iter_args(%{{.*}}) -> (index) {
// CHECK-NEXT:      %[[JS:.*]] = scf.for %[[J2:.*]] = %c0_i64 to %m step %c1_i64 iter_args(%{{.*}}) -> (index) : i64 {
// CHECK:             %[[COND:.*]] = arith.cmpi slt, %[[J2]], %m : i64
// CHECK:             %{{.*}} = arith.select %[[COND]], %{{.*}}, %{{.*}} : index
// CHECK:           scf.yield %[[JS]] : index
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:      %[[FLAT:.*]] = memref.alloc(%[[MAX]]) : memref<?xi64>
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK-NOT:             memref.alloc
// CHECK:                 %{{.*}} = memref.reinterpret_cast %[[FLAT]]
// CHECK-NOT:       memref.alloc
// CHECK:           memref.dealloc %[[FLAT]] : memref<?xi64>
// CHECK-NEXT:      scf.reduce
func.func private @nested(%n: index, %m: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = arith.index_cast %i : index to i64
    scf.for %j = %c0_i64 to %m step %c1_i64 : i64 {
      %small = arith.cmpi slt, %j, %m : i64
      scf.if %small {
        %s = arith.addi %x, %j : i64
        %k = arith.index_cast %s : i64 to index
        %buf = memref.alloc(%k) : memref<?xi64>
        memref.store %s, %buf[%c0] : memref<?xi64>
        memref.dealloc %buf : memref<?xi64>
      }
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// In a sequential loop whose index the size does not use: the pre-pass does not run
// that loop, it counts the size where the loop runs at all (0 < m).
// CHECK-LABEL: func.func private @unused_index(
// CHECK:         %[[MAX:.*]] = scf.for %[[I2:.*]] = %c0 to %n step %c1 iter_args(%{{.*}}) -> (index) {
// CHECK-NOT:       scf.for
// CHECK:           %[[RUNS:.*]] = arith.cmpi slt, %c0_i64, %m : i64
// CHECK:           %{{.*}} = arith.select %[[RUNS]], %{{.*}}, %{{.*}} : index
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%{{.*}}: index):
// CHECK-NEXT:      %[[FLAT:.*]] = memref.alloc(%[[MAX]]) : memref<?xi64>
func.func private @unused_index(%n: index, %m: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    scf.for %j = %c0_i64 to %m step %c1_i64 : i64 {
      %buf = memref.alloc(%i) : memref<?xi64>
      memref.store %j, %buf[%c0] : memref<?xi64>
      memref.dealloc %buf : memref<?xi64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: a size from a value of the body (a loop's result), a size whose
// arithmetic may fail (a division by the index, which may be 0), a size read from an
// array the loop may write (the result is a parameter, which may be the same array),
// an invariant size (hoist-allocs' and expand-allocs' own), a buffer that outlives its
// iteration (not freed there), and no scf.parallel at all.
// CHECK-LABEL: func.func private @from_body(
// CHECK-NOT:     scf.for
// CHECK:         "scf.parallel"
// CHECK:           %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:           memref.dealloc %[[B]]
func.func private @from_body(%n: index, %m: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %sum = scf.for %j = %c0_i64 to %m step %c1_i64 iter_args(%acc = %c0_i64) -> (i64) : i64 {
      %next = arith.addi %acc, %j : i64
      scf.yield %next : i64
    }
    %k = arith.index_cast %sum : i64 to index
    %buf = memref.alloc(%k) : memref<?xi64>
    memref.store %sum, %buf[%c0] : memref<?xi64>
    memref.dealloc %buf : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: func.func private @may_fail(
// CHECK-NOT:     scf.for
// CHECK:         "scf.parallel"
// CHECK:           %[[Q:.*]] = arith.divsi %n, %i : index
// CHECK-NEXT:      %[[B:.*]] = memref.alloc(%[[Q]]) : memref<?xi64>
// CHECK:           memref.dealloc %[[B]]
func.func private @may_fail(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %q = arith.divsi %n, %i : index
    %buf = memref.alloc(%q) : memref<?xi64>
    memref.store %c7, %buf[%c0] : memref<?xi64>
    memref.dealloc %buf : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: func.func private @written(
// CHECK-NOT:     scf.for
// CHECK:         "scf.parallel"
// CHECK:           %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:           memref.dealloc %[[B]]
func.func private @written(%lens: memref<?xi64>, %out: memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %lens, %c0 : memref<?xi64>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %len = memref.load %lens[%i] : memref<?xi64>
    %k = arith.index_cast %len : i64 to index
    %buf = memref.alloc(%k) : memref<?xi64>
    memref.store %len, %buf[%c0] : memref<?xi64>
    memref.dealloc %buf : memref<?xi64>
    memref.store %len, %out[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: func.func private @invariant(
// CHECK-NOT:     scf.for
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%{{.*}}: index):
// CHECK-NEXT:      %[[B:.*]] = memref.alloc(%m) : memref<?xi64>
func.func private @invariant(%n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %buf = memref.alloc(%m) : memref<?xi64>
    memref.store %c7, %buf[%c0] : memref<?xi64>
    memref.dealloc %buf : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: func.func private @outlives(
// CHECK-NOT:     scf.for
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:      %{{.*}} = memref.alloc(%[[I]]) : memref<?xi64>
func.func private @outlives(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %buf = memref.alloc(%i) : memref<?xi64>
    memref.store %c7, %buf[%c0] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: func.func private @sequential(
// CHECK-NEXT:    %{{.*}} = arith.constant
// CHECK-NEXT:    %{{.*}} = arith.constant
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      %[[B:.*]] = memref.alloc(%i) : memref<?xi64>
func.func private @sequential(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %buf = memref.alloc(%i) : memref<?xi64>
    memref.dealloc %buf : memref<?xi64>
  }
  func.return
}
