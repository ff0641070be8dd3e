// RUN: l0-opt %s -p convert-parallel-to-omp | filecheck %s
// RUN: l0-opt %s -p convert-parallel-to-omp -t llvm-ir | filecheck %s --check-prefix=LLVM
// RUN: l0-opt %s -p 'convert-parallel-to-omp{merge=false}' | filecheck %s --check-prefix=APART
// RUN: l0-opt %s -p 'convert-parallel-to-omp{profile=true}' | filecheck %s --check-prefix=PROFILE

// Consecutive parallel loops of a block run as phases of one omp.parallel region (Note
// [One region per parallel phase] in lowering/cpu/omp_phases.py). The host code between
// them (here the second loop's threshold: arithmetic and a parameter's load) moves before
// the region, which forks when either loop would have forked alone. Two maps over fresh
// buffers, reading an argument: neither touches what the other writes, no barrier.
// CHECK-LABEL: func.func @two_maps(
// CHECK:         %[[B1:.*]] = arith.andi
// CHECK:         %[[B2:.*]] = arith.andi
// CHECK-NEXT:    %[[EITHER:.*]] = arith.ori %[[B1]], %[[B2]] : i1
// CHECK-NEXT:    "omp.parallel"(%[[EITHER]])
// CHECK-NEXT:      "omp.wsloop"
// CHECK:             memref.store %{{.*}}, %[[O1:.*]][%{{.*}}]
// CHECK:           "omp.wsloop"
// CHECK-NOT:       omp.barrier
// CHECK:             memref.store %{{.*}}, %[[O2:.*]][%{{.*}}]
// CHECK:           "omp.terminator"
// CHECK-NOT:     omp.parallel
// CHECK:         func.return
// APART-LABEL: func.func @two_maps(
// APART-COUNT-2: "omp.parallel"

