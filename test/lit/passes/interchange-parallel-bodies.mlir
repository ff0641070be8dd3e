// RUN: l0-opt %s -p 'interchange{parallel-bodies=true}' --split-input-file | filecheck %s
// RUN: l0-opt %s -p interchange --split-input-file | filecheck %s --check-prefix=ANY
// RUN: not l0-opt %s -p 'interchange{parallel-bodies=maybe}' 2>&1 | filecheck %s --check-prefix=BAD

// `interchange{parallel-bodies=true}` (the gpu's -O) moves out of a map only a loop
// whose body holds a SOAC (Note [Only loops around parallel work] in
// l0.passes.interchange); without the option every loop that may move does.

// BAD: l0-opt: error: bad options for pass 'interchange'

// A loop of scalar work (a sweep of in-place updates) stays in the map.
func.func @scalar_body(%n: i64, %xss: tensor<?x?xf64>, %c0: i64, %c1: i64) -> tensor<?x?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %u = soac.copy %xs : tensor<?xf64>
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %u) -> (tensor<?xf64>) : i64 {
      %e = soac.index %acc[%c0] : tensor<?xf64> -> f64
      %d = arith.addf %e, %e : f64
      %b = soac.update %acc[%c0] = %d : tensor<?xf64>
      scf.yield %b : tensor<?xf64>
    }
    soac.yield %a : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @scalar_body
// CHECK-NEXT:    %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %u = soac.copy %xs
// CHECK-NEXT:      %a = scf.for
// ANY-LABEL: func.func @scalar_body
// ANY:         scf.for
// ANY-NEXT:      soac.map

// -----

// A loop whose body maps over the accumulator's rows (a grid mapped row by row keeps
// its shape) goes around the map.
func.func @parallel_body(%n: i64, %gs: tensor<?x?x?xf64>, %c0: i64, %c1: i64) -> tensor<?x?x?xf64> {
  %r = soac.map(%g = %gs : tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %g) -> (tensor<?x?xf64>) : i64 {
      %b = soac.map(%row = %acc : tensor<?x?xf64>) -> tensor<?x?xf64> {
        %c = soac.map(%e = %row : tensor<?xf64>) -> tensor<?xf64> {
          %d = arith.addf %e, %e : f64
          soac.yield %d : f64
        }
        soac.yield %c : tensor<?xf64>
      }
      scf.yield %b : tensor<?x?xf64>
    }
    soac.yield %a : tensor<?x?xf64>
  }
  func.return %r : tensor<?x?x?xf64>
}
// CHECK-LABEL: func.func @parallel_body
// CHECK:         %r = scf.for %i = %c0 to %n step %c1 iter_args(%[[ACCS:.*]] = %{{.*}}) -> (tensor<?x?x?xf64>) : i64 {
// CHECK-NEXT:      %{{.*}} = soac.map(%{{.*}} = %gs, %acc = %[[ACCS]] : tensor<?x?x?xf64>, tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
// CHECK-NEXT:        %b = soac.map(%row = %acc : tensor<?x?xf64>) -> tensor<?x?xf64> {
