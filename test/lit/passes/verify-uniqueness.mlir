// RUN: l0-opt %s -p verify-uniqueness --split-input-file | filecheck %s

// Positive cases: the pass accepts them and changes nothing.

// An in-place update of a fresh array, then uses of the result only.
func.func @update_fresh(%n: i64, %i: i64, %x: i64) -> i64 {
  %a = soac.iota %n
  %b = soac.update %a[%i] = %x : tensor<?xi64>
  %e = soac.index %b[%i] : tensor<?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @update_fresh
// CHECK: soac.update

// -----

// Observing before the consumption is fine.
func.func @observe_then_consume(%a: tensor<?xi64> {soac.unique}, %i: i64) -> (tensor<?xi64> {soac.unique}) {
  %e = soac.index %a[%i] : tensor<?xi64> -> i64
  %b = soac.update %a[%i] = %e : tensor<?xi64>
  func.return %b : tensor<?xi64>
}
// CHECK-LABEL: func.func @observe_then_consume

// -----

// A loop that consumes its own merge value and yields the fresh result.
func.func @loop_in_place(%n: i64) -> tensor<?xi64> {
  %a = soac.iota %n
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %a) -> (tensor<?xi64>) : i64 {
    %u = soac.update %acc[%i] = %i : tensor<?xi64>
    scf.yield %u : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @loop_in_place

// -----

// Both branches of an if may consume the same array.
func.func @branches(%c: i1, %n: i64, %i: i64) -> tensor<?xi64> {
  %a = soac.iota %n
  %r = scf.if %c -> (tensor<?xi64>) {
    %u = soac.update %a[%i] = %i : tensor<?xi64>
    scf.yield %u : tensor<?xi64>
  } else {
    %v = soac.update %a[%i] = %n : tensor<?xi64>
    scf.yield %v : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @branches

// -----

// A loop body may consume an array it creates itself.
func.func @consume_local_in_loop(%n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%s = %zero) -> (i64) : i64 {
    %a = soac.iota %n
    %u = soac.update %a[%i] = %i : tensor<?xi64>
    %e = soac.index %u[%i] : tensor<?xi64> -> i64
    scf.yield %e : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @consume_local_in_loop
