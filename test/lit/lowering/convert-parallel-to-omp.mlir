// RUN: l0-opt %s -p convert-parallel-to-omp | filecheck %s
// RUN: l0-opt %s -p convert-parallel-to-omp -t llvm-ir | filecheck %s --check-prefix=LLVM
// RUN: l0-opt %s -p convert-parallel-to-omp -t llvm-ir | filecheck %s --check-prefix=CONST

// The outermost scf.parallel becomes omp.parallel (forking only when its trips times
// the work of an iteration, here 3 ops, reach its run-time threshold, and it has two
// trips or more) + omp.wsloop (static schedule) + omp.loop_nest over the same bounds.
// The threshold is an exported global named after the region, its default the thread
// count times 2^14, which the code computes itself while no driver has set it (its
// initial value -1: Note [Unset parameters]).
// CHECK-DAG:   "memref.global"() <{sym_name = "[[MAPP:l0_param\..*]]", type = memref<1xi64>, initial_value = dense<-1> : tensor<1xi64>, sym_visibility = "public"}> {l0.param = "map:parallel.min_work", l0.param_default = "threads*16384"}
// CHECK-DAG:   l0.param = "copy_rows:copy.min_work"
// CHECK-LABEL: func.func @map(
// CHECK:         %[[SPAN:.*]] = arith.subi %[[N:.*]], %[[Z:.*]] : index
// CHECK:         %[[TR:.*]] = arith.ceildivsi
// CHECK-NEXT:    %[[Z64:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[T:.*]] = arith.maxsi %[[TR]], %[[Z64]] : i64
// The work, trips x 3, saturated below the largest i64 (the threshold that no work
// reaches) is compared with the threshold.
// CHECK-NEXT:    %[[W:.*]] = arith.constant 3 : i64
// CHECK-NEXT:    %[[PROD:.*]] = arith.muli %[[T]], %[[W]] : i64
// CHECK-NEXT:    %[[MOST:.*]] = arith.constant 3074457345618258602 : i64
// CHECK-NEXT:    %[[OVER:.*]] = arith.cmpi sgt, %[[T]], %[[MOST]] : i64
// CHECK-NEXT:    %[[CAP:.*]] = arith.constant 9223372036854775806 : i64
// CHECK-NEXT:    %[[WORK:.*]] = arith.select %[[OVER]], %[[CAP]], %[[PROD]] : i64
// CHECK-NEXT:    %[[PG:.*]] = memref.get_global @[[MAPP]] : memref<1xi64>
// CHECK:         %[[RAW:.*]] = memref.load %[[PG]]
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[UNSET:.*]] = arith.cmpi slt, %[[RAW]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[WIDTH:.*]] = func.call @l0_parallel_width() : () -> i64
// CHECK-NEXT:    %[[K:.*]] = arith.constant 16384 : i64
// CHECK-NEXT:    %[[DEF:.*]] = arith.muli %[[WIDTH]], %[[K]] : i64
// CHECK-NEXT:    %[[MW:.*]] = arith.select %[[UNSET]], %[[DEF]], %[[RAW]] : i64
// CHECK-NEXT:    %[[ENOUGH:.*]] = arith.cmpi sge, %[[WORK]], %[[MW]] : i64
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT:    %[[MANY:.*]] = arith.cmpi sge, %[[T]], %[[TWO]] : i64
// CHECK-NEXT:    %[[BIG:.*]] = arith.andi %[[MANY]], %[[ENOUGH]] : i1
// CHECK-NEXT:    "omp.parallel"(%[[BIG]])
// CHECK-NEXT:      "omp.wsloop"() <{{.*}}schedule_kind = #omp<schedulekind static>}> ({
// CHECK-NEXT:        "omp.loop_nest"(%[[Z]], %[[N]], %{{.*}}) ({
// CHECK-NEXT:        ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:          %[[X:.*]] = memref.load %{{.*}}[%[[I]]] : memref<?xf64>
// CHECK-NEXT:          memref.store %[[X]], %{{.*}}[%[[I]]] : memref<?xf64>
// CHECK-NEXT:          omp.yield
// CHECK:           "omp.terminator"()
// CHECK-NOT:     scf.parallel
func.func @map(%a: memref<?xf64>, %o: memref<?xf64>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    memref.store %x, %o[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// A body with a loop is more work per iteration: an inner loop counts 16 times its
// body (4 ops) plus one, and the scf.reduce: 66. An inner scf.parallel is not converted (it
// runs sequentially inside a thread).
// CHECK-LABEL: func.func @nest(
// CHECK:         arith.constant 66 : i64
// CHECK:         "omp.parallel"
// CHECK:           "omp.loop_nest"
// CHECK:             "scf.parallel"
// CHECK-NOT:           omp.
// CHECK:               scf.reduce
func.func @nest(%m: memref<?x?xf64>) {
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
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// A two-dimensional loop: threads share the first dimension; the second is an inner
// scf.parallel, run sequentially by each thread.
// CHECK-LABEL: func.func @two_dims(
// CHECK:         "omp.parallel"
// CHECK:           "omp.loop_nest"(%[[Z:.*]], %[[N:.*]], %[[ONE:.*]]) ({
// CHECK-NEXT:      ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:        "scf.parallel"(%[[Z]], %[[K:.*]], %[[ONE]]) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT:        ^{{.*}}(%[[J:.*]]: index):
// CHECK-NEXT:          %{{.*}} = memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK:               scf.reduce
// CHECK:             omp.yield
func.func @two_dims(%m: memref<?x?xf64>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %m, %z : memref<?x?xf64>
  %k = memref.dim %m, %one : memref<?x?xf64>
  "scf.parallel"(%z, %z, %n, %k, %one, %one) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb0(%i: index, %j: index):
    %x = memref.load %m[%i, %j] : memref<?x?xf64>
    %y = arith.addf %x, %x : f64
    memref.store %y, %m[%i, %j] : memref<?x?xf64>
    scf.reduce
  }) : (index, index, index, index, index, index) -> ()
  func.return
}

// A reduction: partial results per chunk (chunk 0 from the initial value, the others
// from their first value), in parallel, then combined in chunk order.
// The loop over chunks forks by the work of its rows (n times a row's, 31), not of
// its few iterations.
// CHECK-LABEL: func.func @sum(
// CHECK:         %[[ROWS:.*]] = arith.subi
// CHECK:         %[[W:.*]] = func.call @l0_parallel_width() : () -> i64
// CHECK:         %[[C:.*]] = arith.maxsi %{{.*}} {l0.chunk_count = "rows/min_chunk"} : i64
// CHECK:         %[[PARTS:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         %[[ROW:.*]] = arith.constant 31 : i64
// CHECK-NEXT:    %[[WORK:.*]] = arith.muli %[[ROWS]], %[[ROW]] : i64
// CHECK:         %[[SAT:.*]] = arith.select %{{.*}}, %{{.*}}, %[[WORK]] : i64
// CHECK:         arith.cmpi sge, %[[SAT]], %{{.*}} : i64
// CHECK:         "omp.parallel"
// CHECK:           "omp.loop_nest"
// CHECK:             %[[FIRST:.*]] = arith.cmpi eq
// CHECK-NEXT:        %{{.*}}, %{{.*}} = scf.if %[[FIRST]] -> (f64, i64) {
// CHECK-NEXT:          scf.yield %[[INIT:.*]], %{{.*}} : f64, i64
// CHECK-NEXT:        } else {
// CHECK:               memref.load
// CHECK:             scf.for
// CHECK:               arith.addf
// CHECK:             memref.store %{{.*}}, %[[PARTS]]
// CHECK:         %[[P0:.*]] = memref.load %[[PARTS]]
// CHECK:         %[[S:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[P0]]) -> (f64) : i64 {
// CHECK:           %[[P:.*]] = memref.load %[[PARTS]]
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[ACC]], %[[P]] : f64
// CHECK-NEXT:      scf.yield %[[R]] : f64
// CHECK:         memref.dealloc %[[PARTS]]
// CHECK:         func.return %[[S]] : f64
func.func @sum(%a: memref<?xf64>, %init: f64) -> f64 {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  %s = "scf.parallel"(%z, %n, %one, %init) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    scf.reduce(%x : f64) {
    ^bb1(%l: f64, %r: f64):
      %y = arith.addf %l, %r : f64
      scf.reduce.return %y : f64
    }
  }) : (index, index, index, f64) -> f64
  func.return %s : f64
}

