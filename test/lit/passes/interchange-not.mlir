// RUN: l0-opt %s -p interchange --split-input-file | filecheck %s

// Where the interchange would change the meaning, the map keeps its loop
// (Note [When the interchange keeps the meaning] in l0.passes.interchange).

// The trip count depends on the element.
func.func @bound_of_element(%xs: tensor<?xi64>, %c0: i64, %c1: i64) -> tensor<?xi64> {
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
    %a = scf.for %i = %c0 to %x step %c1 iter_args(%acc = %c0) -> (i64) : i64 {
      %b = arith.addi %acc, %i : i64
      scf.yield %b : i64
    }
    soac.yield %a : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @bound_of_element
// CHECK-NEXT:    %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %a = scf.for %i = %c0 to %x step %c1

// -----

// The body consumes an array from outside the loop (the element's row): each step
// of the lockstep form would get the row again.
func.func @consumes_row(%n: i64, %xss: tensor<?x?xi64>, %c0: i64, %c1: i64, %ok: !soac.cert) -> tensor<?xi64> {
  %r = soac.map(%xs = %xss : tensor<?x?xi64>) -> tensor<?xi64> {
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i64) : i64 {
      %u = soac.update %xs[%c0] = %acc <%ok> : tensor<?xi64>
      %e = soac.index %u[%c0] <%ok> : tensor<?xi64> -> i64
      %b = arith.addi %e, %i : i64
      scf.yield %b : i64
    }
    soac.yield %a : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @consumes_row
// CHECK-NEXT:    %r = soac.map(%xs = %xss : tensor<?x?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %a = scf.for

// -----

// The work after the loop may fail (a check), and so may the work before it: the
// original reports the first element's failure after it, the split form every
// element's failure before it first.
func.func @fails_before_and_after(%n: i64, %xs: tensor<?xi64>, %c0: i64, %c1: i64) -> tensor<?xi64> {
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
    %pos = arith.cmpi sle, %c0, %x : i64
    %p = soac.assert %pos, "negative" at "p.l0:1:1"
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i64) : i64 {
      %b = arith.addi %acc, %i : i64
      scf.yield %b : i64
    }
    %small = arith.cmpi slt, %a, %n : i64
    %q = soac.assert %small, "too big" at "p.l0:2:1"
    soac.yield %a : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @fails_before_and_after
// CHECK-NEXT:    %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {

// -----

// A while loop (the form with an early exit).
func.func @while_loop(%n: i64, %xs: tensor<?xi64>) -> tensor<?xi64> {
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
    %a = scf.while (%acc = %x) : (i64) -> i64 {
      %go = arith.cmpi slt, %acc, %n : i64
      scf.condition(%go) %acc : i64
    } do {
    ^bb0(%v: i64):
      %b = arith.addi %v, %v : i64
      scf.yield %b : i64
    }
    soac.yield %a : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @while_loop
// CHECK-NEXT:    %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %a = scf.while

// -----

// Irregular inner sizes: the accumulator starts as iota(x), of the element's size, so
// the array of accumulators could not be built (the map yields only the scalar).
func.func @irregular_init(%n: i64, %xs: tensor<?xi64>, %c0: i64, %c1: i64, %ok: !soac.cert) -> tensor<?xi64> {
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
    %io = soac.iota %x <%ok>
    %a, %t = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %io, %u = %c0) -> (tensor<?xi64>, i64) : i64 {
      %m = soac.map(%y = %acc : tensor<?xi64>) -> tensor<?xi64> {
        %z = arith.addi %y, %i : i64
        soac.yield %z : i64
      }
      %u2 = arith.addi %u, %i : i64
      scf.yield %m, %u2 : tensor<?xi64>, i64
    }
    soac.yield %t : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @irregular_init
// CHECK-NEXT:    %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %io = soac.iota %x <%ok>
// CHECK-NEXT:      %a, %t = scf.for

// -----

// Irregular inner sizes: the accumulator changes shape from step to step.
func.func @growing(%n: i64, %xss: tensor<?x?xi64>, %c0: i64, %c1: i64) -> tensor<?x?xi64> {
  %r = soac.map(%xs = %xss : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %xs) -> (tensor<?xi64>) : i64 {
      %m = soac.concat %acc, %acc : tensor<?xi64>
      scf.yield %m : tensor<?xi64>
    }
    soac.yield %a : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @growing
// CHECK-NEXT:    %r = soac.map(%xs = %xss : tensor<?x?xi64>) -> tensor<?x?xi64> {
// CHECK-NEXT:      %a = scf.for

// -----

// The body may fail (a check made inside it): the lockstep form could report another
// element's error first.
func.func @body_fails(%n: i64, %xs: tensor<?xi64>, %c0: i64, %c1: i64) -> tensor<?xi64> {
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i64) : i64 {
      %ok = arith.cmpi slt, %acc, %n : i64
      %c = soac.assert %ok, "too big" at "p.l0:1:1"
      %b = arith.addi %acc, %i : i64
      scf.yield %b : i64
    }
    soac.yield %a : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @body_fails
// CHECK-NEXT:    %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %a = scf.for

// -----

// The body uses an array the lambda binds whose shape depends on the element.
func.func @irregular_prelude(%n: i64, %xs: tensor<?xi64>, %c0: i64, %c1: i64, %ok: !soac.cert) -> tensor<?xi64> {
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
    %io = soac.iota %x <%ok>
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i64) : i64 {
      %s = soac.size(0) %io : tensor<?xi64>
      %b = arith.addi %acc, %s : i64
      scf.yield %b : i64
    }
    soac.yield %a : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @irregular_prelude
// CHECK-NEXT:    %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %io = soac.iota %x <%ok>
// CHECK-NEXT:      %a = scf.for

// -----

// A check in the body that is the same for every element, after a prelude whose
// check depends on the element: the original reports element 0's failing step before
// element 1's prelude runs; the first map would run element 1's prelude first.
func.func @fails_in_prelude_and_body(%n: i64, %xs: tensor<?xi64>, %c0: i64, %c1: i64, %lim: i64) -> tensor<?xi64> {
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
    %pos = arith.cmpi sle, %c0, %x : i64
    %p = soac.assert %pos, "negative" at "p.l0:1:1"
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i64) : i64 {
      %small = arith.cmpi slt, %i, %lim : i64
      %q = soac.assert %small, "too many steps" at "p.l0:2:1"
      %b = arith.addi %acc, %i : i64
      scf.yield %b : i64
    }
    soac.yield %a : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @fails_in_prelude_and_body
// CHECK-NEXT:    %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %pos = arith.cmpi sle, %c0, %x : i64
