// RUN: L0_ROUNDTRIP
// RUN: L0_GENERIC_ROUNDTRIP
// RUN: l0-opt %s --split-input-file | l0-opt --split-input-file | filecheck %s

// Every soac op in its custom form; the first RUN line checks custom -> generic ->
// custom, the last custom -> custom, the second the generic form itself.

func.func @certificates(%ok: i1, %i: i64, %n: i64) -> !soac.cert {
  %c0 = soac.checked
  %c1 = soac.assert %ok, "assertion failed" at "p.l0:1:2"
  %c2 = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%i, %n : i64, i64) at "p.l0:3:7"
  %c3 = soac.conjoin(%c0, %c1, %c2)
  %c4 = soac.conjoin()
  func.return %c3 : !soac.cert
}

// CHECK-LABEL: func.func @certificates(%ok: i1, %i: i64, %n: i64) -> !soac.cert {
// CHECK-NEXT:    %c0 = soac.checked
// CHECK-NEXT:    %c1 = soac.assert %ok, "assertion failed" at "p.l0:1:2"
// CHECK-NEXT:    %c2 = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%i, %n : i64, i64) at "p.l0:3:7"
// CHECK-NEXT:    %c3 = soac.conjoin(%c0, %c1, %c2)
// CHECK-NEXT:    %c4 = soac.conjoin()

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "certificates"
// CHECK-GENERIC:    %c0 = "soac.checked"() : () -> !soac.cert
// CHECK-GENERIC:    %c1 = "soac.assert"(%ok) <{msg = "assertion failed", loc = "p.l0:1:2"}> : (i1) -> !soac.cert
// CHECK-GENERIC:    %c2 = "soac.assert"(%ok, %i, %n) <{msg = "index {0} out of bounds for array of size {1}", loc = "p.l0:3:7"}> : (i1, i64, i64) -> !soac.cert
// CHECK-GENERIC:    %c3 = "soac.conjoin"(%c0, %c1, %c2) : (!soac.cert, !soac.cert, !soac.cert) -> !soac.cert
// CHECK-GENERIC:    %c4 = "soac.conjoin"() : () -> !soac.cert

// -----

func.func @construction(%n: i64, %x: f64, %a: tensor<?xf64>, %c: !soac.cert) {
  %io = soac.iota %n <%c>
  %io2 = soac.iota %n
  %r = soac.replicate %n, %x <%c, %c> : f64
  %r2 = soac.replicate %n, %a : tensor<?xf64>
  %ar = soac.array [%x, %x, %x] at "p.l0:1:9" : tensor<?xf64>
  %ar2 = soac.array [%a] : tensor<?x?xf64>
  %e = soac.empty : tensor<?x?xi32>
  %e2 = soac.empty : tensor<?x!soac.cert>
  %cp = soac.copy %a : tensor<?xf64>
  func.return
}

// CHECK-LABEL: func.func @construction(%n: i64, %x: f64, %a: tensor<?xf64>, %c: !soac.cert) {
// CHECK-NEXT:    %io = soac.iota %n <%c>
// CHECK-NEXT:    %io2 = soac.iota %n
// CHECK-NEXT:    %r = soac.replicate %n, %x <%c, %c> : f64
// CHECK-NEXT:    %r2 = soac.replicate %n, %a : tensor<?xf64>
// CHECK-NEXT:    %ar = soac.array [%x, %x, %x] at "p.l0:1:9" : tensor<?xf64>
// CHECK-NEXT:    %ar2 = soac.array [%a] : tensor<?x?xf64>
// CHECK-NEXT:    %e = soac.empty : tensor<?x?xi32>
// CHECK-NEXT:    %e2 = soac.empty : tensor<?x!soac.cert>
// CHECK-NEXT:    %cp = soac.copy %a : tensor<?xf64>

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "construction"
// CHECK-GENERIC:    %io = "soac.iota"(%n, %c) : (i64, !soac.cert) -> tensor<?xi64>
// CHECK-GENERIC:    %r = "soac.replicate"(%n, %x, %c, %c) : (i64, f64, !soac.cert, !soac.cert) -> tensor<?xf64>
// CHECK-GENERIC:    %r2 = "soac.replicate"(%n, %a) : (i64, tensor<?xf64>) -> tensor<?x?xf64>
// CHECK-GENERIC:    %ar = "soac.array"(%x, %x, %x) <{loc = "p.l0:1:9"}> : (f64, f64, f64) -> tensor<?xf64>
// CHECK-GENERIC:    %e = "soac.empty"() : () -> tensor<?x?xi32>

