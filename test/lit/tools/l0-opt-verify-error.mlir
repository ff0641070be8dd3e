// RUN: not l0-opt %s 2>&1 | filecheck %s
// RUN: sh -c 'l0-opt %s -p cse; echo "exit status $?"' 2>&1 | filecheck %s --check-prefix=STATUS

// IR that parses but does not verify is rejected before any pass runs: the message,
// then the IR with the offending op marked, and exit status 2.

func.func @f(%a: tensor<?xf64>, %i: i64) -> f64 {
  %e = soac.index %a[%i, %i] : tensor<?xf64> -> f64
  func.return %e : f64
}

// CHECK: l0-opt: error: expected at most 1 index for an array of rank 1, found 2
// CHECK: %e = "soac.index"(%a, %i, %i)
// CHECK-NEXT: ^^^^^
// CHECK-NEXT: | Operation does not verify: expected at most 1 index for an array of rank 1, found 2
// CHECK-NOT: Traceback

// STATUS: l0-opt: error: expected at most 1 index
// STATUS: exit status 2
