// RUN: l0-opt %s -p presize-allocs,chunk-parallel,hoist-allocs,expand-allocs | filecheck %s

// A buffer whose size varies per iteration of an scf.parallel (here: the index), through
// the memory planning passes: presize-allocs gives it the maximum size over the
// iterations (a pre-pass before the loop), chunk-parallel runs the rows of a chunk in
// an scf.for, hoist-allocs allocates the buffer once per chunk, and expand-allocs makes
// that one allocation of (chunks x maximum) before the loop (the maximum as it is: -1,
// an overflow, must fail; Note [Hoisting before a loop that may not run]). Each chunk works in its
// slice, each row in a view of its own size at the slice's start; the parallel body
// allocates nothing.

// CHECK-LABEL: func.func private @rows(
// CHECK:         %[[MAX:.*]] = scf.for %[[J:.*]] = %c0 to %n step %c1 iter_args(%{{.*}}) -> (index) {
// CHECK:           arith.maxsi %[[J]]
// CHECK:         }
// CHECK:         %[[W:.*]] = func.call @l0_parallel_width() : () -> i64
// CHECK:         %[[FLAT:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    "scf.parallel"
// CHECK-NEXT:    ^bb0(%{{.*}}: index):
// CHECK-NOT:       memref.alloc
// CHECK:           %[[SLICE:.*]] = memref.reinterpret_cast %[[FLAT]] to offset: [%{{.*}}], sizes: [%[[MAX]]], strides: [1] {l0.iteration_slice} : memref<?xf64> to memref<?xf64>
// CHECK-NEXT:      scf.for
// CHECK-NOT:         memref.alloc
// CHECK:             %[[I:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT:        %[[ROW:.*]] = memref.reinterpret_cast %[[SLICE]] to offset: [0], sizes: [%[[I]]], strides: [1] : memref<?xf64> to memref<?xf64>
// CHECK-NEXT:        memref.store %z, %[[ROW]][%c0] : memref<?xf64>
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       memref.dealloc
// CHECK:         }) {l0.chunks} : (index, index, index) -> ()
// CHECK-NEXT:    memref.dealloc %[[FLAT]] : memref<?xf64>
func.func private @rows(%n: index, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %buf = memref.alloc(%i) : memref<?xf64>
    memref.store %z, %buf[%c0] : memref<?xf64>
    %v = memref.load %buf[%c0] : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    memref.store %v, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
