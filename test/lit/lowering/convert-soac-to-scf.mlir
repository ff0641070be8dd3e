// RUN: l0-opt %s -p convert-soac-to-scf | filecheck %s

// Each msoac op becomes one scf.for over the rows (i64 induction variable), the lambda
// inlined into the body; results are stored into (or copied into) the destinations.

// CHECK-LABEL: func.func @map_scalars(
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK-NEXT:      %[[II:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK-NEXT:      %[[X:.*]] = memref.load %{{.*}}[%[[II]]] : memref<?xf64>
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[X]], %[[X]] : f64
// CHECK-NEXT:      %[[JJ:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK-NEXT:      memref.store %[[Y]], %{{.*}}[%[[JJ]]] : memref<?xf64>
// CHECK-NEXT:    }
// CHECK-NOT:     msoac
func.func @map_scalars(%a: memref<?xf64>, %o: memref<?xf64>) {
  msoac.map ins(%a : memref<?xf64>) outs(%o : memref<?xf64>) {
  ^bb0(%x: f64):
    %y = arith.mulf %x, %x : f64
    msoac.yield %y : f64
  }
  func.return
}

// The lambda computed its row in the destination view: nothing is copied.
// CHECK-LABEL: func.func @map_row_in_place(
// CHECK:         scf.for %[[I:.*]] = {{.*}} : i64 {
// CHECK:           %[[D:.*]] = memref.subview %{{.*}}[%{{.*}}, 0] [1, %{{.*}}] [1, 1] : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK:           %[[R:.*]] = memref.subview %{{.*}} : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK:           scf.for
// CHECK:             memref.load %[[R]]
// CHECK:             memref.store %{{.*}}, %[[D]]
// CHECK-NOT:       memref.copy
// CHECK:         func.return
func.func @map_row_in_place(%m: memref<?x?xf64>, %o: memref<?x?xf64>) {
  msoac.map ins(%m : memref<?x?xf64>) outs(%o : memref<?x?xf64>) {
  ^bb0(%r: memref<?xf64, strided<[1], offset: ?>>, %d: memref<?xf64, strided<[1], offset: ?>>):
    msoac.map ins(%r : memref<?xf64, strided<[1], offset: ?>>) outs(%d : memref<?xf64, strided<[1], offset: ?>>) {
    ^bb0(%x: f64):
      msoac.yield %x : f64
    }
    msoac.yield %d : memref<?xf64, strided<[1], offset: ?>>
  }
  func.return
}

// A row computed elsewhere is copied into its destination view.
// CHECK-LABEL: func.func @map_row_copied(
// CHECK:         scf.for
// CHECK:           %[[D:.*]] = memref.subview %{{.*}} : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK:           "memref.copy"(%{{.*}}, %[[D]])
func.func @map_row_copied(%m: memref<?x?xf64>, %o: memref<?x?xf64>, %v: memref<?xf64>) {
  msoac.map ins(%m : memref<?x?xf64>) outs(%o : memref<?x?xf64>) {
  ^bb0(%r: memref<?xf64, strided<[1], offset: ?>>, %d: memref<?xf64, strided<[1], offset: ?>>):
    msoac.yield %v : memref<?xf64>
  }
  func.return
}

// An allocated result is carried by the loop, allocated at row 0 and checked after.
// CHECK-LABEL: func.func @map_allocates_at_row_zero(
// CHECK:         %[[E:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xi64>
// CHECK:         %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[N:.*]] step %{{.*}} iter_args(%[[O:.*]] = %[[E]]) -> (memref<?x?xi64>) : i64 {
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %{{.*}} : i64
// CHECK-NEXT:      %[[O2:.*]] = scf.if %[[FIRST]] -> (memref<?x?xi64>) {
// CHECK:             %[[NEW:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xi64>
// CHECK-NEXT:        scf.yield %[[NEW]]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[O]]
// CHECK:           soac.assert %{{.*}}, "irregular array: row {0} has shape [{1}], expected [{2}] (the shape of row 0)" (%[[I]], %{{.*}}, %{{.*}} : i64, i64, i64) at "m.l0:1:1"
// CHECK:           "memref.copy"
// CHECK:           scf.yield %[[O2]]
// CHECK:         func.return %[[R]]
func.func @map_allocates_at_row_zero(%a: memref<?xi64>) -> memref<?x?xi64> {
  %r = msoac.map ins(%a : memref<?xi64>) at "m.l0:1:1" -> memref<?x?xi64> {
  ^bb0(%i: i64):
    %n = arith.index_cast %i : i64 to index
    %b = memref.alloc(%n) : memref<?xi64>
    msoac.iota %b : memref<?xi64>
    msoac.yield %b : memref<?xi64>
  }
  func.return %r : memref<?x?xi64>
}

// reduce: the accumulators are carried, left to right.
// CHECK-LABEL: func.func @reduce_left_fold(
// CHECK:         %[[S:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f64) : i64 {
// CHECK:           %[[X:.*]] = memref.load
// CHECK-NEXT:      %[[Y:.*]] = arith.addf %[[ACC]], %[[X]] : f64
// CHECK-NEXT:      scf.yield %[[Y]] : f64
// CHECK:         func.return %[[S]]
func.func @reduce_left_fold(%a: memref<?xf64>, %z: f64) -> f64 {
  %s = msoac.reduce(%z : f64) over(%a : memref<?xf64>) -> f64 {
  ^bb0(%acc: f64, %x: f64):
    %y = arith.addf %acc, %x : f64
    msoac.yield %y : f64
  }
  func.return %s : f64
}

// scan: the same loop, storing every accumulator.
// CHECK-LABEL: func.func @scan_stores(
// CHECK:         scf.for %[[I:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (i64) : i64 {
// CHECK:           %[[Y:.*]] = arith.addi %[[ACC]], %{{.*}} : i64
// CHECK:           memref.store %[[Y]], %{{.*}}[%{{.*}}] : memref<?xi64>
// CHECK-NEXT:      scf.yield %[[Y]] : i64
func.func @scan_stores(%a: memref<?xi64>, %o: memref<?xi64>, %z: i64) {
  msoac.scan(%z : i64) over(%a : memref<?xi64>) outs(%o : memref<?xi64>) {
  ^bb0(%acc: i64, %x: i64):
    %y = arith.addi %acc, %x : i64
    msoac.yield %y : i64
  }
  func.return
}

// filter: count (keeping a flag per row), allocate, fill.
// CHECK-LABEL: func.func @filter_count_then_fill(
// CHECK:         %[[FLAGS:.*]] = memref.alloc(%{{.*}}) : memref<?xi1>
// CHECK:         %[[COUNT:.*]] = scf.for {{.*}} iter_args(%[[C:.*]] = %{{.*}}) -> (i64) : i64 {
// CHECK:           %[[P:.*]] = arith.cmpi sgt
// CHECK:           memref.store %[[P]], %[[FLAGS]]
// CHECK:           %[[E:.*]] = arith.extui %[[P]] : i1 to i64
// CHECK-NEXT:      %[[C2:.*]] = arith.addi %[[C]], %[[E]] : i64
// CHECK-NEXT:      scf.yield %[[C2]]
// CHECK:         %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:         scf.for {{.*}} iter_args(%[[J:.*]] = %{{.*}}) -> (i64) : i64 {
// CHECK:           %[[K:.*]] = memref.load %[[FLAGS]]
// CHECK-NEXT:      scf.if %[[K]] -> (i64) {
// CHECK:             memref.store %{{.*}}, %[[OUT]][%{{.*}}]
// CHECK:         func.return %[[OUT]]
func.func @filter_count_then_fill(%a: memref<?xi64>, %z: i64) -> memref<?xi64> {
  %f = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%x: i64):
    %p = arith.cmpi sgt, %x, %z : i64
    msoac.yield %p : i1
  }
  func.return %f : memref<?xi64>
}

// iota and replicate fill their destination.
// CHECK-LABEL: func.func @iota_and_replicate(
// CHECK:         scf.for %[[I:.*]] = {{.*}} : i64 {
// CHECK:           memref.store %[[I]], %{{.*}}[%{{.*}}] : memref<?xi64>
// CHECK:         scf.for {{.*}} : i64 {
// CHECK:           %[[ROW:.*]] = memref.subview
// CHECK-NEXT:      "memref.copy"(%{{.*}}, %[[ROW]])
func.func @iota_and_replicate(%o: memref<?xi64>, %v: memref<?xf64>, %p: memref<?x?xf64>) {
  msoac.iota %o : memref<?xi64>
  msoac.replicate %v, %p : memref<?xf64>, memref<?x?xf64>
  func.return
}
