// RUN: not l0-opt %S/Inputs/dim-y.mlir -t ptx 2>&1 | filecheck %s --check-prefix=DIM
// RUN: not l0-opt %S/Inputs/launch-y.mlir --target=gpu -t 'llvm-ir{host=true}' 2>&1 | filecheck %s --check-prefix=LAUNCH
// RUN: not l0-opt %S/Inputs/arguments.mlir --target=gpu -t 'llvm-ir{host=true}' 2>&1 | filecheck %s --check-prefix=ARGS
// RUN: not l0-opt %S/Inputs/scalars.mlir --target=gpu -t llvm-ir 2>&1 | filecheck %s --check-prefix=LEVEL
// RUN: not l0-opt %S/Inputs/scalars.mlir -t 'ptx{arch=sm_90' 2>&1 | filecheck %s --check-prefix=SPEC
// RUN: env L0_LIBDEVICE=%S/Inputs/none.bc not l0-opt %S/Inputs/math.mlir -t ptx 2>&1 | filecheck %s --check-prefix=LIBDEVICE
// RUN: not l0-opt %S/Inputs/host-call.mlir --target=gpu -t llvm-ir 2>&1 | filecheck %s --check-prefix=HOSTCALL
// RUN: l0-opt %S/Inputs/scalars.mlir --target=gpu | filecheck %s --check-prefix=MLIR

// What the gpu code generation refuses, each in one line, exit status 2: ids in
// another dimension than x, launches in y/z, arguments that are not the kernel's
// parameters, IR that is not gpu-level where device code is asked for, device code
// calling a host function (libm's are libdevice's: tanh is fine), and a missing
// libdevice (the gpu extra) where math needs it. -t mlir ignores --target.

// DIM: l0-opt: error: convert-to-llvm: expected dimension x in gpu.thread_id, found #gpu<dim y>
// LAUNCH: l0-opt: error: convert-to-llvm: expected a gpu.launch_func in dimension x only (y and z sizes the constant 1, no clusters)
// ARGS: l0-opt: error: convert-to-llvm: gpu.launch_func of @k: the arguments do not match the kernel's parameters (memref<?xi64>) -> ()
// LEVEL: l0-opt: error: expected a gpu-level module (a gpu.module of kernels) for --target=gpu; kernel extraction (convert-parallel-to-gpu) did not make one
// SPEC: l0-opt: error:
// LIBDEVICE: l0-opt: error: L0_LIBDEVICE names no file: {{.*}}none.bc
// LIBDEVICE-NOT: Traceback
// HOSTCALL: l0-opt: error: convert-to-llvm: device code calls @printit, a host function with no device version
// MLIR: func.func @f(%n: i64) -> i64
