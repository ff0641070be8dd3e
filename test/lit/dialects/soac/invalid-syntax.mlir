// RUN: l0-opt %s --parsing-diagnostics --split-input-file | filecheck %s

// Malformed custom syntax of soac ops: a parse error with a location, never a crash.

// update: more indices than the array's rank
func.func @f(%a: tensor<?xf64>, %i: i64, %x: f64) {
  %r = soac.update %a[%i, %i] = %x : tensor<?xf64>
  func.return
}
// CHECK:      invalid-syntax.mlir:[[# @LINE - 3]]:38
// CHECK-NEXT:   %r = soac.update %a[%i, %i] = %x : tensor<?xf64>
// CHECK-NEXT:                                      ^
// CHECK-NEXT:                                      expected an array type with at least 2 dimensions, found tensor<?xf64>

// -----

// map: some lambda arguments named, some not
func.func @f(%a: tensor<?xf64>) {
  %r = soac.map(%x = %a, %a : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> {
    soac.yield %x : f64
  }
  func.return
}
// CHECK: expected every lambda argument to be named, or none

// -----

// reduce: accumulators named, rows not
func.func @f(%a: tensor<?xf64>, %z: f64) {
  %r = soac.reduce(%acc = %z : f64) over(%a : tensor<?xf64>) {
    soac.yield %acc : f64
  }
  func.return
}
// CHECK: expected every lambda argument to be named, or none

// -----

// array: the result type is not an array
func.func @f(%x: f64) {
  %r = soac.array [%x] : f64
  func.return
}
// CHECK:      invalid-syntax.mlir:[[# @LINE - 3]]:19
// CHECK-NEXT:   %r = soac.array [%x] : f64
// CHECK-NEXT:                   ^^^^^^^^^^
// CHECK-NEXT:                   expected an array type tensor<?x...xT> with T one of i64, f64, i1, i32, !soac.cert, found f64

// -----

// assert: a value that is not an i64 (the syntax writes the types it checks)
func.func @f(%ok: i1, %x: f64) {
  %c = soac.assert %ok, "m {0}" (%x : f64) at "p.l0:1:1"
  func.return
}
// CHECK:      invalid-syntax.mlir:[[# @LINE - 3]]:20
// CHECK:      Expected attribute i64 but got f64

// -----

// map: a named lambda argument over a non-array
func.func @f(%y: f64) {
  %r = soac.map(%x = %y : f64) -> tensor<?xf64> {
    soac.yield %x : f64
  }
  func.return
}
// CHECK: expected an array type with at least 1 dimension, found f64

// -----

// assert: no location
func.func @f(%ok: i1) {
  %c = soac.assert %ok, "m"
  func.return
}
// CHECK: Expected 'at'

// -----

// map: fewer operands than types
func.func @f(%a: tensor<?xf64>) {
  %r = soac.map(%x = %a : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> {
    soac.yield %x : f64
  }
  func.return
}
// CHECK: expected 2 operand types but had 1

// -----

// iota: a certificate that is not a !soac.cert
func.func @f(%n: i64, %c: f64) {
  %r = soac.iota %n <%c>
  func.return
}
// CHECK: operand is used with type !soac.cert, but has been previously used or defined with type f64

// -----

// iota: a size that is not an i64
func.func @f(%n: i32) {
  %r = soac.iota %n
  func.return
}
// CHECK: operand is used with type i64, but has been previously used or defined with type i32

// -----

// transpose: k, n not integers
func.func @f(%a: tensor<?xf64>) {
  %r = soac.transpose(0, x) %a : tensor<?xf64>
  func.return
}
// CHECK: Expected integer literal

// -----

// trace: operands cannot be named
func.func @f(%x: f64) {
  %r = soac.trace(%y = %x : f64) at "p"
  func.return
}
// CHECK:      invalid-syntax.mlir:[[# @LINE - 3]]:22
// CHECK-NEXT:   %r = soac.trace(%y = %x : f64) at "p"
// CHECK-NEXT:                      ^
// CHECK-NEXT:                      Expected ':'
