// RUN: l0-opt %s -p bufferise | filecheck %s

// A transpose read over and over with a large stride (an input of a SOAC inside a
// lambda or loop the transpose is outside of) is copied once into a dense row-major
// buffer (lowering/bufferise/manifest.py); the SOAC then reads unit-stride rows.

// P1 after fusion: every row of x meets every row of transpose(y).
// CHECK-LABEL: func.func @matmul(
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%{{.*}}, %[[S0:.*]]], strides: [%{{.*}}] : {{.*}} to memref<?x?xi64, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    %[[S1:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT:    %[[T:.*]] = memref.alloc(%[[S1]], %[[S0]]) : memref<?x?xi64>
// CHECK-NEXT:    "memref.copy"(%[[V]], %[[T]])
// CHECK:         msoac.map ins(%x
// CHECK:         msoac.map ins(%[[T]] : memref<?x?xi64>)
// CHECK:         ^{{.*}}(%{{.*}}: memref<?xi64, strided<[1], offset: ?>>):
func.func @matmul(%x: tensor<?x?xi64>, %y: tensor<?x?xi64>, %zero: i64) -> tensor<?x?xi64> {
  %t = soac.transpose(0, 1) %y : tensor<?x?xi64>
  %r = soac.map(%a = %x : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %row = soac.map(%b = %t : tensor<?x?xi64>) -> tensor<?xi64> {
      %s = soac.redomap(%acc = %zero : i64) over(%u = %a, %v = %b : tensor<?xi64>, tensor<?xi64>) {
        %m = arith.muli %u, %v : i64
        %n = arith.addi %acc, %m : i64
        soac.yield %n : i64
      } outer {
      ^bb0(%p: i64, %q: i64):
        %n = arith.addi %p, %q : i64
        soac.yield %n : i64
      }
      soac.yield %s : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}


// Read once (a single map over it): a view, no copy.
// CHECK-LABEL: func.func @once(
// CHECK:         memref.reinterpret_cast
// CHECK-NOT:     memref.copy
// CHECK:         msoac.map
func.func @once(%y: tensor<?x?xi64>, %zero: i64) -> tensor<?xi64> {
  %t = soac.transpose(0, 1) %y : tensor<?x?xi64>
  %r = soac.map(%b = %t : tensor<?x?xi64>) -> tensor<?xi64> {
    %s = soac.reduce(%acc = %zero : i64) over(%v = %b : tensor<?xi64>) {
      %n = arith.addi %acc, %v : i64
      soac.yield %n : i64
    }
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}


// A transpose of the outer dimensions of a rank-3 array keeps the innermost one
// contiguous: a view, even when read repeatedly.
// CHECK-LABEL: func.func @outer_dims(
// CHECK-NOT:     memref.copy
// CHECK:         func.return
func.func @outer_dims(%y: tensor<?x?x?xi64>, %x: tensor<?xi64>) -> tensor<?x?x?x?xi64> {
  %t = soac.transpose(0, 1) %y : tensor<?x?x?xi64>
  %r = soac.map(%a = %x : tensor<?xi64>) -> tensor<?x?x?x?xi64> {
    %m = soac.map(%b = %t : tensor<?x?x?xi64>) -> tensor<?x?x?xi64> {
      soac.yield %b : tensor<?x?xi64>
    }
    soac.yield %m : tensor<?x?x?xi64>
  }
  func.return %r : tensor<?x?x?x?xi64>
}
