// RUN: l0-opt %s -p convert-soac-to-scf | filecheck %s

// A partition whose classes are only concatenated (as `concat(zeros, ones)`
// bufferises: a buffer of dim + dim rows, a copy into each half) writes the
// concatenation itself: one buffer of n rows allocated before the passes, the kept rows
// from row 0, the others from row `total`; no class buffers, no copies, and the
// classes' sizes are the count and n minus it.
// CHECK-LABEL: func.func @concat_of_classes(
// CHECK:         %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         %[[FLAGS:.*]] = memref.alloc(%{{.*}}) : memref<?xi1>
// CHECK-NEXT:    %[[DEST:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:         "scf.parallel"
// CHECK:           scf.reduce
// CHECK:         %[[TOTAL:.*]] = scf.for {{.*}} -> (i64) : i64 {
// CHECK:         "scf.parallel"
// CHECK:           %[[J0:.*]] = memref.load %{{.*}}
// CHECK:           %[[BEFORE:.*]] = arith.subi %{{.*}}, %[[J0]] : i64
// CHECK-NEXT:      %[[K0:.*]] = arith.addi %[[TOTAL]], %[[BEFORE]] : i64
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[J0]], %{{.*}} = %[[K0]]) -> (i64, i64) : i64 {
// CHECK:               memref.store %{{.*}}, %[[DEST]][%{{.*}}]
// CHECK:             } else {
// CHECK:               memref.store %{{.*}}, %[[DEST]][%{{.*}}]
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.copy
// CHECK:         %[[CAST:.*]] = "memref.cast"(%[[DEST]])
// CHECK-NEXT:    func.return %[[CAST]]
func.func @concat_of_classes(%ks: memref<?xi64, strided<[?], offset: ?>>, %z: i64)
    -> memref<?xi64, strided<[?], offset: ?>> {
  %c0 = arith.constant 0 : index
  %zeros, %ones = msoac.partition ins(%ks : memref<?xi64, strided<[?], offset: ?>>) -> memref<?xi64>, memref<?xi64> {
  ^bb0(%k: i64):
    %p = arith.cmpi slt, %k, %z : i64
    msoac.yield %p : i1
  }
  %0 = memref.dim %zeros, %c0 : memref<?xi64>
  %1 = arith.index_cast %0 : index to i64
  %2 = memref.dim %ones, %c0 : memref<?xi64>
  %3 = arith.index_cast %2 : index to i64
  %4 = arith.addi %1, %3 : i64
  %5 = arith.index_cast %4 : i64 to index
  %6 = memref.alloc(%5) : memref<?xi64>
  %7 = memref.subview %6[0] [%0] [1] : memref<?xi64> to memref<?xi64, strided<[1], offset: ?>>
  "memref.copy"(%zeros, %7) : (memref<?xi64>, memref<?xi64, strided<[1], offset: ?>>) -> ()
  %8 = memref.subview %6[%0] [%2] [1] : memref<?xi64> to memref<?xi64, strided<[1], offset: ?>>
  "memref.copy"(%ones, %8) : (memref<?xi64>, memref<?xi64, strided<[1], offset: ?>>) -> ()
  %9 = "memref.cast"(%6) : (memref<?xi64>) -> memref<?xi64, strided<[?], offset: ?>>
  func.return %9 : memref<?xi64, strided<[?], offset: ?>>
}

// Must not fire: the classes concatenated the other way round (the rejected rows
// first), and a class read elsewhere too (returned): class buffers and copies stay.
// CHECK-LABEL: func.func @other_order(
// CHECK:         scf.for {{.*}} -> (i64, i64)
// CHECK:         "memref.copy"
// CHECK:         "memref.copy"
func.func @other_order(%ks: memref<?xi64>, %z: i64) -> memref<?xi64> {
  %c0 = arith.constant 0 : index
  %zeros, %ones = msoac.partition ins(%ks : memref<?xi64>) -> memref<?xi64>, memref<?xi64> {
  ^bb0(%k: i64):
    %p = arith.cmpi slt, %k, %z : i64
    msoac.yield %p : i1
  }
  %0 = memref.dim %ones, %c0 : memref<?xi64>
  %1 = arith.index_cast %0 : index to i64
  %2 = memref.dim %zeros, %c0 : memref<?xi64>
  %3 = arith.index_cast %2 : index to i64
  %4 = arith.addi %1, %3 : i64
  %5 = arith.index_cast %4 : i64 to index
  %6 = memref.alloc(%5) : memref<?xi64>
  %7 = memref.subview %6[0] [%0] [1] : memref<?xi64> to memref<?xi64, strided<[1], offset: ?>>
  "memref.copy"(%ones, %7) : (memref<?xi64>, memref<?xi64, strided<[1], offset: ?>>) -> ()
  %8 = memref.subview %6[%0] [%2] [1] : memref<?xi64> to memref<?xi64, strided<[1], offset: ?>>
  "memref.copy"(%zeros, %8) : (memref<?xi64>, memref<?xi64, strided<[1], offset: ?>>) -> ()
  func.return %6 : memref<?xi64>
}

// CHECK-LABEL: func.func @class_read_elsewhere(
// CHECK:         scf.for {{.*}} -> (i64, i64)
// CHECK:         "memref.copy"
// CHECK:         "memref.copy"
// CHECK:         func.return %{{.*}}, %{{.*}} : memref<?xi64>, memref<?xi64>
func.func @class_read_elsewhere(%ks: memref<?xi64>, %z: i64) -> (memref<?xi64>, memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %zeros, %ones = msoac.partition ins(%ks : memref<?xi64>) -> memref<?xi64>, memref<?xi64> {
  ^bb0(%k: i64):
    %p = arith.cmpi slt, %k, %z : i64
    msoac.yield %p : i1
  }
  %0 = memref.dim %zeros, %c0 : memref<?xi64>
  %1 = arith.index_cast %0 : index to i64
  %2 = memref.dim %ones, %c0 : memref<?xi64>
  %3 = arith.index_cast %2 : index to i64
  %4 = arith.addi %1, %3 : i64
  %5 = arith.index_cast %4 : i64 to index
  %6 = memref.alloc(%5) : memref<?xi64>
  %7 = memref.subview %6[0] [%0] [1] : memref<?xi64> to memref<?xi64, strided<[1], offset: ?>>
  "memref.copy"(%zeros, %7) : (memref<?xi64>, memref<?xi64, strided<[1], offset: ?>>) -> ()
  %8 = memref.subview %6[%0] [%2] [1] : memref<?xi64> to memref<?xi64, strided<[1], offset: ?>>
  "memref.copy"(%ones, %8) : (memref<?xi64>, memref<?xi64, strided<[1], offset: ?>>) -> ()
  func.return %6, %zeros : memref<?xi64>, memref<?xi64>
}

// Must not fire: the buffer is written before the copies fill it (the copies would
// overwrite that write; the partition writing into it would not).
// CHECK-LABEL: func.func @buffer_written_before(
// CHECK:         scf.for {{.*}} -> (i64, i64)
// CHECK:         memref.store %z
// CHECK:         "memref.copy"
// CHECK:         "memref.copy"
func.func @buffer_written_before(%ks: memref<?xi64>, %z: i64) -> memref<?xi64> {
  %c0 = arith.constant 0 : index
  %zeros, %ones = msoac.partition ins(%ks : memref<?xi64>) -> memref<?xi64>, memref<?xi64> {
  ^bb0(%k: i64):
    %p = arith.cmpi slt, %k, %z : i64
    msoac.yield %p : i1
  }
  %0 = memref.dim %zeros, %c0 : memref<?xi64>
  %1 = arith.index_cast %0 : index to i64
  %2 = memref.dim %ones, %c0 : memref<?xi64>
  %3 = arith.index_cast %2 : index to i64
  %4 = arith.addi %1, %3 : i64
  %5 = arith.index_cast %4 : i64 to index
  %6 = memref.alloc(%5) : memref<?xi64>
  memref.store %z, %6[%c0] : memref<?xi64>
  %7 = memref.subview %6[0] [%0] [1] : memref<?xi64> to memref<?xi64, strided<[1], offset: ?>>
  "memref.copy"(%zeros, %7) : (memref<?xi64>, memref<?xi64, strided<[1], offset: ?>>) -> ()
  %8 = memref.subview %6[%0] [%2] [1] : memref<?xi64> to memref<?xi64, strided<[1], offset: ?>>
  "memref.copy"(%ones, %8) : (memref<?xi64>, memref<?xi64, strided<[1], offset: ?>>) -> ()
  func.return %6 : memref<?xi64>
}
