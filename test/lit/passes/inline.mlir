// RUN: l0-opt %s -p inline,verify-uniqueness --split-input-file | filecheck %s

// Thesis 5.1: a call of a non-recursive function is replaced by its body, and the
// function, now dead, is removed.
func.func @sq(%x: i64) -> i64 {
  %y = arith.muli %x, %x : i64
  func.return %y : i64
}
func.func @main(%a: i64) -> i64 {
  %r = func.call @sq(%a) : (i64) -> i64
  %s = func.call @sq(%r) : (i64) -> i64
  func.return %s : i64
}
// CHECK-NOT:   func.func @sq
// CHECK-LABEL: func.func @main(%a: i64) -> i64 {
// CHECK-NEXT:    [[R:%.*]] = arith.muli %a, %a : i64
// CHECK-NEXT:    [[S:%.*]] = arith.muli [[R]], [[R]] : i64
// CHECK-NEXT:    func.return [[S]] : i64
// CHECK-NOT:   func.call

// -----

// Calls inside inlined bodies are inlined too, and so are calls inside lambdas and
// loops; a function that returns its parameter gives the argument itself.
func.func @id(%a: tensor<?xi64> {soac.unique}) -> (tensor<?xi64> {soac.unique}) {
  func.return %a : tensor<?xi64>
}
func.func @inc(%x: i64) -> i64 {
  %one = arith.constant 1 : i64
  %y = arith.addi %one, %x : i64
  func.return %y : i64
}
func.func @twice(%x: i64) -> i64 {
  %y = func.call @inc(%x) : (i64) -> i64
  %z = func.call @inc(%y) : (i64) -> i64
  func.return %z : i64
}
func.func @main(%n: i64) -> tensor<?xi64> {
  %a = soac.iota %n
  %b = func.call @id(%a) : (tensor<?xi64>) -> tensor<?xi64>
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = func.call @twice(%x) : (i64) -> i64
    soac.yield %y : i64
  }
  func.return %c : tensor<?xi64>
}
// CHECK-LABEL: func.func @main(%n: i64) -> tensor<?xi64> {
// CHECK-NEXT:    %a = soac.iota %n
// CHECK-NEXT:    %c = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
// CHECK:           arith.addi
// CHECK:           arith.addi
// CHECK:           soac.yield
// CHECK-NOT:   func.call
// CHECK-NOT:   func.func

// -----

