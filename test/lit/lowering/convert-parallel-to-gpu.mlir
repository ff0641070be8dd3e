// RUN: l0-opt %s -p convert-parallel-to-gpu --split-input-file --verify-diagnostics | filecheck %s

// A map: one kernel, a grid-stride loop over the rows (counting the thread's rows,
// ceil((n - first) / stride), the row first + k * stride: no row + stride that could
// wrap near 2^63); the launch on ceil(n / 256)
// blocks of 256 threads; the public function takes device arrays (Python copies them
// in) and calls the converted body (`.gpu`), which works on device arrays.
// CHECK:       builtin.module attributes {gpu.container_module} {
// CHECK-LABEL:   func.func private @map.gpu(%a: memref<?xf64>, %o: memref<?xf64>) {
// CHECK:           %[[C256:.*]] = arith.constant 256 : i64
// CHECK:           %[[GRID:.*]] = arith.minsi %{{.*}}, %{{.*}} : i64
// CHECK:           %[[G:.*]] = arith.index_cast %[[GRID]] : i64 to index
// CHECK:           %[[B:.*]] = arith.constant 256 : index
// CHECK-NEXT:      "gpu.launch_func"(%[[G]], %{{.*}}, %{{.*}}, %[[B]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %a, %o) <{kernel = @l0_kernels::@map_map_0
// CHECK-NOT:       scf.parallel
// CHECK-LABEL:   func.func @map(%0: memref<?xf64>, %1: memref<?xf64>) {
// CHECK-NEXT:      func.call @map.gpu(%0, %1)
// CHECK-NEXT:      func.return
// CHECK:         "gpu.module"() <{sym_name = "l0_kernels"}> ({
// CHECK-NEXT:      "gpu.func"() <{function_type = (i64, i64, i64, memref<?xf64>, memref<?xf64>) -> (), kernel}> ({
// CHECK-NEXT:      ^bb0(%[[N:.*]]: i64, %[[STEP:.*]]: i64, %[[LB:.*]]: i64, %[[A:.*]]: memref<?xf64>, %[[O:.*]]: memref<?xf64>):
// CHECK-NEXT:        %[[T:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK:             "gpu.block_id"() <{dimension = #gpu<dim x>}>
// CHECK:             "gpu.block_dim"() <{dimension = #gpu<dim x>}>
// CHECK:             "gpu.grid_dim"() <{dimension = #gpu<dim x>}>
// CHECK:             %[[FIRST:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:        %[[STRIDE:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:        %[[LEFT:.*]] = arith.subi %[[N]], %[[FIRST]] : i64
// CHECK:             %[[INEXACT:.*]] = arith.extui %{{.*}} : i1 to i64
// CHECK-NEXT:        %[[TRIPS:.*]] = arith.addi %{{.*}}, %[[INEXACT]] : i64
// CHECK:             scf.for %[[K:.*]] = %{{.*}} to %[[TRIPS]] step %{{.*}} : i64 {
// CHECK-NEXT:          %[[OFF:.*]] = arith.muli %[[K]], %[[STRIDE]] : i64
// CHECK-NEXT:          %[[G:.*]] = arith.addi %[[FIRST]], %[[OFF]] : i64
// CHECK:               %x = memref.load %[[A]][%{{.*}}] : memref<?xf64>
// CHECK-NEXT:          %y = arith.mulf %x, %x : f64
// CHECK-NEXT:          memref.store %y, %[[O]][%{{.*}}] : memref<?xf64>
// CHECK-NEXT:        }
// CHECK-NEXT:        "gpu.return"() : () -> ()
// CHECK-NEXT:      }) {sym_name = "map_map_0"} : () -> ()
func.func @map(%a: memref<?xf64>, %o: memref<?xf64>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    %y = arith.mulf %x, %x : f64
    memref.store %y, %o[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// -----

// A two-dimensional map nest: one kernel over the flattened space (n * k threads'
// worth), the indices recovered row-major, the last dimension fastest.
// CHECK-LABEL: func.func private @nest.gpu(
// CHECK:         %[[TOTAL:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @l0_kernels::@nest_map_0
// CHECK:       "gpu.func"()
// CHECK:         ^bb0(%[[TOT:[^:]*]]: i64, %[[K:[^:]*]]: i64,
// CHECK:         arith.subi %[[TOT]], %{{.*}} : i64
// CHECK:         scf.for
// CHECK-NEXT:      arith.muli
// CHECK-NEXT:      %[[G:.*]] = arith.addi
// CHECK-NEXT:      %[[J:.*]] = arith.remsi %[[G]], %[[K]] : i64
// CHECK-NEXT:      %[[I:.*]] = arith.divsi %[[G]], %[[K]] : i64
// CHECK:           memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xf64>
// CHECK:       }) {sym_name = "nest_map_0"}
func.func @nest(%m: memref<?x?xf64>) {
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

// -----

// A reduction: per-block partial results (the flag says a partial holds a value),
// combined in workgroup memory (address space 3) with a barrier per tree step, then
// one block folds the partials; the host reads the result back. No atomics.
// CHECK-LABEL: func.func private @sum.gpu(
// CHECK:         %[[PART:.*]] = "gpu.alloc"(%{{.*}}) {{.*}} -> memref<?xf64>
// CHECK:         %[[FLAGS:.*]] = "gpu.alloc"(%{{.*}}) {{.*}} -> memref<?xi1>
// CHECK:         %[[OUT:.*]] = "gpu.alloc"() {{.*}} -> memref<1xf64>
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @l0_kernels::@sum_reduce_0
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @l0_kernels::@sum_reduce_final_0
// CHECK-NEXT:    "gpu.memcpy"(%[[HOST:.*]], %[[OUT]])
// CHECK:         %[[R:.*]] = memref.load %[[HOST]][%{{.*}}] : memref<1xf64>
// CHECK:         "gpu.dealloc"(%[[PART]])
// CHECK:         func.return %[[R]] : f64
// Thread gt's rows start at floor(gt*n/C) = gt*q + gt*r/C (q, r = n / C, n % C): gt*n
// would leave 64 bits from n = 2^46 on 2^18 threads (Note [Chunk bounds without
// overflow] in l0.lowering.parallel_loops).
// CHECK:       "gpu.func"()
// CHECK-NEXT:  ^bb0(%[[N:[0-9a-z_]+]]: i64,
// CHECK:         memref.alloca() : memref<256xi1, 3 : i64>
// CHECK-NEXT:    memref.alloca() : memref<256xf64, 3 : i64>
// CHECK:         %[[CHUNKS:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    %[[ACTIVE:.*]] = arith.cmpi slt, %[[GT:.*]], %[[CHUNKS]] : i64
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[N]], %[[CHUNKS]] : i64
// CHECK-NEXT:    %[[R:.*]] = arith.remsi %[[N]], %[[CHUNKS]] : i64
// CHECK-NEXT:    %[[GQ:.*]] = arith.muli %[[GT]], %[[Q]] : i64
// CHECK-NEXT:    %[[GR:.*]] = arith.muli %[[GT]], %[[R]] : i64
// CHECK-NEXT:    %[[GRC:.*]] = arith.divsi %[[GR]], %[[CHUNKS]] : i64
// CHECK-NEXT:    %[[START:.*]] = arith.addi %[[GQ]], %[[GRC]] : i64
// CHECK-NOT:     arith.muli %{{.*}}, %[[N]]
// CHECK:         %[[LO:.*]] = arith.select %[[ACTIVE]], %[[START]], %{{.*}} : i64
// CHECK:         scf.for %{{.*}} = %[[LO]] to %{{.*}} iter_args({{.*}}) -> (i1, f64) : i64 {
// CHECK:           arith.addf
// CHECK:         "gpu.barrier"() : () -> ()
// CHECK-COUNT-8: "gpu.barrier"() : () -> ()
// CHECK-NOT:     gpu.barrier
// CHECK:       }) {sym_name = "sum_reduce_0"}
// CHECK:       }) {sym_name = "sum_reduce_final_0"}
// CHECK-NOT:   atomic
func.func @sum(%a: memref<?xf64>) -> f64 {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %a, %z : memref<?xf64>
  %s = "scf.parallel"(%z, %n, %one, %zero) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    scf.reduce(%x : f64) {
    ^bb1(%l: f64, %r: f64):
      %t = arith.addf %l, %r : f64
      scf.reduce.return %t : f64
    }
  }) : (index, index, index, f64) -> f64
  func.return %s : f64
}

