// RUN: l0-opt %s -p 'fuse{horizontal=false duplicate=false}' --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'fuse{explain=true horizontal=false duplicate=false}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=WHY

// Note [A check the producer repeats]: the size check `0 <= n` of a fold's neutral
// element `replicate(n, v)`, between a producer that may fail and the fold, when the
// producer's lambda asserts the same condition on every row. The check moves before
// the producer, failing only when it has no rows (`c || rows != 0`, same message and
// location); the neutral element's size becomes `select(c, n, 0)`; the producer fuses.
func.func @sum_of_vectors(%n: i64, %a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xf64> {
  %zero = arith.constant 0 : i64
  %v = arith.constant 0.5 : f64
  %ok = arith.cmpi sle, %zero, %n : i64
  %rows = soac.map(%i = %a : tensor<?xi64>) -> tensor<?x?xf64> {
    %j = soac.index %b[%i] : tensor<?xi64> -> i64
    %in = arith.cmpi slt, %j, %n : i64
    %cj = soac.assert %in, "index {0} out of bounds for array of size {1}" (%j, %n : i64, i64) at "p.l0:2:2"
    %c = soac.assert %ok, "negative size {0} given to replicate" (%n : i64) at "p.l0:3:3"
    %r = soac.replicate %n, %v <%c> : f64
    soac.yield %r : tensor<?xf64>
  }
  %cn = soac.assert %ok, "negative size {0} given to replicate" (%n : i64) at "p.l0:5:5"
  %ne = soac.replicate %n, %v <%cn> : f64
  %sum = soac.reduce(%x = %ne : tensor<?xf64>) over(%y = %rows : tensor<?x?xf64>) {
    %s = soac.map(%p = %x, %q = %y : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> {
      %t = arith.addf %p, %q : f64
      soac.yield %t : f64
    }
    soac.yield %s : tensor<?xf64>
  }
  func.return %sum : tensor<?xf64>
}
// CHECK-LABEL: func.func @sum_of_vectors
// CHECK:         %[[SIZE:.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[SOME:.*]] = arith.cmpi ne, %[[SIZE]], %[[Z]] : i64
// CHECK-NEXT:    %[[EITHER:.*]] = arith.ori %ok, %[[SOME]] : i1
// CHECK-NEXT:    %[[CN:.*]] = soac.assert %[[EITHER]], "negative size {0} given to replicate" (%n : i64) at "p.l0:5:5"
// CHECK-NEXT:    %[[N:.*]] = arith.select %ok, %n, %[[Z]] : i64
// CHECK-NEXT:    %ne = soac.replicate %[[N]], %v <%[[CN]]> : f64
// CHECK-NEXT:    %sum = soac.redomap(%x = %ne : tensor<?xf64>) over(%i = %a : tensor<?xi64>) {
// CHECK-NOT:     soac.reduce

// -----

// Must not fire: the producer's lambda does not assert the neutral element's condition
// (it asserts another), so where the check fails the producer may complete with rows.
func.func @not_repeated(%n: i64, %m: i64, %a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xf64> {
  %zero = arith.constant 0 : i64
  %v = arith.constant 0.5 : f64
  %ok = arith.cmpi sle, %zero, %n : i64
  %okm = arith.cmpi sle, %zero, %m : i64
  %rows = soac.map(%i = %a : tensor<?xi64>) -> tensor<?x?xf64> {
    %j = soac.index %b[%i] : tensor<?xi64> -> i64
    %in = arith.cmpi slt, %j, %n : i64
    %cj = soac.assert %in, "index {0} out of bounds for array of size {1}" (%j, %n : i64, i64) at "p.l0:2:2"
    %c = soac.assert %okm, "negative size {0} given to replicate" (%m : i64) at "p.l0:3:3"
    %r = soac.replicate %m, %v <%c> : f64
    soac.yield %r : tensor<?xf64>
  }
  %cn = soac.assert %ok, "negative size {0} given to replicate" (%n : i64) at "p.l0:5:5"
  %ne = soac.replicate %n, %v <%cn> : f64
  %sum = soac.reduce(%x = %ne : tensor<?xf64>) over(%y = %rows : tensor<?x?xf64>) {
    %s = soac.map(%p = %x, %q = %y : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> {
      %t = arith.addf %p, %q : f64
      soac.yield %t : f64
    }
    soac.yield %s : tensor<?xf64>
  }
  func.return %sum : tensor<?xf64>
}
// CHECK-LABEL: func.func @not_repeated
// CHECK:         %rows = soac.map
// CHECK:         %cn = soac.assert %ok, "negative size {0} given to replicate" (%n : i64) at "p.l0:5:5"
// CHECK-NEXT:    %ne = soac.replicate %n, %v <%cn> : f64
// CHECK-NEXT:    %sum = soac.reduce
// WHY: remark: 'soac.map' %rows not fused: the producer may fail or print, and so may 'soac.assert' before the consumer's rows are done

// -----

// Must not fire: the repeated check is the neutral element's, but the consumer's own
// lambda may fail (a zip check in it), so fusing would still reorder failures.
func.func @consumer_fails(%n: i64, %a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xf64> {
  %zero = arith.constant 0 : i64
  %v = arith.constant 0.5 : f64
  %ok = arith.cmpi sle, %zero, %n : i64
  %rows = soac.map(%i = %a : tensor<?xi64>) -> tensor<?x?xf64> {
    %j = soac.index %b[%i] : tensor<?xi64> -> i64
    %in = arith.cmpi slt, %j, %n : i64
    %cj = soac.assert %in, "index {0} out of bounds for array of size {1}" (%j, %n : i64, i64) at "p.l0:2:2"
    %c = soac.assert %ok, "negative size {0} given to replicate" (%n : i64) at "p.l0:3:3"
    %r = soac.replicate %n, %v <%c> : f64
    soac.yield %r : tensor<?xf64>
  }
  %cn = soac.assert %ok, "negative size {0} given to replicate" (%n : i64) at "p.l0:5:5"
  %ne = soac.replicate %n, %v <%cn> : f64
  %sum = soac.reduce(%x = %ne : tensor<?xf64>) over(%y = %rows : tensor<?x?xf64>) {
    %sx = soac.size(0) %x : tensor<?xf64>
    %sy = soac.size(0) %y : tensor<?xf64>
    %same = arith.cmpi eq, %sx, %sy : i64
    %cz = soac.assert %same, "arrays given to zip have different sizes: {0}, {1}" (%sx, %sy : i64, i64) at "p.l0:4:4"
    %s = soac.map(%p = %x, %q = %y : tensor<?xf64>, tensor<?xf64>) <%cz> -> tensor<?xf64> {
      %t = arith.addf %p, %q : f64
      soac.yield %t : f64
    }
    soac.yield %s : tensor<?xf64>
  }
  func.return %sum : tensor<?xf64>
}
// CHECK-LABEL: func.func @consumer_fails
// CHECK:         %rows = soac.map
// CHECK:         %cn = soac.assert %ok,
// CHECK-NEXT:    %ne = soac.replicate %n, %v <%cn> : f64
// CHECK-NEXT:    %sum = soac.reduce
// WHY: remark: 'soac.map' %rows not fused: the producer may fail or print, and so may 'soac.assert' before the consumer's rows are done

// -----

// Must not fire: the neutral element is used after the fold too (in the fused order
// it would be built with the guarded size before the producer fails).
func.func @neutral_used_again(%n: i64, %a: tensor<?xi64>, %b: tensor<?xi64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %zero = arith.constant 0 : i64
  %v = arith.constant 0.5 : f64
  %ok = arith.cmpi sle, %zero, %n : i64
  %rows = soac.map(%i = %a : tensor<?xi64>) -> tensor<?x?xf64> {
    %j = soac.index %b[%i] : tensor<?xi64> -> i64
    %in = arith.cmpi slt, %j, %n : i64
    %cj = soac.assert %in, "index {0} out of bounds for array of size {1}" (%j, %n : i64, i64) at "p.l0:2:2"
    %c = soac.assert %ok, "negative size {0} given to replicate" (%n : i64) at "p.l0:3:3"
    %r = soac.replicate %n, %v <%c> : f64
    soac.yield %r : tensor<?xf64>
  }
  %cn = soac.assert %ok, "negative size {0} given to replicate" (%n : i64) at "p.l0:5:5"
  %ne = soac.replicate %n, %v <%cn> : f64
  %sum = soac.reduce(%x = %ne : tensor<?xf64>) over(%y = %rows : tensor<?x?xf64>) {
    %s = soac.map(%p = %x, %q = %y : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> {
      %t = arith.addf %p, %q : f64
      soac.yield %t : f64
    }
    soac.yield %s : tensor<?xf64>
  }
  func.return %sum, %ne : tensor<?xf64>, tensor<?xf64>
}
// CHECK-LABEL: func.func @neutral_used_again
// CHECK:         %rows = soac.map
// CHECK:         %ne = soac.replicate %n, %v <%cn> : f64
// CHECK-NEXT:    %sum = soac.reduce
// WHY: remark: 'soac.map' %rows not fused: the producer may fail or print, and so may 'soac.assert' before the consumer's rows are done
