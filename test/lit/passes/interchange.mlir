// RUN: l0-opt %s -p interchange,verify-uniqueness --split-input-file | filecheck %s

// A scalar accumulator: the map of the initial values, then the loop around a map of
// the body. The constants bound in the lambda are copied where they are used.
func.func @scalar(%n: i64, %xs: tensor<?xf64>) -> tensor<?xf64> {
  %r = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xf64> {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %h = arith.constant 5.000000e-01 : f64
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f64) : i64 {
      %b = arith.mulf %acc, %h : f64
      %c = arith.addf %b, %x : f64
      scf.yield %c : f64
    }
    soac.yield %a : f64
  }
  func.return %r : tensor<?xf64>
}
// CHECK-LABEL: func.func @scalar
// CHECK:         %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[INITS:.*]] = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xf64> {
// CHECK:           soac.yield %x : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = scf.for %i = %[[C0]] to %n step %[[C1]] iter_args(%[[ACCS:.*]] = %[[INITS]]) -> (tensor<?xf64>) : i64 {
// CHECK-NEXT:      %[[S:.*]] = soac.map(%[[X:.*]] = %xs, %acc = %[[ACCS]] : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:        %[[H:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:        %b = arith.mulf %acc, %[[H]] : f64
// CHECK-NEXT:        %c = arith.addf %b, %[[X]] : f64
// CHECK-NEXT:        soac.yield %c : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[S]] : tensor<?xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xf64>

// -----

// Tuple accumulators and a prelude: the value the lambda binds before the loop and
// the body uses (%k) goes from the first map to the loop's map as an array; the map
// yields one of the loop's two results.
func.func @tuple(%n: i64, %xs: tensor<?xf64>, %c0: i64, %c1: i64) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %r = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xi64> {
    %k = arith.fptosi %x : f64 to i64
    %a, %b = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero, %p = %k) -> (i64, i64) : i64 {
      %s2 = arith.addi %s, %p : i64
      %p2 = arith.muli %p, %k : i64
      scf.yield %s2, %p2 : i64, i64
    }
    soac.yield %b : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @tuple
// CHECK:         %[[I0:.*]], %[[I1:.*]], %[[I2:.*]] = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xi64>, tensor<?xi64>, tensor<?xi64> {
// CHECK-NEXT:      %k = arith.fptosi %x : f64 to i64
// CHECK-NEXT:      soac.yield %zero, %k, %k : i64, i64, i64
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A:.*]], %[[B:.*]] = scf.for %i = %c0 to %n step %c1 iter_args(%[[S:.*]] = %[[I0]], %[[P:.*]] = %[[I1]]) -> (tensor<?xi64>, tensor<?xi64>) : i64 {
// CHECK-NEXT:      %[[M0:.*]], %[[M1:.*]] = soac.map(%{{.*}} = %xs, %s = %[[S]], %p = %[[P]], %[[K:.*]] = %[[I2]] : tensor<?xf64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>, tensor<?xi64> {
// CHECK-NEXT:        %s2 = arith.addi %s, %p : i64
// CHECK-NEXT:        %p2 = arith.muli %p, %[[K]] : i64
// CHECK-NEXT:        soac.yield %s2, %p2 : i64, i64
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[M0]], %[[M1]] : tensor<?xi64>, tensor<?xi64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[B]] : tensor<?xi64>

// -----

// An array accumulator updated in place (a copy of the element's row): it keeps its
// shape, and the checks of the body were made before the map. The loop's map
// consumes its rows of the accumulators, which the loop hands on.
func.func @array(%n: i64, %xss: tensor<?x?xf64>, %c0: i64, %c1: i64, %one: f64, %ok: !soac.cert) -> tensor<?x?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %fresh = soac.copy %xs : tensor<?xf64>
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %fresh) -> (tensor<?xf64>) : i64 {
      %e = soac.index %acc[%c1] <%ok> : tensor<?xf64> -> f64
      %f = arith.addf %e, %one : f64
      %u = soac.update %acc[%c0] = %f <%ok> : tensor<?xf64>
      scf.yield %u : tensor<?xf64>
    }
    soac.yield %a : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @array
// CHECK:         %[[I:.*]] = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %fresh = soac.copy %xs : tensor<?xf64>
// CHECK-NEXT:      soac.yield %fresh : tensor<?xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = scf.for %i = %c0 to %n step %c1 iter_args(%[[ACCS:.*]] = %[[I]]) -> (tensor<?x?xf64>) : i64 {
// CHECK-NEXT:      %[[M:.*]] = soac.map(%{{.*}} = %xss, %acc = %[[ACCS]] : tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:        %e = soac.index %acc[%c1] <%ok> : tensor<?xf64> -> f64
// CHECK-NEXT:        %f = arith.addf %e, %one : f64
// CHECK-NEXT:        %u = soac.update %acc[%c0] = %f <%ok> : tensor<?xf64>
// CHECK-NEXT:        soac.yield %u : tensor<?xf64>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[M]] : tensor<?x?xf64>
// CHECK-NEXT:    }

// -----