// With `--profile` a merged region is one launch of its first loop's site, its
// iterations those of its phases together (the clock is read after the moved code).
// PROFILE-LABEL: func.func @two_maps(
// PROFILE:         arith.ceildivsi
// PROFILE-NEXT:    arith.constant 0
// PROFILE-NEXT:    %[[T1:.*]] = arith.maxsi
// PROFILE:         arith.ceildivsi
// PROFILE-NEXT:    arith.constant 0
// PROFILE-NEXT:    %[[T2:.*]] = arith.maxsi
// PROFILE:         arith.ori
// PROFILE:         func.call @clock_gettime
// PROFILE:         "omp.parallel"
// PROFILE:         }) {l0.site = "two_maps:parallel"} : (i1) -> ()
// PROFILE-NOT:     "omp.parallel"
// PROFILE:         %[[ALL:.*]] = arith.addi %[[T1]], %[[T2]] : i64
// PROFILE:         memref.atomic_rmw{{.*}}(%[[ALL]],
func.func @two_maps(%a: memref<?xf64>) -> (memref<?xf64>, memref<?xf64>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  %o1 = memref.alloc(%n) : memref<?xf64>
  %o2 = memref.alloc(%n) : memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    %y = arith.addf %x, %x : f64
    memref.store %y, %o1[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    %y = arith.mulf %x, %x : f64
    memref.store %y, %o2[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return %o1, %o2 : memref<?xf64>, memref<?xf64>
}

// The second map reads what the first wrote (through a view): a barrier between them.
// CHECK-LABEL: func.func @dependent(
// CHECK:         "omp.parallel"
// CHECK:           "omp.wsloop"
// CHECK:           "omp.barrier"() : () -> ()
// CHECK-NEXT:      "omp.wsloop"
// CHECK:           "omp.terminator"
// CHECK-NOT:     omp.parallel
// CHECK:         func.return
func.func @dependent(%a: memref<?xf64>) -> memref<?xf64> {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  %o1 = memref.alloc(%n) : memref<?xf64>
  %o2 = memref.alloc(%n) : memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    memref.store %x, %o1[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  %v = "memref.cast"(%o1) : (memref<?xf64>) -> memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %j = arith.subi %n, %i : index
    %k = arith.subi %j, %one : index
    %x = memref.load %v[%k] : memref<?xf64>
    memref.store %x, %o2[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return %o2 : memref<?xf64>
}

// A map, then a reduction of what it wrote: the reduction's chunk count and the buffer
// of its partial results are made before the region (the map cannot fail, so the
// allocation may go first), a barrier separates the phases, and the partial results
// are combined in chunk order after the region, as without merging.
// CHECK-LABEL: func.func @map_then_sum(
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         %[[PARTS:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         "omp.parallel"
// CHECK:           "omp.wsloop"
// CHECK:             arith.mulf
// CHECK:           "omp.barrier"
// CHECK-NEXT:      "omp.wsloop"
// CHECK:             memref.store %{{.*}}, %[[PARTS]]
// CHECK:           "omp.terminator"
// CHECK:         %[[P0:.*]] = memref.load %[[PARTS]]
// CHECK:         scf.for
// CHECK:         memref.dealloc %[[PARTS]]
func.func @map_then_sum(%a: memref<?xf64>, %init: f64) -> f64 {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  %o = memref.alloc(%n) : memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    %y = arith.mulf %x, %x : f64
    memref.store %y, %o[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  %s = "scf.parallel"(%z, %n, %one, %init) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    %x = memref.load %o[%i] : memref<?xf64>
    scf.reduce(%x : f64) {
    ^bb1(%l: f64, %r: f64):
      %y = arith.addf %l, %r : f64
      scf.reduce.return %y : f64
    }
  }) : (index, index, index, f64) -> f64
  memref.dealloc %o : memref<?xf64>
  func.return %s : f64
}

// Host code that can neither run before the next loop nor fail may run after it: here
// the reduction's combining loop (which reads only its partial results) and the frees
// of the partials and of an old buffer, so a reduction and the map after it (which
// uses neither its result nor the freed buffers) are one region, with no barrier.
// CHECK-LABEL: func.func @sum_then_map(
// CHECK:         %[[PARTS:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         "omp.parallel"
// CHECK:           "omp.wsloop"
// CHECK:             memref.store %{{.*}}, %[[PARTS]]
// CHECK-NOT:       omp.barrier
// CHECK:           "omp.wsloop"
// CHECK:             memref.store %{{.*}}, %[[O:.*]][%{{.*}}] : memref<?xf64>
// CHECK:           "omp.terminator"
// CHECK-NEXT:    }) {l0.site = "sum_then_map:parallel"} : (i1) -> ()
// CHECK:         %[[S:.*]] = scf.for
// CHECK:         memref.dealloc %[[PARTS]]
// CHECK-NEXT:    memref.dealloc %[[OLD:.*]] : memref<?xf64>
// CHECK-NOT:     omp.parallel
// CHECK:         func.return %[[O]], %[[S]]
func.func @sum_then_map(%a: memref<?xf64>, %old: memref<?xf64>, %init: f64) -> (memref<?xf64>, f64) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  %s = "scf.parallel"(%z, %n, %one, %init) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    %x = memref.load %old[%i] : memref<?xf64>
    scf.reduce(%x : f64) {
    ^bb1(%l: f64, %r: f64):
      %y = arith.addf %l, %r : f64
      scf.reduce.return %y : f64
    }
  }) : (index, index, index, f64) -> f64
  memref.dealloc %old : memref<?xf64>
  %o = memref.alloc(%n) : memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    %y = arith.addf %x, %init : f64
    memref.store %y, %o[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return %o, %s : memref<?xf64>, f64
}

// Must not fire: host code that cannot move (a store the second loop may read: not
// before the first loop, which reads it, nor after the second) ends the region, and so
// does a reduction's combining loop whose result the next loop uses: each loop keeps a
// region of its own.
// CHECK-LABEL: func.func @host_between(
// CHECK:         "omp.parallel"
// CHECK-NOT:       omp.barrier
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf64>
// CHECK:         "omp.parallel"
// CHECK:         scf.for
// CHECK:         "omp.parallel"
// CHECK:         func.return
func.func @host_between(%a: memref<?xf64>, %init: f64) -> (memref<?xf64>, f64) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  %o = memref.alloc(%n) : memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    memref.store %x, %o[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  memref.store %init, %a[%z] : memref<?xf64>
  %s = "scf.parallel"(%z, %n, %one, %init) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    scf.reduce(%x : f64) {
    ^bb1(%l: f64, %r: f64):
      %y = arith.addf %l, %r : f64
      scf.reduce.return %y : f64
    }
  }) : (index, index, index, f64) -> f64
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    %y = arith.addf %x, %s : f64
    memref.store %y, %o[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return %o, %s : memref<?xf64>, f64
}

// Must not fire: loops inside another parallel loop run in its threads (nothing to
// merge), and loops in different blocks (a branch and after it) are not consecutive.
// CHECK-LABEL: func.func @not_consecutive(
// CHECK:         "omp.parallel"
// CHECK:           "omp.loop_nest"
// CHECK:             "scf.parallel"
// CHECK:             "scf.parallel"
// CHECK:         scf.if
// CHECK:           "omp.parallel"
// CHECK:         }
// CHECK:         "omp.parallel"
// CHECK:         func.return
func.func @not_consecutive(%m: memref<?x?xf64>, %c: i1) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %m, %z : memref<?x?xf64>
  %k = memref.dim %m, %one : memref<?x?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    "scf.parallel"(%z, %k, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb1(%j: index):
      %x = memref.load %m[%i, %j] : memref<?x?xf64>
      %y = arith.addf %x, %x : f64
      memref.store %y, %m[%i, %j] : memref<?x?xf64>
      scf.reduce
    }) : (index, index, index) -> ()
    "scf.parallel"(%z, %k, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb1(%j: index):
      %x = memref.load %m[%i, %j] : memref<?x?xf64>
      %y = arith.mulf %x, %x : f64
      memref.store %y, %m[%i, %j] : memref<?x?xf64>
      scf.reduce
    }) : (index, index, index) -> ()
    scf.reduce
  }) : (index, index, index) -> ()
  scf.if %c {
    "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      %x = memref.load %m[%i, %z] : memref<?x?xf64>
      memref.store %x, %m[%i, %one] : memref<?x?xf64>
      scf.reduce
    }) : (index, index, index) -> ()
  }
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %m[%i, %one] : memref<?x?xf64>
    memref.store %x, %m[%i, %z] : memref<?x?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Barriers: a loop that may fail is waited for even by a loop that touches nothing of
