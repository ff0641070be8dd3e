// RUN: l0-opt %s -p presize-allocs,chunk-parallel,hoist-allocs,expand-allocs | filecheck %s
// RUN: l0-opt %s -p hoist-allocs | filecheck %s --check-prefix=HOIST
// RUN: not l0-opt %s -p 'hoist-allocs{steps=2}' 2>&1 | filecheck %s --check-prefix=BAD

// Buffers of a parallel loop inside a sequential one (a time loop on the host around
// each step's kernels, as flattening leaves LocVolCalib's): when their sizes are the
// same in every step, memory planning allocates them once before the sequential loop,
// even though the sizes are computed by a pre-pass (`presize-allocs`), a checked
// product (its overflow test divides by max(v, 1)) and a chunk count (a call of the
// parallel width). Note [Sizes invariant in a sequential loop] in
// lowering/memory/memory_plan.py.

// BAD: error: bad options for pass 'hoist-allocs'

// The time loop allocates nothing: the pre-pass over the rows, the chunk count and the
// flat buffer of (chunks x largest row) are computed once, before it. The buffer's
// count is -1 when it must fail (an overflow): it does so before the loop when the loop
// runs, and is 0 when it runs no step (Note [Hoisting before a loop that may not run]).
// CHECK-LABEL: func.func private @time_loop(
// CHECK:         %[[MAX:.*]] = scf.for %{{.*}} = %c0 to %n step %c1 iter_args(%{{.*}}) -> (index) {
// CHECK:         func.call @l0_parallel_width() : () -> i64
// CHECK:         arith.divsi %{{.*}}, %{{.*}} : index
// CHECK:         %[[TOTAL:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} {l0.failing_count} : index
// CHECK-NEXT:    %[[NONE:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[RUNS:.*]] = arith.cmpi slt, %c0_i64, %steps : i64
// CHECK-NEXT:    %[[SIZE:.*]] = arith.select %[[RUNS]], %[[TOTAL]], %[[NONE]] : index
// CHECK-NEXT:    %[[FLAT:.*]] = memref.alloc(%[[SIZE]]) : memref<?xf64>
// CHECK-NEXT:    scf.for %k = %c0_i64 to %steps step %c1_i64 : i64 {
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       memref.dealloc
// CHECK:           "scf.parallel"
// CHECK:             memref.reinterpret_cast %[[FLAT]]
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       memref.dealloc
// CHECK:           }) {l0.chunks} : (index, index, index) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[FLAT]] : memref<?xf64>
// CHECK-NEXT:    func.return
func.func private @time_loop(%steps: i64, %n: index, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %z = arith.constant 0.0 : f64
  scf.for %k = %c0_i64 to %steps step %c1_i64 : i64 {
    "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      %buf = memref.alloc(%i) : memref<?xf64>
      memref.store %z, %buf[%c0] : memref<?xf64>
      %v = memref.load %buf[%c0] : memref<?xf64>
      memref.dealloc %buf : memref<?xf64>
      memref.store %v, %out[%i] : memref<?xf64>
      scf.reduce
    }) : (index, index, index) -> ()
  }
  func.return
}

// Must not fire: the rows grow with the step (`%i + %k`), so the pre-pass's maximum
// is the step's own: computed, allocated and freed in each step.
// CHECK-LABEL: func.func private @varying_step(
// CHECK:         scf.for %k = %c0 to %steps step %c1 {
// CHECK:           %[[MAX:.*]] = scf.for
// CHECK:           %[[FLAT:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:           "scf.parallel"
// CHECK:           memref.dealloc %[[FLAT]] : memref<?xf64>
// CHECK-NEXT:    }
func.func private @varying_step(%steps: index, %n: index, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  scf.for %k = %c0 to %steps step %c1 {
    "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      %s = arith.addi %i, %k : index
      %buf = memref.alloc(%s) : memref<?xf64>
      memref.store %z, %buf[%c0] : memref<?xf64>
      %v = memref.load %buf[%c0] : memref<?xf64>
      memref.dealloc %buf : memref<?xf64>
      memref.store %v, %out[%i] : memref<?xf64>
      scf.reduce
    }) : (index, index, index) -> ()
  }
  func.return
}

