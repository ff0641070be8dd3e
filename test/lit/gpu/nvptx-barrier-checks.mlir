// RUN: l0-opt %s --target=gpu -t llvm-ir | filecheck %s
// RUN: env L0_LLVM_OPT=3 l0-opt %s -t ptx | filecheck %s --check-prefix=PTX
// `env L0_LLVM_OPT=3`: the PTX as shipped, after LLVM's O3, whatever the level the test
// suite compiles at (a test-only setting, lowering/runtime/llvm_level.py).

// A failing thread still arrives at every barrier of its block (Note [Barriers and
// failing threads]): a kernel body with barriers counts the barriers it passes, and its
// failure path, before returning status 1, arrives (barrier.sync 0) at the ones it has not
// passed, so the other threads of the block are never left waiting. The barriers are
// not "aligned": threads may arrive from different instructions. Here a thread may
// fail before the first of two barriers (its row's check) or between them.
// CHECK-LABEL: define internal { i32 } @l0.fn.checked_block(
// CHECK:         %barriers_passed = alloca i32
// CHECK-NEXT:    store i32 0, ptr %barriers_passed
// CHECK:         call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
// CHECK-NEXT:    %[[P1:.*]] = load i32, ptr %barriers_passed
// CHECK-NEXT:    %[[N1:.*]] = add i32 %[[P1]], 1
// CHECK-NEXT:    store i32 %[[N1]], ptr %barriers_passed
// CHECK:       fail:
// CHECK-NEXT:    br label %fail_barriers
// CHECK:       fail_barriers:
// CHECK-NEXT:    %[[P:.*]] = load i32, ptr %barriers_passed
// CHECK-NEXT:    %[[LEFT:.*]] = icmp slt i32 %[[P]], 2
// CHECK-NEXT:    br i1 %[[LEFT]], label %fail_arrive, label %fail_return
// CHECK:       fail_return:
// CHECK:         ret { i32 } %{{.*}}
// CHECK:       fail_arrive:
// CHECK-NEXT:    call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
// CHECK-NEXT:    %{{.*}} = add i32 %[[P]], 1
// CHECK:         br label %fail_barriers
// CHECK:         call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
// CHECK-NEXT:    %[[P2:.*]] = load i32, ptr %barriers_passed

// Must not fire: a kernel without barriers returns at once.
// CHECK-LABEL: define internal { i32 } @l0.fn.no_barrier(
// CHECK-NOT:     barriers_passed
// CHECK:       fail:
// CHECK-NEXT:    insertvalue { i32 } undef, i32 1, 0
// CHECK-NEXT:    ret { i32 }

// The barriers are PTX's barrier.sync, not bar.sync (= barrier.sync.aligned, which
// every thread must reach at the same instruction).
// PTX-LABEL: .visible .entry checked_block(
// PTX-NOT: bar.sync
// PTX: barrier.sync 0;
// PTX-NOT: bar.sync

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "l0_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xi64>, memref<?xi64>, memref<?xi64>) -> (), kernel}> ({
    ^bb0(%x: memref<?xi64>, %out: memref<?xi64>, %err: memref<?xi64>):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0 : i64
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %shared = memref.alloca() : memref<256xi64, 3 : i64>
      %v = memref.load %x[%tid] : memref<?xi64>
      %ok = arith.cmpi sge, %v, %z : i64
      %c1 = "soac.assert"(%ok, %v) <{msg = "negative: {0}", loc = "t.l0:2:5"}> {l0.check = 1 : i64} : (i1, i64) -> !soac.cert
      memref.store %v, %shared[%tid] : memref<256xi64, 3 : i64>
      "gpu.barrier"() : () -> ()
      %w = memref.load %shared[%c0] : memref<256xi64, 3 : i64>
      %nz = arith.cmpi ne, %w, %z : i64
      %c2 = "soac.assert"(%nz) <{msg = "zero", loc = "t.l0:3:5"}> {l0.check = 2 : i64} : (i1) -> !soac.cert
      %q = arith.divsi %v, %w : i64
      memref.store %q, %shared[%tid] : memref<256xi64, 3 : i64>
      "gpu.barrier"() : () -> ()
      %r = memref.load %shared[%c0] : memref<256xi64, 3 : i64>
      memref.store %r, %out[%tid] : memref<?xi64>
      "gpu.return"() : () -> ()
    }) {sym_name = "checked_block", l0.error_word} : () -> ()
    "gpu.func"() <{function_type = (i64, memref<?xi64>, memref<?xi64>) -> (), kernel}> ({
    ^bb0(%a: i64, %out: memref<?xi64>, %err: memref<?xi64>):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0 : i64
      %nz = arith.cmpi ne, %a, %z : i64
      %cert = "soac.assert"(%nz) <{msg = "zero", loc = "t.l0:4:9"}> {l0.check = 3 : i64} : (i1) -> !soac.cert
      memref.store %a, %out[%c0] : memref<?xi64>
      "gpu.return"() : () -> ()
    }) {sym_name = "no_barrier", l0.error_word} : () -> ()
  }) : () -> ()
}
