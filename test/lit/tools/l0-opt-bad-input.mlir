// RUN: not l0-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: echo "" > %t.txt
// RUN: not l0-opt %t.txt 2>&1 | filecheck %s --check-prefix=EXTENSION
// RUN: l0-opt -f mlir < %s | filecheck %s --check-prefix=STDIN

// Unreadable input and unknown file kinds are usage errors, not tracebacks.

func.func @f() {
  func.return
}

// MISSING: l0-opt: error: cannot read '{{.*}}l0-opt-bad-input.mlir.missing': No such file or directory
// EXTENSION: l0-opt: error: expected an input file ending in .mlir or .l0 (or -f l0|mlir), found extension .txt
// STDIN: func.func @f()
