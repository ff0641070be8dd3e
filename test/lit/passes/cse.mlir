// RUN: l0-opt %s -p cse,verify-uniqueness --split-input-file | filecheck %s

// Thesis 6.2: `2 * x + 2 * x` computes `2 * x` once.
func.func @cse_thesis(%x: i64) -> i64 {
  %two = arith.constant 2 : i64
  %a = arith.muli %two, %x : i64
  %b = arith.muli %two, %x : i64
  %s = arith.addi %a, %b : i64
  func.return %s : i64
}
// CHECK-LABEL: func.func @cse_thesis
// CHECK-NEXT:    %two = arith.constant 2 : i64
// CHECK-NEXT:    %a = arith.muli %two, %x : i64
// CHECK-NEXT:    %s = arith.addi %a, %a : i64
// CHECK-NEXT:    func.return %s

// -----

// Commutativity: `x*y` meets `y*x`, also on reals (IEEE + and * commute).
func.func @cse_commutative(%x: i64, %y: i64, %u: f64, %v: f64) -> (i64, i64, f64, f64) {
  %a = arith.muli %x, %y : i64
  %b = arith.muli %y, %x : i64
  %c = arith.mulf %u, %v : f64
  %d = arith.mulf %v, %u : f64
  func.return %a, %b, %c, %d : i64, i64, f64, f64
}
// CHECK-LABEL: func.func @cse_commutative
// CHECK-NEXT:    %a = arith.muli %x, %y : i64
// CHECK-NEXT:    %c = arith.mulf %u, %v : f64
// CHECK-NEXT:    func.return %a, %a, %c, %c

// -----

// Commutativity is the ops' `Commutative` trait: minimum, maximum, IEEE maxnum and
// the conjunction of certificates too; not subtraction or division.
func.func @cse_commutative_traits(%x: i64, %y: i64, %u: f64, %v: f64, %ok: i1, %ok2: i1) -> (i64, i64, f64, f64, i64, i64, f64, f64, !soac.cert, !soac.cert) {
  %a = arith.maxsi %x, %y : i64
  %b = arith.maxsi %y, %x : i64
  %c = arith.maxnumf %u, %v : f64
  %d = arith.maxnumf %v, %u : f64
  %e = arith.subi %x, %y : i64
  %f = arith.subi %y, %x : i64
  %g = arith.divf %u, %v : f64
  %h = arith.divf %v, %u : f64
  %c1 = soac.assert %ok, "one" at "p.l0:1:1"
  %c2 = soac.assert %ok2, "two" at "p.l0:2:1"
  %k = soac.conjoin(%c1, %c2)
  %l = soac.conjoin(%c2, %c1)
  func.return %a, %b, %c, %d, %e, %f, %g, %h, %k, %l : i64, i64, f64, f64, i64, i64, f64, f64, !soac.cert, !soac.cert
}
// CHECK-LABEL: func.func @cse_commutative_traits
// CHECK:         %k = soac.conjoin(%c1, %c2)
// CHECK-NEXT:    func.return %a, %a, %c, %c, %e, %f, %g, %h, %k, %k :

// -----

// Thesis 6.3.3, Figure 17: (x*y)*z, x*(y*z) and x*(z*y) have one sum-of-products form
// on integers; so do a+b+c and c+a+b. The intermediate products left unused go.
func.func @cse_figure_17(%x: i64, %y: i64, %z: i64) -> (i64, i64, i64, i64, i64) {
  %xy = arith.muli %x, %y : i64
  %p1 = arith.muli %xy, %z : i64
  %yz = arith.muli %y, %z : i64
  %p2 = arith.muli %x, %yz : i64
  %zy = arith.muli %z, %y : i64
  %p3 = arith.muli %x, %zy : i64
  %ab = arith.addi %x, %y : i64
  %s1 = arith.addi %ab, %z : i64
  %ca = arith.addi %z, %x : i64
  %s2 = arith.addi %ca, %y : i64
  func.return %p1, %p2, %p3, %s1, %s2 : i64, i64, i64, i64, i64
}
// CHECK-LABEL: func.func @cse_figure_17
// CHECK-NEXT:    %xy = arith.muli %x, %y : i64
// CHECK-NEXT:    %p1 = arith.muli %xy, %z : i64
// CHECK-NEXT:    %ab = arith.addi %x, %y : i64
// CHECK-NEXT:    %s1 = arith.addi %ab, %z : i64
// CHECK-NEXT:    func.return %p1, %p1, %p1, %s1, %s1

// -----