// A size divided by what is at least 1 (max(m, 1)) moves out of the loop with its
// buffer; a division by what may be 0 (or -1) would trap where the loop runs no
// iteration, so that size is computed in each iteration (its buffer grows when it
// must, hoist-allocs' varying case); the array the loop carries to the next step
// escapes the iteration and is allocated in each (the loop's own array: reuse-freed
// swaps it with the freed one instead).
// HOIST-LABEL: func.func private @divisions(
// HOIST:         %[[ONE:.*]] = arith.maxsi %m, %{{.*}} : index
// HOIST-NEXT:    %[[Q:.*]] = arith.divsi %n, %[[ONE]] : index
// HOIST:         %[[SAFE:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// HOIST:         scf.for %k = %c0 to %steps step %c1
// HOIST-NEXT:      memref.store %z, %[[SAFE]][%c0] : memref<?xf64>
// HOIST-NEXT:      %[[R:.*]] = arith.divsi %n, %m : index
// HOIST:           scf.if
// HOIST-NEXT:        memref.dealloc
// HOIST-NEXT:        memref.alloc
// HOIST:           %[[NEXT:.*]] = memref.alloc(%n) : memref<?xf64>
// HOIST:           scf.yield %[[NEXT]], %{{.*}} : memref<?xf64>, memref<?xf64>
// HOIST:         }
// HOIST:         memref.dealloc %[[SAFE]] : memref<?xf64>
// HOIST-NEXT:    func.return
func.func private @divisions(%steps: index, %n: index, %m: index, %init: memref<?xf64>) -> memref<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %last = scf.for %k = %c0 to %steps step %c1 iter_args(%cur = %init) -> (memref<?xf64>) {
    %one = arith.maxsi %m, %c1 : index
    %q = arith.divsi %n, %one : index
    %safe = memref.alloc(%q) : memref<?xf64>
    memref.store %z, %safe[%c0] : memref<?xf64>
    memref.dealloc %safe : memref<?xf64>
    %r = arith.divsi %n, %m : index
    %risky = memref.alloc(%r) : memref<?xf64>
    memref.store %z, %risky[%c0] : memref<?xf64>
    memref.dealloc %risky : memref<?xf64>
    %next = memref.alloc(%n) : memref<?xf64>
    memref.store %z, %next[%c0] : memref<?xf64>
    scf.yield %next : memref<?xf64>
  }
  func.return %last : memref<?xf64>
}

// Must not fire: the parallel width in a parallel loop's body is 1 on multicore (a
// nested level runs in its thread), so a size computed from it never moves out of
// the parallel loop (to where it is the thread count). It leaves the loop over the
// rows of a chunk (`chunk-parallel`), a sequential loop on the same thread: one
// buffer per chunk.
// CHECK-LABEL: func.func private @width_in_parallel(
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%{{.*}}: index):
// CHECK:           %[[W:.*]] = func.call @l0_parallel_width() : () -> i64
// CHECK-NEXT:      %[[S:.*]] = arith.index_cast %[[W]] : i64 to index
// CHECK:           %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:      scf.for
// CHECK-NOT:         memref.alloc
// CHECK:           }
// CHECK-NEXT:      memref.dealloc %[[B]] : memref<?xf64>
// CHECK-NEXT:      scf.reduce
func.func private @l0_parallel_width() -> i64
func.func private @width_in_parallel(%n: index, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %w = func.call @l0_parallel_width() : () -> i64
    %s = arith.index_cast %w : i64 to index
    %buf = memref.alloc(%s) : memref<?xf64>
    memref.store %z, %buf[%c0] : memref<?xf64>
    %v = memref.load %buf[%c0] : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    memref.store %v, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
