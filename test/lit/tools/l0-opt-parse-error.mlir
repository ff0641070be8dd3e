// RUN: not l0-opt %s 2>&1 | filecheck %s
// RUN: sh -c 'l0-opt %s; echo "exit status $?"' 2>&1 | filecheck %s --check-prefix=STATUS
// RUN: l0-opt %s --parsing-diagnostics | filecheck %s --check-prefix=DIAG

// A parse error is reported as FILE:LINE:COL: error: message, with the offending line,
// and exit status 2; under --parsing-diagnostics it is printed and l0-opt succeeds.

func.func @f(%a: tensor<?xf64>) {
  %r = soac.copy %a : tensor<?xf64>
  %s = soac.frobnicate %r : tensor<?xf64>
  func.return
}

// CHECK: l0-opt-parse-error.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: Operation soac.frobnicate is not registered
// CHECK-NEXT:   %s = soac.frobnicate %r : tensor<?xf64>
// CHECK-NEXT:   {{ *}}^
// CHECK-NOT: Traceback

// STATUS: exit status 2

// DIAG: Operation soac.frobnicate is not registered