// -----

// A sequential loop around a kernel stays on the host and launches it in every
// iteration; the element store after it (host code touching device memory) is a
// serial kernel of one thread (constants are copied into kernels, not passed).
// CHECK-LABEL: func.func private @steps.gpu(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           "gpu.launch_func"({{.*}}) <{kernel = @l0_kernels::@steps_map_0
// CHECK:         }
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         %[[ONE_T:.*]] = arith.constant 1 : index
// CHECK-NEXT:    "gpu.launch_func"(%{{.*}}, %[[ONE]], %[[ONE]], %[[ONE_T]], %[[ONE]], %[[ONE]], {{.*}}) <{kernel = @l0_kernels::@steps_serial_0
// CHECK:       }) {sym_name = "steps_map_0"}
// CHECK:       "gpu.func"()
// CHECK-NEXT:  ^bb0(%[[M:.*]]: memref<?xf64>):
// CHECK-DAG:     %[[I:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK:         memref.store %[[TWO]], %[[M]][%[[I]]] : memref<?xf64>
// CHECK-NEXT:    "gpu.return"()
// CHECK:       }) {sym_name = "steps_serial_0"}
func.func @steps(%a: memref<?xf64>, %t: index) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %two = arith.constant 2.0 : f64
  %n = memref.dim %a, %z : memref<?xf64>
  scf.for %s = %z to %t step %one {
    "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      %x = memref.load %a[%i] : memref<?xf64>
      %y = arith.mulf %x, %two : f64
      memref.store %y, %a[%i] : memref<?xf64>
      scf.reduce
    }) : (index, index, index) -> ()
  }
  memref.store %two, %a[%z] : memref<?xf64>
  func.return
}

