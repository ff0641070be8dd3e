// RUN: l0-opt %s -p distribute,verify-uniqueness --split-input-file | filecheck %s

// Two SOACs and scalar code between them: three pieces, each a map over the rows; the
// scalar the second piece makes reaches the third as an array of one per row, and the
// first piece's rows reach the last as an array of rows.
func.func @pieces(%xss: tensor<?x?xf64>, %c0: i64, %ok: !soac.cert) -> tensor<?x?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %y = soac.map(%e = %xs : tensor<?xf64>) -> tensor<?xf64> {
      %d = arith.mulf %e, %e : f64
      soac.yield %d : f64
    }
    %s = soac.index %y[%c0] <%ok> : tensor<?xf64> -> f64
    %z = soac.map(%e = %y : tensor<?xf64>) -> tensor<?xf64> {
      %d = arith.addf %e, %s : f64
      soac.yield %d : f64
    }
    soac.yield %z : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @pieces
// CHECK-NEXT:    %y = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %y_1 = soac.map(%e = %xs : tensor<?xf64>) -> tensor<?xf64> {
// CHECK:           soac.yield %y_1 : tensor<?xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    %s = soac.map(%y_2 = %y : tensor<?x?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:      %s_1 = soac.index %y_2[%c0] <%ok> : tensor<?xf64> -> f64
// CHECK-NEXT:      soac.yield %s_1 : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = soac.map(%y_3 = %y, %s_2 = %s : tensor<?x?xf64>, tensor<?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %z = soac.map(%e_1 = %y_3 : tensor<?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:        %{{.*}} = arith.addf %e_1, %s_2 : f64
// CHECK:           soac.yield %z : tensor<?xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?x?xf64>

// -----

// An `iota` of an outer size is computed once, before the pieces (each piece maps over
// it: a perfect nest); a check of outer values alone moves before the piece after it,
// run when the map has elements; its certificate is `soac.checked` in the later piece.
// A piece's certificate a later piece uses is `soac.checked` there too.
func.func @outer_values(%xs: tensor<?xf64>, %n: i64, %ok: i1, %k: i64) -> tensor<?x?xf64> {
  %r = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?x?xf64> {
    %is = soac.iota %n
    %a = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xf64> {
      %f = arith.sitofp %i : i64 to f64
      %d = arith.mulf %f, %x : f64
      soac.yield %d : f64
    }
    %c = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "p.l0:1:1"
    %b = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xf64> {
      %e = soac.index %a[%k] <%c> : tensor<?xf64> -> f64
      soac.yield %e : f64
    }
    soac.yield %b : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @outer_values
// CHECK-NEXT:    %is = soac.iota %n
// CHECK-NEXT:    %a = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %a_1 = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xf64> {
// CHECK:           soac.yield %a_1 : tensor<?xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SIZE:.*]] = soac.size(0) %xs : tensor<?xf64>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[SOME:.*]] = arith.cmpi sgt, %[[SIZE]], %[[ZERO]] : i64
// CHECK-NEXT:    scf.if %[[SOME]] {
// CHECK-NEXT:      %c = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "p.l0:1:1"
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = soac.map(%a_2 = %a : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %[[CHECKED:.*]] = soac.checked
// CHECK-NEXT:      %b = soac.map(%i_1 = %is : tensor<?xi64>) -> tensor<?xf64> {
// CHECK-NEXT:        %e = soac.index %a_2[%k] <%[[CHECKED]]> : tensor<?xf64> -> f64
// CHECK:         func.return %r : tensor<?x?xf64>

// -----

// A loop holding a map is a piece of its own (then `interchange` can move it out); a
// value of the map's input it yields as is comes from the last piece.
func.func @loop_piece(%xss: tensor<?x?xf64>, %n: i64, %c0: i64, %c1: i64) -> (tensor<?x?xf64>, tensor<?x?xf64>) {
  %r, %q = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64>, tensor<?x?xf64> {
    %y = soac.map(%e = %xs : tensor<?xf64>) -> tensor<?xf64> {
      %d = arith.negf %e : f64
      soac.yield %d : f64
    }
    %z = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y) -> (tensor<?xf64>) : i64 {
      %w = soac.map(%e = %acc : tensor<?xf64>) -> tensor<?xf64> {
        %d = arith.addf %e, %e : f64
        soac.yield %d : f64
      }
      scf.yield %w : tensor<?xf64>
    }
    soac.yield %z, %xs : tensor<?xf64>, tensor<?xf64>
  }
  func.return %r, %q : tensor<?x?xf64>, tensor<?x?xf64>
}
// CHECK-LABEL: func.func @loop_piece
// CHECK-NEXT:    %y = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK:         %[[R:.*]], %[[Q:.*]] = soac.map(%y_2 = %y, %xs_1 = %xss : tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>, tensor<?x?xf64> {
// CHECK-NEXT:      %z = scf.for
// CHECK:           soac.yield %z, %xs_1 : tensor<?xf64>, tensor<?xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]], %[[Q]] : tensor<?x?xf64>, tensor<?x?xf64>

// -----

// A copy of an outer array that the lambda updates in place is made again in the
// piece that uses it, per element (computed once before the pieces, the elements would
// all update one array).
func.func @consumed_copy(%xs: tensor<?xf64>, %ys: tensor<?xf64>, %c0: i64, %ok: !soac.cert) -> tensor<?x?xf64> {
  %r = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?x?xf64> {
    %y = soac.map(%e = %ys : tensor<?xf64>) -> tensor<?xf64> {
      %d = arith.mulf %e, %x : f64
      soac.yield %d : f64
    }
    %u = soac.copy %ys : tensor<?xf64>
    %s = soac.index %y[%c0] <%ok> : tensor<?xf64> -> f64
    %v = soac.update %u[%c0] = %s <%ok> : tensor<?xf64>
    soac.yield %v : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @consumed_copy
// CHECK-NEXT:    %y = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?x?xf64> {
// CHECK:         %r = soac.map(%y_2 = %y : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %u = soac.copy %ys : tensor<?xf64>
// CHECK-NEXT:      %s = soac.index %y_2[%c0] <%ok> : tensor<?xf64> -> f64
// CHECK-NEXT:      %v = soac.update %u[%c0] = %s <%ok> : tensor<?xf64>
// CHECK-NEXT:      soac.yield %v : tensor<?xf64>
