// RUN: l0-opt %s --target=gpu -t llvm-ir | filecheck %s

// Checks in kernels (Note [Checks in kernels]): a kernel marked l0.error_word takes the
// error word as its last parameter; when its body fails a numbered check (l0.check),
// the entry publishes key = global thread id * 2^16 + check number with an atomic
// signed minimum on word 0 and, if it lowered the word, the check's values in words 1..
// (as many as the word has). A failure that is no numbered check traps.

// CHECK-LABEL: define internal { i32 } @l0.fn.divide(
// CHECK:   br i1 %{{.*}}, label %ok, label %error, !prof
// CHECK: error:
// CHECK:   store i64 [[ID:[0-9]+]], ptr
// CHECK-LABEL: define ptx_kernel void @divide(i64 %a, i64 %b, ptr %out.allocated, ptr %out.aligned, i64 %out.offset, i64 %out.size0, i64 %out.stride0, ptr %err.allocated, ptr %err.aligned, i64 %err.offset, i64 %err.size0, i64 %err.stride0)
// CHECK: failed:
// CHECK:   switch i64 %{{.*}}, label %not_a_check [
// CHECK-NEXT: i64 [[ID]], label %check2
// CHECK: not_a_check:
// CHECK-NEXT: call void @llvm.trap()
// CHECK: publish:
// CHECK-NEXT: %[[K:.*]] = phi i64 [ 2, %check2 ]
// CHECK:   %[[GID:.*]] = add i64 %{{.*}}, %{{.*}}
// CHECK:   %[[HI:.*]] = shl i64 %[[GID]], 16
// CHECK:   %[[KEY:.*]] = add i64 %[[HI]], %[[K]]
// CHECK:   %[[WORD:.*]] = getelementptr inbounds i64, ptr %err.aligned, i64 %err.offset
// CHECK:   %[[OLD:.*]] = atomicrmw min ptr %[[WORD]], i64 %[[KEY]] monotonic
// CHECK:   icmp slt i64 %[[KEY]], %[[OLD]]
// CHECK: values:
// CHECK:   icmp sgt i64 %err.size0, 1
// CHECK:   getelementptr inbounds i64, ptr %[[WORD]], i64 1

// The kernel without an error word traps on any failure.
// CHECK-LABEL: define ptx_kernel void @unmarked(
// CHECK: failed:
// CHECK-NEXT: call void @llvm.trap()

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "l0_kernels"}> ({
    "gpu.func"() <{function_type = (i64, i64, memref<?xi64>, memref<?xi64>) -> (), kernel}> ({
    ^bb0(%a: i64, %b: i64, %out: memref<?xi64>, %err: memref<?xi64>):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0 : i64
      %nz = arith.cmpi ne, %b, %z : i64
      %cert = "soac.assert"(%nz, %b) <{msg = "division by zero: {0}", loc = "t.l0:3:9"}> {l0.check = 2 : i64} : (i1, i64) -> !soac.cert
      %q = arith.divsi %a, %b : i64
      memref.store %q, %out[%c0] : memref<?xi64>
      "gpu.return"() : () -> ()
    }) {sym_name = "divide", l0.error_word} : () -> ()
    "gpu.func"() <{function_type = (i64, memref<?xi64>) -> (), kernel}> ({
    ^bb0(%a: i64, %out: memref<?xi64>):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0 : i64
      %nz = arith.cmpi ne, %a, %z : i64
      %cert = "soac.assert"(%nz) <{msg = "zero", loc = "t.l0:4:9"}> : (i1) -> !soac.cert
      memref.store %a, %out[%c0] : memref<?xi64>
      "gpu.return"() : () -> ()
    }) {sym_name = "unmarked"} : () -> ()
  }) : () -> ()
}