// -----

// A check in a kernel: the kernel takes the error word (its last parameter, marked
// l0.error_word), the check gets its number; after the launch the host copies the
// word back and, if a thread failed, reports that check's message and location with
// the values the thread stored.
// CHECK-LABEL: func.func private @checked.gpu(
// CHECK:         %[[WORD:.*]] = memref.alloca() : memref<3xi64>
// CHECK-NEXT:    %[[NONE:.*]] = arith.constant 9223372036854775807 : i64
// CHECK:         memref.store %[[NONE]], %[[WORD]]
// CHECK-NEXT:    %[[ERR:.*]] = "gpu.alloc"() {{.*}} -> memref<3xi64>
// CHECK-NEXT:    "gpu.memcpy"(%[[ERR]], %[[WORD]])
// CHECK:         "gpu.launch_func"({{.*}}, %[[ERR]]) <{kernel = @l0_kernels::@checked_map_0
// CHECK-NEXT:    "gpu.memcpy"(%[[WORD]], %[[ERR]])
// CHECK:         %[[KEY:.*]] = memref.load %[[WORD]]
// CHECK:         %[[FAILED:.*]] = arith.cmpi ne, %[[KEY]], %{{.*}} : i64
// CHECK:         scf.if %[[FAILED]] {
// CHECK:           %[[WHICH:.*]] = arith.andi %[[KEY]], %{{.*}} : i64
// CHECK:           %[[V0:.*]] = memref.load %[[WORD]]
// CHECK:           %[[V1:.*]] = memref.load %[[WORD]]
// CHECK:           %[[NOT_IT:.*]] = arith.cmpi ne, %[[WHICH]], %{{.*}} : i64
// CHECK-NEXT:      soac.assert %[[NOT_IT]], "index {0} out of bounds for array of size {1}" (%[[V0]], %[[V1]] : i64, i64) at "x.l0:1:2"
// CHECK:         "gpu.dealloc"(%[[ERR]])
// CHECK-NEXT:    func.return
// CHECK:       "gpu.func"() <{function_type = (i64, i64, i64, memref<?xi64>, i64, memref<?xf64>, memref<3xi64>) -> (), kernel}>
// CHECK:         soac.assert %{{.*}}, "index {0} out of bounds for array of size {1}" ({{.*}}) at "x.l0:1:2" {l0.check = 1 : i64}
// CHECK:       }) {sym_name = "checked_map_0", l0.error_word}
func.func @checked(%ix: memref<?xi64>, %o: memref<?xf64>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %f = arith.constant 1.0 : f64
  %n = memref.dim %ix, %z : memref<?xi64>
  %m = memref.dim %o, %z : memref<?xf64>
  %m64 = arith.index_cast %m : index to i64
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %j = memref.load %ix[%i] : memref<?xi64>
    %lo = arith.cmpi sle, %zero, %j : i64
    %hi = arith.cmpi slt, %j, %m64 : i64
    %ok = arith.andi %lo, %hi : i1
    %c = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%j, %m64 : i64, i64) at "x.l0:1:2"
    %jj = arith.index_cast %j : i64 to index
    memref.store %f, %o[%jj] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// -----