// -----

func.func @access(%m: tensor<?x?xf64>, %a: tensor<?xf64>, %x: f64, %i: i64, %j: i64, %c: !soac.cert) {
  %s = soac.size(1) %m <%c> : tensor<?x?xf64>
  %s0 = soac.size(0) %a : tensor<?xf64>
  %el = soac.index %m[%i, %j] <%c> : tensor<?x?xf64> -> f64
  %row = soac.index %m[%i] : tensor<?x?xf64> -> tensor<?xf64>
  %u = soac.update %m[%i] = %a <%c> : tensor<?x?xf64>
  %u2 = soac.update %a[%i] = %x : tensor<?xf64>
  %u3 = soac.update %m[%i, %j] = %x : tensor<?x?xf64>
  %t = soac.threshold %s0, "flatten_below" default "threads*1" at "p.l0:2:3"
  func.return
}

// CHECK-LABEL: func.func @access(
// CHECK-NEXT:    %s = soac.size(1) %m <%c> : tensor<?x?xf64>
// CHECK-NEXT:    %s0 = soac.size(0) %a : tensor<?xf64>
// CHECK-NEXT:    %el = soac.index %m[%i, %j] <%c> : tensor<?x?xf64> -> f64
// CHECK-NEXT:    %row = soac.index %m[%i] : tensor<?x?xf64> -> tensor<?xf64>
// CHECK-NEXT:    %u = soac.update %m[%i] = %a <%c> : tensor<?x?xf64>
// CHECK-NEXT:    %u2 = soac.update %a[%i] = %x : tensor<?xf64>
// CHECK-NEXT:    %u3 = soac.update %m[%i, %j] = %x : tensor<?x?xf64>
// CHECK-NEXT:    %t = soac.threshold %s0, "flatten_below" default "threads*1" at "p.l0:2:3"

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "access"
// CHECK-GENERIC:    %s = "soac.size"(%m, %c) <{dim = #builtin.int<1>}> : (tensor<?x?xf64>, !soac.cert) -> i64
// CHECK-GENERIC:    %el = "soac.index"(%m, %i, %j, %c) <{operandSegmentSizes = array<i32: 1, 2, 1>}> : (tensor<?x?xf64>, i64, i64, !soac.cert) -> f64
// CHECK-GENERIC:    %u = "soac.update"(%m, %i, %a, %c) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (tensor<?x?xf64>, i64, tensor<?xf64>, !soac.cert) -> tensor<?x?xf64>
// CHECK-GENERIC:    %t = "soac.threshold"(%s0) <{param = "flatten_below", default = "threads*1", loc = "p.l0:2:3"}> : (i64) -> i1

// -----

func.func @shape(%m: tensor<?x?x?xf64>, %a: tensor<?xf64>, %i: i64, %n: i64, %c: !soac.cert) {
  %rs = soac.reshape (%n, %n) %a <%c> : tensor<?xf64> -> tensor<?x?xf64>
  %flat = soac.reshape (%n) %m : tensor<?x?x?xf64> -> tensor<?xf64>
  %t = soac.transpose(0, 1) %m <%c> : tensor<?x?x?xf64>
  %t2 = soac.transpose(2, -2) %m : tensor<?x?x?xf64>
  %s1, %s2 = soac.split %i, %a <%c> : tensor<?xf64>
  %cc = soac.concat %a, %a <%c> at "p.l0:2:3" : tensor<?xf64>
  %cc2 = soac.concat %a, %a : tensor<?xf64>
  func.return
}

