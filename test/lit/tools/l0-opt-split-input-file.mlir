// RUN: not l0-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: l0-opt %s --split-input-file --parsing-diagnostics | filecheck %s --check-prefix=DIAG

// With --split-input-file each chunk is a module of its own; errors give the line in
// the whole file, and the chunks before an error are printed.

func.func @first() {
  func.return
}

// -----

func.func @second() {
  %x = soac.nonsense
  func.return
}

// -----

func.func @third() {
  func.return
}

// CHECK: func.func @first()
// CHECK: // -----
// CHECK: l0-opt-split-input-file.mlir:[[# @LINE - 11]]:{{[0-9]+}}: error: Operation soac.nonsense is not registered
// CHECK-NOT: @third

// DIAG: func.func @first()
// DIAG: l0-opt-split-input-file.mlir:[[# @LINE - 15]]:{{[0-9]+}}
// DIAG: Operation soac.nonsense is not registered
// DIAG: func.func @third()
