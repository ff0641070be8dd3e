// RUN: l0-opt %s -p dce | filecheck %s
// RUN: l0-opt %s --pass-pipeline=dce | filecheck %s
// RUN: l0-opt %s --pass-pipeline dce | filecheck %s
// RUN: l0-opt %s --pass-pipeline=cse,dce | filecheck %s --check-prefix=BOTH
// RUN: l0-opt %s | filecheck %s --check-prefix=NONE

// --pass-pipeline is an alias of -p; passes run in the order given.

func.func @f(%a: tensor<?xf64>, %i: i64) -> f64 {
  %dead = soac.iota %i
  %e1 = soac.index %a[%i] : tensor<?xf64> -> f64
  %e2 = soac.index %a[%i] : tensor<?xf64> -> f64
  %s = arith.addf %e1, %e2 : f64
  func.return %s : f64
}

// CHECK-LABEL: func.func @f(
// CHECK-NOT:     soac.iota
// CHECK:         %e1 = soac.index
// CHECK-NEXT:    %e2 = soac.index

// BOTH-LABEL: func.func @f(
// BOTH-NEXT:    %e1 = soac.index
// BOTH-NEXT:    %s = arith.addf %e1, %e1 : f64

// NONE: %dead = soac.iota %i