// CHECK-LABEL: func.func @shape(
// CHECK-NEXT:    %rs = soac.reshape (%n, %n) %a <%c> : tensor<?xf64> -> tensor<?x?xf64>
// CHECK-NEXT:    %flat = soac.reshape (%n) %m : tensor<?x?x?xf64> -> tensor<?xf64>
// CHECK-NEXT:    %t = soac.transpose(0, 1) %m <%c> : tensor<?x?x?xf64>
// CHECK-NEXT:    %t2 = soac.transpose(2, -2) %m : tensor<?x?x?xf64>
// CHECK-NEXT:    %s1, %s2 = soac.split %i, %a <%c> : tensor<?xf64>
// CHECK-NEXT:    %cc = soac.concat %a, %a <%c> at "p.l0:2:3" : tensor<?xf64>
// CHECK-NEXT:    %cc2 = soac.concat %a, %a : tensor<?xf64>

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "shape"
// CHECK-GENERIC:    %rs = "soac.reshape"(%a, %n, %n, %c) <{operandSegmentSizes = array<i32: 1, 2, 1>}> : (tensor<?xf64>, i64, i64, !soac.cert) -> tensor<?x?xf64>
// CHECK-GENERIC:    %t2 = "soac.transpose"(%m) <{k = #builtin.int<2>, n = #builtin.int<-2>}> : (tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
// CHECK-GENERIC:    %s1, %s2 = "soac.split"(%i, %a, %c) : (i64, tensor<?xf64>, !soac.cert) -> (tensor<?xf64>, tensor<?xf64>)
// CHECK-GENERIC:    %cc = "soac.concat"(%a, %a, %c) <{loc = "p.l0:2:3"}> : (tensor<?xf64>, tensor<?xf64>, !soac.cert) -> tensor<?xf64>

// -----

func.func @map(%a: tensor<?xf64>, %m: tensor<?x?xi64>, %k: f64, %c: !soac.cert) {
  %r = soac.map(%x = %a : tensor<?xf64>) -> tensor<?xf64> {
    %y = arith.mulf %x, %k : f64
    soac.yield %y : f64
  }
  %p, %q = soac.map(%x = %a, %row = %m : tensor<?xf64>, tensor<?x?xi64>) <%c> at "p.l0:4:1" -> tensor<?xi1>, tensor<?x?xi64> {
    %b = arith.cmpf olt, %x, %k : f64
    soac.yield %b, %row : i1, tensor<?xi64>
  } attributes {note = "kept"}
  func.return
}

// CHECK-LABEL: func.func @map(
// CHECK-NEXT:    %r = soac.map(%x = %a : tensor<?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:      %y = arith.mulf %x, %k : f64
// CHECK-NEXT:      soac.yield %y : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %p, %q = soac.map(%x_1 = %a, %row = %m : tensor<?xf64>, tensor<?x?xi64>) <%c> at "p.l0:4:1" -> tensor<?xi1>, tensor<?x?xi64> {
// CHECK-NEXT:      %b = arith.cmpf olt, %x_1, %k : f64
// CHECK-NEXT:      soac.yield %b, %row : i1, tensor<?xi64>
// CHECK-NEXT:    } attributes {note = "kept"}

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "map"
// CHECK-GENERIC:    %p, %q = "soac.map"(%a, %m, %c) <{loc = "p.l0:4:1", operandSegmentSizes = array<i32: 2, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%x_1: f64, %row: tensor<?xi64>):
// CHECK-GENERIC:         "soac.yield"(%b, %row) : (i1, tensor<?xi64>) -> ()
// CHECK-GENERIC-NEXT:    }) {note = "kept"} : (tensor<?xf64>, tensor<?x?xi64>, !soac.cert) -> (tensor<?xi1>, tensor<?x?xi64>)

