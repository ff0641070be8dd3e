// RUN: l0-opt %s -p hoist,verify-uniqueness --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'hoist{aggressive=true}' --split-input-file | filecheck %s --check-prefix=AGGR

// Thesis Figure 15: `k = y + z` is invariant in the lambda and leaves it.
func.func @hoist_figure_15(%a: tensor<?xi64>, %y: i64, %z: i64) -> tensor<?xi64> {
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %k = arith.addi %y, %z : i64
    %s = arith.addi %x, %k : i64
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @hoist_figure_15
// CHECK-NEXT:    [[K:%.*]] = arith.addi %y, %z : i64
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      arith.addi %x, [[K]] : i64
// CHECK-NEXT:      soac.yield

// -----

// An op invariant in two nested lambdas climbs out of both; one that uses the outer
// row leaves only the inner lambda.
func.func @hoist_two_levels(%a: tensor<?x?xi64>, %y: i64) -> tensor<?x?xi64> {
  %r = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %s = soac.map(%x = %row : tensor<?xi64>) -> tensor<?xi64> {
      %sq = arith.muli %y, %y : i64
      %n = soac.size(0) %row : tensor<?xi64>
      %t = arith.addi %sq, %n : i64
      %u = arith.addi %x, %t : i64
      soac.yield %u : i64
    }
    soac.yield %s : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @hoist_two_levels
// CHECK-NEXT:    [[SQ:%.*]] = arith.muli %y, %y : i64
// CHECK-NEXT:    soac.map(%row = %a
// CHECK-NEXT:      [[N:%.*]] = soac.size(0) %row
// CHECK-NEXT:      [[T:%.*]] = arith.addi [[SQ]], [[N]] : i64
// CHECK-NEXT:      soac.map(%x = %row
// CHECK-NEXT:        arith.addi %x, [[T]] : i64

// -----

// Out of an scf.for body; the merge value and the induction variable keep the rest in.
func.func @hoist_out_of_loop(%n: i64, %y: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %two = arith.constant 2 : i64
    %k = arith.muli %y, %two : i64
    %t = arith.addi %acc, %k : i64
    %u = arith.addi %t, %i : i64
    scf.yield %u : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @hoist_out_of_loop
// CHECK:         %two = arith.constant 2 : i64
// CHECK-NEXT:    [[K:%.*]] = arith.muli %y, %two : i64
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      arith.addi %acc, [[K]] : i64
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      scf.yield

// -----

func.func @f(%a: tensor<?xi64> {soac.unique}, %i: i64) -> i64 {
  %u = soac.update %a[%i] = %i : tensor<?xi64>
  %s = soac.size(0) %u : tensor<?xi64>
  func.return %s : i64
}

// Thesis 6.1.1: `f` consumes `a`, so every iteration needs a fresh `iota(10)`.
func.func @no_hoist_consumed(%b: tensor<?xi64>) -> tensor<?xi64> {
  %ten = arith.constant 10 : i64
  %r = soac.map(%i = %b : tensor<?xi64>) -> tensor<?xi64> {
    %a = soac.iota %ten
    %v = func.call @f(%a, %i) : (tensor<?xi64>, i64) -> i64
    soac.yield %v : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_hoist_consumed
// CHECK:         soac.map
// CHECK-NEXT:      soac.iota
// CHECK-NEXT:      func.call @f

// -----

// A fresh array carried into a merge value that the body consumes (updates in place)
// must be fresh on every iteration.
func.func @no_hoist_carried_into_consumed(%n: i64, %a: tensor<?xi64> {soac.unique}) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %ten = arith.constant 10 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %a) -> (tensor<?xi64>) : i64 {
    %u = soac.update %acc[%zero] = %i : tensor<?xi64>
    %fresh = soac.iota %ten
    scf.yield %fresh : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_hoist_carried_into_consumed
// CHECK:         scf.for
// CHECK-NEXT:      soac.update
// CHECK-NEXT:      soac.iota %ten

// -----

// Note [Loops that run zero times]: an invariant check leaves a map that may have no
// rows as `c || size(0, a) = 0`; the indexing it guards may fail, so it stays.
func.func @hoist_check_guarded(%a: tensor<?xi64>, %b: tensor<?xi64>, %k: i64) -> tensor<?xi64> {
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %s = soac.size(0) %b : tensor<?xi64>
    %ok = arith.cmpi slt, %k, %s : i64
    %c = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "t.l0:1:2"
    %e = soac.index %b[%k] <%c> : tensor<?xi64> -> i64
    %y = arith.addi %x, %e : i64
    soac.yield %y : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @hoist_check_guarded
// CHECK-NEXT:    [[S:%.*]] = soac.size(0) %b
// CHECK-NEXT:    [[OK:%.*]] = arith.cmpi slt, %k, [[S]] : i64
// CHECK-NEXT:    [[N:%.*]] = soac.size(0) %a
// CHECK-NEXT:    [[Z:%.*]] = arith.constant 0 : i64
// CHECK-NEXT:    [[EMPTY:%.*]] = arith.cmpi eq, [[N]], [[Z]] : i64
// CHECK-NEXT:    [[G:%.*]] = arith.ori [[OK]], [[EMPTY]] : i1
// CHECK-NEXT:    [[C:%.*]] = soac.assert [[G]], "index {0} out of bounds" (%k : i64) at "t.l0:1:2"
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      soac.index %b[%k] <[[C]]>

// -----

// A loop that certainly runs (constant bounds): the check leaves as it is, and so does
// the indexing it guards.
func.func @hoist_check_nonempty(%b: tensor<?xi64>, %k: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %four = arith.constant 4 : i64
  %r = scf.for %i = %zero to %four step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %s = soac.size(0) %b : tensor<?xi64>
    %ok = arith.cmpi slt, %k, %s : i64
    %c = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "t.l0:1:2"
    %e = soac.index %b[%k] <%c> : tensor<?xi64> -> i64
    %y = arith.addi %acc, %e : i64
    scf.yield %y : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @hoist_check_nonempty
// CHECK:         [[OK:%.*]] = arith.cmpi slt, %k, {{%.*}} : i64
// CHECK-NEXT:    [[C:%.*]] = soac.assert [[OK]]
// CHECK-NEXT:    [[E:%.*]] = soac.index %b[%k] <[[C]]>
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      arith.addi %acc, [[E]] : i64
// CHECK-NEXT:      scf.yield

// -----

// Note [Hoisting checks]: a check that depends on the iteration comes first; the
// invariant check after it stays, so that the first failure reported is unchanged.
func.func @no_hoist_check_after_variant(%a: tensor<?xi64>, %b: tensor<?xi64>, %k: i64) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %v = arith.cmpi sle, %zero, %x : i64
    %c1 = soac.assert %v, "negative" at "t.l0:1:1"
    %s = soac.size(0) %b : tensor<?xi64>
    %ok = arith.cmpi slt, %k, %s : i64
    %c2 = soac.assert %ok, "out of bounds" at "t.l0:1:2"
    %e = soac.index %b[%k] <%c1, %c2> : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_hoist_check_after_variant
// CHECK:         [[OK:%.*]] = arith.cmpi slt, %k
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      arith.cmpi sle, %zero, %x
// CHECK-NEXT:      soac.assert {{%.*}}, "negative"
// CHECK-NEXT:      soac.assert [[OK]], "out of bounds"

// -----

// Thesis 6.1.1, hoisting out of branches: `y / x` may fail (the divisor may be zero),
// and so may its check, so both stay in their branches; the cheap `x + 1` leaves both.
func.func @branches(%c: i1, %x: i64, %y: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %r = scf.if %c -> (i64) {
    %one = arith.constant 1 : i64
    %x1 = arith.addi %x, %one : i64
    %nz = arith.cmpi ne, %x, %zero : i64
    %ok = soac.assert %nz, "division by zero" at "t.l0:1:1"
    %q = arith.floordivsi %y, %x : i64
    %s = arith.addi %q, %x1 : i64
    scf.yield %s : i64
  } else {
    %one2 = arith.constant 1 : i64
    %x2 = arith.addi %x, %one2 : i64
    scf.yield %x2 : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @branches
// CHECK:         arith.addi %x, %one : i64
// CHECK:         arith.addi %x, %one2 : i64
// CHECK-NEXT:    scf.if %c
// CHECK-NEXT:      soac.assert
// CHECK-NEXT:      arith.floordivsi %y, %x
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %x2

// -----

// Building an array is costly: it leaves a branch only with `aggressive`.
func.func @branch_costly(%c: i1, %a: tensor<?xi64>) -> tensor<?xi64> {
  %r = scf.if %c -> (tensor<?xi64>) {
    %b = soac.copy %a : tensor<?xi64>
    scf.yield %b : tensor<?xi64>
  } else {
    scf.yield %a : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @branch_costly
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      soac.copy
// AGGR-LABEL: func.func @branch_costly
// AGGR-NEXT:    soac.copy
// AGGR-NEXT:    scf.if

// -----

// A trace prints once per iteration: it never moves.
func.func @no_hoist_trace(%a: tensor<?xi64>, %y: i64) -> tensor<?xi64> {
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %t = soac.trace(%y : i64) at "t.l0:1:1"
    %s = arith.addi %x, %t : i64
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_hoist_trace
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      soac.trace

// -----

// The combining lambda of a redomap may never run: what may fail stays in it, what
// cannot leaves.
func.func @redomap_outer(%a: tensor<?xi64>, %y: i64, %d: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %r = soac.redomap(%acc = %zero : i64) over(%x = %a : tensor<?xi64>) {
    %s = arith.addi %acc, %x : i64
    soac.yield %s : i64
  } outer {
  ^bb0(%p: i64, %q: i64):
    %k = arith.muli %y, %y : i64
    %e = arith.floordivsi %y, %d : i64
    %s = arith.addi %p, %q : i64
    %t = arith.addi %s, %k : i64
    %u = arith.addi %t, %e : i64
    soac.yield %u : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @redomap_outer
// CHECK:         arith.muli %y, %y : i64
// CHECK-NEXT:    soac.redomap
// CHECK:         } outer {
// CHECK-NEXT:    ^bb0(%p: i64, %q: i64):
// CHECK-NEXT:      arith.floordivsi %y, %d

// -----

// The fresh array is the second merge value (the induction variable is the body's
// first argument): it is carried into `%acc`, which the body consumes, so it stays.
func.func @no_hoist_carried_second_into_consumed(%n: i64, %a: tensor<?xi64> {soac.unique}) -> (i64, tensor<?xi64>) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %ten = arith.constant 10 : i64
  %r:2 = scf.for %i = %zero to %n step %one iter_args(%s = %zero, %acc = %a) -> (i64, tensor<?xi64>) : i64 {
    %u = soac.update %acc[%zero] = %i : tensor<?xi64>
    %fresh = soac.iota %ten
    %t = arith.addi %s, %i : i64
    scf.yield %t, %fresh : i64, tensor<?xi64>
  }
  func.return %r#0, %r#1 : i64, tensor<?xi64>
}
// CHECK-LABEL: func.func @no_hoist_carried_second_into_consumed
// CHECK:         scf.for
// CHECK-NEXT:      soac.update
// CHECK-NEXT:      soac.iota %ten

// -----

// A map over `iota(1)` certainly runs: the check and the indexing it guards leave as
// they are, as out of a loop with constant bounds.
func.func @hoist_check_nonempty_map(%b: tensor<?xi64>, %k: i64) -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %a = soac.iota %one
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %s = soac.size(0) %b : tensor<?xi64>
    %ok = arith.cmpi slt, %k, %s : i64
    %c = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "t.l0:1:2"
    %e = soac.index %b[%k] <%c> : tensor<?xi64> -> i64
    %y = arith.addi %x, %e : i64
    soac.yield %y : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @hoist_check_nonempty_map
// CHECK:         [[OK:%.*]] = arith.cmpi slt, %k, {{%.*}} : i64
// CHECK-NEXT:    [[C:%.*]] = soac.assert [[OK]]
// CHECK-NEXT:    [[E:%.*]] = soac.index %b[%k] <[[C]]>
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      arith.addi %x, [[E]] : i64

// -----

// Constant bounds with no iteration (4 to 4): the loop may not run, so the check leaves
// guarded and the indexing stays.
func.func @hoist_check_empty_loop(%b: tensor<?xi64>, %k: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %four = arith.constant 4 : i64
  %r = scf.for %i = %four to %four step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %s = soac.size(0) %b : tensor<?xi64>
    %ok = arith.cmpi slt, %k, %s : i64
    %c = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "t.l0:1:2"
    %e = soac.index %b[%k] <%c> : tensor<?xi64> -> i64
    %y = arith.addi %acc, %e : i64
    scf.yield %y : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @hoist_check_empty_loop
// CHECK:         arith.ori
// CHECK-NEXT:    soac.assert
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      soac.index %b[%k]

// -----

func.func @g(%a: tensor<?xi64> {soac.unique}) -> i64 {
  %s = soac.size(0) %a : tensor<?xi64>
  func.return %s : i64
}

// Passing an array to a unique parameter consumes it: the call never leaves a branch
// (the other branch may still use the array), cheap and safe as it is.
func.func @no_hoist_consuming_call(%c: i1, %a: tensor<?xi64> {soac.unique}) -> i64 {
  %r = scf.if %c -> (i64) {
    %v = func.call @g(%a) : (tensor<?xi64>) -> i64
    scf.yield %v : i64
  } else {
    %s = soac.size(0) %a : tensor<?xi64>
    scf.yield %s : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @no_hoist_consuming_call
// CHECK:         scf.if %c
// CHECK-NEXT:      func.call @g(%a)

// -----

// A constant lower bound alone says nothing about the trip count: the check leaves
// guarded by `n <= 0`, and the indexing stays.
func.func @hoist_check_unknown_trip_count(%b: tensor<?xi64>, %k: i64, %n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %s = soac.size(0) %b : tensor<?xi64>
    %ok = arith.cmpi slt, %k, %s : i64
    %c = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "t.l0:1:2"
    %e = soac.index %b[%k] <%c> : tensor<?xi64> -> i64
    %y = arith.addi %acc, %e : i64
    scf.yield %y : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @hoist_check_unknown_trip_count
// CHECK:         arith.cmpi sle, %n, %zero : i64
// CHECK-NEXT:    arith.ori
// CHECK-NEXT:    soac.assert
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      soac.index %b[%k]

// -----

func.func @h(%a: tensor<?xi64>) -> i64 {
  %s = soac.size(0) %a : tensor<?xi64>
  func.return %s : i64
}

// A call that passes its array to no unique parameter consumes nothing: cheap, it
// leaves the branch like any cheap op; so does a transposition (a view, not a copy).
func.func @hoist_plain_call_and_transpose(%c: i1, %a: tensor<?xi64>, %m: tensor<?x?xi64>) -> (i64, tensor<?x?xi64>) {
  %r:2 = scf.if %c -> (i64, tensor<?x?xi64>) {
    %v = func.call @h(%a) : (tensor<?xi64>) -> i64
    %t = soac.transpose(0, 1) %m : tensor<?x?xi64>
    scf.yield %v, %t : i64, tensor<?x?xi64>
  } else {
    %zero = arith.constant 0 : i64
    scf.yield %zero, %m : i64, tensor<?x?xi64>
  }
  func.return %r#0, %r#1 : i64, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @hoist_plain_call_and_transpose
// CHECK-NEXT:    %v = func.call @h(%a)
// CHECK-NEXT:    %t = soac.transpose
// CHECK:         scf.if %c

// -----

// A fold whose lambda returns an invariant fresh array as the new accumulator: the
// accumulator parameter is not consumed, so `iota(10)` leaves the fold.
func.func @hoist_fresh_accumulator(%m: tensor<?x?xi64>, %z: tensor<?xi64>) -> tensor<?xi64> {
  %ten = arith.constant 10 : i64
  %r = soac.reduce(%acc = %z : tensor<?xi64>) over(%row = %m : tensor<?x?xi64>) {
    %fresh = soac.iota %ten
    soac.yield %fresh : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @hoist_fresh_accumulator
// CHECK-NEXT:    %ten = arith.constant 10 : i64
// CHECK-NEXT:    %fresh = soac.iota %ten
// CHECK-NEXT:    soac.reduce

// -----

// A map over `replicate(0, iota(4))` has no rows (its rows have four elements): the
// check leaves guarded, and the indexing stays.
func.func @hoist_check_no_rows(%b: tensor<?xi64>, %k: i64) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %four = arith.constant 4 : i64
  %row = soac.iota %four
  %a = soac.replicate %zero, %row : tensor<?xi64>
  %r = soac.map(%x = %a : tensor<?x?xi64>) -> tensor<?xi64> {
    %s = soac.size(0) %b : tensor<?xi64>
    %ok = arith.cmpi slt, %k, %s : i64
    %c = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "t.l0:1:2"
    %e = soac.index %b[%k] <%c> : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @hoist_check_no_rows
// CHECK:         arith.ori
// CHECK-NEXT:    soac.assert
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      soac.index %b[%k]

// -----

func.func @h2(%a: tensor<?xi64>, %n: i64 {soac.unique}) -> i64 {
  %s = soac.size(0) %a : tensor<?xi64>
  func.return %s : i64
}

// Only the parameters marked unique consume: `%a` goes to a plain one.
func.func @hoist_call_to_plain_parameter(%c: i1, %a: tensor<?xi64>, %k: i64) -> i64 {
  %r = scf.if %c -> (i64) {
    %v = func.call @h2(%a, %k) : (tensor<?xi64>, i64) -> i64
    scf.yield %v : i64
  } else {
    scf.yield %k : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @hoist_call_to_plain_parameter
// CHECK-NEXT:    %v = func.call @h2(%a, %k)
// CHECK-NEXT:    scf.if %c

// -----

// An update that cannot fail (its certificate proves the index) still consumes its
// array: it stays in its branch, even when costly ops may leave.
func.func @no_hoist_update_out_of_branch(%c: i1, %a: tensor<?xi64> {soac.unique}, %i: i64, %ok: !soac.cert) -> tensor<?xi64> {
  %r = scf.if %c -> (tensor<?xi64>) {
    %u = soac.update %a[%i] = %i <%ok> : tensor<?xi64>
    scf.yield %u : tensor<?xi64>
  } else {
    %z = soac.iota %i
    scf.yield %z : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}
// AGGR-LABEL: func.func @no_hoist_update_out_of_branch
// AGGR-NEXT:    scf.if %c
// AGGR-NEXT:      soac.update

// -----

// An op whose second result is an array the loop consumes stays, whatever its first.
func.func @no_hoist_second_result_consumed(%n: i64, %c: i1) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %ten = arith.constant 10 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %p, %q = scf.if %c -> (i64, tensor<?xi64>) {
      %f = soac.iota %ten
      scf.yield %one, %f : i64, tensor<?xi64>
    } else {
      %g = soac.iota %one
      scf.yield %zero, %g : i64, tensor<?xi64>
    }
    %u = soac.update %q[%zero] = %i : tensor<?xi64>
    %s = soac.size(0) %u : tensor<?xi64>
    %t = arith.addi %acc, %s : i64
    %w = arith.addi %t, %p : i64
    scf.yield %w : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @no_hoist_second_result_consumed
// CHECK:         scf.for
// CHECK-NEXT:      scf.if %c

// -----

// An op that stays because it depends on the row, and cannot fail, does not hold back
// a check after it (only ops that may fail do, Note [Hoisting checks]).
func.func @hoist_check_after_variant_safe_op(%a: tensor<?xi64>, %b: tensor<?xi64>, %k: i64) -> tensor<?xi64> {
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %d = arith.addi %x, %x : i64
    %s = soac.size(0) %b : tensor<?xi64>
    %ok = arith.cmpi slt, %k, %s : i64
    %c = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "t.l0:1:2"
    %e = soac.index %b[%k] <%c> : tensor<?xi64> -> i64
    %y = arith.addi %d, %e : i64
    soac.yield %y : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @hoist_check_after_variant_safe_op
// CHECK:         soac.assert
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      arith.addi %x, %x

// -----

// An op with regions is not cheap, even when its result is a scalar: a fold stays in
// its branch unless `aggressive`.
func.func @branch_costly_fold(%c: i1, %a: tensor<?xi64>) -> i64 {
  %zero = arith.constant 0 : i64
  %r = scf.if %c -> (i64) {
    %s = soac.reduce(%acc = %zero : i64) over(%x = %a : tensor<?xi64>) {
      %t = arith.addi %acc, %x : i64
      soac.yield %t : i64
    }
    scf.yield %s : i64
  } else {
    scf.yield %zero : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @branch_costly_fold
// CHECK-NEXT:    %zero = arith.constant 0 : i64
// CHECK-NEXT:    scf.if %c
// CHECK-NEXT:      soac.reduce
// AGGR-LABEL: func.func @branch_costly_fold
// AGGR-NEXT:    %zero = arith.constant 0 : i64
// AGGR-NEXT:    soac.reduce

// -----

// The fresh array is carried into `%x`, which nothing consumes: it leaves the loop,
// although the other merge value `%y` is consumed.
func.func @hoist_carried_into_unconsumed(%n: i64, %a: tensor<?xi64>, %b: tensor<?xi64> {soac.unique}) -> (tensor<?xi64>, tensor<?xi64>) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %ten = arith.constant 10 : i64
  %r:2 = scf.for %i = %zero to %n step %one iter_args(%x = %a, %y = %b) -> (tensor<?xi64>, tensor<?xi64>) : i64 {
    %fresh = soac.iota %ten
    %u = soac.update %y[%zero] = %i : tensor<?xi64>
    scf.yield %fresh, %u : tensor<?xi64>, tensor<?xi64>
  }
  func.return %r#0, %r#1 : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @hoist_carried_into_unconsumed
// CHECK:         %fresh = soac.iota %ten
// CHECK-NEXT:    scf.for

// -----

// The same with the consumed merge value first.
func.func @hoist_carried_into_unconsumed_second(%n: i64, %a: tensor<?xi64>, %b: tensor<?xi64> {soac.unique}) -> (tensor<?xi64>, tensor<?xi64>) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %ten = arith.constant 10 : i64
  %r:2 = scf.for %i = %zero to %n step %one iter_args(%y = %b, %x = %a) -> (tensor<?xi64>, tensor<?xi64>) : i64 {
    %fresh = soac.iota %ten
    %u = soac.update %y[%zero] = %i : tensor<?xi64>
    scf.yield %u, %fresh : tensor<?xi64>, tensor<?xi64>
  }
  func.return %r#0, %r#1 : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @hoist_carried_into_unconsumed_second
// CHECK:         %fresh = soac.iota %ten
// CHECK-NEXT:    scf.for

// -----

// An iota whose certificate is its count's check (`0 <= n`, as the front end writes it)
// cannot fail: it leaves a map that may run zero times. Without that certificate it
// may (a negative count) and stays.
func.func @checked_iota(%xs: tensor<?xi64>, %n: i64) -> (tensor<?x?xi64>, tensor<?x?xi64>) {
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi sle, %zero, %n : i64
  %c = soac.assert %ok, "negative size {0} given to iota" (%n : i64) at "t.l0:1:1"
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xi64> {
    %js = soac.iota %n <%c>
    soac.yield %js : tensor<?xi64>
  }
  %s = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xi64> {
    %js = soac.iota %n
    soac.yield %js : tensor<?xi64>
  }
  func.return %r, %s : tensor<?x?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @checked_iota
// CHECK:         %js = soac.iota %n <%c>
// CHECK-NEXT:    %r = soac.map
// CHECK:         %s = soac.map
// CHECK-NEXT:      %js_1 = soac.iota %n
