// RUN: l0-opt %s -p expand-allocs | filecheck %s

// expand-allocs (after dealloc): a buffer each iteration of an scf.parallel allocates
// and frees becomes one allocation before the loop, (iterations x elements), each
// iteration viewing its own slice; freed after the loop.

// CHECK-LABEL: func.func private @expand(
// CHECK:         %[[K:.*]] = arith.index_cast %m : i64 to index
// CHECK:         %[[FLAT:.*]] = memref.alloc(%[[TOTAL:.*]]) : memref<?xf64>
// CHECK-NEXT:    "scf.parallel"
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK-NOT:       memref.alloc
// CHECK:           %[[D:.*]] = arith.divsi %{{.*}}, %c1 : index
// CHECK:           %[[L:.*]] = arith.addi %{{.*}}, %[[D]] : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli %[[L]], %{{.*}} : index
// CHECK-NEXT:      %[[V:.*]] = memref.reinterpret_cast %[[FLAT]] to offset: [%[[OFF]]], sizes: [%[[K]], 3], strides: [3, 1] {l0.iteration_slice} : memref<?xf64> to memref<?x3xf64>
// CHECK-NEXT:      memref.store %{{.*}}, %[[V]][%[[I]], %{{.*}}] : memref<?x3xf64>
// CHECK-NOT:       memref.dealloc
// CHECK:         }) : (index, index, index) -> ()
// CHECK-NEXT:    memref.dealloc %[[FLAT]] : memref<?xf64>
func.func private @expand(%n: index, %m: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %k = arith.index_cast %m : i64 to index
    %buf = memref.alloc(%k) : memref<?x3xf64>
    memref.store %z, %buf[%i, %c0] : memref<?x3xf64>
    memref.dealloc %buf : memref<?x3xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: a size that varies per iteration (presize-allocs, before, gives such a
// buffer its maximum size: expand-allocs-varying.mlir), a buffer that outlives the iteration (stored nowhere, but not freed in
// it: it is the caller's), and no scf.parallel at all.
// CHECK-LABEL: func.func private @varying(
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:      %[[B:.*]] = memref.alloc(%[[I]]) : memref<?xf64>
// CHECK:           memref.dealloc %[[B]]
func.func private @varying(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %buf = memref.alloc(%i) : memref<?xf64>
    memref.store %z, %buf[%c0] : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: func.func private @sequential(
// CHECK:         scf.for
// CHECK-NEXT:      %[[B:.*]] = memref.alloc
// CHECK:           memref.dealloc %[[B]]
func.func private @sequential(%n: i64, %m: index) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  scf.for %i = %c0 to %n step %c1 : i64 {
    %buf = memref.alloc(%m) : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
  }
  func.return
}
