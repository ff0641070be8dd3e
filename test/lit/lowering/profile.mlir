// RUN: l0-opt %s -p 'convert-parallel-to-omp{profile=true}' | filecheck %s
// RUN: l0-opt %s -p convert-parallel-to-omp | filecheck %s --check-prefix=OFF
// RUN: l0-opt %s -p 'convert-parallel-to-omp{profile=true}' -t llvm-ir | filecheck %s --check-prefix=LLVM
// RUN: l0-opt %s -p 'convert-parallel-to-gpu{profile=true}' | filecheck %s --check-prefix=GPU
// RUN: l0-opt %s -p convert-parallel-to-gpu | filecheck %s --check-prefix=OFF
// RUN: l0-opt %s --target=gpu -p 'convert-parallel-to-gpu{profile=true cuda_events=true}' -t 'llvm-ir{host=true}' | filecheck %s --check-prefix=EVENTS

// With profiling, a region reads the clock before it forks and, after the join, adds
// one launch, its threads (the width when it forked, else 1), its trip count and the
// time to four counters of its own: an exported global named by the loop's `l0.site`.
// CHECK-DAG:   "memref.global"() <{sym_name = "[[C:l0_profile\..*]]", type = memref<4xi64>, initial_value, sym_visibility = "public"}> {l0.site = "main:3:7:map"}
// CHECK-DAG:   func.func private @clock_gettime(i32, i64) -> i32
// CHECK-LABEL: func.func @main(
// CHECK:         %[[T:.*]] = arith.maxsi
// CHECK:         %[[BIG:.*]] = arith.andi
// CHECK:         func.call @clock_gettime
// CHECK:         %[[START:.*]] = arith.addi
// CHECK:         "omp.parallel"(%[[BIG]])
// CHECK:         }) {l0.site = "main:3:7:map"} : (i1) -> ()
// CHECK-NEXT:    %[[W:.*]] = func.call @l0_parallel_width() : () -> i64
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[THREADS:.*]] = arith.select %[[BIG]], %[[W]], %[[ONE]] : i64
// CHECK:         func.call @clock_gettime
// CHECK:         %[[END:.*]] = arith.addi
// CHECK-NEXT:    %[[NS:.*]] = arith.subi %[[END]], %[[START]] : i64
// CHECK-NEXT:    %[[TABLE:.*]] = memref.get_global @[[C]] : memref<4xi64>
// CHECK:         memref.atomic_rmw
// CHECK-SAME:      %[[TABLE]]
// CHECK:         memref.atomic_rmw{{.*}}(%[[THREADS]], %[[TABLE]]
// CHECK:         memref.atomic_rmw{{.*}}(%[[T]], %[[TABLE]]
// CHECK:         memref.atomic_rmw{{.*}}(%[[NS]], %[[TABLE]]
// CHECK:         func.return

// Without it, nothing is counted and the clock is never read.
// OFF-NOT:     l0_profile
// OFF-NOT:     clock_gettime

// The counters are an exported (not internal) global the driver finds by name, added
// to atomically.
// LLVM:        @"l0.global.l0_profile.0" = global [4 x i64] zeroinitializer
// LLVM:        @"l0.global.l0_param.0" = global [1 x i64] [i64 -1]
// LLVM-LABEL:  define internal {i32} @"l0.fn.main"(
// LLVM:          call i32 @"clock_gettime"(i32 1, i64
// LLVM:          call void @"GOMP_parallel"
// LLVM:          atomicrmw add {{.*}}, i64 1 monotonic

// On the gpu, a launch counts its grid times 256 threads and the map's elements.
// GPU-DAG:     "memref.global"() <{sym_name = "[[C:l0_profile\..*]]", type = memref<4xi64>, initial_value, sym_visibility = "public"}> {l0.site = "main:3:7:map"}
// GPU-LABEL:   func.func private @main.gpu(
// GPU:           %[[N:.*]] = arith.maxsi
// GPU:           %[[GRID:.*]] = arith.minsi
// GPU:           func.call @clock_gettime
// GPU:           "gpu.launch_func"
// GPU:           func.call @clock_gettime
// GPU:           %[[BS:.*]] = arith.constant 256 : i64
// GPU-NEXT:      %[[THREADS:.*]] = arith.muli %[[GRID]], %[[BS]] : i64
// GPU:           memref.atomic_rmw{{.*}}(%[[THREADS]],
// GPU:           memref.atomic_rmw{{.*}}(%[[N]],
// On a GPU (cuda_events), a launch is timed by two CUDA events on the default stream,
// the second waited for; the elapsed milliseconds become nanoseconds. The clock is not
// read.
// EVENTS-NOT:    clock_gettime
// EVENTS-LABEL:  define internal { i32 } @l0.fn.main.gpu(
// EVENTS:          call i32 @cuEventCreate(i64 %{{.*}}, i32 0)
// EVENTS:          call i32 @cuEventCreate(i64 %{{.*}}, i32 0)
// EVENTS:          call i32 @cuEventRecord(i64 %{{.*}}, i64 0)
// EVENTS:          call i32 @cuLaunchKernel
// EVENTS:          call i32 @cuEventRecord(i64 %[[E1:.*]], i64 0)
// EVENTS-NEXT:     call i32 @cuEventSynchronize(i64 %[[E1]])
// EVENTS:          call i32 @cuEventElapsedTime(i64 %{{.*}}, i64 %[[E0:.*]], i64 %[[E1]])
// EVENTS:          fmul double %{{.*}}, 1.000000e+06
// EVENTS-NEXT:     call i32 @cuEventDestroy_v2(i64 %[[E0]])
// EVENTS-NEXT:     call i32 @cuEventDestroy_v2(i64 %[[E1]])
// EVENTS:          atomicrmw add
func.func @main(%a: memref<?xf64>, %o: memref<?xf64>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    memref.store %x, %o[%i] : memref<?xf64>
    scf.reduce
  }) {l0.site = "main:3:7:map"} : (index, index, index) -> ()
  func.return
}
