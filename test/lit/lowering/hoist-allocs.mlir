// RUN: l0-opt %s -p hoist-allocs | filecheck %s

// hoist-allocs (after dealloc): a buffer allocated and freed within one iteration of an
// scf.for is allocated once for the loop: hoisted when its size is invariant, else a
// growing flat buffer the loop nest carries.

// Invariant size, computed in the body from values outside: the size arithmetic, the
// allocation (size clamped at 0) move before the loop, the free after it.
// CHECK-LABEL: func.func private @invariant(
// CHECK:         %[[K:.*]] = arith.index_cast %n : i64 to index
// CHECK:         %[[S:.*]] = arith.maxsi %[[K]], %{{.*}} : index
// CHECK-NEXT:    %[[B:.*]] = memref.alloc(%[[S]]) : memref<?xf64>
// CHECK-NEXT:    %{{.*}} = scf.for
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       memref.dealloc
// CHECK:           memref.store %{{.*}}, %[[B]]
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[B]] : memref<?xf64>
func.func private @invariant(%n: i64) -> f64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) : i64 {
    %k = arith.index_cast %n : i64 to index
    %buf = memref.alloc(%k) : memref<?xf64>
    memref.store %acc, %buf[%i0] : memref<?xf64>
    %x = memref.load %buf[%i0] : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    scf.yield %x : f64
  }
  func.return %r : f64
}

// Out of a nest: the buffer leaves both loops (one level at a time); `memref.dim` of
// the buffer is its size.
// CHECK-LABEL: func.func private @nest(
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.for
// CHECK-NOT:         memref.alloc
// CHECK-NOT:         memref.dim
// CHECK:             memref.store %{{.*}}, %[[B]]
// CHECK:         memref.dealloc %[[B]] : memref<?xf64>
func.func private @nest(%n: i64, %m: index) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f64
  scf.for %i = %c0 to %n step %c1 : i64 {
    scf.for %j = %c0 to %n step %c1 : i64 {
      %buf = memref.alloc(%m) : memref<?xf64>
      %d = memref.dim %buf, %i0 : memref<?xf64>
      memref.store %z, %buf[%d] : memref<?xf64>
      memref.dealloc %buf : memref<?xf64>
    }
  }
  func.return
}

// A size that varies per iteration: the nest carries a flat buffer, allocated empty
// before the outer loop and freed after it; an iteration needing more than its length
// frees it and allocates what it needs (the element count, -1 on overflow), and views
// it row-major with its own sizes.
// CHECK-LABEL: func.func private @varying(
// CHECK:         %[[E:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    %{{.*}}, %[[OUT:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[F0:.*]] = %[[E]]) -> (f64, memref<?xf64>) : i64 {
// CHECK-NEXT:      %{{.*}}, %[[IN:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[F:.*]] = %[[F0]]) -> (f64, memref<?xf64>) : i64 {
// CHECK:             %[[K:.*]] = arith.index_cast %j : i64 to index
// CHECK:             %[[CAP:.*]] = memref.dim %[[F]], %{{.*}} : memref<?xf64>
// CHECK-NEXT:        %[[GROW:.*]] = arith.cmpi sgt, %[[N:.*]], %[[CAP]] : index
// CHECK-NEXT:        %[[BUF:.*]] = scf.if %[[GROW]] -> (memref<?xf64>) {
// CHECK-NEXT:          memref.dealloc %[[F]] : memref<?xf64>
// CHECK-NEXT:          %[[NEW:.*]] = memref.alloc(%[[N]]) : memref<?xf64>
// CHECK-NEXT:          scf.yield %[[NEW]] : memref<?xf64>
// CHECK-NEXT:        } else {
// CHECK-NEXT:          scf.yield %[[F]] : memref<?xf64>
// CHECK-NEXT:        }
// CHECK:             %[[V:.*]] = memref.reinterpret_cast %[[BUF]] to offset: [0], sizes: [%[[K]], %[[K]]], strides: [%{{.*}}, 1] : memref<?xf64> to memref<?x?xf64>
// CHECK-NEXT:        memref.store %{{.*}}, %[[V]]
// CHECK-NOT:         memref.dealloc
// CHECK:             scf.yield %{{.*}}, %[[BUF]] : f64, memref<?xf64>
// CHECK:           scf.yield %{{.*}}, %[[IN]] : f64, memref<?xf64>
// CHECK:         memref.dealloc %[[OUT]] : memref<?xf64>
func.func private @varying(%n: i64) -> f64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) : i64 {
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc2 = %acc) -> (f64) : i64 {
      %k = arith.index_cast %j : i64 to index
      %buf = memref.alloc(%k, %k) : memref<?x?xf64>
      memref.store %acc2, %buf[%i0, %i0] : memref<?x?xf64>
      %x = memref.load %buf[%i0, %i0] : memref<?x?xf64>
      memref.dealloc %buf : memref<?x?xf64>
      scf.yield %x : f64
    }
    scf.yield %r2 : f64
  }
  func.return %r : f64
}