// Real multiplication is not associative: only the commuted product meets.
func.func @no_cse_real_reassociation(%x: f64, %y: f64, %z: f64) -> (f64, f64) {
  %xy = arith.mulf %x, %y : f64
  %p1 = arith.mulf %xy, %z : f64
  %yz = arith.mulf %y, %z : f64
  %p2 = arith.mulf %x, %yz : f64
  func.return %p1, %p2 : f64, f64
}
// CHECK-LABEL: func.func @no_cse_real_reassociation
// CHECK:         func.return %p1, %p2

// -----

// Distributivity and cancellation hold in wrapping integer arithmetic: `a*(b+c)` is
// `a*b + a*c`, and `(x + y) - y` is `x`.
func.func @cse_ring(%a: i64, %b: i64, %c: i64) -> (i64, i64, i64) {
  %bc = arith.addi %b, %c : i64
  %l = arith.muli %a, %bc : i64
  %ab = arith.muli %a, %b : i64
  %ac = arith.muli %a, %c : i64
  %r = arith.addi %ab, %ac : i64
  %ab2 = arith.addi %a, %b : i64
  %back = arith.subi %ab2, %b : i64
  func.return %l, %r, %back : i64, i64, i64
}
// CHECK-LABEL: func.func @cse_ring
// CHECK:         func.return %l, %l, %a

// -----

