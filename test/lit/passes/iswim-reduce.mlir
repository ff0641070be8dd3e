// RUN: l0-opt %s -p iswim,verify-uniqueness --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'iswim{scalar-rows-only=true}' --split-input-file | filecheck %s --check-prefix=SCALAR
// RUN: not l0-opt %s -p 'iswim{scalar-rows-only=maybe}' 2>&1 | filecheck %s --check-prefix=BAD
// BAD: l0-opt: error: bad options for pass 'iswim'

// A reduce of rows with a vector `+` whose zip check is made inside its lambda (as the
// front end writes `reduce(fn (x, y) => map(op +, zip(x, y)), ne, a)`): a map over the
// columns of one reduce per column. The check is made once, before the nest, with the
// neutral element for the accumulator and the transposed array for the row (Note [The
// fold's checks]); with no rows the result is the neutral element.
func.func @column_sums(%a: tensor<?x?xf64>, %ne: tensor<?xf64>) -> tensor<?xf64> {
  %s = soac.reduce(%x = %ne : tensor<?xf64>) over(%y = %a : tensor<?x?xf64>) {
    %n = soac.size(0) %x : tensor<?xf64>
    %m = soac.size(0) %y : tensor<?xf64>
    %ok = arith.cmpi eq, %n, %m : i64
    %c = soac.assert %ok, "arrays given to zip have different sizes: {0}, {1}" (%n, %m : i64, i64) at "t.l0:1:1"
    %r = soac.map(%p = %x, %q = %y : tensor<?xf64>, tensor<?xf64>) <%c> at "t.l0:1:2" -> tensor<?xf64> {
      %z = arith.addf %p, %q : f64
      soac.yield %z : f64
    }
    soac.yield %r : tensor<?xf64>
  }
  func.return %s : tensor<?xf64>
}
// CHECK-LABEL: func.func @column_sums
// CHECK:         %[[N:.*]] = soac.size(0) %a : tensor<?x?xf64>
// CHECK-NEXT:    %[[E:.*]] = arith.cmpi eq, %[[N]], %{{.*}} : i64
// CHECK-NEXT:    %s = scf.if %[[E]] -> (tensor<?xf64>) {
// CHECK-NEXT:      scf.yield %ne : tensor<?xf64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[T:.*]] = soac.transpose(0, 1) %a : tensor<?x?xf64>
// CHECK-NEXT:      %[[SN:.*]] = soac.size(0) %ne : tensor<?xf64>
// CHECK-NEXT:      %[[SM:.*]] = soac.size(0) %[[T]] : tensor<?x?xf64>
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi eq, %[[SN]], %[[SM]] : i64
// CHECK-NEXT:      %[[C:.*]] = soac.assert %[[OK]], "arrays given to zip have different sizes: {0}, {1}" (%[[SN]], %[[SM]] : i64, i64) at "t.l0:1:1"
// CHECK-NEXT:      %[[R:.*]] = soac.map(%[[EL:.*]] = %ne, %[[COL:.*]] = %[[T]] : tensor<?xf64>, tensor<?x?xf64>) <%[[C]]> at "t.l0:1:2" -> tensor<?xf64> {
// CHECK-NEXT:        %[[F:.*]] = soac.reduce(%p = %[[EL]] : f64) over(%q = %[[COL]] : tensor<?xf64>) {
// CHECK-NEXT:          %z = arith.addf %p, %q : f64
// CHECK-NEXT:          soac.yield %z : f64
// CHECK-NEXT:        }
// CHECK-NEXT:        soac.yield %[[F]] : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[R]] : tensor<?xf64>
// CHECK-NEXT:    }
// The cpu's cost rule: %a is no map over arrays of scalars.
// SCALAR-LABEL: func.func @column_sums
// SCALAR-NOT:     scf.if
// SCALAR:         %s = soac.reduce

// -----