// An array updated in place by an inner loop that yields it unchanged (with its
// ownership flag), freed under that flag: the carried values are their initial ones,
// so the free is unconditional and the buffer is hoisted.
// CHECK-LABEL: func.func private @updated_in_place(
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    scf.for
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       scf.if
// CHECK:         memref.dealloc %[[B]] : memref<?xf64>
func.func private @updated_in_place(%n: i64, %m: index) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f64
  %true = arith.constant true
  scf.for %i = %c0 to %n step %c1 : i64 {
    %buf = memref.alloc(%m) : memref<?xf64>
    %u, %f = scf.for %j = %c0 to %n step %c1 iter_args(%x = %buf, %xf = %true) -> (memref<?xf64>, i1) : i64 {
      memref.store %z, %x[%i0] : memref<?xf64>
      scf.yield %x, %xf : memref<?xf64>, i1
    }
    scf.if %f {
      memref.dealloc %u : memref<?xf64>
    }
  }
  func.return
}

// Must not fire: a buffer yielded to the next iteration outlives its iteration (the
// free in the body is of the previous iteration's buffer).
// CHECK-LABEL: func.func private @carried(
// CHECK:         scf.for
// CHECK:           %[[Y:.*]] = memref.alloc
// CHECK:           scf.yield %[[Y]]
func.func private @carried(%n: i64, %m: index) -> memref<?xf64> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %init = memref.alloc(%m) : memref<?xf64>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> (memref<?xf64>) : i64 {
    %y = memref.alloc(%m) : memref<?xf64>
    "memref.copy"(%x, %y) : (memref<?xf64>, memref<?xf64>) -> ()
    memref.dealloc %x : memref<?xf64>
    scf.yield %y : memref<?xf64>
  }
  func.return %r : memref<?xf64>
}

// Must not fire: freed only in a branch (not in every iteration).
// CHECK-LABEL: func.func private @freed_in_branch(
// CHECK:         scf.for
// CHECK-NEXT:      %[[B:.*]] = memref.alloc
// CHECK:           scf.if
// CHECK-NEXT:        memref.dealloc %[[B]]
func.func private @freed_in_branch(%n: i64, %m: index, %c: i1) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  scf.for %i = %c0 to %n step %c1 : i64 {
    %buf = memref.alloc(%m) : memref<?xf64>
    scf.if %c {
      memref.dealloc %buf : memref<?xf64>
    }
  }
  func.return
}

