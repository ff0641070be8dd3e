// RUN: l0-opt %s -p distribute --split-input-file | filecheck %s
// RUN: not l0-opt %s -p 'distribute{pieces=2}' 2>&1 | filecheck %s --check-prefix=BAD

// Where the distribution would change the meaning, or has nothing to split, the map
// stays one (Note [When the distribution keeps the meaning] in l0.passes.distribute).

// BAD: l0-opt: error: bad options for pass 'distribute': Provided arguments ["pieces"] not found in expected arguments ["versioned"]

// The lambda traces: the pieces would print in another order.
func.func @prints(%xss: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %y = soac.map(%e = %xs : tensor<?xf64>) -> tensor<?xf64> {
      %d = arith.negf %e : f64
      soac.yield %d : f64
    }
    %t = soac.trace(%y : tensor<?xf64>) at "p.l0:1:1"
    %z = soac.map(%e = %t : tensor<?xf64>) -> tensor<?xf64> {
      %d = arith.negf %e : f64
      soac.yield %d : f64
    }
    soac.yield %z : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @prints
// CHECK-NEXT:    %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %y = soac.map

// -----

// A piece updates the element's row in place: it consumes an array it does not make.
func.func @consumes_row(%xss: tensor<?x?xf64>, %c0: i64, %ok: !soac.cert) -> tensor<?x?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %y = soac.map(%e = %xs : tensor<?xf64>) -> tensor<?xf64> {
      %d = arith.negf %e : f64
      soac.yield %d : f64
    }
    %s = soac.index %y[%c0] <%ok> : tensor<?xf64> -> f64
    %u = soac.update %xs[%c0] = %s <%ok> : tensor<?xf64>
    soac.yield %u : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @consumes_row
// CHECK-NEXT:    %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %y = soac.map

// -----

// The array the first piece makes has as many elements as the element's value: carried
// to the second piece it would be irregular.
func.func @irregular(%xs: tensor<?xi64>) -> tensor<?xi64> {
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
    %is = soac.iota %x
    %y = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xi64> {
      %d = arith.muli %i, %i : i64
      soac.yield %d : i64
    }
    %s = soac.size(0) %y : tensor<?xi64>
    %z = soac.reduce(%a = %s : i64) over(%b = %y : tensor<?xi64>) {
      %d = arith.addi %a, %b : i64
      soac.yield %d : i64
    }
    soac.yield %z : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @irregular
// CHECK-NEXT:    %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %is = soac.iota %x

// -----

// The first piece may fail for some elements (an index that depends on the element),
// and the second may fail too: the original reports the smallest failing element's
// first error, the pieces the first piece's errors first.
func.func @failure_order(%xs: tensor<?xi64>, %ys: tensor<?xf64>, %n: i64, %ok: i1) -> tensor<?x?xf64> {
  %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xf64> {
    %c = soac.assert %ok, "index {0} out of bounds" (%x : i64) at "p.l0:1:1"
    %e = soac.index %ys[%x] <%c> : tensor<?xf64> -> f64
    %is = soac.iota %n
    %y = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xf64> {
      %f = arith.sitofp %i : i64 to f64
      %d = arith.mulf %f, %e : f64
      soac.yield %d : f64
    }
    %k = arith.constant 7 : i64
    %c2 = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "p.l0:2:1"
    %z = soac.map(%v = %y : tensor<?xf64>) -> tensor<?xf64> {
      %w = soac.index %ys[%k] <%c2> : tensor<?xf64> -> f64
      %d = arith.addf %v, %w : f64
      soac.yield %d : f64
    }
    soac.yield %z : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @failure_order
// CHECK-NEXT:    %r = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %c = soac.assert

// -----

// Only the outermost parallel level is distributed: the inner map's lambda holds two
// SOACs, but it runs in a thread of the outer map, which is a perfect nest already.
func.func @nested(%xsss: tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
  %r = soac.map(%xss = %xsss : tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
    %q = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
      %y = soac.map(%e = %xs : tensor<?xf64>) -> tensor<?xf64> {
        %d = arith.negf %e : f64
        soac.yield %d : f64
      }
      %z = soac.map(%e = %y : tensor<?xf64>) -> tensor<?xf64> {
        %d = arith.addf %e, %e : f64
        soac.yield %d : f64
      }
      soac.yield %z : tensor<?xf64>
    }
    soac.yield %q : tensor<?x?xf64>
  }
  func.return %r : tensor<?x?x?xf64>
}
// CHECK-LABEL: func.func @nested
// CHECK-NEXT:    %r = soac.map(%xss = %xsss : tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
// CHECK-NEXT:      %q = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:        %y = soac.map
// CHECK:             %z = soac.map

// -----

// One SOAC and ops of outer values only: one piece, nothing to split.
func.func @one_piece(%xs: tensor<?xf64>, %n: i64) -> tensor<?x?xf64> {
  %r = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?x?xf64> {
    %is = soac.iota %n
    %y = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xf64> {
      %f = arith.sitofp %i : i64 to f64
      %d = arith.mulf %f, %x : f64
      soac.yield %d : f64
    }
    soac.yield %y : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @one_piece
// CHECK-NEXT:    %r = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %is = soac.iota %n
