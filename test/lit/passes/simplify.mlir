// RUN: l0-opt %s -p simplify,verify-uniqueness --split-input-file | filecheck %s

// The thesis's own examples (chapter 5.3). Topic files: simplify-arith.mlir,
// simplify-arrays.mlir, simplify-certs.mlir, simplify-control.mlir.

// Figure 13 (a)-(c): copy propagation, constant propagation and constant folding
// together: `let x = 2 in let y = 3 in let z = x in z + y` is 5.
func.func @figure13() -> i64 {
  %x = arith.constant 2 : i64
  %y = arith.constant 3 : i64
  %s = arith.addi %x, %y : i64
  func.return %s : i64
}
// CHECK-LABEL: func.func @figure13() -> i64 {
// CHECK-NEXT:    [[C:%.*]] = arith.constant 5 : i64
// CHECK-NEXT:    func.return [[C]] : i64

// -----

// Figure 12: indexing into replicate, iota and transpose; `replicate(n, iota(m))[i, j]`
// is `j`. The certificates of the index go with it (here to `a`, through the
// transpose); iota and replicate need none, as they cannot fail.
func.func @figure12(%n: i64, %m: i64, %v: f64, %a: tensor<?x?xf64>, %i: i64, %j: i64,
                    %c: !soac.cert) -> (i64, f64, f64, i64) {
  %io = soac.iota %n
  %x = soac.index %io[%i] <%c> : tensor<?xi64> -> i64
  %r = soac.replicate %n, %v : f64
  %y = soac.index %r[%i] <%c> : tensor<?xf64> -> f64
  %t = soac.transpose(0, 1) %a : tensor<?x?xf64>
  %z = soac.index %t[%i, %j] <%c> : tensor<?x?xf64> -> f64
  %io2 = soac.iota %m
  %rr = soac.replicate %n, %io2 : tensor<?xi64>
  %w = soac.index %rr[%i, %j] <%c> : tensor<?x?xi64> -> i64
  func.return %x, %y, %z, %w : i64, f64, f64, i64
}
// CHECK-LABEL: func.func @figure12
// CHECK-NEXT:    %z = soac.index %a[%j, %i] <%c> : tensor<?x?xf64> -> f64
// CHECK-NEXT:    func.return %i, %v, %z, %j : i64, f64, f64, i64

// -----

// Figure 14: indexing through reshape (of a one-dimensional array) and transpose;
// the reshape's certificate (its element count check) guards the new index too.
func.func @figure14(%a: tensor<?xf64>, %b: tensor<?x?xf64>, %n: i64, %m: i64, %i: i64,
                    %j: i64, %c: !soac.cert, %d: !soac.cert) -> (f64, f64) {
  %r = soac.reshape (%n, %m) %a <%d> : tensor<?xf64> -> tensor<?x?xf64>
  %e = soac.index %r[%i, %j] <%c> : tensor<?x?xf64> -> f64
  %t = soac.transpose(0, 1) %b : tensor<?x?xf64>
  %f = soac.index %t[%i, %j] <%c> : tensor<?x?xf64> -> f64
  func.return %e, %f : f64, f64
}
// CHECK-LABEL: func.func @figure14
// CHECK-NEXT:    [[IM:%.*]] = arith.muli %i, %m : i64
// CHECK-NEXT:    [[FLAT:%.*]] = arith.addi [[IM]], %j : i64
// CHECK-NEXT:    [[E:%.*]] = soac.index %a[[[FLAT]]] <%c, %d> : tensor<?xf64> -> f64
// CHECK-NEXT:    [[F:%.*]] = soac.index %b[%j, %i] <%c> : tensor<?x?xf64> -> f64
// CHECK-NEXT:    func.return [[E]], [[F]]

// -----

// 5.3, `a[i]` where `a` is `b[j]`: `b[j, i]`, with both certificates.
func.func @row_then_element(%b: tensor<?x?xf64>, %i: i64, %j: i64, %c: !soac.cert,
                            %d: !soac.cert) -> f64 {
  %row = soac.index %b[%j] <%c> : tensor<?x?xf64> -> tensor<?xf64>
  %e = soac.index %row[%i] <%d> : tensor<?xf64> -> f64
  func.return %e : f64
}
// CHECK-LABEL: func.func @row_then_element
// CHECK-NEXT:    %e = soac.index %b[%j, %i] <%c, %d> : tensor<?x?xf64> -> f64
// CHECK-NEXT:    func.return %e