// Diagnostics: a parallel reduction of arrays (which convert-soac-to-scf never emits:
// array accumulators stay a left fold) is a compiler bug, reported with the function.
func.func @arrays(%a: memref<?xf64>, %init: memref<2xf64>) -> memref<2xf64> {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  %s = "scf.parallel"(%z, %n, %one, %init) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    scf.reduce(%init : memref<2xf64>) {
    ^bb1(%l: memref<2xf64>, %r: memref<2xf64>):
      scf.reduce.return %l : memref<2xf64>
    }
  }) : (index, index, index, memref<2xf64>) -> memref<2xf64>
  func.return %s : memref<2xf64>
}
// CHECK: convert-parallel-to-gpu: in arrays: expected scalar accumulators in a parallel reduction, found memref<2xf64>

// -----

// A blocked reduction (Note [Blocked reductions]: its chunk loop and combining loop
// marked) of two accumulators, a sum and a max: the scalar reduction's two kernels. The
// host's chunk count (%count) only says whether there is more than one chunk (then at
// least count * 4096 rows: count * 16 blocks, at most 1024); the first kernel folds a
// thread's chunk with the chunk loop's body (%count in it replaced by the thread
// count) and combines the block's chunks in workgroup memory with the combining loop's
// body (its loads of the partials replaced by a thread's values); the final kernel folds
// the blocks' partials in order. The chunk partials of the host's count are gone.
// CHECK-LABEL: func.func private @sum_max.gpu(
// CHECK:         %[[COUNT:.*]] = arith.maxsi
// CHECK-NOT:     memref.alloc
// CHECK:         %[[ONE:.*]] = arith.cmpi sle, %[[COUNT]], %{{.*}} : i64
// CHECK:         %[[SIXTEEN:.*]] = arith.constant 16 : i64
// CHECK-NEXT:    %{{.*}} = arith.muli %[[COUNT]], %[[SIXTEEN]] : i64
// CHECK:         %[[GRID:.*]] = arith.select %[[ONE]], %{{.*}}, %{{.*}} : i64
// CHECK:         %[[THREADS:.*]] = arith.select %[[ONE]], %{{.*}}, %{{.*}} : i64
// CHECK:         %[[PS:.*]] = "gpu.alloc"
// CHECK:         %[[PM:.*]] = "gpu.alloc"
// CHECK:         %[[FL:.*]] = "gpu.alloc"({{.*}}) {{.*}} -> memref<?xi1>
// CHECK:         "gpu.launch_func"({{.*}}, %[[THREADS]], %n, %a, %[[FL]], %[[PS]], %[[PM]]) <{kernel = @l0_kernels::@sum_max_reduce_0
// CHECK:         "gpu.launch_func"({{.*}}, %[[GRID]], %[[FL]], %[[PS]], %[[PM]], %[[RS:.*]], %[[RM:.*]]) <{kernel = @l0_kernels::@sum_max_reduce_final_0
// CHECK-NEXT:    "gpu.memcpy"(%[[STAGE:.*]], %[[RS]])
// CHECK:         %rs = memref.load %[[STAGE]]
// CHECK:         "gpu.memcpy"(%[[STAGE]], %[[RM]])
// CHECK:         %rm = memref.load %[[STAGE]]
// CHECK-NOT:     scf.for
// CHECK-NOT:     memref.dealloc
// CHECK:         func.return %rs, %rm : i64, i64
// CHECK:       "gpu.func"() <{function_type = (i64, i64, memref<?xi64>, memref<?xi1>, memref<?xi64>, memref<?xi64>) -> (), kernel}> ({
// CHECK-NEXT:  ^bb0(%[[T:.*]]: i64, %[[N:.*]]: i64, %[[A:.*]]: memref<?xi64>, %{{.*}}: memref<?xi1>, %{{.*}}: memref<?xi64>, %{{.*}}: memref<?xi64>):
// CHECK:         %[[WF:.*]] = memref.alloca() : memref<256xi1, 3 : i64>
// CHECK-NEXT:    %[[WS:.*]] = memref.alloca() : memref<256xi64, 3 : i64>
// CHECK-NEXT:    %[[WM:.*]] = memref.alloca() : memref<256xi64, 3 : i64>
// CHECK:         %[[ACTIVE:.*]] = arith.cmpi slt, %{{.*}}, %[[T]] : i64
// CHECK-NEXT:    %[[S:.*]], %[[M:.*]] = scf.if %[[ACTIVE]] -> (i64, i64) {
// CHECK:           %start = arith.divsi %{{.*}}, %[[T]] : i64
// CHECK:           %end = arith.divsi %{{.*}}, %[[T]] : i64
// CHECK:           %fs, %fm = scf.for %i = %start to %end
// CHECK:           scf.yield %fs, %fm : i64, i64
// CHECK:         memref.store %[[ACTIVE]], %[[WF]]
// CHECK-NEXT:    memref.store %[[S]], %[[WS]]
// CHECK-NEXT:    memref.store %[[M]], %[[WM]]
// CHECK-NEXT:    "gpu.barrier"
// CHECK:         arith.addi %{{.*}}, %ts : i64
// CHECK-NEXT:    arith.maxsi %{{.*}}, %tm : i64
// CHECK-COUNT-8: "gpu.barrier"
// CHECK-NOT:     "gpu.barrier"
// CHECK:         }) {sym_name = "sum_max_reduce_0"}
// CHECK:         }) {sym_name = "sum_max_reduce_final_0"}
func.func private @l0_parallel_width() -> i64
func.func @sum_max(%a: memref<?xi64>) -> (i64, i64) {
  %z = arith.constant 0 : i64
  %lo = arith.constant -1000 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = memref.dim %a, %c0 : memref<?xi64>
  %n = arith.index_cast %d : index to i64
  %w = func.call @l0_parallel_width() : () -> i64
  %m4096 = arith.constant 4096 : i64
  %q = arith.divsi %n, %m4096 : i64
  %mn = arith.minsi %w, %q : i64
  %one = arith.constant 1 : i64
  %count = arith.maxsi %mn, %one : i64
  %ci = arith.index_cast %count : i64 to index
  %ps = memref.alloc(%ci) : memref<?xi64>
  %pm = memref.alloc(%ci) : memref<?xi64>
  "scf.parallel"(%c0, %ci, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%c: index):
    %c64 = arith.index_cast %c : index to i64
    %s0 = arith.muli %c64, %n : i64
    %start = arith.divsi %s0, %count : i64
    %c64p = arith.addi %c64, %one : i64
    %e0 = arith.muli %c64p, %n : i64
    %end = arith.divsi %e0, %count : i64
    %fs, %fm = scf.for %i = %start to %end step %one iter_args(%s = %z, %m = %lo) -> (i64, i64) : i64 {
      %ii = arith.index_cast %i : i64 to index
      %x = memref.load %a[%ii] : memref<?xi64>
      %s2 = arith.addi %s, %x : i64
      %m2 = arith.maxsi %m, %x : i64
      scf.yield %s2, %m2 : i64, i64
    }
    memref.store %fs, %ps[%c] : memref<?xi64>
    memref.store %fm, %pm[%c] : memref<?xi64>
    scf.reduce
  }) {l0.blocked_reduction} : (index, index, index) -> ()
  %s0 = memref.load %ps[%c0] : memref<?xi64>
  %m0 = memref.load %pm[%c0] : memref<?xi64>
  %rs, %rm = scf.for %k = %one to %count step %one iter_args(%s = %s0, %m = %m0) -> (i64, i64) : i64 {
    %ki = arith.index_cast %k : i64 to index
    %ts = memref.load %ps[%ki] : memref<?xi64>
    %tm = memref.load %pm[%ki] : memref<?xi64>
    %s2 = arith.addi %s, %ts : i64
    %m2 = arith.maxsi %m, %tm : i64
    scf.yield %s2, %m2 : i64, i64
  } {l0.blocked_reduction}
  memref.dealloc %ps : memref<?xi64>
  memref.dealloc %pm : memref<?xi64>
  func.return %rs, %rm : i64, i64
}