// Thesis 6.2: `a` is updated in place, so it and `b` must stay two arrays.
func.func @no_cse_consumed(%i: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %ten = arith.constant 10 : i64
  %five = arith.constant 5 : i64
  %a = soac.iota %ten
  %b = soac.iota %ten
  %a2 = soac.update %a[%i] = %five : tensor<?xi64>
  func.return %a2, %b : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @no_cse_consumed
// CHECK:         %a = soac.iota %ten
// CHECK-NEXT:    %b = soac.iota %ten

// -----

// Fresh arrays that nothing consumes can be one.
func.func @cse_fresh_unconsumed(%n: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %a = soac.iota %n
  %b = soac.iota %n
  func.return %a, %b : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @cse_fresh_unconsumed
// CHECK-NEXT:    %a = soac.iota %n
// CHECK-NEXT:    func.return %a, %a

// -----

// A check of a condition already checked cannot fail: it goes, and its users take the
// first check's certificate (with its message and location), also inside a lambda.
func.func @cse_checks(%a: tensor<?xi64>, %i: i64) -> (i64, tensor<?xi64>) {
  %n = soac.size(0) %a : tensor<?xi64>
  %ok = arith.cmpi slt, %i, %n : i64
  %c1 = soac.assert %ok, "first" at "t.l0:1:1"
  %c2 = soac.assert %ok, "second" at "t.l0:2:2"
  %e = soac.index %a[%i] <%c2> : tensor<?xi64> -> i64
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %c3 = soac.assert %ok, "third" at "t.l0:3:3"
    %f = soac.index %a[%i] <%c3> : tensor<?xi64> -> i64
    %s = arith.addi %x, %f : i64
    soac.yield %s : i64
  }
  func.return %e, %r : i64, tensor<?xi64>
}
// CHECK-LABEL: func.func @cse_checks
// CHECK:         %c1 = soac.assert %ok, "first" at "t.l0:1:1"
// CHECK-NOT:     soac.assert
// CHECK:         %e = soac.index %a[%i] <%c1>
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      arith.addi %x, %e

// -----

// Each trace prints: two equal traces stay two.
func.func @no_cse_trace(%x: i64) -> (i64, i64) {
  %a = soac.trace(%x : i64) at "t.l0:1:1"
  %b = soac.trace(%x : i64) at "t.l0:1:1"
  func.return %a, %b : i64, i64
}
// CHECK-LABEL: func.func @no_cse_trace
// CHECK-NEXT:    soac.trace
// CHECK-NEXT:    soac.trace

// -----

// SOACs compare structurally (their source locations aside).
func.func @cse_soac(%a: tensor<?xf64>, %k: f64) -> (tensor<?xf64>, tensor<?xf64>) {
  %r = soac.map(%x = %a : tensor<?xf64>) at "t.l0:1:1" -> tensor<?xf64> {
    %y = arith.mulf %x, %k : f64
    soac.yield %y : f64
  }
  %s = soac.map(%z = %a : tensor<?xf64>) at "t.l0:2:2" -> tensor<?xf64> {
    %w = arith.mulf %z, %k : f64
    soac.yield %w : f64
  }
  func.return %r, %s : tensor<?xf64>, tensor<?xf64>
}
// CHECK-LABEL: func.func @cse_soac
// CHECK:         soac.map
// CHECK-NOT:     soac.map
// CHECK:         func.return %r, %r

// -----

// The two branches of an `if` do not dominate each other: nothing merges across them.
func.func @no_cse_across_branches(%c: i1, %x: i64, %y: i64) -> i64 {
  %r = scf.if %c -> (i64) {
    %a = arith.muli %x, %y : i64
    scf.yield %a : i64
  } else {
    %b = arith.muli %x, %y : i64
    scf.yield %b : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @no_cse_across_branches
// CHECK:         arith.muli %x, %y
// CHECK:         arith.muli %x, %y

// -----

// Certificates are a set; `a > b` is `b < a`.
func.func @cse_normal_forms(%a: tensor<?xi64>, %i: i64, %c1: !soac.cert, %c2: !soac.cert) -> (i64, i64, i1, i1) {
  %x = soac.index %a[%i] <%c1, %c2> : tensor<?xi64> -> i64
  %y = soac.index %a[%i] <%c2, %c1> : tensor<?xi64> -> i64
  %p = arith.cmpi sgt, %x, %i : i64
  %q = arith.cmpi slt, %i, %x : i64
  func.return %x, %y, %p, %q : i64, i64, i1, i1
}
// CHECK-LABEL: func.func @cse_normal_forms
// CHECK:         func.return %x, %x, %p, %p

// -----

// Lambdas that differ only in a constant compute different things: no merge (the
// constants are properties of ops inside the regions, part of the structural key).
func.func @no_cse_lambdas_differing_in_a_constant(%a: tensor<?xi64>, %u: tensor<?xf64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xf64>, tensor<?xf64>) {
  %r = soac.map(%x = %a : tensor<?xi64>) at "t.l0:1:1" -> tensor<?xi64> {
    %two = arith.constant 2 : i64
    %y = arith.muli %x, %two : i64
    soac.yield %y : i64
  }
  %s = soac.map(%z = %a : tensor<?xi64>) at "t.l0:2:2" -> tensor<?xi64> {
    %three = arith.constant 3 : i64
    %w = arith.muli %z, %three : i64
    soac.yield %w : i64
  }
  %p = soac.map(%x = %u : tensor<?xf64>) at "t.l0:3:3" -> tensor<?xf64> {
    %half = arith.constant 0.5 : f64
    %y = arith.addf %x, %half : f64
    soac.yield %y : f64
  }
  %q = soac.map(%z = %u : tensor<?xf64>) at "t.l0:4:4" -> tensor<?xf64> {
    %quarter = arith.constant 0.25 : f64
    %w = arith.addf %z, %quarter : f64
    soac.yield %w : f64
  }
  func.return %r, %s, %p, %q : tensor<?xi64>, tensor<?xi64>, tensor<?xf64>, tensor<?xf64>
}
// CHECK-LABEL: func.func @no_cse_lambdas_differing_in_a_constant
// CHECK:         %r = soac.map
// CHECK:           arith.constant 2 : i64
// CHECK:         %s = soac.map
// CHECK:           arith.constant 3 : i64
// CHECK:         %p = soac.map
// CHECK:           arith.constant 5.000000e-01 : f64
// CHECK:         %q = soac.map
// CHECK:           arith.constant 2.500000e-01 : f64
// CHECK:         func.return %r, %s, %p, %q

// -----

// Every predicate with a mirror image meets it: `a > b` is `b < a`, signed or
// unsigned, ordered or unordered; the mirror of one is never another predicate's.
func.func @cse_mirrored_predicates(%x: i64, %y: i64, %u: f64, %v: f64) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %a1 = arith.cmpi sgt, %x, %y : i64
  %b1 = arith.cmpi slt, %y, %x : i64
  %a2 = arith.cmpi sge, %x, %y : i64
  %b2 = arith.cmpi sle, %y, %x : i64
  %a3 = arith.cmpi ugt, %x, %y : i64
  %b3 = arith.cmpi ult, %y, %x : i64
  %a4 = arith.cmpi uge, %x, %y : i64
  %b4 = arith.cmpi ule, %y, %x : i64
  %a5 = arith.cmpf ogt, %u, %v : f64
  %b5 = arith.cmpf olt, %v, %u : f64
  %a6 = arith.cmpf oge, %u, %v : f64
  %b6 = arith.cmpf ole, %v, %u : f64
  %a7 = arith.cmpf ugt, %u, %v : f64
  %b7 = arith.cmpf ult, %v, %u : f64
  %a8 = arith.cmpf uge, %u, %v : f64
  %b8 = arith.cmpf ule, %v, %u : f64
  func.return %a1, %b1, %a2, %b2, %a3, %b3, %a4, %b4, %a5, %b5, %a6, %b6, %a7, %b7, %a8, %b8 : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}
// CHECK-LABEL: func.func @cse_mirrored_predicates
// CHECK:         func.return %a1, %a1, %a2, %a2, %a3, %a3, %a4, %a4, %a5, %a5, %a6, %a6, %a7, %a7, %a8, %a8

// -----

// Products of sums expand exactly: `x*y + x*y` is `(2*x)*y`, and `(x+y)*(x+y)` is
// `x*x + 2*x*y + y*y`; `x*x + y*y` is neither.
func.func @cse_products(%x: i64, %y: i64) -> (i64, i64, i64, i64, i64) {
  %two = arith.constant 2 : i64
  %p = arith.muli %x, %y : i64
  %s = arith.addi %p, %p : i64
  %t = arith.muli %two, %x : i64
  %u = arith.muli %t, %y : i64
  %xy = arith.addi %x, %y : i64
  %sq = arith.muli %xy, %xy : i64
  %xx = arith.muli %x, %x : i64
  %yy = arith.muli %y, %y : i64
  %e1 = arith.addi %xx, %u : i64
  %e2 = arith.addi %e1, %yy : i64
  %n = arith.addi %xx, %yy : i64
  func.return %s, %u, %sq, %e2, %n : i64, i64, i64, i64, i64
}
// CHECK-LABEL: func.func @cse_products
// CHECK:         func.return %s, %s, %sq, %sq, %n

// -----

// Symmetric predicates ignore the order of their operands; the others do not.
func.func @cse_symmetric_predicates(%x: i64, %y: i64, %u: f64, %v: f64) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %e1 = arith.cmpi eq, %x, %y : i64
  %e2 = arith.cmpi eq, %y, %x : i64
  %n1 = arith.cmpi ne, %x, %y : i64
  %n2 = arith.cmpi ne, %y, %x : i64
  %f1 = arith.cmpf false, %u, %v : f64
  %f2 = arith.cmpf false, %v, %u : f64
  %q1 = arith.cmpf oeq, %u, %v : f64
  %q2 = arith.cmpf oeq, %v, %u : f64
  %o1 = arith.cmpf one, %u, %v : f64
  %o2 = arith.cmpf one, %v, %u : f64
  %r1 = arith.cmpf ord, %u, %v : f64
  %r2 = arith.cmpf ord, %v, %u : f64
  %w1 = arith.cmpf ueq, %u, %v : f64
  %w2 = arith.cmpf ueq, %v, %u : f64
  %m1 = arith.cmpf une, %u, %v : f64
  %m2 = arith.cmpf une, %v, %u : f64
  %z1 = arith.cmpf uno, %u, %v : f64
  %z2 = arith.cmpf uno, %v, %u : f64
  %t1 = arith.cmpf true, %u, %v : f64
  %t2 = arith.cmpf true, %v, %u : f64
  %g1 = arith.cmpf ogt, %u, %v : f64
  %g2 = arith.cmpf ogt, %v, %u : f64
  %s1 = arith.cmpi slt, %x, %y : i64
  %s2 = arith.cmpi slt, %y, %x : i64
  func.return %e1, %e2, %n1, %n2, %f1, %f2, %q1, %q2, %o1, %o2, %r1, %r2, %w1, %w2, %m1, %m2, %z1, %z2, %t1, %t2, %g1, %g2, %s1, %s2 : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}
// CHECK-LABEL: func.func @cse_symmetric_predicates
// CHECK:         func.return %e1, %e1, %n1, %n1, %f1, %f1, %q1, %q1, %o1, %o1, %r1, %r1, %w1, %w1, %m1, %m1, %z1, %z1, %t1, %t1, %g1, %g2, %s1, %s2

// -----

// Coefficients multiply: `3 * x` is `x + x + x`.
func.func @cse_coefficients(%x: i64) -> (i64, i64) {
  %three = arith.constant 3 : i64
  %t = arith.muli %three, %x : i64
  %a = arith.addi %x, %x : i64
  %b = arith.addi %a, %x : i64
  func.return %t, %b : i64, i64
}
// CHECK-LABEL: func.func @cse_coefficients
// CHECK:         func.return %t, %t

// -----

// Ops with regions of one shallow key are compared by their regions' keys
// (Note [Comparing regions in linear time]): the third map meets the first, past a
// second that differs only in a constant.
func.func @cse_regions_past_a_sibling(%a: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %p = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %one = arith.constant 1 : i64
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %q = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %two = arith.constant 2 : i64
    %y = arith.addi %x, %two : i64
    soac.yield %y : i64
  }
  %r = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %one = arith.constant 1 : i64
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  func.return %p, %q, %r : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @cse_regions_past_a_sibling
// CHECK:         %p = soac.map
// CHECK:         %q = soac.map
// CHECK-NOT:     soac.map
// CHECK:         func.return %p, %q, %p

// -----

// The same with ops that have regions (filed under their full key): two equal maps,
// and the first is updated in place, so they stay two arrays.
func.func @no_cse_consumed_map(%a: tensor<?xi64>, %i: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %five = arith.constant 5 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %b2 = soac.update %b[%i] = %five : tensor<?xi64>
  func.return %b2, %c : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @no_cse_consumed_map
// CHECK:         %b = soac.map
// CHECK:         %c = soac.map
// CHECK:         soac.update %b

// -----

// Coefficients wrap like i64 arithmetic: x * 2^62 * 4 and (-2^63) * 2 are 0.
func.func @cse_wrap(%x: i64) -> (i64, i64, i64) {
  %zero = arith.constant 0 : i64
  %big = arith.constant 4611686018427387904 : i64
  %four = arith.constant 4 : i64
  %a = arith.muli %x, %big : i64
  %b = arith.muli %a, %four : i64
  %m = arith.constant -9223372036854775808 : i64
  %two = arith.constant 2 : i64
  %c = arith.muli %m, %two : i64
  func.return %b, %zero, %c : i64, i64, i64
}
// CHECK-LABEL: func.func @cse_wrap
// CHECK-NEXT:    %zero = arith.constant 0 : i64
// CHECK-NEXT:    func.return %zero, %zero, %zero : i64, i64, i64

// -----

// A map inside a branch, compared with an earlier map of the same shape (its lambda
// differs), is remembered in the branch's scope only: the equal map after the `if`
// is not replaced by the one in the branch, which it could not see.
func.func @no_cse_from_branch(%a: tensor<?xi64>, %c: i1) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %m0 = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %r = scf.if %c -> (tensor<?xi64>) {
    %m1 = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.addi %x, %x : i64
      soac.yield %y : i64
    }
    scf.yield %m1 : tensor<?xi64>
  } else {
    scf.yield %a : tensor<?xi64>
  }
  %m2 = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  func.return %m0, %r, %m2 : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @no_cse_from_branch
// CHECK:         scf.if
// CHECK:           [[M1:%.*]] = soac.map
// CHECK:           scf.yield [[M1]]
// CHECK:         [[M2:%.*]] = soac.map
// CHECK:         func.return %{{.*}}, %{{.*}}, [[M2]] :

// -----

// The sum-of-products form stops at degree 6 (a bound on its cost): x^6 written two
// ways is one value, x^7 written two ways stays two (each is then its own atom).
func.func @cse_degree_limit(%x: i64) -> (i64, i64, i64, i64) {
  %x2 = arith.muli %x, %x : i64
  %x3 = arith.muli %x2, %x : i64
  %x4 = arith.muli %x2, %x2 : i64
  %a6 = arith.muli %x3, %x3 : i64
  %b6 = arith.muli %x4, %x2 : i64
  %a7 = arith.muli %x4, %x3 : i64
  %x5 = arith.muli %x4, %x : i64
  %b7 = arith.muli %x5, %x2 : i64
  func.return %a6, %b6, %a7, %b7 : i64, i64, i64, i64
}
// CHECK-LABEL: func.func @cse_degree_limit
// CHECK:         [[A6:%.*]] = arith.muli %x3, %x3 : i64
// CHECK-NOT:     %b6 =
// CHECK:         [[A7:%.*]] = arith.muli %x4, %x3 : i64
// CHECK:         [[B7:%.*]] = arith.muli %x5, %x2 : i64
// CHECK:         func.return [[A6]], [[A6]], [[A7]], [[B7]] :

// -----

// A map compared with an earlier one of the same shape and not merged (its lambda
// differs) is remembered: a third map equal to it is replaced by it.
func.func @cse_after_a_near_miss(%a: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %m0 = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %m1 = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %m2 = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  func.return %m0, %m1, %m2 : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @cse_after_a_near_miss
// CHECK:         %m1 = soac.map
// CHECK-NOT:     soac.map
// CHECK:         func.return %m0, %m1, %m1 :
