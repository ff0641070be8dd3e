// REQUIRES: libdevice
// RUN: env L0_LLVM_OPT=3 l0-opt %S/nvptx-map.mlir -t ptx | filecheck %s
// RUN: l0-opt %S/nvptx-map.mlir -t 'ptx{arch=sm_90}' | filecheck %s --check-prefix=SM90
// RUN: env L0_LLVM_OPT=3 l0-opt %S/nvptx-map.mlir --target=gpu -t 'llvm-ir{optimize=true}' | filecheck %s --check-prefix=LINKED
// `env L0_LLVM_OPT=3`: the PTX as shipped, after LLVM's O3, whatever the level the test
// suite compiles at (a test-only setting, lowering/runtime/llvm_level.py).

// PTX of a kernel calling math: libdevice is linked in and inlined (only the kernel is
// left external, O3 deletes the rest of the library), for sm_80 unless asked otherwise.

// CHECK: .target sm_80
// CHECK: .address_size 64
// CHECK: .visible .entry scale(
// CHECK-NOT: __nv_exp
// CHECK: fma.rn.f64
// CHECK: sqrt.rn.f64
// SM90: .target sm_90
// SM90: .visible .entry scale(

// LINKED: define ptx_kernel void @scale(
// LINKED-NOT: define {{.*}}@__nv_
// LINKED-NOT: declare {{.*}}@__nv_
