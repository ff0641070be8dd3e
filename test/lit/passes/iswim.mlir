// RUN: l0-opt %s -p iswim --split-input-file | filecheck %s
// RUN: l0-opt %s -p iswim,verify-uniqueness --split-input-file > /dev/null

// Thesis 8.3 (Figure 35): the scan of row sums becomes one scan per column, under a
// test for rows (no rows: a copy of the empty input). The zip check was made before.
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
// CHECK-NEXT:      %[[COPY:.*]] = soac.copy %a : tensor<?x?xi64>
// CHECK-NEXT:      scf.yield %[[COPY]] : tensor<?x?xi64>
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

// Must not fire: the zip check is made inside the scan (run size-hindrance and rebind
// first), the element lambda may fail, or the lambda does more than one map.
func.func @not_applicable(%a: tensor<?x?xi64>, %ne: tensor<?xi64>, %c: !soac.cert) -> (tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) {
  %s1 = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %n = soac.size(0) %x : tensor<?xi64>
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
    soac.yield %m : tensor<?xi64>
  }
  func.return %s1, %s2, %s3 : tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @not_applicable
// CHECK-NOT:     scf.if
// CHECK:         %s1 = soac.scan
// CHECK:         %s2 = soac.scan
// CHECK:         %s3 = soac.scan
// CHECK-NOT:     scf.if
