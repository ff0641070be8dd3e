// RUN: l0-opt %s -p fuse,size-hindrance,dce,fuse --split-input-file | filecheck %s
// RUN: l0-opt %s -p fuse,verify-uniqueness --split-input-file > /dev/null

// ISWIM where the transpositions cancel (8.3, Figure 35): a scan of row-wise sums over
// a transposed matrix, transposed back, is one scan per row of the matrix. The map
// producing the matrix then fuses into the per-row map (a scanomap per row). With no
// rows, the result is that of the scan: every dimension 0. (The number of rows is a
// size of the producer's output until `size-hindrance` takes it from the producer's
// input, as in the default pipeline, which repeats `fuse`.)
func.func @column_scans(%m: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert) -> tensor<?x?xi64> {
  %a = soac.map(%r = %m : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %d = soac.map(%x = %r : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.muli %x, %x : i64
      soac.yield %y : i64
    }
    soac.yield %d : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %a : tensor<?x?xi64>
  %s = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %t : tensor<?x?xi64>) {
    %w = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %w : tensor<?xi64>
  }
  %b = soac.transpose(0, 1) %s : tensor<?x?xi64>
  func.return %b : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @column_scans
// CHECK-NOT:     soac.transpose
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[N:.*]] = soac.size(1) %m : tensor<?x?xi64>
// CHECK-NEXT:    %[[E:.*]] = arith.cmpi eq, %[[N]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[E]] -> (tensor<?x?xi64>) {
// CHECK-NEXT:      %[[EMPTY:.*]] = soac.empty : tensor<?x?xi64>
// CHECK-NEXT:      scf.yield %[[EMPTY]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[ROWS:.*]] = soac.map(%[[EL:.*]] = %ne, %[[ROW:.*]] = %m : tensor<?xi64>, tensor<?x?xi64>) <%c> -> tensor<?x?xi64> {
// CHECK-NEXT:        %[[S:.*]] = soac.scanomap(%p = %[[EL]] : i64) over(%x = %[[ROW]] : tensor<?xi64>) {
// CHECK-NEXT:          %y = arith.muli %x, %x : i64
// CHECK-NEXT:          %z = arith.addi %p, %y : i64
// CHECK-NEXT:          soac.yield %z : i64
// CHECK-NEXT:        } outer {
// CHECK:             soac.yield %[[S]] : tensor<?xi64>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[ROWS]] : tensor<?x?xi64>
// CHECK-NEXT:    }
// CHECK-NOT:     soac.transpose
// CHECK:         func.return %[[R]]

// -----