// -----

func.func @folds(%a: tensor<?xf64>, %b: tensor<?xi64>, %zero: f64, %none: i64, %c: !soac.cert) {
  %s, %t = soac.reduce(%acc = %zero, %k = %none : f64, i64) over(%x = %a, %y = %b : tensor<?xf64>, tensor<?xi64>) <%c> {
    %u = arith.addf %acc, %x : f64
    %v = arith.addi %k, %y : i64
    soac.yield %u, %v : f64, i64
  }
  %sc = soac.scan(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) {
    %u = arith.addf %acc, %x : f64
    soac.yield %u : f64
  }
  func.return
}

// CHECK-LABEL: func.func @folds(
// CHECK-NEXT:    %s, %t = soac.reduce(%acc = %zero, %k = %none : f64, i64) over(%x = %a, %y = %b : tensor<?xf64>, tensor<?xi64>) <%c> {
// CHECK-NEXT:      %u = arith.addf %acc, %x : f64
// CHECK-NEXT:      %v = arith.addi %k, %y : i64
// CHECK-NEXT:      soac.yield %u, %v : f64, i64
// CHECK-NEXT:    }
// CHECK-NEXT:    %sc = soac.scan(%acc_1 = %zero : f64) over(%x_1 = %a : tensor<?xf64>) {
// CHECK-NEXT:      %u_1 = arith.addf %acc_1, %x_1 : f64
// CHECK-NEXT:      soac.yield %u_1 : f64
// CHECK-NEXT:    }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "folds"
// CHECK-GENERIC:    %s, %t = "soac.reduce"(%zero, %none, %a, %b, %c) <{operandSegmentSizes = array<i32: 2, 2, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%acc: f64, %k: i64, %x: f64, %y: i64):
// CHECK-GENERIC:    }) : (f64, i64, tensor<?xf64>, tensor<?xi64>, !soac.cert) -> (f64, i64)
// CHECK-GENERIC:    %sc = "soac.scan"(%zero, %a) <{operandSegmentSizes = array<i32: 1, 1, 0>}> ({
// CHECK-GENERIC:    }) : (f64, tensor<?xf64>) -> tensor<?xf64>

// -----

func.func @filter_redomap(%a: tensor<?xf64>, %m: tensor<?x?xi64>, %zero: f64, %c: !soac.cert) {
  %fa, %fm = soac.filter(%x = %a, %row = %m : tensor<?xf64>, tensor<?x?xi64>) <%c> {
    %p = arith.cmpf olt, %x, %zero : f64
    soac.yield %p : i1
  }
  %ss = soac.redomap(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) <%c> {
    %sq = arith.mulf %x, %x : f64
    %u = arith.addf %acc, %sq : f64
    soac.yield %u : f64
  } outer {
  ^bb0(%l: f64, %r: f64):
    %u = arith.addf %l, %r : f64
    soac.yield %u : f64
  }
  func.return
}

// CHECK-LABEL: func.func @filter_redomap(
// CHECK-NEXT:    %fa, %fm = soac.filter(%x = %a, %row = %m : tensor<?xf64>, tensor<?x?xi64>) <%c> {
// CHECK-NEXT:      %p = arith.cmpf olt, %x, %zero : f64
// CHECK-NEXT:      soac.yield %p : i1
// CHECK-NEXT:    }
// CHECK-NEXT:    %ss = soac.redomap(%acc = %zero : f64) over(%x_1 = %a : tensor<?xf64>) <%c> {
// CHECK-NEXT:      %sq = arith.mulf %x_1, %x_1 : f64
// CHECK-NEXT:      %{{.*}} = arith.addf %acc, %sq : f64
// CHECK-NEXT:      soac.yield %{{.*}} : f64
// CHECK-NEXT:    } outer {
// CHECK-NEXT:    ^bb0(%l: f64, %r: f64):
// CHECK-NEXT:      %{{.*}} = arith.addf %l, %r : f64
// CHECK-NEXT:      soac.yield %{{.*}} : f64
// CHECK-NEXT:    }