// -----

// Must not fire: the chunk loop of a blocked reduction without its mark (a pass rebuilt
// it) is a map kernel, a thread per chunk of the host's count, and the combining loop
// over the partials a serial kernel.
// CHECK-LABEL: func.func private @unmarked.gpu(
// CHECK:         memref.alloc
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @l0_kernels::@unmarked_map_0
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @l0_kernels::@unmarked_serial_0
// CHECK-NOT:     reduce
func.func private @l0_parallel_width() -> i64
func.func @unmarked(%a: memref<?xi64>) -> (i64, i64) {
  %z = arith.constant 0 : i64
  %lo = arith.constant -1000 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = memref.dim %a, %c0 : memref<?xi64>
  %n = arith.index_cast %d : index to i64
  %w = func.call @l0_parallel_width() : () -> i64
  %m4096 = arith.constant 4096 : i64
  %q = arith.divsi %n, %m4096 : i64
  %mn = arith.minsi %w, %q : i64
  %one = arith.constant 1 : i64
  %count = arith.maxsi %mn, %one : i64
  %ci = arith.index_cast %count : i64 to index
  %ps = memref.alloc(%ci) : memref<?xi64>
  %pm = memref.alloc(%ci) : memref<?xi64>
  "scf.parallel"(%c0, %ci, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%c: index):
    %c64 = arith.index_cast %c : index to i64
    %s0 = arith.muli %c64, %n : i64
    %start = arith.divsi %s0, %count : i64
    %c64p = arith.addi %c64, %one : i64
    %e0 = arith.muli %c64p, %n : i64
    %end = arith.divsi %e0, %count : i64
    %fs, %fm = scf.for %i = %start to %end step %one iter_args(%s = %z, %m = %lo) -> (i64, i64) : i64 {
      %ii = arith.index_cast %i : i64 to index
      %x = memref.load %a[%ii] : memref<?xi64>
      %s2 = arith.addi %s, %x : i64
      %m2 = arith.maxsi %m, %x : i64
      scf.yield %s2, %m2 : i64, i64
    }
    memref.store %fs, %ps[%c] : memref<?xi64>
    memref.store %fm, %pm[%c] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  %s0 = memref.load %ps[%c0] : memref<?xi64>
  %m0 = memref.load %pm[%c0] : memref<?xi64>
  %rs, %rm = scf.for %k = %one to %count step %one iter_args(%s = %s0, %m = %m0) -> (i64, i64) : i64 {
    %ki = arith.index_cast %k : i64 to index
    %ts = memref.load %ps[%ki] : memref<?xi64>
    %tm = memref.load %pm[%ki] : memref<?xi64>
    %s2 = arith.addi %s, %ts : i64
    %m2 = arith.maxsi %m, %tm : i64
    scf.yield %s2, %m2 : i64, i64
  } {l0.blocked_reduction}
  memref.dealloc %ps : memref<?xi64>
  memref.dealloc %pm : memref<?xi64>
  func.return %rs, %rm : i64, i64
}

// -----

// Must not fire: a module of scalars has nothing for the device.
// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    func.func @scalars(%x: i64) -> i64 {
// CHECK-NEXT:      %y = arith.muli %x, %x : i64
// CHECK-NEXT:      func.return %y : i64
// CHECK-NOT:     gpu
func.func @scalars(%x: i64) -> i64 {
  %y = arith.muli %x, %x : i64
  func.return %y : i64
}