// The result is also used untransposed: it is transposed back in the new form (the
// inputs' transpositions still cancel).
func.func @result_used(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert) -> tensor<?x?xi64> {
  %t = soac.transpose(0, 1) %a : tensor<?x?xi64>
  %s = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %t : tensor<?x?xi64>) {
    %w = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.maxsi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %w : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @result_used
// CHECK:         } else {
// CHECK-NEXT:      %[[ROWS:.*]] = soac.map(%{{.*}} = %ne, %{{.*}} = %a : tensor<?xi64>, tensor<?x?xi64>) <%c> -> tensor<?x?xi64> {
// CHECK-NEXT:        soac.scan
// CHECK:           %[[BACK:.*]] = soac.transpose(0, 1) %[[ROWS]] : tensor<?x?xi64>
// CHECK-NEXT:      scf.yield %[[BACK]] : tensor<?x?xi64>

// -----

// Must not fire: the scanned matrix is not a transposition (nothing would cancel:
// that is `iswim`'s opt-in rewrite), or a check inside the scan reads an element of a
// row (not only its size), or the element lambda may fail.
func.func @not_applicable(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert, %i: i64) -> (tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) {
  %s1 = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %w = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %w : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %a : tensor<?x?xi64>
  %s2 = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %t : tensor<?x?xi64>) {
    %e = soac.index %y[%i] : tensor<?xi64> -> i64
    %b = arith.cmpi sge, %e, %i : i64
    %k = soac.assert %b, "no" at "t.l0:1:1"
    %w = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%k> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %w : tensor<?xi64>
  }
  %s3 = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %t : tensor<?x?xi64>) {
    %w = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.divsi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %w : tensor<?xi64>
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

// The producer side (Note [Consumers of the interchanged scan]): a map consuming the
// interchanged scan's result moves into its `if` (with no rows it is empty too) and
// fuses with the nest there; a reduce of another result moves in with its neutral
// element for the branch without rows. The `if` moves down to the consumers, past
// %k, which neither fails nor prints.
func.func @consumer_moves_in(%m: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert, %e: i1, %z: tensor<?xi64>) -> (tensor<?x?xi64>, tensor<?xi64>) {
  %s, %t = scf.if %e -> (tensor<?x?xi64>, tensor<?x?xi64>) {
    %0 = soac.empty : tensor<?x?xi64>
    %1 = soac.empty : tensor<?x?xi64>
    scf.yield %0, %1 : tensor<?x?xi64>, tensor<?x?xi64>
  } else {
    %rows = soac.map(%el = %ne, %row = %m : tensor<?xi64>, tensor<?x?xi64>) <%c> -> tensor<?x?xi64> {
      %sc = soac.scan(%p = %el : i64) over(%x = %row : tensor<?xi64>) {
        %y = arith.addi %p, %x : i64
        soac.yield %y : i64
      }
      soac.yield %sc : tensor<?xi64>
    }
    scf.yield %rows, %m : tensor<?x?xi64>, tensor<?x?xi64>
  }
  %k = arith.constant 3 : i64
  %d = soac.map(%r = %s : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %q = soac.map(%v = %r : tensor<?xi64>) -> tensor<?xi64> {
      %w = arith.muli %v, %k : i64
      soac.yield %w : i64
    }
    soac.yield %q : tensor<?xi64>
  }
  %f = soac.reduce(%acc = %z : tensor<?xi64>) over(%g = %t : tensor<?x?xi64>) {
    soac.yield %g : tensor<?xi64>
  }
  func.return %d, %f : tensor<?x?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @consumer_moves_in
// CHECK:         %k = arith.constant 3 : i64
// CHECK-NEXT:    %d, %f = scf.if %e -> (tensor<?x?xi64>, tensor<?xi64>) {
// CHECK-NEXT:      %[[E:.*]] = soac.empty : tensor<?x?xi64>
// CHECK-NEXT:      scf.yield %[[E]], %z : tensor<?x?xi64>, tensor<?xi64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[D:.*]] = soac.map(%el = %ne, %row = %m : tensor<?xi64>, tensor<?x?xi64>) <%c> -> tensor<?x?xi64> {
// CHECK-NEXT:        %sc = soac.scan
// CHECK:             %q = soac.map(%v = %sc : tensor<?xi64>)
// CHECK:           %[[F:.*]] = soac.reduce(%acc = %z : tensor<?xi64>) over(%g = %m : tensor<?x?xi64>)
// CHECK:           scf.yield %[[D]], %[[F]] : tensor<?x?xi64>, tensor<?xi64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %d, %f

// -----

// Must not fire: the result is also returned (it must exist as an array); the first
// branch does not yield an array without rows; the `if` may fail (a division); the
// `if` would read %c after the update consumes it; another result of the `if` is
// used before the consumer.
func.func @consumer_stays(%m: tensor<?x?xi64>, %e: i1, %n: i64, %row: tensor<?xi64>) -> (tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) {
  %s1 = scf.if %e -> (tensor<?x?xi64>) {
    %0 = soac.empty : tensor<?x?xi64>
    scf.yield %0 : tensor<?x?xi64>
  } else {
    scf.yield %m : tensor<?x?xi64>
  }
  %d1 = soac.map(%r = %s1 : tensor<?x?xi64>) -> tensor<?x?xi64> {
    soac.yield %r : tensor<?xi64>
  }
  %s2 = scf.if %e -> (tensor<?x?xi64>) {
    scf.yield %m : tensor<?x?xi64>
  } else {
    %1 = soac.empty : tensor<?x?xi64>
    scf.yield %1 : tensor<?x?xi64>
  }
  %d2 = soac.map(%r = %s2 : tensor<?x?xi64>) -> tensor<?x?xi64> {
    soac.yield %r : tensor<?xi64>
  }
  %s3 = scf.if %e -> (tensor<?x?xi64>) {
    %2 = soac.empty : tensor<?x?xi64>
    scf.yield %2 : tensor<?x?xi64>
  } else {
    %3 = soac.map(%r = %m : tensor<?x?xi64>) -> tensor<?x?xi64> {
      %4 = soac.map(%x = %r : tensor<?xi64>) -> tensor<?xi64> {
        %5 = arith.divsi %n, %x : i64
        soac.yield %5 : i64
      }
      soac.yield %4 : tensor<?xi64>
    }
    scf.yield %3 : tensor<?x?xi64>
  }
  %d3 = soac.map(%r = %s3 : tensor<?x?xi64>) -> tensor<?x?xi64> {
    soac.yield %r : tensor<?xi64>
  }
  %c = soac.copy %m : tensor<?x?xi64>
  %s4 = scf.if %e -> (tensor<?x?xi64>) {
    %6 = soac.empty : tensor<?x?xi64>
    scf.yield %6 : tensor<?x?xi64>
  } else {
    %7 = soac.map(%r = %c : tensor<?x?xi64>) -> tensor<?x?xi64> {
      %8 = soac.map(%x = %r : tensor<?xi64>) -> tensor<?xi64> {
        %9 = arith.addi %n, %x : i64
        soac.yield %9 : i64
      }
      soac.yield %8 : tensor<?xi64>
    }
    scf.yield %7 : tensor<?x?xi64>
  }
  %zero = arith.constant 0 : i64
  %u = soac.update %c[%zero] = %row : tensor<?x?xi64>
  %d4 = soac.map(%r = %s4 : tensor<?x?xi64>) -> tensor<?x?xi64> {
    soac.yield %r : tensor<?xi64>
  }
  %s5, %t5 = scf.if %e -> (tensor<?x?xi64>, tensor<?x?xi64>) {
    %10 = soac.empty : tensor<?x?xi64>
    scf.yield %10, %10 : tensor<?x?xi64>, tensor<?x?xi64>
  } else {
    scf.yield %m, %m : tensor<?x?xi64>, tensor<?x?xi64>
  }
  %w5 = soac.copy %t5 : tensor<?x?xi64>
  %d5 = soac.map(%r = %s5, %q = %w5 : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
    soac.yield %r : tensor<?xi64>
  }
  func.return %s1, %d1, %d2, %d3, %d4, %u, %d5 : tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @consumer_stays
// CHECK:         %s1 = scf.if
// CHECK:         %d1 = soac.map(%{{.*}} = %s1
// CHECK:         %s2 = scf.if
// CHECK:         %d2 = soac.map(%{{.*}} = %s2
// `fuse`'s more general move into branches (`into_branches.py`) takes %d3 and %d4 in
// instead, as it may: the identity consumer cannot fail (it runs after the `if`'s
// map either way) and reads only the `if`'s fresh result, not %c.
// CHECK:         %d3 = scf.if
// CHECK:           soac.empty
// CHECK-NEXT:      soac.map
// CHECK:         %d4 = scf.if
// CHECK:         soac.update
// CHECK:         %s5, %t5 = scf.if
// CHECK:         %d5 = soac.map(%{{.*}} = %s5
