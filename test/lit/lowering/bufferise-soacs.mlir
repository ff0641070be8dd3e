// RUN: l0-opt %s -p bufferise | filecheck %s

// SOACs become msoac ops in destination-passing style: results are allocated before
// the op when their shape is known, and a map whose lambda yields a nested map
// computes every row in place (the nested map writes into the row view).

// CHECK-LABEL: func.func @map_writes_into_destination(
// CHECK:         %[[O:.*]] = memref.alloc(%{{.*}}) {loc = "a.l0:8:52"} : memref<?xf64>
// CHECK-NEXT:    msoac.map ins(%{{.*}} : memref<?xf64, strided<[?], offset: ?>>) outs(%[[O]] : memref<?xf64>) at "a.l0:8:52" {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64):
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[X]], %{{.*}} : f64
// CHECK-NEXT:      msoac.yield %[[Y]] : f64
// CHECK:         func.return %[[O]] : memref<?xf64>
func.func @map_writes_into_destination(%a: tensor<?xf64>) -> tensor<?xf64> {
  %0 = arith.constant 2.000000e+00 : f64
  %1 = soac.map(%x = %a : tensor<?xf64>) at "a.l0:8:52" -> tensor<?xf64> {
    %2 = arith.mulf %x, %0 : f64
    soac.yield %2 : f64
  }
  func.return %1 : tensor<?xf64>
}

// The row shape is known (the inner size of %m): one allocation, rows computed in place.
// CHECK-LABEL: func.func @nested_map_in_place(
// CHECK:         %[[O:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {loc = "a.l0:9:48"} : memref<?x?xf64>
// CHECK-NEXT:    msoac.map ins(%{{.*}} : memref<?x?xf64, strided<[?, ?], offset: ?>>) outs(%[[O]] : memref<?x?xf64>)
// CHECK-NEXT:    ^bb0(%[[R:.*]]: memref<?xf64, strided<[?], offset: ?>>, %[[D:.*]]: memref<?xf64, strided<[1], offset: ?>>):
// CHECK-NOT:       memref.alloc
// CHECK:           msoac.map ins(%[[R]] : memref<?xf64, strided<[?], offset: ?>>) outs(%[[D]] : memref<?xf64, strided<[1], offset: ?>>)
// CHECK:           msoac.yield %[[D]]
func.func @nested_map_in_place(%m: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %0 = arith.constant 1.000000e+00 : f64
  %1 = soac.map(%r = %m : tensor<?x?xf64>) at "a.l0:9:48" -> tensor<?x?xf64> {
    %2 = soac.map(%x = %r : tensor<?xf64>) at "a.l0:9:76" -> tensor<?xf64> {
      %3 = arith.addf %x, %0 : f64
      soac.yield %3 : f64
    }
    soac.yield %2 : tensor<?xf64>
  }
  func.return %1 : tensor<?x?xf64>
}

// iota(n) with n from outside the lambda: replicate/iota also write into the row view.
// CHECK-LABEL: func.func @iota_rows_in_place(
// CHECK:         %[[O:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {loc = "a.l0:1:1"} : memref<?x?xi64>
// CHECK:         ^bb0(%{{.*}}: i64, %[[D:.*]]: memref<?xi64, strided<[1], offset: ?>>):
// CHECK-NEXT:      msoac.iota %[[D]]
// CHECK-NEXT:      msoac.yield %[[D]]
func.func @iota_rows_in_place(%a: tensor<?xi64>, %n: i64) -> tensor<?x?xi64> {
  %1 = soac.map(%i = %a : tensor<?xi64>) at "a.l0:1:1" -> tensor<?x?xi64> {
    %4 = soac.iota %n
    soac.yield %4 : tensor<?xi64>
  }
  func.return %1 : tensor<?x?xi64>
}

