// RUN: l0-opt %s -p verify-uniqueness --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// Each case breaks uniqueness in one way; the pass names the consuming op and the use.

// Use after consumption: %a is read after the update consumed it.
func.func @use_after_update(%n: i64, %i: i64) -> i64 {
  %a = soac.iota %n
  %b = soac.update %a[%i] = %i : tensor<?xi64>
  %e = soac.index %a[%i] : tensor<?xi64> -> i64
  func.return %e : i64
}
// CHECK: verify-uniqueness: %a is used by 'soac.index' after it was consumed by 'soac.update'

// -----

// A view (transpose) of a consumed array is dead too.
func.func @alias_after_update(%n: i64, %i: i64) -> i64 {
  %m = soac.replicate %n, %n : i64
  %r = soac.replicate %n, %m : tensor<?xi64>
  %c = soac.copy %r : tensor<?x?xi64>
  %t = soac.transpose(0, 1) %c : tensor<?x?xi64>
  %row = soac.index %c[%i] : tensor<?x?xi64> -> tensor<?xi64>
  %u = soac.update %c[%i] = %row : tensor<?x?xi64>
  func.return %i : i64
}
// CHECK: verify-uniqueness: the value written by 'soac.update' aliases the array it updates

// -----

func.func @view_after_update(%n: i64, %i: i64) -> i64 {
  %m = soac.replicate %n, %n : i64
  %r = soac.replicate %n, %m : tensor<?xi64>
  %c = soac.copy %r : tensor<?x?xi64>
  %t = soac.transpose(0, 1) %c : tensor<?x?xi64>
  %u = soac.update %c[%i] = %m : tensor<?x?xi64>
  %e = soac.index %t[%i, %i] : tensor<?x?xi64> -> i64
  func.return %e : i64
}
// CHECK: verify-uniqueness: %t is used by 'soac.index' after an array it aliases was consumed by 'soac.update'

// -----

// A loop body may not consume an array from outside the loop.
func.func @consume_free_in_loop(%n: i64) -> i64 {
  %a = soac.iota %n
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%s = %zero) -> (i64) : i64 {
    %u = soac.update %a[%i] = %i : tensor<?xi64>
    scf.yield %s : i64
  }
  func.return %r : i64
}
// CHECK: verify-uniqueness: 'soac.update' inside a loop or lambda consumes %a, which is defined outside it

// -----

// A non-unique parameter can never be consumed.
func.func @consume_non_unique(%a: tensor<?xi64>, %i: i64) -> tensor<?xi64> {
  %b = soac.update %a[%i] = %i : tensor<?xi64>
  func.return %b : tensor<?xi64>
}
// CHECK: verify-uniqueness: 'soac.update' consumes %a, which aliases a non-unique parameter

// -----

// Passing an array to a unique parameter consumes it.
func.func @sink(%s: tensor<?xi64> {soac.unique}) -> i64 {
  %n = soac.size(0) %s : tensor<?xi64>
  func.return %n : i64
}
func.func @use_after_call(%n: i64, %i: i64) -> i64 {
  %a = soac.iota %n
  %s = func.call @sink(%a) : (tensor<?xi64>) -> i64
  %e = soac.index %a[%i] : tensor<?xi64> -> i64
  func.return %e : i64
}
// CHECK: verify-uniqueness: %a is used by 'soac.index' after it was consumed by 'func.call'

// -----

// A scanomap's inner lambda (as a redomap's) may not consume an array from outside it.
func.func @consume_free_in_scanomap(%n: i64, %a: tensor<?xi64>) -> tensor<?xi64> {
  %b = soac.iota %n
  %s = soac.scanomap(%acc = %n : i64) over(%x = %a : tensor<?xi64>) {
    %u = soac.update %b[%x] = %x : tensor<?xi64>
    %y = arith.addi %acc, %x : i64
    soac.yield %y : i64
  } outer {
  ^bb0(%p: i64, %q: i64):
    %y = arith.addi %p, %q : i64
    soac.yield %y : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK: verify-uniqueness: 'soac.update' inside a loop or lambda consumes %b, which is defined outside it
