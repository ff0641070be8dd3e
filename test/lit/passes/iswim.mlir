// RUN: l0-opt %s -p iswim,verify-uniqueness --split-input-file | filecheck %s

// Thesis 8.3 (Figure 35): the scan of row sums becomes one scan per column, under a
// test for rows (no rows: the scan's result, an array with every dimension 0). The
// zip check was made before.
func.func @column_scans(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert) -> tensor<?x?xi64> {
  %s = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @column_scans
// CHECK:         %[[N:.*]] = soac.size(0) %a : tensor<?x?xi64>
// CHECK-NEXT:    %[[E:.*]] = arith.cmpi eq, %[[N]], %{{.*}} : i64
// CHECK-NEXT:    %s = scf.if %[[E]] -> (tensor<?x?xi64>) {
// CHECK-NEXT:      %[[EMPTY:.*]] = soac.empty : tensor<?x?xi64>
// CHECK-NEXT:      scf.yield %[[EMPTY]] : tensor<?x?xi64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[T:.*]] = soac.transpose(0, 1) %a : tensor<?x?xi64>
// CHECK-NEXT:      %[[R:.*]] = soac.map(%[[EL:.*]] = %ne, %[[COL:.*]] = %[[T]] : tensor<?xi64>, tensor<?x?xi64>) <%c> -> tensor<?x?xi64> {
// CHECK-NEXT:        %[[S:.*]] = soac.scan(%p = %[[EL]] : i64) over(%q = %[[COL]] : tensor<?xi64>) {
// CHECK-NEXT:          %z = arith.addi %p, %q : i64
// CHECK-NEXT:          soac.yield %z : i64
// CHECK-NEXT:        }
// CHECK-NEXT:        soac.yield %[[S]] : tensor<?xi64>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[B:.*]] = soac.transpose(0, 1) %[[R]] : tensor<?x?xi64>
// CHECK-NEXT:      scf.yield %[[B]] : tensor<?x?xi64>

// -----

// Two arrays scanned together (tupleless: two accumulators, two rows).
func.func @two_arrays(%a: tensor<?x?xf64>, %b: tensor<?x?xi64>, %na: tensor<?xf64>, %nb: tensor<?xi64>, %c: !soac.cert) -> (tensor<?x?xf64>, tensor<?x?xi64>) {
  %s:2 = soac.scan(%x = %na, %u = %nb : tensor<?xf64>, tensor<?xi64>) over(%y = %a, %v = %b : tensor<?x?xf64>, tensor<?x?xi64>) {
    %m:2 = soac.map(%p = %x, %r = %u, %q = %y, %w = %v : tensor<?xf64>, tensor<?xi64>, tensor<?xf64>, tensor<?xi64>) <%c> -> tensor<?xf64>, tensor<?xi64> {
      %z = arith.maximumf %p, %q : f64
      %k = arith.addi %r, %w : i64
      soac.yield %z, %k : f64, i64
    }
    soac.yield %m#0, %m#1 : tensor<?xf64>, tensor<?xi64>
  }
  func.return %s#0, %s#1 : tensor<?x?xf64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @two_arrays
// CHECK:         scf.if
// CHECK:         soac.map(%{{.*}} = %na, %{{.*}} = %nb, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}} : tensor<?xf64>, tensor<?xi64>, tensor<?x?xf64>, tensor<?x?xi64>) <%c>
// CHECK-NEXT:      soac.scan(%p = %{{.*}}, %r = %{{.*}} : f64, i64) over(%q = %{{.*}}, %w = %{{.*}} : tensor<?xf64>, tensor<?xi64>)

// -----

// Must not fire: a check inside the scan reads an element of the accumulator (not
// only its size: it is not the same at every row, Note [The fold's checks]), the
// element lambda may fail, or the lambda does more than one map.
func.func @not_applicable(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert, %i: i64) -> (tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) {
  %s1 = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %n = soac.index %x[%i] : tensor<?xi64> -> i64
    %ok = arith.cmpi sge, %n, %n : i64
    %d = soac.assert %ok, "zip" at "t.l0:1:1"
    %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%d> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %s2 = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.divsi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %s3 = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %m = soac.map(%q = %y, %p = %x : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.subi %p, %q : i64
      soac.yield %z : i64
    }
    %m2 = soac.map(%p = %m : tensor<?xi64>) -> tensor<?xi64> {
      %z = arith.addi %p, %p : i64
      soac.yield %z : i64
    }
    soac.yield %m2 : tensor<?xi64>
  }
  func.return %s1, %s2, %s3 : tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @not_applicable
// CHECK-NOT:     scf.if
// CHECK:         %s1 = soac.scan
// CHECK:         %s2 = soac.scan
// CHECK:         %s3 = soac.scan
// CHECK-NOT:     scf.if

// -----

// Figure 36, depth 2: a scan of maps of maps over arrays of rank 3. The scanned
// dimension moves innermost (transpose(0, 2)), a nest of two maps (each with its
// level's checks) runs one scan per innermost column, and the result moves back
// (transpose(2, -2)).
func.func @depth_two(%a: tensor<?x?x?xi64>, %ne: tensor<?x?xi64>, %c1: !soac.cert, %c2: !soac.cert) -> tensor<?x?x?xi64> {
  %s = soac.scan(%x = %ne : tensor<?x?xi64>) over(%y = %a : tensor<?x?x?xi64>) {
    %o = soac.map(%u = %x, %v = %y : tensor<?x?xi64>, tensor<?x?xi64>) <%c1> -> tensor<?x?xi64> {
      %i = soac.map(%p = %u, %q = %v : tensor<?xi64>, tensor<?xi64>) <%c2> -> tensor<?xi64> {
        %z = arith.addi %p, %q : i64
        soac.yield %z : i64
      }
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %o : tensor<?x?xi64>
  }
  func.return %s : tensor<?x?x?xi64>
}
// CHECK-LABEL: func.func @depth_two
// CHECK:         %s = scf.if %{{.*}} -> (tensor<?x?x?xi64>) {
// CHECK-NEXT:      %[[EMPTY:.*]] = soac.empty : tensor<?x?x?xi64>
// CHECK-NEXT:      scf.yield %[[EMPTY]] : tensor<?x?x?xi64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[T:.*]] = soac.transpose(0, 2) %a : tensor<?x?x?xi64>
// CHECK-NEXT:      %[[R:.*]] = soac.map(%[[E1:.*]] = %ne, %[[C1:.*]] = %[[T]] : tensor<?x?xi64>, tensor<?x?x?xi64>) <%c1> -> tensor<?x?x?xi64> {
// CHECK-NEXT:        %[[R2:.*]] = soac.map(%[[E2:.*]] = %[[E1]], %[[C2:.*]] = %[[C1]] : tensor<?xi64>, tensor<?x?xi64>) <%c2> -> tensor<?x?xi64> {
// CHECK-NEXT:          %[[S:.*]] = soac.scan(%p = %[[E2]] : i64) over(%q = %[[C2]] : tensor<?xi64>) {
// CHECK-NEXT:            %z = arith.addi %p, %q : i64
// CHECK-NEXT:            soac.yield %z : i64
// CHECK-NEXT:          }
// CHECK-NEXT:          soac.yield %[[S]] : tensor<?xi64>
// CHECK-NEXT:        }
// CHECK-NEXT:        soac.yield %[[R2]] : tensor<?x?xi64>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[B:.*]] = soac.transpose(2, -2) %[[R]] : tensor<?x?x?xi64>
// CHECK-NEXT:      scf.yield %[[B]] : tensor<?x?x?xi64>

// -----

// A scanomap (a map fused into the scan: its fold maps each row, then adds) whose
// fold and operator are both row-wise maps: one scanomap per column, of the element
// lambdas.
func.func @scanomap(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert) -> tensor<?x?xi64> {
  %s = soac.scanomap(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %d = arith.muli %q, %q : i64
      %z = arith.addi %p, %d : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  } outer {
  ^bb0(%l: tensor<?xi64>, %r: tensor<?xi64>):
    %m = soac.map(%p = %l, %q = %r : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @scanomap
// CHECK:         } else {
// CHECK-NEXT:      %[[T:.*]] = soac.transpose(0, 1) %a : tensor<?x?xi64>
// CHECK-NEXT:      %[[R:.*]] = soac.map(%[[E:.*]] = %ne, %[[COL:.*]] = %[[T]] : tensor<?xi64>, tensor<?x?xi64>) <%c> -> tensor<?x?xi64> {
// CHECK-NEXT:        %[[S:.*]] = soac.scanomap(%p = %[[E]] : i64) over(%q = %[[COL]] : tensor<?xi64>) {
// CHECK-NEXT:          %d = arith.muli %q, %q : i64
// CHECK-NEXT:          %z = arith.addi %p, %d : i64
// CHECK-NEXT:          soac.yield %z : i64
// CHECK-NEXT:        } outer {
// CHECK-NEXT:        ^bb0(%p_1: i64, %q_1: i64):
// CHECK-NEXT:          %z_1 = arith.addi %p_1, %q_1 : i64
// CHECK-NEXT:          soac.yield %z_1 : i64
// CHECK-NEXT:        }
// CHECK-NEXT:        soac.yield %[[S]] : tensor<?xi64>
// CHECK-NEXT:      }

// -----

// Must not fire: the arrays are of rank 3 but the nest has depth 1 (its lambda works
// on rows of rows), or the nest stops before the elements.
func.func @too_shallow(%a: tensor<?x?x?xi64>, %ne: tensor<?x?xi64>, %c: !soac.cert, %zero: i64) -> tensor<?x?x?xi64> {
  %s = soac.scan(%x = %ne : tensor<?x?xi64>) over(%y = %a : tensor<?x?x?xi64>) {
    %o = soac.map(%u = %x, %v = %y : tensor<?x?xi64>, tensor<?x?xi64>) <%c> -> tensor<?x?xi64> {
      soac.yield %v : tensor<?xi64>
    }
    soac.yield %o : tensor<?x?xi64>
  }
  func.return %s : tensor<?x?x?xi64>
}
// CHECK-LABEL: func.func @too_shallow
// CHECK-NOT:     scf.if
// CHECK:         %s = soac.scan

// -----

// Depth 2, a scanomap whose operator computes its maps' zip check inside (a copy of the
// scan's, which cannot leave a lambda that may never run): the interchange drops it
// with the operator's nest (Note [The operator's checks]); the fold's checks were made
// before the scan and guard the new nest.
func.func @scanomap_operator_checks(%a: tensor<?x?x?xi64>, %ne: tensor<?x?xi64>, %c1: !soac.cert, %c2: !soac.cert, %ok: i1) -> tensor<?x?x?xi64> {
  %s = soac.scanomap(%x = %ne : tensor<?x?xi64>) over(%y = %a : tensor<?x?x?xi64>) {
    %o = soac.map(%u = %x, %v = %y : tensor<?x?xi64>, tensor<?x?xi64>) <%c1> -> tensor<?x?xi64> {
      %i = soac.map(%p = %u, %q = %v : tensor<?xi64>, tensor<?xi64>) <%c2> -> tensor<?xi64> {
        %z = arith.addi %p, %q : i64
        soac.yield %z : i64
      }
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %o : tensor<?x?xi64>
  } outer {
  ^bb0(%l: tensor<?x?xi64>, %r: tensor<?x?xi64>):
    %k = soac.assert %ok, "arrays given to zip have different sizes" at "t.l0:1:1"
    %o = soac.map(%u = %l, %v = %r : tensor<?x?xi64>, tensor<?x?xi64>) <%c1> -> tensor<?x?xi64> {
      %i = soac.map(%p = %u, %q = %v : tensor<?xi64>, tensor<?xi64>) <%k> -> tensor<?xi64> {
        %z = arith.addi %p, %q : i64
        soac.yield %z : i64
      }
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %o : tensor<?x?xi64>
  }
  func.return %s : tensor<?x?x?xi64>
}
// CHECK-LABEL: func.func @scanomap_operator_checks
// CHECK:         } else {
// CHECK-NEXT:      %[[T:.*]] = soac.transpose(0, 2) %a : tensor<?x?x?xi64>
// CHECK-NEXT:      soac.map(%{{.*}} = %ne, %{{.*}} = %[[T]] : tensor<?x?xi64>, tensor<?x?x?xi64>) <%c1>
// CHECK-NEXT:        soac.map(%{{.*}}, %{{.*}} : tensor<?xi64>, tensor<?x?xi64>) <%c2>
// CHECK-NEXT:          soac.scanomap
// CHECK-NOT:     soac.assert
// CHECK:         func.return

// -----

// Must not fire: the operator computes more than its checks before its map (a value
// its element lambda uses). The fold's check inside the scan (%t) is made once, before
// the column nest, when there are rows (Note [The fold's checks]).
func.func @scanomap_operator_computes(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert, %ok: i1) -> (tensor<?x?xi64>, tensor<?x?xi64>) {
  %s = soac.scanomap(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  } outer {
  ^bb0(%l: tensor<?xi64>, %r: tensor<?xi64>):
    %n = soac.size(0) %l : tensor<?xi64>
    %m = soac.map(%p = %l, %q = %r : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %n : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %t = soac.scanomap(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %k = soac.assert %ok, "arrays given to zip have different sizes" at "t.l0:1:1"
    %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%k> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  } outer {
  ^bb0(%l: tensor<?xi64>, %r: tensor<?xi64>):
    %m = soac.map(%p = %l, %q = %r : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  func.return %s, %t : tensor<?x?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @scanomap_operator_computes
// CHECK-NOT:     scf.if
// CHECK:         %s = soac.scanomap
// CHECK:         %t = scf.if
// CHECK:         } else {
// CHECK-NEXT:      %[[T:.*]] = soac.transpose(0, 1) %a
// CHECK-NEXT:      %[[K:.*]] = soac.assert %ok, "arrays given to zip have different sizes"
// CHECK-NEXT:      soac.map(%{{.*}} = %ne, %{{.*}} = %[[T]] : tensor<?xi64>, tensor<?x?xi64>) <%[[K]]>
// CHECK-NEXT:        soac.scanomap

// -----

// The map takes the row before the accumulator (`zip(y, x)`): the element scan's
// lambda gets its parameters back in the scan's order (accumulator, then element), and
// still subtracts the accumulator from the element.
func.func @rows_first(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert) -> tensor<?x?xi64> {
  %s = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %m = soac.map(%q = %y, %p = %x : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.subi %q, %p : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @rows_first
// CHECK:         } else {
// CHECK-NEXT:      %[[T:.*]] = soac.transpose(0, 1) %a : tensor<?x?xi64>
// CHECK-NEXT:      soac.map(%{{.*}} = %ne, %{{.*}} = %[[T]] : tensor<?xi64>, tensor<?x?xi64>) <%c>
// CHECK-NEXT:        soac.scan(%[[ACC:.*]] = %{{.*}} : i64) over(%[[EL:.*]] = %{{.*}} : tensor<?xi64>) {
// CHECK-NEXT:          %z = arith.subi %[[EL]], %[[ACC]] : i64

// -----

// Note [Independent parts of a scan]: a scan of pairs whose lambda combines each part
// with its own map (their sizes may differ, so the maps cannot become one): one nest of
// maps per part around its own column scans, under the one test for rows. A map that
// combines an accumulator with the row of another position does not interchange.
func.func @two_groups(%a: tensor<?x?xi64>, %b: tensor<?x?xi64>, %n1: tensor<?xi64>, %n2: tensor<?xi64>, %c: !soac.cert, %d: !soac.cert) -> (tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) {
  %s, %t = soac.scan(%x1 = %n1, %x2 = %n2 : tensor<?xi64>, tensor<?xi64>) over(%y1 = %a, %y2 = %b : tensor<?x?xi64>, tensor<?x?xi64>) {
    %m1 = soac.map(%p = %x1, %q = %y1 : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    %m2 = soac.map(%p = %y2, %q = %x2 : tensor<?xi64>, tensor<?xi64>) <%d> -> tensor<?xi64> {
      %z = arith.subi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m1, %m2 : tensor<?xi64>, tensor<?xi64>
  }
  %u, %v = soac.scan(%x1 = %n1, %x2 = %n2 : tensor<?xi64>, tensor<?xi64>) over(%y1 = %a, %y2 = %b : tensor<?x?xi64>, tensor<?x?xi64>) {
    %m1 = soac.map(%p = %x1, %q = %y2 : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    %m2 = soac.map(%p = %x2, %q = %y1 : tensor<?xi64>, tensor<?xi64>) <%d> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %m1, %m2 : tensor<?xi64>, tensor<?xi64>
  }
  func.return %s, %t, %u, %v : tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @two_groups
// CHECK:         %s, %t = scf.if %{{.*}} -> (tensor<?x?xi64>, tensor<?x?xi64>) {
// CHECK:         } else {
// CHECK-NEXT:      %[[TA:.*]] = soac.transpose(0, 1) %a : tensor<?x?xi64>
// CHECK-NEXT:      %[[TB:.*]] = soac.transpose(0, 1) %b : tensor<?x?xi64>
// CHECK-NEXT:      %[[R1:.*]] = soac.map(%{{.*}} = %n1, %{{.*}} = %[[TA]] : tensor<?xi64>, tensor<?x?xi64>) <%c>
// CHECK-NEXT:        soac.scan
// CHECK-NEXT:          arith.addi
// CHECK:           %[[R2:.*]] = soac.map(%{{.*}} = %n2, %{{.*}} = %[[TB]] : tensor<?xi64>, tensor<?x?xi64>) <%d>
// CHECK-NEXT:        soac.scan(%[[ACC:.*]] = %{{.*}} : i64) over(%[[EL:.*]] = %{{.*}} : tensor<?xi64>)
// CHECK-NEXT:          arith.subi %[[EL]], %[[ACC]] : i64
// CHECK:           %[[B1:.*]] = soac.transpose(0, 1) %[[R1]]
// CHECK-NEXT:      %[[B2:.*]] = soac.transpose(0, 1) %[[R2]]
// CHECK-NEXT:      scf.yield %[[B1]], %[[B2]]
// CHECK:         %u, %v = soac.scan
// CHECK-NOT:     scf.if
