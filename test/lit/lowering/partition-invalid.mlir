// RUN: l0-opt %s --verify-diagnostics --split-input-file | filecheck %s

// One case per verifier error of msoac.partition.

// partition: the lambda does not yield one i1
func.func @partition_yields_i64(%a: memref<?xi64>) {
  %t, %f = msoac.partition ins(%a : memref<?xi64>) -> memref<?xi64>, memref<?xi64> {
  ^bb0(%x: i64):
    msoac.yield %x : i64
  }
  func.return
}
// CHECK-LABEL: sym_name = "partition_yields_i64"
// CHECK:       Operation does not verify: expected the lambda to yield one i1

// -----

// partition: one result per input (the kept class) without the rejected class
func.func @partition_one_class(%a: memref<?xi64>, %z: i64) {
  %t = msoac.partition ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%x: i64):
    %p = arith.cmpi sgt, %x, %z : i64
    msoac.yield %p : i1
  }
  func.return
}
// CHECK-LABEL: sym_name = "partition_one_class"
// CHECK:       Operation does not verify: expected 2 results (two per input), found 1

// -----

// partition: the classes' buffers have different types
func.func @partition_class_types(%a: memref<?xi64>, %z: i64) {
  %t, %f = msoac.partition ins(%a : memref<?xi64>) -> memref<?xi64>, memref<?xf64> {
  ^bb0(%x: i64):
    %p = arith.cmpi sgt, %x, %z : i64
    msoac.yield %p : i1
  }
  func.return
}
// CHECK-LABEL: sym_name = "partition_class_types"
// CHECK:       Operation does not verify: expected both classes to have the same types

// -----

// partition: the lambda's argument is not the input's row
func.func @partition_argument_type(%a: memref<?xi64>, %z: i64) {
  %t, %f = msoac.partition ins(%a : memref<?xi64>) -> memref<?xi64>, memref<?xi64> {
  ^bb0(%x: f64):
    %p = arith.constant true
    msoac.yield %p : i1
  }
  func.return
}
// CHECK-LABEL: sym_name = "partition_argument_type"
// CHECK:       Operation does not verify: expected the lambda's arguments to have types (i64) (the input rows), found (f64)
