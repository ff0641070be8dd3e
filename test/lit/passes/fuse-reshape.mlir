// RUN: l0-opt %s -p fuse,verify-uniqueness --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'fuse{explain=true}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=WHY

// PULL-RESHAPE (8.2): the reshape moves onto the producer's input, the producer
// becomes a nest of two maps over the reshaped input, and that nest fuses with the
// consumer (here a map over rows, each summed: map-redomap inside). The size check
// (the assert) stays where it was, before everything it guards; the new reshape takes
// its certificate and the producer's.
func.func @reshape_rows(%a: tensor<?xi64>, %r: i64, %c: i64, %ok: i1, %zero: i64, %cz: !soac.cert) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) <%cz> -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %chk = soac.assert %ok, "cannot reshape" at "p.l0:2:3"
  %m = soac.reshape (%r, %c) %b <%chk> : tensor<?xi64> -> tensor<?x?xi64>
  %s = soac.map(%row = %m : tensor<?x?xi64>) -> tensor<?xi64> {
    %t = soac.reduce(%acc = %zero : i64) over(%e = %row : tensor<?xi64>) {
      %u = arith.addi %acc, %e : i64
      soac.yield %u : i64
    }
    soac.yield %t : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @reshape_rows
// CHECK-NEXT:    %chk = soac.assert %ok
// CHECK-NEXT:    %[[R:.*]] = soac.reshape (%r, %c) %a <%chk, %cz> : tensor<?xi64> -> tensor<?x?xi64>
// CHECK-NEXT:    %s = soac.map(%[[ROW:.*]] = %[[R]] : tensor<?x?xi64>) <%cz> -> tensor<?xi64> {
// CHECK-NEXT:      %t = soac.redomap(%acc = %zero : i64) over(%x = %[[ROW]] : tensor<?xi64>) {
// CHECK-NEXT:        %y = arith.muli %x, %x : i64
// CHECK-NEXT:        %u = arith.addi %acc, %y : i64
// CHECK-NEXT:        soac.yield %u : i64
// CHECK-NEXT:      } outer {
// CHECK:           soac.yield %t : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s

// -----

// Two outputs reshaped alike (one shape, one certificate), then transposed: the
// nest of depth two the producer becomes takes the transposition too
// (PULL-TRANSPOSE), and everything fuses into the consumer.
func.func @reshape_transpose(%a: tensor<?xi64>, %r: i64, %c: i64, %chk: !soac.cert) -> tensor<?x?xi64> {
  %b, %d = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64>, tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y, %x : i64, i64
  }
  %m = soac.reshape (%r, %c) %b <%chk> : tensor<?xi64> -> tensor<?x?xi64>
  %n = soac.reshape (%r, %c) %d <%chk> : tensor<?xi64> -> tensor<?x?xi64>
  %mt = soac.transpose(0, 1) %m : tensor<?x?xi64>
  %nt = soac.transpose(0, 1) %n : tensor<?x?xi64>
  %s = soac.map(%p = %mt, %q = %nt : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
    %z = soac.map(%e = %p, %f = %q : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
      %w = arith.subi %e, %f : i64
      soac.yield %w : i64
    }
    soac.yield %z : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @reshape_transpose
// CHECK-NEXT:    %[[R:.*]] = soac.reshape (%r, %c) %a <%chk> : tensor<?xi64> -> tensor<?x?xi64>
// CHECK-NEXT:    %[[T:.*]] = soac.transpose(0, 1) %[[R]] : tensor<?x?xi64>
// CHECK-NEXT:    %s = soac.map(%{{.*}} = %[[T]] : tensor<?x?xi64>) -> tensor<?x?xi64> {
// CHECK-NEXT:      %z = soac.map(%x = %{{.*}} : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:        %y = arith.muli %x, %x : i64
// CHECK-NEXT:        %w = arith.subi %y, %x : i64
// CHECK-NEXT:        soac.yield %w : i64
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %z : tensor<?xi64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s

// -----

// Must not fire: the producer's input is a matrix and its lambda no map over the rows
// (a reduction): it is no map nest as deep as its input's rank.
func.func @matrix_input(%a: tensor<?x?xi64>, %n: i64, %chk: !soac.cert, %zero: i64) -> i64 {
  %b = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?xi64> {
    %t = soac.reduce(%acc = %zero : i64) over(%e = %row : tensor<?xi64>) {
      %u = arith.addi %acc, %e : i64
      soac.yield %u : i64
    }
    soac.yield %t : i64
  }
  %m = soac.reshape (%n) %b <%chk> : tensor<?xi64> -> tensor<?xi64>
  %s = soac.reduce(%acc = %zero : i64) over(%e = %m : tensor<?xi64>) {
    %u = arith.addi %acc, %e : i64
    soac.yield %u : i64
  }
  func.return %s : i64
}
// CHECK-LABEL: func.func @matrix_input
// CHECK-NEXT:    %b = soac.map
// CHECK:         soac.reshape (%n) %b
// WHY: remark: 'soac.map' %b not fused: it is reshaped, and it is no perfect map nest as deep as its inputs' rank (8.2)

// -----

// Must not fire: the producer may fail (a division) and so may the size check on the
// way to the reshape: moved after it, the producer's error and the check's would be
// reported in the other order.
func.func @check_between(%a: tensor<?xi64>, %r: i64, %c: i64, %ok: i1, %k: i64) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %k, %x : i64
    soac.yield %y : i64
  }
  %chk = soac.assert %ok, "cannot reshape" at "p.l0:2:3"
  %m = soac.reshape (%r, %c) %b <%chk> : tensor<?xi64> -> tensor<?x?xi64>
  %s = soac.map(%row = %m : tensor<?x?xi64>) -> tensor<?xi64> {
    %e = soac.size(0) %row : tensor<?xi64>
    soac.yield %e : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @check_between
// CHECK-NEXT:    %b = soac.map
// CHECK:         soac.reshape (%r, %c) %b
// WHY: remark: 'soac.map' %b not fused: it is reshaped, and it may fail or print, and so may 'soac.assert' before the reshape

// -----

// Must not fire: the outputs are reshaped to different shapes.
func.func @two_shapes(%a: tensor<?xi64>, %r: i64, %c: i64, %chk: !soac.cert) -> (tensor<?x?xi64>, tensor<?x?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %m = soac.reshape (%r, %c) %b <%chk> : tensor<?xi64> -> tensor<?x?xi64>
  %n = soac.reshape (%c, %r) %b <%chk> : tensor<?xi64> -> tensor<?x?xi64>
  func.return %m, %n : tensor<?x?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @two_shapes
// CHECK-NEXT:    %b = soac.map
// WHY: remark: 'soac.map' %b not fused: output %b is used by 'soac.reshape', not as an input array

// -----

// Must not fire: the reshaped array is returned, not consumed by a SOAC (pulling the
// reshape would fuse nothing).
func.func @returned(%a: tensor<?xi64>, %r: i64, %c: i64, %chk: !soac.cert) -> tensor<?x?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %m = soac.reshape (%r, %c) %b <%chk> : tensor<?xi64> -> tensor<?x?xi64>
  func.return %m : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @returned
// CHECK-NEXT:    %b = soac.map
// CHECK-NEXT:      arith.muli
// CHECK-NEXT:      soac.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %m = soac.reshape (%r, %c) %b
// WHY: remark: 'soac.map' %b not fused: after a reshape, output %m is used by 'func.return', not as an input array

// -----

// Must not fire: the producer's lambda yields arrays (its rows would have to be
// reshaped too).
func.func @array_rows(%a: tensor<?xi64>, %r: i64, %c: i64, %chk: !soac.cert) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?x?xi64> {
    %two = arith.constant 2 : i64
    %y = soac.replicate %two, %x : i64
    soac.yield %y : tensor<?xi64>
  }
  %two = arith.constant 2 : i64
  %m = soac.reshape (%r, %c, %two) %b <%chk> : tensor<?x?xi64> -> tensor<?x?x?xi64>
  %s = soac.map(%row = %m : tensor<?x?x?xi64>) -> tensor<?xi64> {
    %e = soac.size(0) %row : tensor<?x?xi64>
    soac.yield %e : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @array_rows
// CHECK-NEXT:    %b = soac.map
// WHY: remark: 'soac.map' %b not fused: it is reshaped, and its lambda yields arrays (8.2)

// -----

// Must not fire: reshaped then transposed, and the producer may fail (a division):
// PULL-TRANSPOSE would run its lambda in the transposed order, so a row's error could
// be reported before an earlier row's.
func.func @transpose_failing(%a: tensor<?xi64>, %r: i64, %c: i64, %k: i64, %chk: !soac.cert) -> tensor<?x?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %k, %x : i64
    soac.yield %y : i64
  }
  %m = soac.reshape (%r, %c) %b <%chk> : tensor<?xi64> -> tensor<?x?xi64>
  %mt = soac.transpose(0, 1) %m : tensor<?x?xi64>
  %s = soac.map(%p = %mt : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %z = soac.map(%e = %p : tensor<?xi64>) -> tensor<?xi64> {
      %w = arith.addi %e, %e : i64
      soac.yield %w : i64
    }
    soac.yield %z : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @transpose_failing
// CHECK-NEXT:    %b = soac.map
// CHECK:         soac.reshape (%r, %c) %b
// CHECK-NEXT:    soac.transpose
// WHY: remark: 'soac.map' %b not fused: it is reshaped then transposed, and the map nest it would become is too shallow, or may fail or print (8.1, 8.2)

// -----

// Must not fire: the transposition after the reshape moves nothing (n = 0), so
// PULL-TRANSPOSE does not apply and the rebuilt producer would not fuse.
func.func @transpose_zero(%a: tensor<?xi64>, %r: i64, %c: i64, %chk: !soac.cert) -> tensor<?x?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %m = soac.reshape (%r, %c) %b <%chk> : tensor<?xi64> -> tensor<?x?xi64>
  %mt = soac.transpose(0, 0) %m : tensor<?x?xi64>
  %s = soac.map(%p = %mt : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %z = soac.map(%e = %p : tensor<?xi64>) -> tensor<?xi64> {
      %w = arith.addi %e, %e : i64
      soac.yield %w : i64
    }
    soac.yield %z : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @transpose_zero
// CHECK-NEXT:    %b = soac.map
// CHECK:         %m = soac.reshape (%r, %c) %b
// WHY: remark: 'soac.map' %b not fused: it is reshaped then transposed, and the map nest it would become is too shallow, or may fail or print (8.1, 8.2)

// -----

// Note [Reshaping a map nest]: a perfect nest of two maps over matrices, flattened.
// Its element-wise lambda runs over the matrices flattened alike; the new reshapes
// take the reshape's certificate, the outer zip check's and the inner level's (a
// check hoisted out of it), and the flat map fuses into the sum.
func.func @flatten_nest(%a: tensor<?x?xi64>, %b: tensor<?x?xi64>, %n: i64, %zero: i64,
                        %chk: !soac.cert, %outer: !soac.cert, %inner: !soac.cert) -> i64 {
  %p = soac.map(%x = %a, %y = %b : tensor<?x?xi64>, tensor<?x?xi64>) <%outer> -> tensor<?x?xi64> {
    %q = soac.map(%u = %x, %v = %y : tensor<?xi64>, tensor<?xi64>) <%inner> -> tensor<?xi64> {
      %w = arith.muli %u, %v : i64
      soac.yield %w : i64
    }
    soac.yield %q : tensor<?xi64>
  }
  %f = soac.reshape (%n) %p <%chk> : tensor<?x?xi64> -> tensor<?xi64>
  %s = soac.reduce(%acc = %zero : i64) over(%e = %f : tensor<?xi64>) {
    %t = arith.addi %acc, %e : i64
    soac.yield %t : i64
  }
  func.return %s : i64
}
// CHECK-LABEL: func.func @flatten_nest
// CHECK-NEXT:    %[[FA:.*]] = soac.reshape (%n) %a <%chk, %outer, %inner> : tensor<?x?xi64> -> tensor<?xi64>
// CHECK-NEXT:    %[[FB:.*]] = soac.reshape (%n) %b <%chk, %outer, %inner> : tensor<?x?xi64> -> tensor<?xi64>
// CHECK-NEXT:    %s = soac.redomap(%acc = %zero : i64) over(%u = %[[FA]], %v = %[[FB]] : tensor<?xi64>, tensor<?xi64>) <%outer> {
// CHECK-NEXT:      %w = arith.muli %u, %v : i64
// CHECK-NEXT:      %t = arith.addi %acc, %w : i64
// CHECK:         func.return %s

// -----

// Must not fire: the innermost lambda reads its row (`r[0]`), so an element depends
// on more than the element at its index and the nest cannot run over the flattened
// matrix.
func.func @nest_reads_row(%a: tensor<?x?xi64>, %n: i64, %zero: i64, %chk: !soac.cert,
                          %c0: !soac.cert) -> i64 {
  %p = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %q = soac.map(%u = %r : tensor<?xi64>) -> tensor<?xi64> {
      %i = arith.constant 0 : i64
      %h = soac.index %r[%i] <%c0> : tensor<?xi64> -> i64
      %w = arith.subi %u, %h : i64
      soac.yield %w : i64
    }
    soac.yield %q : tensor<?xi64>
  }
  %f = soac.reshape (%n) %p <%chk> : tensor<?x?xi64> -> tensor<?xi64>
  %s = soac.reduce(%acc = %zero : i64) over(%e = %f : tensor<?xi64>) {
    %t = arith.addi %acc, %e : i64
    soac.yield %t : i64
  }
  func.return %s : i64
}
// CHECK-LABEL: func.func @nest_reads_row
// CHECK-NEXT:    %p = soac.map
// CHECK:         soac.reshape (%n) %p
// WHY: remark: 'soac.map' %p not fused: it is reshaped, and its innermost lambda reads rows of an outer level (8.2)
