// RUN: l0-opt %s -p 'expand-allocs{threads_apart=true}' | filecheck %s
// RUN: l0-opt %s -p expand-allocs | filecheck %s --check-prefix=PACKED
// RUN: not l0-opt %s -p 'expand-allocs{threads_apart=maybe}' 2>&1 | filecheck %s --check-prefix=BAD

// Note [Slices of threads]: the slices of a loop over chunks (its iterations are
// threads: `l0.chunks`, or an upper bound that is a chunk count) start a whole number
// of 64 elements apart, with at least 64 between them, so that two threads never write
// one cache line; multicore lowers with `threads_apart` (lowering/pipeline.py).
// CHECK-LABEL: func.func private @chunks(
// CHECK:         %[[LINE:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %{{.*}}, %[[LINE]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.muli %[[Q]], %[[LINE]] : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %[[PAD:.*]] = arith.addi %[[R]], %[[TWO]] : index
// CHECK:         %[[APART:.*]] = arith.select %{{.*}}, %[[PAD]], %{{.*}} : index
// CHECK:         "scf.parallel"
// CHECK:           %[[OFF:.*]] = arith.muli %{{.*}}, %[[APART]] : index
// CHECK-NEXT:      memref.reinterpret_cast %{{.*}} to offset: [%[[OFF]]]
// PACKED-LABEL: func.func private @chunks(
// PACKED-NOT:     arith.constant 64 : index
// PACKED:         "scf.parallel"
// BAD: error: bad options for pass 'expand-allocs'
func.func private @chunks(%c: index, %m: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  "scf.parallel"(%c0, %c, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %k = arith.index_cast %m : i64 to index
    %buf = memref.alloc(%k) : memref<?xi64>
    memref.store %z, %buf[%c0] : memref<?xi64>
    memref.dealloc %buf : memref<?xi64>
    scf.reduce
  }) {l0.chunks} : (index, index, index) -> ()
  func.return
}

// Must not fire: a loop over rows keeps its slices packed (a slice per row).
// CHECK-LABEL: func.func private @rows(
// CHECK-NOT:     arith.constant 64 : index
// CHECK:         "scf.parallel"
// CHECK-NOT:       arith.constant 64 : index
// CHECK:           memref.reinterpret_cast
func.func private @rows(%n: index, %m: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %k = arith.index_cast %m : i64 to index
    %buf = memref.alloc(%k) : memref<?xi64>
    memref.store %z, %buf[%c0] : memref<?xi64>
    memref.dealloc %buf : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