// Rows whose shape depends on the element: the map allocates its result itself (when
// row 0 is known, checking the others against it).
// CHECK-LABEL: func.func @map_of_unknown_shape(
// CHECK:         %[[R:.*]] = msoac.map ins(%{{.*}} : memref<?xi64, strided<[?], offset: ?>>) at "a.l0:10:45" -> memref<?x?xi64> {
// CHECK:           %[[B:.*]] = memref.alloc(%{{.*}}) {loc = "a.l0:10:45"} : memref<?xi64>
// CHECK-NEXT:      msoac.iota %[[B]]
// CHECK-NEXT:      msoac.yield %[[B]] : memref<?xi64>
// CHECK:         func.return %[[R]]
func.func @map_of_unknown_shape(%a: tensor<?xi64>) -> tensor<?x?xi64> {
  %1 = soac.map(%i = %a : tensor<?xi64>) at "a.l0:10:45" -> tensor<?x?xi64> {
    %4 = soac.iota %i
    soac.yield %4 : tensor<?xi64>
  }
  func.return %1 : tensor<?x?xi64>
}

// An array accumulator is carried; its type merges the neutral's and the lambda's.
// A reduce's lambda is its operator (it may combine partial results: `operator`).
// CHECK-LABEL: func.func @reduce_array_accumulator(
// CHECK:         %[[N:.*]] = "memref.cast"(%{{.*}}) : (memref<?xi64>) -> memref<?xi64, strided<[?], offset: ?>>
// CHECK-NEXT:    msoac.reduce(%[[N]] : memref<?xi64, strided<[?], offset: ?>>) over(%{{.*}} : memref<?x?xi64, strided<[?, ?], offset: ?>>) attributes {operator} -> memref<?xi64, strided<[?], offset: ?>> {
// CHECK-NEXT:    ^bb0(%{{.*}}: memref<?xi64, strided<[?], offset: ?>>, %{{.*}}: memref<?xi64, strided<[?], offset: ?>>):
func.func @reduce_array_accumulator(%m: tensor<?x?xi64>, %n: i64) -> tensor<?xi64> {
  %z = soac.iota %n
  %r = soac.reduce(%acc = %z : tensor<?xi64>) over(%row = %m : tensor<?x?xi64>) {
    soac.yield %row : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}

// redomap is the left fold with its inner lambda, which is not the operator; its outer
// lambda, the operator, is kept as `combine` (the accumulators are scalars).
// CHECK-LABEL: func.func @redomap_is_a_fold(
// CHECK:         msoac.reduce(%{{.*}} : i64) over(%{{.*}} : memref<?xi64, strided<[?], offset: ?>>) -> i64 {
// CHECK-NEXT:    ^bb0(%[[ACC:.*]]: i64, %[[X:.*]]: i64):
// CHECK-NEXT:      %[[SQ:.*]] = arith.muli %[[X]], %[[X]]
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[ACC]], %[[SQ]]
// CHECK-NEXT:      msoac.yield %[[S]] : i64
// CHECK-NEXT:    } combine {
// CHECK-NEXT:    ^bb0(%[[P:.*]]: i64, %[[Q:.*]]: i64):
// CHECK-NEXT:      %[[PQ:.*]] = arith.addi %[[P]], %[[Q]] : i64
// CHECK-NEXT:      msoac.yield %[[PQ]] : i64
func.func @redomap_is_a_fold(%a: tensor<?xi64>) -> i64 {
  %0 = arith.constant 0 : i64
  %5 = soac.redomap(%acc = %0 : i64) over(%x = %a : tensor<?xi64>) {
    %6 = arith.muli %x, %x : i64
    %7 = arith.addi %acc, %6 : i64
    soac.yield %7 : i64
  } outer {
  ^bb0(%8: i64, %9: i64):
    %10 = arith.addi %8, %9 : i64
    soac.yield %10 : i64
  }
  func.return %5 : i64
}