func.func @checked(%a: memref<?xi64>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xi64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xi64>
    %zero = arith.constant 0 : i64
    %ok = arith.cmpi sge, %x, %zero : i64
    %c = soac.assert %ok, "negative {0}" (%x : i64) at "f.l0:1:1"
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// LLVM IR: each region is outlined and run by GOMP_parallel (serially below the grain
// size or inside another region); each thread takes its static chunk.
// The parallel width is the thread count, 1 inside a region.
// LLVM:       define internal i64 @"l0_parallel_width"()
// LLVM:         call i32 @"omp_in_parallel"()
// LLVM:         call i32 @"omp_get_max_threads"()
// LLVM-LABEL: define internal {i32} @"l0.fn.map"(
// LLVM:         call i32 @"omp_in_parallel"()
// LLVM:         call void @"GOMP_parallel"({{.*}} @"l0.omp.map.1", ptr %{{.*}}, i32 %{{.*}}, i32 0)
// LLVM:         call void @"l0.omp.map.1"(ptr %{{.*}})
// After the join, the first failing thread's error (if any) becomes the caller's.
// LLVM:         {{.*}}icmp ne i64 %{{.*}}, 9223372036854775807
// LLVM:         call void @"llvm.memmove.p0.p0.i64"(ptr %"ctx"
// LLVM:       define internal void @"l0.omp.map.1"(ptr %{{.*}})
// LLVM:         call i32 @"omp_get_thread_num"()
// LLVM:         call i32 @"omp_get_num_threads"()
// Thread t of nt runs trips [t*per, min(trips, (t+1)*per)), per = ceil(trips/nt), all
// computed without leaving 64 bits: trips = (span - 1)/step + 1, per = trips/nt +
// (trips % nt != 0), and the end is the trip count when fewer than per trips are left.
// LLVM:         %[[SPAN:.*]] = sub i64 %{{.*}}, 0
// LLVM-NEXT:    %[[S1:.*]] = sub i64 %[[SPAN]], 1
// LLVM-NEXT:    %[[D:.*]] = sdiv i64 %[[S1]], 1
// LLVM-NEXT:    %[[T1:.*]] = add i64 %[[D]], 1
// LLVM-NEXT:    %[[POS:.*]] = icmp sgt i64 %[[SPAN]], 0
// LLVM-NEXT:    %[[TRIPS:.*]] = select i1 %[[POS]], i64 %[[T1]], i64 0
// LLVM-NEXT:    %[[REM:.*]] = srem i64 %[[TRIPS]], %[[NT:.*]]
// LLVM-NEXT:    %[[NZ:.*]] = icmp ne i64 %[[REM]], 0
// LLVM-NEXT:    %[[UP:.*]] = zext i1 %[[NZ]] to i64
// LLVM-NEXT:    %[[Q:.*]] = sdiv i64 %[[TRIPS]], %[[NT]]
// LLVM-NEXT:    %[[PER:.*]] = add i64 %[[Q]], %[[UP]]
// LLVM-NEXT:    %[[BEGIN:.*]] = mul i64 %{{.*}}, %[[PER]]
// LLVM-NEXT:    %[[LEFT:.*]] = sub i64 %[[TRIPS]], %[[BEGIN]]
// LLVM-NEXT:    %[[FEW:.*]] = icmp slt i64 %[[LEFT]], %[[PER]]
// LLVM-NEXT:    %[[NEXT:.*]] = add i64 %[[BEGIN]], %[[PER]]
// LLVM-NEXT:    %{{.*}} = select i1 %[[FEW]], i64 %[[TRIPS]], i64 %[[NEXT]]
// LLVM-NEXT:    br label %"omp.head"
// A thread whose body can fail stops once an earlier thread has failed; a failing thread
// records its error and lowers the first failing thread (atomic min).
// LLVM:       define internal void @"l0.omp.checked.5"(
// LLVM:         load atomic i64, ptr %{{.*}} monotonic
// LLVM:         atomicrmw min ptr %{{.*}}, i64 %{{.*}} monotonic

// Constants the region uses from outside are emitted again in the outlined function, not
// passed through the data struct: LLVM then sees the unit step (and versions the loop
// for unit strides, so that it vectorises with wide loads) and the constant operands.
// CONST-LABEL: define internal {i32} @"l0.fn.scale"(
// CONST-NOT:     store double
// CONST:         call void @"GOMP_parallel"({{.*}} @"l0.omp.scale.6"
// CONST-LABEL: define internal void @"l0.omp.scale.6"(
// Only a worker thread asks for its own stack floor (thread 0 keeps the caller's).
// CONST:         br i1 %{{.*}}, label %"entry.if", label %"entry.endif"
// CONST:       entry.if:
// CONST-NEXT:    call i64 @"l0.rt.thread_stack_floor"()
// CONST:         mul i64 %{{.*}}, 1
// CONST:         fmul double %{{.*}}, 0x4004000000000000
func.func @scale(%a: memref<?xf64>, %o: memref<?xf64>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %k = arith.constant 2.5 : f64
  %n = memref.dim %a, %z : memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    %y = arith.mulf %x, %k : f64
    memref.store %y, %o[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// A copy of rank 2 outside every parallel loop: from GRAIN elements on, a parallel loop
// copying a row per iteration over the rows both sides have (grain 2: a row is real
// work); a smaller copy stays whole.
// CHECK-LABEL: func.func @copy_rows(
// CHECK-SAME:      %[[V:.*]]: memref<?x?xi64, strided<[?, ?], offset: ?>>, %[[O:.*]]: memref<?x?xi64>)
// CHECK:         %[[ROWS:.*]] = arith.minsi
// CHECK:         %[[N:.*]] = arith.muli
// CHECK-NEXT:    %[[G:.*]] = arith.constant 16384 : i64
// CHECK-NEXT:    %[[BIG:.*]] = arith.cmpi sge, %[[N]], %[[G]] : i64
// CHECK-NEXT:    scf.if %[[BIG]] {
// CHECK:           arith.constant 2 : i64
// CHECK:           "omp.parallel"
// CHECK:             "omp.loop_nest"
// CHECK-NEXT:        ^bb0(%[[I:.*]]: index):
// CHECK:               %[[S:.*]] = memref.subview %[[V]][%[[I]], 0] [1, %{{.*}}] [1, 1] : memref<?x?xi64, strided<[?, ?], offset: ?>> to memref<?xi64, strided<[?], offset: ?>>
// CHECK:               %[[D:.*]] = memref.subview %[[O]][%[[I]], 0] [1, %{{.*}}] [1, 1]
// CHECK-NEXT:          "memref.copy"(%[[S]], %[[D]])
// CHECK:         } else {
// CHECK-NEXT:      "memref.copy"(%[[V]], %[[O]])
// CHECK-NEXT:    }
func.func @copy_rows(%v: memref<?x?xi64, strided<[?, ?], offset: ?>>, %o: memref<?x?xi64>) {
  "memref.copy"(%v, %o) : (memref<?x?xi64, strided<[?, ?], offset: ?>>, memref<?x?xi64>) -> ()
  func.return
}

// Must not fire: a copy of rank 1 (one memmove, or one loop) and a copy inside a parallel
// loop (it runs in a thread already).
// CHECK-LABEL: func.func @copies_kept(
// CHECK-NOT:     scf.if
// CHECK:         "memref.copy"(%{{.*}}, %{{.*}}) : (memref<?xi64>, memref<?xi64>) -> ()
// CHECK:         "omp.parallel"
// CHECK-NOT:       scf.if
// CHECK:           "memref.copy"(%{{.*}}, %{{.*}}) : (memref<?x?xi64>, memref<?x?xi64>) -> ()
// CHECK-NOT:     scf.if
// CHECK:         func.return
func.func @copies_kept(%a: memref<?xi64>, %b: memref<?xi64>, %t: memref<?x?xi64>,
                       %u: memref<?x?xi64>) {
  "memref.copy"(%a, %b) : (memref<?xi64>, memref<?xi64>) -> ()
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xi64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    "memref.copy"(%t, %u) : (memref<?x?xi64>, memref<?x?xi64>) -> ()
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// An inner loop whose bounds are computed from values defined before the region (a
// fold over the rows of an array inside a map over its columns, as `iswim` makes)
// weighs its trip count, computed before the region, instead of 16: a map over a few
// columns of a long fold forks. A loop whose bound is read inside the body keeps the
// estimate of 16 trips.
// CHECK-LABEL: func.func @column_folds(
// CHECK:         %[[ROWS:.*]] = memref.dim %m, %{{.*}} : memref<?x?xf64>
// CHECK:         arith.subi %{{.*}}, %{{.*}} : i64
// CHECK:         %[[TRIPS:.*]] = arith.ceildivsi
// CHECK:         arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:         %[[WORK:.*]] = arith.minsi
// CHECK:         %[[TOTAL:.*]] = arith.muli %{{.*}}, %[[WORK]] : i64
// CHECK:         %[[LIMIT:.*]] = arith.divsi %{{.*}}, %[[WORK]] : i64
// CHECK:         %[[CAPPED:.*]] = arith.select %{{.*}}, %{{.*}}, %[[TOTAL]] : i64
// CHECK:         arith.cmpi sge, %[[CAPPED]], %{{.*}} : i64
// CHECK:         "omp.parallel"
// CHECK-LABEL: func.func @bound_inside(
// CHECK-NOT:     arith.minsi
// CHECK:         "omp.parallel"
func.func @column_folds(%m: memref<?x?xf64>, %o: memref<?xf64>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %k = memref.dim %m, %one : memref<?x?xf64>
  "scf.parallel"(%z, %k, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%j: index):
    %n = memref.dim %m, %z : memref<?x?xf64>
    %s = scf.for %i = %z to %n step %one iter_args(%acc = %zero) -> (f64) {
      %x = memref.load %m[%i, %j] : memref<?x?xf64>
      %y = arith.addf %acc, %x : f64
      scf.yield %y : f64
    }
    memref.store %s, %o[%j] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
func.func @bound_inside(%m: memref<?x?xf64>, %o: memref<?xf64>, %b: memref<?xindex>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %k = memref.dim %m, %one : memref<?x?xf64>
  "scf.parallel"(%z, %k, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%j: index):
    %n = memref.load %b[%j] : memref<?xindex>
    %s = scf.for %i = %z to %n step %one iter_args(%acc = %zero) -> (f64) {
      %x = memref.load %m[%i, %j] : memref<?x?xf64>
      %y = arith.addf %acc, %x : f64
      scf.yield %y : f64
    }
    memref.store %s, %o[%j] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