// Thesis 4.2.1: a certificate passed as an argument keeps guarding the inlined code.
func.func @get(%a: tensor<?xi64>, %i: i64, %c: !soac.cert) -> i64 {
  %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
  func.return %e : i64
}
func.func @main(%a: tensor<?xi64>, %i: i64) -> i64 {
  %n = soac.size(0) %a : tensor<?xi64>
  %ok = arith.cmpi slt, %i, %n : i64
  %c = soac.assert %ok, "index out of bounds" at "t.l0:1:1"
  %e = func.call @get(%a, %i, %c) : (tensor<?xi64>, i64, !soac.cert) -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @main
// CHECK:         %c = soac.assert
// CHECK-NEXT:    %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
// CHECK-NEXT:    func.return %e : i64

// -----

// A unique argument consumed by the callee is consumed by the inlined let-with.
func.func @set0(%a: tensor<?xi64> {soac.unique}, %v: i64) -> (tensor<?xi64> {soac.unique}) {
  %zero = arith.constant 0 : i64
  %b = soac.update %a[%zero] = %v : tensor<?xi64>
  func.return %b : tensor<?xi64>
}
func.func @main(%n: i64) -> tensor<?xi64> {
  %a = soac.iota %n
  %b = func.call @set0(%a, %n) : (tensor<?xi64>, i64) -> tensor<?xi64>
  func.return %b : tensor<?xi64>
}
// CHECK-LABEL: func.func @main
// CHECK:         %b = soac.update %a[%{{.*}}] = %n : tensor<?xi64>
// CHECK-NEXT:    func.return %b

// -----

// Recursive and mutually recursive functions are not inlined; the non-recursive
// function they call is inlined into them.
func.func @dec(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %m = arith.subi %n, %one : i64
  func.return %m : i64
}
func.func @even(%n: i64) -> i1 {
  %zero = arith.constant 0 : i64
  %z = arith.cmpi eq, %n, %zero : i64
  %r = scf.if %z -> (i1) {
    %t = arith.constant true
    scf.yield %t : i1
  } else {
    %m = func.call @dec(%n) : (i64) -> i64
    %o = func.call @odd(%m) : (i64) -> i1
    scf.yield %o : i1
  }
  func.return %r : i1
}
func.func @odd(%n: i64) -> i1 {
  %zero = arith.constant 0 : i64
  %z = arith.cmpi eq, %n, %zero : i64
  %r = scf.if %z -> (i1) {
    %f = arith.constant false
    scf.yield %f : i1
  } else {
    %m = func.call @dec(%n) : (i64) -> i64
    %e = func.call @even(%m) : (i64) -> i1
    scf.yield %e : i1
  }
  func.return %r : i1
}
func.func @fact(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %small = arith.cmpi sle, %n, %one : i64
  %r = scf.if %small -> (i64) {
    scf.yield %one : i64
  } else {
    %m = func.call @dec(%n) : (i64) -> i64
    %f = func.call @fact(%m) : (i64) -> i64
    %p = arith.muli %n, %f : i64
    scf.yield %p : i64
  }
  func.return %r : i64
}
func.func @main(%n: i64) -> (i1, i64) {
  %e = func.call @even(%n) : (i64) -> i1
  %f = func.call @fact(%n) : (i64) -> i64
  func.return %e, %f : i1, i64
}
// CHECK-NOT:   func.func @dec
// CHECK-LABEL: func.func @even
// CHECK:         arith.subi
// CHECK-NEXT:    func.call @odd
// CHECK-LABEL: func.func @odd
// CHECK:         arith.subi
// CHECK-NEXT:    func.call @even
// CHECK-LABEL: func.func @fact
// CHECK:         arith.subi
// CHECK-NEXT:    func.call @fact
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    func.call @even(%n)
// CHECK-NEXT:    func.call @fact(%n)

// -----

// Functions unreachable from main are removed even if nobody calls them.
func.func @unused(%x: i64) -> i64 {
  func.return %x : i64
}
func.func @main(%x: i64) -> i64 {
  func.return %x : i64
}
// CHECK-NOT:   @unused
// CHECK-LABEL: func.func @main

// -----

// Without main, every public function is a root and stays; a private one that is
// inlined everywhere goes.
func.func private @helper(%x: i64) -> i64 {
  %y = arith.addi %x, %x : i64
  func.return %y : i64
}
func.func @f(%x: i64) -> i64 {
  %y = func.call @helper(%x) : (i64) -> i64
  func.return %y : i64
}
func.func @g(%x: i64) -> i64 {
  %y = func.call @f(%x) : (i64) -> i64
  func.return %y : i64
}
// CHECK-NOT:   @helper
// CHECK-LABEL: func.func @f(%x: i64) -> i64 {
// CHECK-NEXT:    arith.addi %x, %x
// CHECK-LABEL: func.func @g(%x: i64) -> i64 {
// CHECK-NEXT:    arith.addi %x, %x
// CHECK-NOT:   func.call

// -----

// Traces and checks of the callee are inlined like any other op, in order.
func.func @checked_div(%x: i64, %y: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi ne, %y, %zero : i64
  %c = soac.assert %ok, "division by zero" at "t.l0:2:3"
  %q = arith.floordivsi %x, %y : i64
  %t = soac.trace(%q : i64) at "t.l0:2:9"
  func.return %t : i64
}
func.func @main(%x: i64, %y: i64) -> i64 {
  %r = func.call @checked_div(%x, %y) : (i64, i64) -> i64
  func.return %r : i64
}
// CHECK-LABEL: func.func @main
// CHECK:         soac.assert
// CHECK-NEXT:    arith.floordivsi %x, %y
// CHECK-NEXT:    soac.trace
// CHECK-NEXT:    func.return