// The outer lambda is the first region in the generic form.
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "filter_redomap"
// CHECK-GENERIC:    %fa, %fm = "soac.filter"(%a, %m, %c) <{operandSegmentSizes = array<i32: 2, 1>}> ({
// CHECK-GENERIC:    %ss = "soac.redomap"(%zero, %a, %c) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%l: f64, %r: f64):
// CHECK-GENERIC:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%acc: f64, %x_1: f64):
// CHECK-GENERIC:    }) : (f64, tensor<?xf64>, !soac.cert) -> f64

// -----

// scanomap: redomap's syntax; the results are arrays of the accumulators.
func.func @scanomap(%a: tensor<?xf64>, %zero: f64, %c: !soac.cert) -> tensor<?xf64> {
  %ss = soac.scanomap(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) <%c> {
    %sq = arith.mulf %x, %x : f64
    %u = arith.addf %acc, %sq : f64
    soac.yield %u : f64
  } outer {
  ^bb0(%l: f64, %r: f64):
    %u = arith.addf %l, %r : f64
    soac.yield %u : f64
  }
  func.return %ss : tensor<?xf64>
}

// CHECK-LABEL: func.func @scanomap(
// CHECK-NEXT:    %ss = soac.scanomap(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) <%c> {
// CHECK-NEXT:      %sq = arith.mulf %x, %x : f64
// CHECK-NEXT:      %{{.*}} = arith.addf %acc, %sq : f64
// CHECK-NEXT:      soac.yield %{{.*}} : f64
// CHECK-NEXT:    } outer {
// CHECK-NEXT:    ^bb0(%l: f64, %r: f64):
// CHECK-NEXT:      %{{.*}} = arith.addf %l, %r : f64
// CHECK-NEXT:      soac.yield %{{.*}} : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %ss : tensor<?xf64>

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scanomap"
// CHECK-GENERIC:    %ss = "soac.scanomap"(%zero, %a, %c) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%l: f64, %r: f64):
// CHECK-GENERIC:    }) : (f64, tensor<?xf64>, !soac.cert) -> tensor<?xf64>

// -----

func.func @trace(%x: f64, %a: tensor<?xi64>) -> (f64, tensor<?xi64>) {
  %t, %u = soac.trace(%x, %a : f64, tensor<?xi64>) at "p.l0:1:5-1:12"
  soac.trace() at "p.l0:2:1"
  func.return %t, %u : f64, tensor<?xi64>
}

// CHECK-LABEL: func.func @trace(
// CHECK-NEXT:    %t, %u = soac.trace(%x, %a : f64, tensor<?xi64>) at "p.l0:1:5-1:12"
// CHECK-NEXT:    soac.trace() at "p.l0:2:1"

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "trace"
// CHECK-GENERIC:    %t, %u = "soac.trace"(%x, %a) <{loc = "p.l0:1:5-1:12"}> : (f64, tensor<?xi64>) -> (f64, tensor<?xi64>)

// -----

// A lambda may also spell out its entry block, with unnamed operands in the header;
// it prints in the named form.
func.func @unnamed_lambda(%a: tensor<?xf64>, %zero: f64) {
  %r = soac.map(%a : tensor<?xf64>) -> tensor<?xf64> {
  ^bb0(%x: f64):
    soac.yield %x : f64
  }
  %s = soac.reduce(%zero : f64) over(%a : tensor<?xf64>) {
  ^bb0(%p: f64, %q: f64):
    %u = arith.addf %p, %q : f64
    soac.yield %u : f64
  }
  func.return
}

// CHECK-LABEL: func.func @unnamed_lambda(
// CHECK-NEXT:    %r = soac.map(%x = %a : tensor<?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:      soac.yield %x : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %s = soac.reduce(%p = %zero : f64) over(%q = %a : tensor<?xf64>) {