// it (a failure must stop what follows); and an allocation after it stays where it is
// (it must not fail first), which ends the region. Two arguments may be one buffer:
// writing one and then reading the other needs a barrier.
// CHECK-LABEL: func.func @barriers(
// CHECK:         "omp.parallel"
// CHECK:           "omp.wsloop"
// CHECK:             soac.assert
// CHECK:           "omp.barrier"
// CHECK-NEXT:      "omp.wsloop"
// CHECK:           "omp.terminator"
// CHECK:         memref.alloc
// CHECK:         "omp.parallel"
// CHECK:           "omp.wsloop"
// CHECK:           "omp.barrier"
// CHECK-NEXT:      "omp.wsloop"
// CHECK:           "omp.terminator"
// CHECK-NOT:     omp.parallel
// CHECK:         func.return
func.func @barriers(%a: memref<?xi64>, %b: memref<?xi64>, %o: memref<?xi64>) -> memref<?xi64> {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %n = memref.dim %a, %z : memref<?xi64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xi64>
    %ok = arith.cmpi sge, %x, %zero : i64
    %c = soac.assert %ok, "negative {0}" (%x : i64) at "f.l0:1:1"
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %b[%i] : memref<?xi64>
    memref.store %x, %o[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  %fresh = memref.alloc(%n) : memref<?xi64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %b[%i] : memref<?xi64>
    memref.store %x, %fresh[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %o[%i] : memref<?xi64>
    memref.store %x, %a[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return %fresh : memref<?xi64>
}

// LLVM IR: one GOMP_parallel for the two maps, whose outlined function runs both
// phases; a barrier is called only when the region forked (a serial or nested run has
// no team to wait for). In a region of several phases a failing thread goes on to its
// phase's end (not out of the function: the others would wait for it at the barrier),
// and a phase after one that may fail runs only if nothing failed.
// LLVM-LABEL: define internal {{.*}} @"l0.fn.two_maps"(
// LLVM:         call void @"GOMP_parallel"({{.*}}@"l0.omp.two_maps.1"
// LLVM-NOT:     call void @"GOMP_parallel"
// LLVM-LABEL: define internal {{.*}} @"l0.fn.dependent"(
// LLVM:       define internal void @"l0.omp.two_maps.1"(
// LLVM-COUNT-2: omp.head{{.*}}:
// LLVM-NOT:     GOMP_barrier
// LLVM:         ret void
// LLVM:       define internal void @"l0.omp.dependent.2"(
// LLVM:       omp.end:
// LLVM:         br i1 %{{.*}}, label %"omp.end.if", label %"omp.end.endif"
// LLVM:       omp.end.if:
// LLVM-NEXT:    call void @"GOMP_barrier"()
// LLVM:       omp.head.1:
// LLVM:       define internal void @"l0.omp.barriers.[[#]]"(
// LLVM:       fail:
// LLVM:         atomicrmw min
// LLVM-NEXT:    br label %"omp.end"
// LLVM:         call void @"GOMP_barrier"()
// LLVM:         %[[FIRST:.*]] = load atomic i64
// LLVM-NEXT:    %[[NONE:.*]] = icmp eq i64 %[[FIRST]], 9223372036854775807
// LLVM-NEXT:    br i1 %[[NONE]], label %"omp.head{{.*}}", label %"omp.end{{.*}}"

// A time step (LocVolCalib's, flattened): the step's host code between its two loops
// moves out of the way, so the step is one region. A division by a value clamped to at
// least 1 (a threshold's work estimate) cannot trap; a bounds check under a condition
// may fail but writes nothing, and the first loop cannot fail, so it runs first; the
// next step's buffer, the carried one reused when its shape fits or else freed and
// reallocated, splits: the allocation runs before the region, the free after it (the
// first loop reads the carried buffer). The second loop writes the buffer the step
// returns, which may be the carried one the first reads: a barrier between them.
// CHECK-LABEL: func.func @time_step(
// CHECK:         scf.for
// CHECK:           arith.divsi
// CHECK:           scf.if %{{.*}} {
// CHECK:             soac.assert
// CHECK:           %[[NEXT:.*]] = scf.if %[[FITS:.*]] -> (memref<?xf64>) {
// CHECK-NEXT:        scf.yield %[[BUF:.*]] : memref<?xf64>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[NEW:.*]] = memref.alloc
// CHECK-NEXT:        scf.yield %[[NEW]] : memref<?xf64>
// CHECK:           "omp.parallel"
// CHECK:             "omp.wsloop"
// CHECK:               memref.load %[[BUF]]
// CHECK:             "omp.barrier"
// CHECK-NEXT:        "omp.wsloop"
// CHECK:               memref.store %{{.*}}, %[[NEXT]]
// CHECK:             "omp.terminator"
// CHECK-NEXT:      })
// CHECK-NEXT:      scf.if %[[FITS]] {
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.if %{{.*}} {
// CHECK-NEXT:          memref.dealloc %[[BUF]] : memref<?xf64>
// CHECK-NOT:       "omp.parallel"
// CHECK:           scf.yield
// APART-LABEL: func.func @time_step(
// APART-COUNT-2: "omp.parallel"
func.func @time_step(%a: memref<?xf64>, %m: index, %steps: index, %k: i64) -> memref<?xf64> {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %c1 = arith.constant 1 : i64
  %false = arith.constant false
  %true = arith.constant true
  %n = memref.dim %a, %z : memref<?xf64>
  %u = memref.alloc(%n) : memref<?xf64>
  %r:2 = scf.for %t = %z to %steps step %one iter_args(%buf = %a, %own = %false) -> (memref<?xf64>, i1) {
    "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      %x = memref.load %buf[%i] : memref<?xf64>
      memref.store %x, %u[%i] : memref<?xf64>
      scf.reduce
    }) : (index, index, index) -> ()
    %cost = arith.maxsi %k, %c1 : i64
    %per = arith.divsi %k, %cost : i64
    %nonempty = arith.cmpi sgt, %per, %c1 : i64
    scf.if %nonempty {
      %ok = arith.cmpi sgt, %k, %c1 : i64
      %c = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "f.l0:2:1"
    }
    %d = memref.dim %buf, %z : memref<?xf64>
    %fits = arith.cmpi eq, %d, %m : index
    %next = scf.if %fits -> (memref<?xf64>) {
      scf.yield %buf : memref<?xf64>
    } else {
      scf.if %own {
        memref.dealloc %buf : memref<?xf64>
      }
      %new = memref.alloc(%m) : memref<?xf64>
      scf.yield %new : memref<?xf64>
    }
    "scf.parallel"(%z, %m, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      %x = memref.load %u[%i] : memref<?xf64>
      memref.store %x, %next[%i] : memref<?xf64>
      scf.reduce
    }) : (index, index, index) -> ()
    scf.yield %next, %true : memref<?xf64>, i1
  }
  memref.dealloc %u : memref<?xf64>
  func.return %r#0 : memref<?xf64>
}

// Must not fire: after a loop that may fail, a check stays where it is (its error must
// not come first), and so does a division by a value that may be 0 (clamped to at
// least 0 only): each ends the region.
// CHECK-LABEL: func.func @after_failing(
// CHECK:         "omp.parallel"
// CHECK:           soac.assert
// CHECK:         scf.if
// CHECK:           soac.assert
// CHECK:         "omp.parallel"
// CHECK:         arith.divsi
// CHECK:         "omp.parallel"
// CHECK-NOT:     "omp.parallel"
// CHECK:         func.return
func.func @after_failing(%a: memref<?xi64>, %o: memref<?xi64>, %k: i64, %c: i1) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %n = memref.dim %a, %z : memref<?xi64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xi64>
    %ok = arith.cmpi sge, %x, %zero : i64
    %f = soac.assert %ok, "negative {0}" (%x : i64) at "f.l0:1:1"
    scf.reduce
  }) : (index, index, index) -> ()
  scf.if %c {
    %ok = arith.cmpi sgt, %k, %zero : i64
    %f = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "f.l0:2:1"
  }
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xi64>
    %ok = arith.cmpi sge, %x, %zero : i64
    %f = soac.assert %ok, "negative {0}" (%x : i64) at "f.l0:1:1"
    scf.reduce
  }) : (index, index, index) -> ()
  %cost = arith.maxsi %k, %zero : i64
  %per = arith.divsi %k, %cost : i64
  %pi = arith.index_cast %per : i64 to index
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%pi] : memref<?xi64>
    memref.store %x, %o[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
