// RUN: not l0-opt %s -p bogus 2>&1 | filecheck %s
// RUN: not l0-opt %s --pass-pipeline=cse,bogus 2>&1 | filecheck %s
// RUN: not l0-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not l0-opt %s -p 'cse{nonsense=1}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: sh -c 'l0-opt %s -p bogus; echo "exit status $?"' 2>&1 | filecheck %s --check-prefix=STATUS

// A pipeline naming a pass that is not registered, or malformed, is rejected before
// any input is read: a one-line message, exit status 2, no traceback.

func.func @f() {
  func.return
}

// CHECK: l0-opt: error: unknown pass 'bogus'; expected one of: {{.*}}cse, dce
// CHECK-NOT: Traceback

// SYNTAX: l0-opt: error: Error parsing pass pipeline specification:
// SYNTAX-NOT: Traceback

// OPTION: l0-opt: error: bad options for pass 'cse':
// OPTION-NOT: Traceback

// STATUS: l0-opt: error: unknown pass 'bogus'
// STATUS-NEXT: exit status 2
