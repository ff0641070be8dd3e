// RUN: l0-opt %s -t mlir | filecheck %s
// RUN: l0-opt %s -t llvm-ir | filecheck %s --check-prefix=LLVM
// RUN: not l0-opt %s -t llvm 2>&1 | filecheck %s --check-prefix=BAD
// RUN: l0-opt %s -p cse --time-passes 2>/dev/null | filecheck %s --check-prefix=QUIET

// Every target -t offers works on soac IR; xDSL's llvm target (llvm dialect only) is
// not offered. --time-passes writes to stderr: stdout stays the IR.

func.func @f(%a: tensor<?xf64>) -> i64 {
  %r = soac.size(0) %a : tensor<?xf64>
  func.return %r : i64
}

// CHECK: func.func @f(%a: tensor<?xf64>) -> i64

// LLVM: define i32 @"l0.entry.f"

// BAD: l0-opt: error: argument -t/--target: invalid choice: 'llvm' (choose from mlir, llvm-ir, ptx)

// QUIET-NOT: took
// QUIET: builtin.module
// QUIET-NOT: took
