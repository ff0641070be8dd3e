// RUN: l0-opt %s --target=gpu -t llvm-ir | filecheck %s
// RUN: l0-opt %s --target=gpu -t 'llvm-ir{lower=false}' | filecheck %s
// RUN: not l0-opt %s -t 'llvm-ir' 2>&1 | filecheck %s --check-prefix=CPU

// A map kernel (grid-stride loop) as NVPTX LLVM IR: ids from the PTX special registers,
// math through libdevice where NVPTX has no instruction (exp, log, pow, erf), sqrt an
// intrinsic (one PTX instruction); the body in the CPU convention, the kernel a void
// ptx_kernel taking the exploded descriptors.

// CHECK: target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK-LABEL: define internal { i32 } @l0.fn.scale(ptr noalias %ctx, i64 %n, ptr %x.allocated, ptr %x.aligned, i64 %x.offset, i64 %x.size0, i64 %x.stride0, ptr %y.allocated
// CHECK:   call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// CHECK:   call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
// CHECK:   call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
// CHECK:   call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
// CHECK:   call double @__nv_exp(double
// CHECK:   call double @__nv_log(double
// CHECK:   call double @llvm.sqrt.f64(double
// CHECK:   call double @__nv_pow(double
// CHECK:   call double @__nv_erf(double
// CHECK:   call float @__nv_expf(float
// CHECK-NOT: @llvm.exp.
// CHECK-LABEL: define ptx_kernel void @scale(i64 %n, ptr %x.allocated, ptr %x.aligned, i64 %x.offset, i64 %x.size0, i64 %x.stride0, ptr %y.allocated, ptr %y.aligned, i64 %y.offset, i64 %y.size0, i64 %y.stride0)
// CHECK:   %ctx = alloca [3 x i64]
// CHECK:   call { i32 } @l0.fn.scale(ptr %ctx, i64 %n,
// The map has no check and no error word: a failure could only be the body's own, which traps.
// CHECK:   call void @llvm.trap()

// The CPU back end does not take device code.
// CPU: l0-opt: error: convert-to-llvm: expected func.func or memref.global at top level, found gpu.module

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "l0_kernels"}> ({
    "gpu.func"() <{function_type = (index, memref<?xf64>, memref<?xf64>) -> (), kernel}> ({
    ^bb0(%n: index, %x: memref<?xf64>, %y: memref<?xf64>):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdim = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %gdim = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %s0 = arith.muli %bid, %bdim : index
      %i0 = arith.addi %s0, %tid : index
      %stride = arith.muli %gdim, %bdim : index
      scf.for %i = %i0 to %n step %stride {
        %v = memref.load %x[%i] : memref<?xf64>
        %e = math.exp %v : f64
        %l = math.log %e : f64
        %q = math.sqrt %l : f64
        %p = math.powf %q, %v : f64
        %r = math.erf %p : f64
        %f = arith.truncf %r : f64 to f32
        %g = math.exp %f : f32
        %h = arith.extf %g : f32 to f64
        memref.store %h, %y[%i] : memref<?xf64>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "scale"} : () -> ()
  }) : () -> ()
}