// Must not fire: the body of an scf.parallel (each iteration needs its own buffer:
// that is expand-allocs), nor an allocation outside any loop.
// CHECK-LABEL: func.func private @parallel_body(
// CHECK:         memref.alloc
// CHECK-NEXT:    memref.dealloc
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%{{.*}}: index):
// CHECK-NEXT:      %[[B:.*]] = memref.alloc
// CHECK:           memref.dealloc %[[B]]
func.func private @parallel_body(%n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %a = memref.alloc(%m) : memref<?xf64>
  memref.dealloc %a : memref<?xf64>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %buf = memref.alloc(%m) : memref<?xf64>
    memref.store %z, %buf[%i] : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// A row literal built in either arm of a branch (each arm allocates, the branch yields
// it with a constant flag), copied and freed in the iteration: the flags agree, so the
// free is unconditional, and each arm's buffer is hoisted.
// CHECK-LABEL: func.func private @literal_rows(
// CHECK-DAG:     %[[A1:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-DAG:     %[[A2:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         scf.for
// CHECK-NOT:       memref.alloc
// CHECK:           scf.if %c -> (memref<?xf64>, i1) {
// CHECK-NEXT:        memref.store %{{.*}}, %[[A1]]
// CHECK:             scf.yield %[[A1]], %{{.*}} : memref<?xf64>, i1
// CHECK:           } else {
// CHECK-NEXT:        memref.store %{{.*}}, %[[A2]]
// CHECK:             scf.yield %[[A2]], %{{.*}} : memref<?xf64>, i1
// CHECK:           "memref.copy"
// CHECK-NEXT:    }
// CHECK-DAG:     memref.dealloc %[[A1]] : memref<?xf64>
// CHECK-DAG:     memref.dealloc %[[A2]] : memref<?xf64>
func.func private @literal_rows(%n: i64, %c: i1, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f64
  scf.for %i = %c0 to %n step %c1 : i64 {
    %row, %f = scf.if %c -> (memref<?xf64>, i1) {
      %three = arith.constant 3 : index
      %a = memref.alloc(%three) : memref<?xf64>
      memref.store %z, %a[%i0] : memref<?xf64>
      %t = arith.constant true
      scf.yield %a, %t : memref<?xf64>, i1
    } else {
      %three2 = arith.constant 3 : index
      %b = memref.alloc(%three2) : memref<?xf64>
      memref.store %z, %b[%i0] : memref<?xf64>
      %t2 = arith.constant true
      scf.yield %b, %t2 : memref<?xf64>, i1
    }
    "memref.copy"(%row, %out) : (memref<?xf64>, memref<?xf64>) -> ()
    scf.if %f {
      memref.dealloc %row : memref<?xf64>
    }
  }
  func.return
}

// Freed in each arm of a branch (its last use is in one of them): freed in every
// iteration all the same, so hoisted.
// CHECK-LABEL: func.func private @freed_in_both_arms(
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    scf.for
// CHECK:         memref.dealloc %[[B]] : memref<?xf64>
// CHECK-NEXT:    func.return
func.func private @freed_in_both_arms(%n: i64, %m: index, %c: i1) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  scf.for %i = %c0 to %n step %c1 : i64 {
    %buf = memref.alloc(%m) : memref<?xf64>
    scf.if %c {
      %x = memref.load %buf[%i0] : memref<?xf64>
      memref.dealloc %buf : memref<?xf64>
    } else {
      memref.dealloc %buf : memref<?xf64>
    }
  }
  func.return
}

// A size that varies per iteration, in a loop nest inside a parallel body: each parallel
// iteration grows its own buffer, starting from one empty buffer the whole function
// shares (allocated at its entry, freed before its return; nothing reads an array of no
// elements). Only a buffer of non-zero capacity is the iteration's own: growth and the
// nest's end free it only then.
// CHECK-LABEL: func.func private @varying_in_parallel(
// CHECK:         %[[E:.*]] = memref.alloc(%{{.*}}) {l0.shared_empty} : memref<?xf64>
// CHECK-NOT:     memref.alloc
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%{{.*}}: index):
// CHECK-NEXT:      %[[OUT:.*]] = scf.for {{.*}} iter_args(%[[F:.*]] = %[[E]]) -> (memref<?xf64>) : i64 {
// CHECK:             %[[BUF:.*]] = scf.if %{{.*}} -> (memref<?xf64>) {
// CHECK:               %[[CAP:.*]] = memref.dim %[[F]], %{{.*}} : memref<?xf64>
// CHECK:               %[[OWN:.*]] = arith.cmpi ne, %[[CAP]], %{{.*}} : index
// CHECK-NEXT:          scf.if %[[OWN]] {
// CHECK-NEXT:            memref.dealloc %[[F]] : memref<?xf64>
// CHECK-NEXT:          }
// CHECK-NEXT:          %[[NEW:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:          scf.yield %[[NEW]] : memref<?xf64>
// CHECK:             memref.reinterpret_cast %[[BUF]]
// CHECK-NOT:         memref.dealloc
// CHECK:             scf.yield %[[BUF]] : memref<?xf64>
// CHECK:           %[[OCAP:.*]] = memref.dim %[[OUT]], %{{.*}} : memref<?xf64>
// CHECK:           %[[OOWN:.*]] = arith.cmpi ne, %[[OCAP]], %{{.*}} : index
// CHECK-NEXT:      scf.if %[[OOWN]] {
// CHECK-NEXT:        memref.dealloc %[[OUT]] : memref<?xf64>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.reduce
// CHECK:         memref.dealloc %[[E]] : memref<?xf64>
// CHECK-NEXT:    func.return
func.func private @varying_in_parallel(%n: index, %m: i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%i0, %n, %i1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%p: index):
    scf.for %j = %c0 to %m step %c1 : i64 {
      %k = arith.index_cast %j : i64 to index
      %buf = memref.alloc(%k) : memref<?xf64>
      memref.store %z, %buf[%i0] : memref<?xf64>
      memref.dealloc %buf : memref<?xf64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