// -----

// 5.3, `size(k, a)`: `n` for `iota(n)` and `replicate(n, e)`, the exact size of a
// literal.
func.func @sizes(%n: i64, %x: f64) -> (i64, i64, i64) {
  %a = soac.iota %n
  %s1 = soac.size(0) %a : tensor<?xi64>
  %b = soac.replicate %n, %x : f64
  %s2 = soac.size(0) %b : tensor<?xf64>
  %l = soac.array [%x, %x, %x] : tensor<?xf64>
  %s3 = soac.size(0) %l : tensor<?xf64>
  func.return %s1, %s2, %s3 : i64, i64, i64
}
// CHECK-LABEL: func.func @sizes
// CHECK-NEXT:    [[THREE:%.*]] = arith.constant 3 : i64
// CHECK-NEXT:    func.return %n, %n, [[THREE]]

// -----

// 5.3, `if c then a else b` with `c` constant; `assert(True)` is `Checked`, and a
// certificate bound to `Checked` leaves cert lists and `conjoin`.
func.func @if_and_certs(%a: tensor<?xi64>, %i: i64, %c: !soac.cert) -> (i64, !soac.cert) {
  %t = arith.constant true
  %ok = soac.assert %t, "never fails" at "t.l0:1:1"
  %both = soac.conjoin(%ok, %c)
  %r = scf.if %t -> (i64) {
    %e = soac.index %a[%i] <%ok, %c> : tensor<?xi64> -> i64
    scf.yield %e : i64
  } else {
    scf.yield %i : i64
  }
  func.return %r, %both : i64, !soac.cert
}
// CHECK-LABEL: func.func @if_and_certs
// CHECK-NEXT:    %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
// CHECK-NEXT:    func.return %e, %c : i64, !soac.cert

// -----

// 5.3, `f(...)` with constant arguments: the call is evaluated at compile time.
func.func @poly(%x: i64) -> i64 {
  %sq = arith.muli %x, %x : i64
  %three = arith.constant 3 : i64
  %t = arith.muli %three, %x : i64
  %s = arith.addi %sq, %t : i64
  func.return %s : i64
}
func.func @main() -> i64 {
  %four = arith.constant 4 : i64
  %r = func.call @poly(%four) : (i64) -> i64
  func.return %r : i64
}
// CHECK-LABEL: func.func @main() -> i64 {
// CHECK-NEXT:    [[C:%.*]] = arith.constant 28 : i64
// CHECK-NEXT:    func.return [[C]] : i64

// -----

// The Accelerate seed's reassociation: `x + 1 + 2` -> `1 + x + 2` -> `1 + 2 + x` -> `3 + x`.
func.func @reassociation(%x: i64) -> i64 {
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %a = arith.addi %x, %one : i64
  %b = arith.addi %a, %two : i64
  func.return %b : i64
}
// CHECK-LABEL: func.func @reassociation
// CHECK-NEXT:    [[THREE:%.*]] = arith.constant 3 : i64
// CHECK-NEXT:    [[R:%.*]] = arith.addi [[THREE]], %x : i64
// CHECK-NEXT:    func.return [[R]]

// -----

// Not folded: what fails at run time still fails there, with its own message: an
// assert of false, division by zero (behind its assert), an out-of-bounds index of a
// literal (behind its bounds check).
func.func @no_fold_failures(%x: i64) -> (i64, i64, !soac.cert) {
  %f = arith.constant false
  %zero = arith.constant 0 : i64
  %five = arith.constant 5 : i64
  %bad = soac.assert %f, "always fails" at "t.l0:1:1"
  %nz = arith.cmpi ne, %zero, %zero : i64
  %dz = soac.assert %nz, "division by zero" at "t.l0:2:2"
  %q = arith.floordivsi %five, %zero : i64
  %l = soac.array [%x, %x] : tensor<?xi64>
  %e = soac.index %l[%five] <%bad> : tensor<?xi64> -> i64
  func.return %q, %e, %dz : i64, i64, !soac.cert
}
// CHECK-LABEL: func.func @no_fold_failures
// CHECK:         %bad = soac.assert %{{.*}}, "always fails"
// CHECK:         %dz = soac.assert %{{.*}}, "division by zero"
// CHECK:         %q = arith.floordivsi
// CHECK:         %e = soac.index %l[%five] <%bad>
