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
// that is `iswim`'s opt-in rewrite), or the inner map's zip check is made inside the
// scan, or the element lambda may fail.
func.func @not_applicable(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert, %ok: i1) -> (tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) {
  %s1 = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %w = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %p, %q : i64
      soac.yield %z : i64
    }
    soac.yield %w : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %a : tensor<?x?xi64>
  %s2 = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %t : tensor<?x?xi64>) {
    %k = soac.assert %ok, "no" at "t.l0:1:1"
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
