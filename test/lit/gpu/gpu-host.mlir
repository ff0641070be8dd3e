// RUN: l0-opt %s --target=gpu -t 'llvm-ir{host=true}' | filecheck %s
// RUN: l0-opt %s --target=gpu -t llvm-ir | filecheck %s --check-prefix=DEVICE

// Host code of the gpu back end: the gpu ops become CUDA driver calls, each CUresult
// checked (a failure is a run-time error through the context, status 1). gpu.alloc
// asks for at least one byte and reports CUDA_ERROR_OUT_OF_MEMORY (2) as "out of
// memory"; gpu.memcpy is one cuMemcpy (direction from the addresses), skipped for an
// empty array; gpu.launch_func passes a pointer per exploded argument value and the
// kernel's CUfunction from its slot, nothing running for an empty grid.

// CHECK: @l0.cuda.kernel.scale = global ptr null, align 8
// CHECK-LABEL: define internal { i32, ptr, ptr, i64, i64, i64 } @l0.fn.main(
// CHECK:   %dptr = alloca i64
// CHECK:   %params = alloca [11 x i64]
// CHECK:   %[[R:.*]] = call i32 @cuMemAlloc_v2(ptr %dptr, i64 %{{.*}})
// CHECK:   icmp ne i32 %[[R]], 2
// CHECK:   icmp eq i32 %[[R]], 0
// CHECK:   call i32 @cuMemcpy(i64 %{{.*}}, i64 %{{.*}}, i64 %{{.*}})
// CHECK:   %[[F:.*]] = load ptr, ptr @l0.cuda.kernel.scale
// CHECK:   %[[L:.*]] = call i32 @cuLaunchKernel(ptr %[[F]], i32 %{{.*}}, i32 1, i32 1, i32 %{{.*}}, i32 1, i32 1, i32 0, ptr null, ptr %params, ptr null)
// CHECK:   icmp eq i32 %[[L]], 0
// CHECK:   call i32 @cuMemcpy(
// CHECK:   call i32 @cuMemFree_v2(i64
// CHECK:   call i32 @cuMemFree_v2(i64
// CHECK-LABEL: define i32 @l0.entry.main(ptr %ctx, ptr %slots)

// The device side of the same module: only the kernel.
// DEVICE-NOT: @l0.fn.main
// DEVICE: define ptx_kernel void @scale(
// DEVICE-NOT: @l0.fn.main

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
        %e = arith.addf %v, %v : f64
        %l = arith.mulf %e, %v : f64
        %q = math.sqrt %l : f64
        %p = arith.subf %q, %v : f64
        %r = arith.negf %p : f64
        memref.store %r, %y[%i] : memref<?xf64>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "scale"} : () -> ()
  }) : () -> ()
  func.func @main(%x: memref<?xf64>) -> memref<?xf64> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %c255 = arith.constant 255 : index
    %n = memref.dim %x, %c0 : memref<?xf64>
    %dx = "gpu.alloc"(%n) <{operandSegmentSizes = array<i32: 0, 1, 0>}> : (index) -> memref<?xf64>
    %dy = "gpu.alloc"(%n) <{operandSegmentSizes = array<i32: 0, 1, 0>}> : (index) -> memref<?xf64>
    "gpu.memcpy"(%dx, %x) {operandSegmentSizes = array<i32: 0, 1, 1>} : (memref<?xf64>, memref<?xf64>) -> ()
    %t = arith.addi %n, %c255 : index
    %blocks = arith.divui %t, %c256 : index
    "gpu.launch_func"(%blocks, %c1, %c1, %c256, %c1, %c1, %n, %dx, %dy) <{kernel = @l0_kernels::@scale, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, index, memref<?xf64>, memref<?xf64>) -> ()
    %y = memref.alloc(%n) : memref<?xf64>
    "gpu.memcpy"(%y, %dy) {operandSegmentSizes = array<i32: 0, 1, 1>} : (memref<?xf64>, memref<?xf64>) -> ()
    "gpu.dealloc"(%dx) {operandSegmentSizes = array<i32: 0, 1>} : (memref<?xf64>) -> ()
    "gpu.dealloc"(%dy) {operandSegmentSizes = array<i32: 0, 1>} : (memref<?xf64>) -> ()
    func.return %y : memref<?xf64>
  }
}