// A redomap with an array accumulator keeps its operator too, taking two sets of
// accumulators of the accumulators' type (`convert-soac-to-scf` decides whether the fold
// is blocked: here it is not, its neutral element is a view).
// CHECK-LABEL: func.func @redomap_array_accumulator(
// CHECK:         msoac.reduce(%{{.*}} : memref<?xi64, strided<[?], offset: ?>>) over(%{{.*}} : memref<?x?xi64, strided<[?, ?], offset: ?>>) -> memref<?xi64, strided<[?], offset: ?>> {
// CHECK-NEXT:    ^bb0(%{{.*}}: memref<?xi64, strided<[?], offset: ?>>, %[[ROW:.*]]: memref<?xi64, strided<[?], offset: ?>>):
// CHECK-NEXT:      msoac.yield %[[ROW]]
// CHECK-NEXT:    } combine {
// CHECK-NEXT:    ^bb0(%{{.*}}: memref<?xi64, strided<[?], offset: ?>>, %[[Q:.*]]: memref<?xi64, strided<[?], offset: ?>>):
// CHECK-NEXT:      msoac.yield %[[Q]] : memref<?xi64, strided<[?], offset: ?>>
// CHECK:         func.return
func.func @redomap_array_accumulator(%m: tensor<?x?xi64>, %n: i64) -> tensor<?xi64> {
  %z = soac.iota %n
  %r = soac.redomap(%acc = %z : tensor<?xi64>) over(%row = %m : tensor<?x?xi64>) {
    soac.yield %row : tensor<?xi64>
  } outer {
  ^bb0(%p: tensor<?xi64>, %q: tensor<?xi64>):
    soac.yield %q : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}

// A scan of scalars writes into a destination; filter allocates its results.
// CHECK-LABEL: func.func @scan_and_filter(
// CHECK:         %[[S:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:    msoac.scan(%{{.*}} : i64) over(%{{.*}} : memref<?xi64, strided<[?], offset: ?>>) outs(%[[S]] : memref<?xi64>)
// CHECK:         %[[F:.*]] = msoac.filter ins(%[[S]] : memref<?xi64>) -> memref<?xi64> {
// CHECK:         func.return %[[F]] : memref<?xi64>
func.func @scan_and_filter(%a: tensor<?xi64>) -> tensor<?xi64> {
  %0 = arith.constant 0 : i64
  %s = soac.scan(%acc = %0 : i64) over(%x = %a : tensor<?xi64>) {
    %y = arith.addi %acc, %x : i64
    soac.yield %y : i64
  }
  %f = soac.filter(%x = %s : tensor<?xi64>) {
    %p = arith.cmpi sgt, %x, %0 : i64
    soac.yield %p : i1
  }
  func.return %f : tensor<?xi64>
}

// A scanomap is the msoac.scan of its inner lambda (the fold, mapping each row) into
// a destination, with its outer lambda as the scan's operator (scalar accumulators:
// the blocked parallel scan combines chunk totals with it).
// CHECK-LABEL: func.func @scanomap(
// CHECK:         %[[S:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:    msoac.scan(%{{.*}} : i64) over(%{{.*}} : memref<?xi64, strided<[?], offset: ?>>) outs(%[[S]] : memref<?xi64>) {{.*}}{
// CHECK-NEXT:    ^bb0(%[[ACC:.*]]: i64, %[[X:.*]]: i64):
// CHECK-NEXT:      %[[SQ:.*]] = arith.muli %[[X]], %[[X]] : i64
// CHECK-NEXT:      %[[Y:.*]] = arith.addi %[[ACC]], %[[SQ]] : i64
// CHECK-NEXT:      msoac.yield %[[Y]] : i64
// CHECK-NEXT:    } operator {
// CHECK-NEXT:    ^bb0(%[[P:.*]]: i64, %[[Q:.*]]: i64):
// CHECK-NEXT:      %[[R:.*]] = arith.addi %[[P]], %[[Q]] : i64
// CHECK-NEXT:      msoac.yield %[[R]] : i64
// CHECK-NEXT:    }
// CHECK:         func.return %[[S]] : memref<?xi64>
func.func @scanomap(%a: tensor<?xi64>) -> tensor<?xi64> {
  %0 = arith.constant 0 : i64
  %s = soac.scanomap(%acc = %0 : i64) over(%x = %a : tensor<?xi64>) {
    %sq = arith.muli %x, %x : i64
    %y = arith.addi %acc, %sq : i64
    soac.yield %y : i64
  } outer {
  ^bb0(%p: i64, %q: i64):
    %r = arith.addi %p, %q : i64
    soac.yield %r : i64
  }
  func.return %s : tensor<?xi64>
}
