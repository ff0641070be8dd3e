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

// -----

// A branch whose condition is the same for every element (computed from outer values)
// goes around the map: a map per branch (Note [A branch the same for every element]).
func.func @branch(%xss: tensor<?x?xf64>, %n: i64) -> tensor<?x?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %zero = arith.constant 0 : i64
    %c = arith.cmpi sgt, %n, %zero : i64
    %y = scf.if %c -> (tensor<?xf64>) {
      %a = soac.map(%e = %xs : tensor<?xf64>) -> tensor<?xf64> {
        %d = arith.negf %e : f64
        soac.yield %d : f64
      }
      scf.yield %a : tensor<?xf64>
    } else {
      scf.yield %xs : tensor<?xf64>
    }
    soac.yield %y : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @branch
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[C:.*]] = arith.cmpi sgt, %n, %[[ZERO]] : i64
// CHECK-NEXT:    %r = scf.if %[[C]] -> (tensor<?x?xf64>) {
// CHECK-NEXT:      %[[T:.*]] = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK:             %a = soac.map(%e = %xs : tensor<?xf64>) -> tensor<?xf64> {
// CHECK:             soac.yield %a : tensor<?xf64>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[T]] : tensor<?x?xf64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[E:.*]] = soac.map(%xs{{.*}} = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK:             soac.yield %xs{{.*}} : tensor<?xf64>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[E]] : tensor<?x?xf64>
// CHECK-NEXT:    }

// -----

// The condition depends on the element: the branch stays in the map.
func.func @branch_of_element(%xss: tensor<?x?xf64>, %ks: tensor<?xi64>, %n: i64) -> tensor<?x?xf64> {
  %r = soac.map(%xs = %xss, %k = %ks : tensor<?x?xf64>, tensor<?xi64>) -> tensor<?x?xf64> {
    %c = arith.cmpi sgt, %n, %k : i64
    %y = scf.if %c -> (tensor<?xf64>) {
      %a = soac.map(%e = %xs : tensor<?xf64>) -> tensor<?xf64> {
        %d = arith.negf %e : f64
        soac.yield %d : f64
      }
      scf.yield %a : tensor<?xf64>
    } else {
      scf.yield %xs : tensor<?xf64>
    }
    soac.yield %y : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @branch_of_element
// CHECK-NEXT:    %r = soac.map(%xs = %xss, %k = %ks : tensor<?x?xf64>, tensor<?xi64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %c = arith.cmpi sgt, %n, %k : i64
// CHECK-NEXT:      %y = scf.if %c