// A redomap (a map fused into the reduce: its fold adds a row's squares) whose fold
// and operator are row-wise maps: one redomap per column. The operator's own check is
// dropped with its nest (Note [The operator's checks]); the fold's is made once.
func.func @redomap(%a: tensor<?x?xi64>, %ne: tensor<?xi64>) -> tensor<?xi64> {
  %s = soac.redomap(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %n = soac.size(0) %x : tensor<?xi64>
    %m = soac.size(0) %y : tensor<?xi64>
    %ok = arith.cmpi eq, %n, %m : i64
    %c = soac.assert %ok, "fold zip" at "t.l0:2:1"
    %r = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %d = arith.muli %q, %q : i64
      %z = arith.addi %p, %d : i64
      soac.yield %z : i64
    }
    soac.yield %r : tensor<?xi64>
  } outer {
  ^bb0(%l: tensor<?xi64>, %r: tensor<?xi64>):
    %n = soac.size(0) %l : tensor<?xi64>
    %m = soac.size(0) %r : tensor<?xi64>
    %ok = arith.cmpi eq, %n, %m : i64
    %c = soac.assert %ok, "operator zip" at "t.l0:2:2"
    %w = soac.map(%p = %l, %q = %r : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %w : tensor<?xi64>
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @redomap
// CHECK:         } else {
// CHECK-NEXT:      %[[T:.*]] = soac.transpose(0, 1) %a : tensor<?x?xi64>
// CHECK:           %[[C:.*]] = soac.assert %{{.*}}, "fold zip" at "t.l0:2:1"
// CHECK-NEXT:      %[[R:.*]] = soac.map(%[[EL:.*]] = %ne, %[[COL:.*]] = %[[T]] : tensor<?xi64>, tensor<?x?xi64>) <%[[C]]> -> tensor<?xi64> {
// CHECK-NEXT:        soac.redomap(%p = %[[EL]] : i64) over(%q = %[[COL]] : tensor<?xi64>) {
// CHECK-NEXT:          %d = arith.muli %q, %q : i64
// CHECK-NEXT:          %z = arith.addi %p, %d : i64
// CHECK-NEXT:          soac.yield %z : i64
// CHECK-NEXT:        } outer {
// CHECK-NEXT:        ^bb0(%p_1: i64, %q_1: i64):
// CHECK-NEXT:          %z_1 = arith.addi %p_1, %q_1 : i64
// CHECK-NOT:     "operator zip"
// CHECK:         func.return %s

// -----

// Figure 36 for a reduce, depth 2, each level's check inside the lambda: the outer
// check before the nest, the inner one in the outer level's lambda, each reading the
// sizes of its own level (the neutral element's rows, the transposed array's rows). No
// transposition back: a reduction's result has no reduced dimension.
func.func @depth_two(%a: tensor<?x?x?xf64>, %ne: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %s = soac.reduce(%x = %ne : tensor<?x?xf64>) over(%y = %a : tensor<?x?x?xf64>) {
    %n = soac.size(0) %x : tensor<?x?xf64>
    %m = soac.size(0) %y : tensor<?x?xf64>
    %ok = arith.cmpi eq, %n, %m : i64
    %c = soac.assert %ok, "outer zip" at "t.l0:3:1"
    %r = soac.map(%u = %x, %v = %y : tensor<?x?xf64>, tensor<?x?xf64>) <%c> -> tensor<?x?xf64> {
      %n2 = soac.size(0) %u : tensor<?xf64>
      %m2 = soac.size(0) %v : tensor<?xf64>
      %ok2 = arith.cmpi eq, %n2, %m2 : i64
      %c2 = soac.assert %ok2, "inner zip" at "t.l0:3:2"
      %w = soac.map(%p = %u, %q = %v : tensor<?xf64>, tensor<?xf64>) <%c2> -> tensor<?xf64> {
        %z = arith.addf %p, %q : f64
        soac.yield %z : f64
      }
      soac.yield %w : tensor<?xf64>
    }
    soac.yield %r : tensor<?x?xf64>
  }
  func.return %s : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @depth_two
// CHECK:         %s = scf.if %{{.*}} -> (tensor<?x?xf64>) {
// CHECK-NEXT:      scf.yield %ne : tensor<?x?xf64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[T:.*]] = soac.transpose(0, 2) %a : tensor<?x?x?xf64>
// CHECK-NEXT:      %[[SN:.*]] = soac.size(0) %ne : tensor<?x?xf64>
// CHECK-NEXT:      %[[SM:.*]] = soac.size(0) %[[T]] : tensor<?x?x?xf64>
// CHECK-NEXT:      arith.cmpi eq, %[[SN]], %[[SM]] : i64
// CHECK-NEXT:      %[[C:.*]] = soac.assert %{{.*}}, "outer zip"
// CHECK-NEXT:      %[[R:.*]] = soac.map(%[[E1:.*]] = %ne, %[[C1:.*]] = %[[T]] : tensor<?x?xf64>, tensor<?x?x?xf64>) <%[[C]]> -> tensor<?x?xf64> {
// CHECK-NEXT:        %[[SN2:.*]] = soac.size(0) %[[E1]] : tensor<?xf64>
// CHECK-NEXT:        %[[SM2:.*]] = soac.size(0) %[[C1]] : tensor<?x?xf64>
// CHECK-NEXT:        arith.cmpi eq, %[[SN2]], %[[SM2]] : i64
// CHECK-NEXT:        %[[CC:.*]] = soac.assert %{{.*}}, "inner zip"
// CHECK-NEXT:        %[[R2:.*]] = soac.map(%[[E2:.*]] = %[[E1]], %[[C2:.*]] = %[[C1]] : tensor<?xf64>, tensor<?x?xf64>) <%[[CC]]> -> tensor<?xf64> {
// CHECK-NEXT:          %[[F:.*]] = soac.reduce(%p = %[[E2]] : f64) over(%q = %[[C2]] : tensor<?xf64>) {
// CHECK-NEXT:            %z = arith.addf %p, %q : f64
// CHECK-NEXT:            soac.yield %z : f64
// CHECK-NEXT:          }
// CHECK-NEXT:          soac.yield %[[F]] : f64
// CHECK-NEXT:        }
// CHECK-NEXT:        soac.yield %[[R2]] : tensor<?xf64>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[R]] : tensor<?x?xf64>

// -----

// A reduce of pairs (two accumulators: a sum and a maximum per column), one map over
// both: one nest, its element reduce of two accumulators.
func.func @pairs(%a: tensor<?x?xi64>, %b: tensor<?x?xi64>, %na: tensor<?xi64>, %nb: tensor<?xi64>, %c: !soac.cert) -> (tensor<?xi64>, tensor<?xi64>) {
  %s:2 = soac.reduce(%x = %na, %u = %nb : tensor<?xi64>, tensor<?xi64>) over(%y = %a, %v = %b : tensor<?x?xi64>, tensor<?x?xi64>) {
    %m:2 = soac.map(%p = %x, %r = %u, %q = %y, %w = %v : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64>, tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      %k = arith.maxsi %r, %w : i64
      soac.yield %z, %k : i64, i64
    }
    soac.yield %m#0, %m#1 : tensor<?xi64>, tensor<?xi64>
  }
  func.return %s#0, %s#1 : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @pairs
// CHECK:         %s, %s_1 = scf.if
// CHECK-NEXT:      scf.yield %na, %nb : tensor<?xi64>, tensor<?xi64>
// CHECK:           soac.map(%{{.*}} = %na, %{{.*}} = %nb, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}} : tensor<?xi64>, tensor<?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) <%c>
// CHECK-NEXT:        soac.reduce(%p = %{{.*}}, %r = %{{.*}} : i64, i64) over(%q = %{{.*}}, %w = %{{.*}} : tensor<?xi64>, tensor<?xi64>)

// -----

// The cpu's cost rule fires on a fold of a map over an array of scalars (a one-hot row
// per element: fused, each column's fold reads one element per row).
func.func @one_hot(%xs: tensor<?xi64>, %js: tensor<?xi64>, %ne: tensor<?xi64>, %c: !soac.cert) -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %zero = arith.constant 0 : i64
  %rows = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xi64> {
    %r = soac.map(%j = %js : tensor<?xi64>) -> tensor<?xi64> {
      %e = arith.cmpi eq, %j, %x : i64
      %v = arith.select %e, %one, %zero : i64
      soac.yield %v : i64
    }
    soac.yield %r : tensor<?xi64>
  }
  %s = soac.reduce(%a = %ne : tensor<?xi64>) over(%b = %rows : tensor<?x?xi64>) {
    %m = soac.map(%p = %a, %q = %b : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @one_hot
// CHECK:         %s = scf.if
// SCALAR-LABEL: func.func @one_hot
// SCALAR:         %s = scf.if
// SCALAR:           soac.transpose(0, 1) %rows

// -----

// The cpu's cost rule does not fire when the rows' producer may fail (it could not be
// reordered into the column folds, and its rows would be read through the
// transposition), nor when the rows have another use.
func.func @rows_may_fail(%xs: tensor<?xi64>, %js: tensor<?xi64>, %ne: tensor<?xi64>, %c: !soac.cert) -> (tensor<?xi64>, tensor<?xi64>, tensor<?x?xi64>) {
  %rows = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xi64> {
    %r = soac.map(%j = %js : tensor<?xi64>) -> tensor<?xi64> {
      %v = arith.divsi %j, %x : i64
      soac.yield %v : i64
    }
    soac.yield %r : tensor<?xi64>
  }
  %s = soac.reduce(%a = %ne : tensor<?xi64>) over(%b = %rows : tensor<?x?xi64>) {
    %m = soac.map(%p = %a, %q = %b : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %kept = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xi64> {
    %r = soac.map(%j = %js : tensor<?xi64>) -> tensor<?xi64> {
      %v = arith.addi %j, %x : i64
      soac.yield %v : i64
    }
    soac.yield %r : tensor<?xi64>
  }
  %t = soac.reduce(%a = %ne : tensor<?xi64>) over(%b = %kept : tensor<?x?xi64>) {
    %m = soac.map(%p = %a, %q = %b : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  func.return %s, %t, %kept : tensor<?xi64>, tensor<?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @rows_may_fail
// CHECK:         %s = scf.if
// CHECK:         %t = scf.if
// SCALAR-LABEL: func.func @rows_may_fail
// SCALAR-NOT:     scf.if
// SCALAR:         %s = soac.reduce
// SCALAR:         %t = soac.reduce

// -----

// Must not fire: the operator is not element-wise. It reads another column of the
// accumulator (a rotation, `x[(j + 1) % n]`, written as an index of the whole
// accumulator), its check reads an element (not only a size), or the accumulator is
// not combined with the row of its own position.
func.func @not_elementwise(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert, %i: i64) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %s1 = soac.reduce(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %o = soac.index %x[%i] : tensor<?xi64> -> i64
      %z = arith.addi %o, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %s2 = soac.reduce(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %e = soac.index %y[%i] : tensor<?xi64> -> i64
    %ok = arith.cmpi sge, %e, %i : i64
    %k = soac.assert %ok, "no" at "t.l0:4:1"
    %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%k> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %s3:2 = soac.reduce(%x = %ne, %u = %ne : tensor<?xi64>, tensor<?xi64>) over(%y = %a, %v = %a : tensor<?x?xi64>, tensor<?x?xi64>) {
    %m = soac.map(%p = %x, %q = %v : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    %w = soac.map(%p = %u, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m, %w : tensor<?xi64>, tensor<?xi64>
  }
  func.return %s1, %s2, %s3#0, %s3#1 : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @not_elementwise
// CHECK-NOT:     scf.if
// CHECK:         %s1 = soac.reduce
// CHECK:         %s2 = soac.reduce
// CHECK:         %s3, %s3_1 = soac.reduce
// CHECK-NOT:     scf.if

// -----

// Must not fire: the accumulator is not one value per column (the lambda maps only the
// row, adding the accumulator's first element to each: the neutral element is not
// combined column by column), or the rows are irregular for the nest (arrays of rank
// 3 for a nest of depth 1, whose lambda yields rows).
func.func @not_per_column(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %b: tensor<?x?x?xi64>, %n2: tensor<?x?xi64>, %c: !soac.cert, %i: i64) -> (tensor<?xi64>, tensor<?x?xi64>) {
  %s1 = soac.reduce(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %m = soac.map(%q = %y : tensor<?xi64>) <%c> -> tensor<?xi64> {
      %e = soac.index %x[%i] : tensor<?xi64> -> i64
      %z = arith.addi %e, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %s2 = soac.reduce(%x = %n2 : tensor<?x?xi64>) over(%y = %b : tensor<?x?x?xi64>) {
    %m = soac.map(%p = %x, %q = %y : tensor<?x?xi64>, tensor<?x?xi64>) <%c> -> tensor<?x?xi64> {
      soac.yield %p : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  }
  func.return %s1, %s2 : tensor<?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @not_per_column
// CHECK-NOT:     scf.if
// CHECK:         %s1 = soac.reduce
// CHECK:         %s2 = soac.reduce
// CHECK-NOT:     scf.if