// An array accumulator mapped element by element keeps its shape too; its initial
// value is a row of an input (regular).
func.func @mapped_rows(%n: i64, %xss: tensor<?x?xi64>, %c0: i64, %c1: i64) -> tensor<?x?xi64> {
  %r = soac.map(%xs = %xss : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %xs) -> (tensor<?xi64>) : i64 {
      %m = soac.map(%y = %acc : tensor<?xi64>) -> tensor<?xi64> {
        %z = arith.addi %y, %i : i64
        soac.yield %z : i64
      }
      scf.yield %m : tensor<?xi64>
    }
    soac.yield %a : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @mapped_rows
// CHECK:         %r = scf.for %i = %c0 to %n step %c1
// CHECK-NEXT:      soac.map(%{{.*}} = %xss, %acc = %{{.*}} : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
// CHECK-NEXT:        %m = soac.map(%y = %acc : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:          %z = arith.addi %y, %i : i64

// -----

// A check of the prelude guards an index in the body: the first map makes every
// element's check before the loop runs, so the loop's map takes `soac.checked`. The
// guarded index itself cannot fail where it stands.
func.func @prelude_check(%n: i64, %xss: tensor<?x?xf64>, %c0: i64, %c1: i64, %j: i64, %z: f64) -> tensor<?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?xf64> {
    %m = soac.size(0) %xs : tensor<?xf64>
    %in = arith.cmpi slt, %j, %m : i64
    %ok = soac.assert %in, "index {0} out of bounds" (%j : i64) at "p.l0:1:1"
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) : i64 {
      %e = soac.index %xs[%j] <%ok> : tensor<?xf64> -> f64
      %b = arith.addf %acc, %e : f64
      scf.yield %b : f64
    }
    soac.yield %a : f64
  }
  func.return %r : tensor<?xf64>
}
// CHECK-LABEL: func.func @prelude_check
// CHECK:         %[[I:.*]] = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:      %m = soac.size(0) %xs : tensor<?xf64>
// CHECK-NEXT:      %in = arith.cmpi slt, %j, %m : i64
// CHECK-NEXT:      %ok = soac.assert %in, "index {0} out of bounds" (%j : i64) at "p.l0:1:1"
// CHECK-NEXT:      soac.yield %z : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = scf.for %i = %c0 to %n step %c1 iter_args(%[[ACCS:.*]] = %[[I]]) -> (tensor<?xf64>) : i64 {
// CHECK-NEXT:      %[[M:.*]] = soac.map(%[[XS:.*]] = %xss, %acc = %[[ACCS]] : tensor<?x?xf64>, tensor<?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:        %[[C:.*]] = soac.checked
// CHECK-NEXT:        %e = soac.index %[[XS]][%j] <%[[C]]> : tensor<?xf64> -> f64
// CHECK-NEXT:        %b = arith.addf %acc, %e : f64
// CHECK-NEXT:        soac.yield %b : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[M]] : tensor<?xf64>
// CHECK-NEXT:    }

// -----

// Work after the loop that uses only the loop's results, the element and values from
// outside becomes a map after the loop.
func.func @work_after(%n: i64, %xs: tensor<?xi64>, %c0: i64, %c1: i64) -> tensor<?xi64> {
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i64) : i64 {
      %b = arith.addi %acc, %i : i64
      scf.yield %b : i64
    }
    %d = arith.muli %a, %x : i64
    soac.yield %d : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @work_after
// CHECK:         %[[L:.*]] = scf.for %i = %c0 to %n step %c1
// CHECK:         %r = soac.map(%[[X:.*]] = %xs, %a = %[[L]] : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %d = arith.muli %a, %[[X]] : i64
// CHECK-NEXT:      soac.yield %d : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi64>

// -----

// A check in the body whose values are the same for every element (one from outside
// the map and the size of an array accumulator) fails, if at all, at the same step
// for every element: it stays in the loop's map.
func.func @same_check(%n: i64, %xss: tensor<?x?xf64>, %c0: i64, %c1: i64, %j: i64, %ok: !soac.cert) -> tensor<?x?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %fresh = soac.copy %xs : tensor<?xf64>
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %fresh) -> (tensor<?xf64>) : i64 {
      %m = soac.size(0) %acc : tensor<?xf64>
      %in = arith.cmpi slt, %j, %m : i64
      %c = soac.assert %in, "index {0} out of bounds" (%j : i64) at "p.l0:1:1"
      %e = soac.index %acc[%j] <%c> : tensor<?xf64> -> f64
      %u = soac.update %acc[%c0] = %e <%ok> : tensor<?xf64>
      scf.yield %u : tensor<?xf64>
    }
    soac.yield %a : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @same_check
// CHECK:         %r = scf.for %i = %c0 to %n step %c1
// CHECK-NEXT:      soac.map(%{{.*}} = %xss, %acc = %{{.*}} : tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:        %m = soac.size(0) %acc : tensor<?xf64>
// CHECK-NEXT:        %in = arith.cmpi slt, %j, %m : i64
// CHECK-NEXT:        %c = soac.assert %in, "index {0} out of bounds" (%j : i64) at "p.l0:1:1"
