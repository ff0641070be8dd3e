// RUN: l0-opt %s --target=gpu -t llvm-ir | filecheck %s
// RUN: env L0_LLVM_OPT=3 l0-opt %s -t ptx | filecheck %s --check-prefix=PTX
// `env L0_LLVM_OPT=3`: the PTX as shipped, after LLVM's O3, whatever the level the test
// suite compiles at (a test-only setting, lowering/runtime/llvm_level.py).

// A block reduction: per-thread sums into workgroup memory (memory space 3), a barrier,
// thread 0 folds the block's values. Workgroup memory is one addrspace(3) global per
// alloca, used through a generic pointer; the NVPTX back end infers the address space
// back, so the loads and stores are shared-memory ones (no libdevice needed: no math). Device functions are convergent, so no
// optimisation moves code across the barrier.

// CHECK: @l0_shared_0 = internal addrspace(3) global [256 x double] undef, align 16
// CHECK-LABEL: define internal { i32 } @l0.fn.block_sums(
// CHECK:   call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
// CHECK:   call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
// CHECK:   call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// CHECK:   addrspacecast ptr addrspace(3) @l0_shared_0 to ptr
// CHECK:   call void @llvm.nvvm.barrier{{.*}}(
// CHECK: attributes #0 = { convergent nounwind }

// PTX: .target sm_80
// PTX-LABEL: .visible .entry block_sums(
// PTX: .shared .align 16 .b8 l0_shared_0[2048];
// PTX: st.shared.{{[bf]}}64
// PTX: barrier.sync 0;
// PTX: ld.shared.{{[bf]}}64

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "l0_kernels"}> ({
    "gpu.func"() <{function_type = (index, memref<?xf64>, memref<?xf64>) -> (), kernel}> ({
    ^bb0(%n: index, %x: memref<?xf64>, %partial: memref<?xf64>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0.0 : f64
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %gid = "gpu.global_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdim = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %gdim = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %stride = arith.muli %gdim, %bdim : index
      %acc = scf.for %i = %gid to %n step %stride iter_args(%a = %zero) -> (f64) {
        %v = memref.load %x[%i] : memref<?xf64>
        %a2 = arith.addf %a, %v : f64
        scf.yield %a2 : f64
      }
      %shared = memref.alloca() : memref<256xf64, 3 : i64>
      memref.store %acc, %shared[%tid] : memref<256xf64, 3 : i64>
      "gpu.barrier"() : () -> ()
      %is0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is0 {
        %sum = scf.for %j = %c0 to %c256 step %c1 iter_args(%s = %zero) -> (f64) {
          %w = memref.load %shared[%j] : memref<256xf64, 3 : i64>
          %s2 = arith.addf %s, %w : f64
          scf.yield %s2 : f64
        }
        memref.store %sum, %partial[%bid] : memref<?xf64>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "block_sums"} : () -> ()
  }) : () -> ()
}
