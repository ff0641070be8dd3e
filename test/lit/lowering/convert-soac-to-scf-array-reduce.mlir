// RUN: l0-opt %s -p convert-soac-to-scf | filecheck %s

// A reduction with an array accumulator (a histogram: rows added elementwise) and its
// operator known is blocked when it has more than one chunk: each chunk folds its rows
// from the neutral element (which this lambda never writes), stores the result as row c of a [C, n]
// buffer of partials (and whether its shape was the neutral element's), and the
// partials are combined with the operator in chunk order; a partial of another shape,
// or a single chunk (cpu), runs the sequential left fold.

// CHECK-LABEL: func.func @histogram(
// CHECK:         %[[W:.*]] = func.call @l0_parallel_width() : () -> i64
// CHECK:         %[[C:.*]] = arith.maxsi %{{.*}}, %{{.*}} : i64
// CHECK:         %[[MANY:.*]] = arith.cmpi sgt, %[[C]], %{{.*}} : i64
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[MANY]] -> (memref<?xf64>) {
// CHECK:           %[[PARTS:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
// CHECK:           %[[FITS:.*]] = memref.alloc(%{{.*}}) : memref<?xi1>
// CHECK:           "scf.parallel"
// CHECK-NOT:         "memref.copy"(%z
// CHECK:             %[[F:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %z) -> (memref<?xf64>) : i64 {
// CHECK:             memref.store %{{.*}}, %[[FITS]][%{{.*}}] : memref<?xi1>
// CHECK:             scf.if %{{.*}} {
// CHECK:               %[[ROW:.*]] = memref.subview %[[PARTS]]
// CHECK-NEXT:          "memref.copy"(%[[F]], %[[ROW]])
// CHECK:             scf.reduce
// CHECK:           %[[FIT:.*]] = scf.for {{.*}} -> (i1)
// CHECK:           scf.if %[[FIT]] -> (memref<?xf64>) {
// CHECK:             memref.subview %[[PARTS]]
// CHECK:             scf.for {{.*}} -> (memref<?xf64>) : i64 {
// CHECK:               memref.subview %[[PARTS]]
// CHECK:           } else {
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %z) -> (memref<?xf64>) : i64 {
// CHECK:         } else {
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %z) -> (memref<?xf64>) : i64 {
// CHECK:         func.return %[[R]]
func.func @histogram(%rows: memref<?x?xf64>, %z: memref<?xf64>) -> memref<?xf64> {
  %r = msoac.reduce(%z : memref<?xf64>) over(%rows : memref<?x?xf64>) attributes {operator} -> memref<?xf64> {
  ^bb0(%a: memref<?xf64>, %b: memref<?xf64, strided<[1], offset: ?>>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?xf64>
    %s = memref.alloc(%n) : memref<?xf64>
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %a[%i] : memref<?xf64>
      %y = memref.load %b[%i] : memref<?xf64, strided<[1], offset: ?>>
      %xy = arith.addf %x, %y : f64
      memref.store %xy, %s[%i] : memref<?xf64>
    }
    msoac.yield %s : memref<?xf64>
  }
  func.return %r : memref<?xf64>
}

// The lambda updates its accumulator in place: each chunk folds into a copy of its own.
// CHECK-LABEL: func.func @in_place_accumulator(
// CHECK:         func.call @l0_parallel_width()
// CHECK:         "scf.parallel"
// CHECK:           %[[OWN:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:      "memref.copy"(%z, %[[OWN]])
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[OWN]]) -> (memref<?xi64>) : i64 {
func.func @in_place_accumulator(%rows: memref<?x?xi64>, %z: memref<?xi64>) -> memref<?xi64> {
  %r = msoac.reduce(%z : memref<?xi64>) over(%rows : memref<?x?xi64>) attributes {operator} -> memref<?xi64> {
  ^bb0(%a: memref<?xi64>, %b: memref<?xi64, strided<[1], offset: ?>>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?xi64>
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %a[%i] : memref<?xi64>
      %y = memref.load %b[%i] : memref<?xi64, strided<[1], offset: ?>>
      %xy = arith.addi %x, %y : i64
      memref.store %xy, %a[%i] : memref<?xi64>
    }
    msoac.yield %a : memref<?xi64>
  }
  func.return %r : memref<?xi64>
}

// Must not fire: the lambda writes into a free array, shared by every chunk.
// CHECK-LABEL: func.func @writes_shared(
// CHECK-NOT:     l0_parallel_width
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %z) -> (memref<?xi64>) : i64 {
// CHECK-NOT:     "scf.parallel"
// CHECK:         func.return
func.func @writes_shared(%rows: memref<?x?xi64>, %z: memref<?xi64>, %log: memref<?xi64>) -> memref<?xi64> {
  %r = msoac.reduce(%z : memref<?xi64>) over(%rows : memref<?x?xi64>) attributes {operator} -> memref<?xi64> {
  ^bb0(%a: memref<?xi64>, %b: memref<?xi64, strided<[1], offset: ?>>):
    %c0 = arith.constant 0 : index
    %x = memref.load %b[%c0] : memref<?xi64, strided<[1], offset: ?>>
    memref.store %x, %log[%c0] : memref<?xi64>
    msoac.yield %a : memref<?xi64>
  }
  func.return %r : memref<?xi64>
}

// Must not fire: the lambda writes into its row, a view of the input (through a
// subview of it).
// CHECK-LABEL: func.func @writes_row(
// CHECK-NOT:     l0_parallel_width
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %z) -> (memref<?xf64>) : i64 {
// CHECK:         func.return
func.func @writes_row(%rows: memref<?x?xf64>, %z: memref<?xf64>) -> memref<?xf64> {
  %r = msoac.reduce(%z : memref<?xf64>) over(%rows : memref<?x?xf64>) attributes {operator} -> memref<?xf64> {
  ^bb0(%a: memref<?xf64>, %b: memref<?xf64, strided<[1], offset: ?>>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %head = memref.subview %b[0] [1] [1] : memref<?xf64, strided<[1], offset: ?>> to memref<1xf64, strided<[1], offset: ?>>
    %x = memref.load %a[%c0] : memref<?xf64>
    memref.store %x, %head[%c0] : memref<1xf64, strided<[1], offset: ?>>
    msoac.yield %a : memref<?xf64>
  }
  func.return %r : memref<?xf64>
}

// Must not fire: no operator known (a fold with neither `operator` nor `combine`), a
// neutral element that is a view (not a buffer of identity layout), and an operator
// whose arguments are not two accumulators.
// CHECK-LABEL: func.func @no_operator(
// CHECK-NOT:     l0_parallel_width
// CHECK:         func.return
func.func @no_operator(%xs: memref<?xi64>, %z: memref<?xi64>) -> memref<?xi64> {
  %r = msoac.reduce(%z : memref<?xi64>) over(%xs : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%a: memref<?xi64>, %x: i64):
    msoac.yield %a : memref<?xi64>
  }
  func.return %r : memref<?xi64>
}

// CHECK-LABEL: func.func @strided_neutral(
// CHECK-NOT:     l0_parallel_width
// CHECK:         func.return
func.func @strided_neutral(%xs: memref<?xi64>, %z: memref<?xi64, strided<[?], offset: ?>>) -> memref<?xi64, strided<[?], offset: ?>> {
  %r = msoac.reduce(%z : memref<?xi64, strided<[?], offset: ?>>) over(%xs : memref<?xi64>) attributes {operator} -> memref<?xi64, strided<[?], offset: ?>> {
  ^bb0(%a: memref<?xi64, strided<[?], offset: ?>>, %x: i64):
    msoac.yield %a : memref<?xi64, strided<[?], offset: ?>>
  }
  func.return %r : memref<?xi64, strided<[?], offset: ?>>
}

// CHECK-LABEL: func.func @not_an_operator(
// CHECK-NOT:     l0_parallel_width
// CHECK:         func.return
func.func @not_an_operator(%xs: memref<?xi64>, %z: memref<?xi64>) -> memref<?xi64> {
  %r = msoac.reduce(%z : memref<?xi64>) over(%xs : memref<?xi64>) attributes {operator} -> memref<?xi64> {
  ^bb0(%a: memref<?xi64>, %x: i64):
    msoac.yield %a : memref<?xi64>
  }
  func.return %r : memref<?xi64>
}

// A redomap with an array accumulator (column sums of squares, `map` fused into the
// `reduce`) is blocked the same way: each chunk folds its rows with the inner lambda
// (squaring) from the neutral element, which it never writes; the partials are combined
// with `combine` (adding, no squaring) in chunk order.
// CHECK-LABEL: func.func @redomap_columns(
// CHECK:         func.call @l0_parallel_width() : () -> i64
// CHECK:         scf.if %{{.*}} -> (memref<?xf64>) {
// CHECK:           %[[PARTS:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
// CHECK:           "scf.parallel"
// CHECK-NOT:         "memref.copy"(%z
// CHECK:             scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %z) -> (memref<?xf64>) : i64 {
// CHECK:               arith.mulf
// CHECK:               arith.addf
// CHECK:             "memref.copy"(%{{.*}}, %{{.*}})
// CHECK:             scf.reduce
// CHECK:           scf.if %{{.*}} -> (memref<?xf64>) {
// CHECK:             scf.for {{.*}} -> (memref<?xf64>) : i64 {
// CHECK-NOT:           arith.mulf
// CHECK:               arith.addf
// CHECK:           } else {
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %z) -> (memref<?xf64>) : i64 {
// CHECK:               arith.mulf
// CHECK:         } else {
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %z) -> (memref<?xf64>) : i64 {
// CHECK:         func.return
func.func @redomap_columns(%rows: memref<?x?xf64>, %z: memref<?xf64>) -> memref<?xf64> {
  %r = msoac.reduce(%z : memref<?xf64>) over(%rows : memref<?x?xf64>) -> memref<?xf64> {
  ^bb0(%a: memref<?xf64>, %b: memref<?xf64, strided<[1], offset: ?>>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?xf64>
    %s = memref.alloc(%n) : memref<?xf64>
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %a[%i] : memref<?xf64>
      %y = memref.load %b[%i] : memref<?xf64, strided<[1], offset: ?>>
      %yy = arith.mulf %y, %y : f64
      %xy = arith.addf %x, %yy : f64
      memref.store %xy, %s[%i] : memref<?xf64>
    }
    msoac.yield %s : memref<?xf64>
  } combine {
  ^bb0(%p: memref<?xf64>, %q: memref<?xf64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %p, %c0 : memref<?xf64>
    %s = memref.alloc(%n) : memref<?xf64>
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %p[%i] : memref<?xf64>
      %y = memref.load %q[%i] : memref<?xf64>
      %xy = arith.addf %x, %y : f64
      memref.store %xy, %s[%i] : memref<?xf64>
    }
    msoac.yield %s : memref<?xf64>
  }
  func.return %r : memref<?xf64>
}

// A redomap whose inner lambda counts into its accumulator in place (a histogram of
// indices): each chunk folds into a copy of its own of the neutral element.
// CHECK-LABEL: func.func @redomap_histogram(
// CHECK:         func.call @l0_parallel_width()
// CHECK:         "scf.parallel"
// CHECK:           %[[OWN:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:      "memref.copy"(%z, %[[OWN]])
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[OWN]]) -> (memref<?xi64>) : i64 {
func.func @redomap_histogram(%xs: memref<?xi64>, %z: memref<?xi64>) -> memref<?xi64> {
  %r = msoac.reduce(%z : memref<?xi64>) over(%xs : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%a: memref<?xi64>, %x: i64):
    %i = arith.index_cast %x : i64 to index
    %h = memref.load %a[%i] : memref<?xi64>
    %one = arith.constant 1 : i64
    %h1 = arith.addi %h, %one : i64
    memref.store %h1, %a[%i] : memref<?xi64>
    msoac.yield %a : memref<?xi64>
  } combine {
  ^bb0(%p: memref<?xi64>, %q: memref<?xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %p, %c0 : memref<?xi64>
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %p[%i] : memref<?xi64>
      %y = memref.load %q[%i] : memref<?xi64>
      %xy = arith.addi %x, %y : i64
      memref.store %xy, %p[%i] : memref<?xi64>
    }
    msoac.yield %p : memref<?xi64>
  }
  func.return %r : memref<?xi64>
}

// Must not fire: a redomap whose inner lambda writes a free array (shared by every
// chunk), one whose operator does, and one whose neutral element is a view.
// CHECK-LABEL: func.func @redomap_fold_writes_shared(
// CHECK-NOT:     l0_parallel_width
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %z) -> (memref<?xi64>) : i64 {
// CHECK-NOT:     "scf.parallel"
// CHECK:         func.return
func.func @redomap_fold_writes_shared(%xs: memref<?xi64>, %z: memref<?xi64>, %log: memref<?xi64>) -> memref<?xi64> {
  %r = msoac.reduce(%z : memref<?xi64>) over(%xs : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%a: memref<?xi64>, %x: i64):
    %c0 = arith.constant 0 : index
    memref.store %x, %log[%c0] : memref<?xi64>
    msoac.yield %a : memref<?xi64>
  } combine {
  ^bb0(%p: memref<?xi64>, %q: memref<?xi64>):
    msoac.yield %p : memref<?xi64>
  }
  func.return %r : memref<?xi64>
}

// CHECK-LABEL: func.func @redomap_operator_writes_shared(
// CHECK-NOT:     l0_parallel_width
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %z) -> (memref<?xi64>) : i64 {
// CHECK-NOT:     "scf.parallel"
// CHECK:         func.return
func.func @redomap_operator_writes_shared(%xs: memref<?xi64>, %z: memref<?xi64>, %log: memref<?xi64>) -> memref<?xi64> {
  %r = msoac.reduce(%z : memref<?xi64>) over(%xs : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%a: memref<?xi64>, %x: i64):
    msoac.yield %a : memref<?xi64>
  } combine {
  ^bb0(%p: memref<?xi64>, %q: memref<?xi64>):
    %c0 = arith.constant 0 : index
    %x = memref.load %q[%c0] : memref<?xi64>
    memref.store %x, %log[%c0] : memref<?xi64>
    msoac.yield %p : memref<?xi64>
  }
  func.return %r : memref<?xi64>
}

// CHECK-LABEL: func.func @redomap_strided_neutral(
// CHECK-NOT:     l0_parallel_width
// CHECK:         func.return
func.func @redomap_strided_neutral(%xs: memref<?xi64>, %z: memref<?xi64, strided<[?], offset: ?>>) -> memref<?xi64, strided<[?], offset: ?>> {
  %r = msoac.reduce(%z : memref<?xi64, strided<[?], offset: ?>>) over(%xs : memref<?xi64>) -> memref<?xi64, strided<[?], offset: ?>> {
  ^bb0(%a: memref<?xi64, strided<[?], offset: ?>>, %x: i64):
    msoac.yield %a : memref<?xi64, strided<[?], offset: ?>>
  } combine {
  ^bb0(%p: memref<?xi64, strided<[?], offset: ?>>, %q: memref<?xi64, strided<[?], offset: ?>>):
    msoac.yield %p : memref<?xi64, strided<[?], offset: ?>>
  }
  func.return %r : memref<?xi64, strided<[?], offset: ?>>
}

// Note [Accumulators updated in place]: the lambda maps its accumulator element by
// element into a buffer it allocates (a histogram's one-hot rows added): the map writes
// over the accumulator instead, and every fold (each chunk's, and the sequential one)
// starts from a copy of its own of the neutral element: no allocation per row.
// CHECK-LABEL: func.func @mapped_accumulator(
// CHECK:         "scf.parallel"
// CHECK:           %[[OWN:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:      "memref.copy"(%z, %[[OWN]])
// CHECK:           scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[OWN]]) -> (memref<?xi64>) : i64 {
// CHECK-NOT:         memref.alloc
// CHECK:             memref.load %[[ACC]]
// CHECK-NOT:         memref.alloc
// CHECK:             memref.store %{{.*}}, %[[ACC]]
// CHECK-NOT:         memref.alloc
// CHECK:             scf.yield %[[ACC]] : memref<?xi64>
// CHECK:         } else {
// CHECK:           %[[SEQ:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:      "memref.copy"(%z, %[[SEQ]])
// CHECK:           scf.for {{.*}} iter_args(%[[ACC2:.*]] = %[[SEQ]]) -> (memref<?xi64>) : i64 {
// CHECK-NOT:         memref.alloc
// CHECK:             scf.yield %[[ACC2]] : memref<?xi64>
// CHECK:         func.return
func.func @mapped_accumulator(%xs: memref<?xi64>, %z: memref<?xi64>, %iota: memref<?xi64>) -> memref<?xi64> {
  %r = msoac.reduce(%z : memref<?xi64>) over(%xs : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%a: memref<?xi64>, %x: i64):
    %c0 = arith.constant 0 : index
    %n = memref.dim %a, %c0 : memref<?xi64>
    %s = memref.alloc(%n) : memref<?xi64>
    msoac.map ins(%a, %iota : memref<?xi64>, memref<?xi64>) outs(%s : memref<?xi64>) {
    ^bb1(%e: i64, %j: i64):
      %hit = arith.cmpi eq, %j, %x : i64
      %one = arith.extui %hit : i1 to i64
      %sum = arith.addi %e, %one : i64
      msoac.yield %sum : i64
    }
    msoac.yield %s : memref<?xi64>
  } combine {
  ^bb0(%p: memref<?xi64>, %q: memref<?xi64>):
    %c0 = arith.constant 0 : index
    %n = memref.dim %p, %c0 : memref<?xi64>
    %s = memref.alloc(%n) : memref<?xi64>
    msoac.map ins(%p, %q : memref<?xi64>, memref<?xi64>) outs(%s : memref<?xi64>) {
    ^bb1(%e: i64, %f: i64):
      %sum = arith.addi %e, %f : i64
      msoac.yield %sum : i64
    }
    msoac.yield %s : memref<?xi64>
  }
  func.return %r : memref<?xi64>
}

// Must not fire: the lambda reads another element of the accumulator (a[0]), which the
// map would already have overwritten; and a fold not nested in a parallel loop and
// without an operator (the plain left fold) still allocates per row when its map reads
// the accumulator twice (as an input and as a free array).
// CHECK-LABEL: func.func @reads_other_element(
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %z) -> (memref<?xi64>) : i64 {
// CHECK:           memref.alloc
// CHECK:         func.return
func.func @reads_other_element(%xs: memref<?xi64>, %z: memref<?xi64>) -> memref<?xi64> {
  %r = msoac.reduce(%z : memref<?xi64>) over(%xs : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%a: memref<?xi64>, %x: i64):
    %c0 = arith.constant 0 : index
    %n = memref.dim %a, %c0 : memref<?xi64>
    %first = memref.load %a[%c0] : memref<?xi64>
    %s = memref.alloc(%n) : memref<?xi64>
    msoac.map ins(%a : memref<?xi64>) outs(%s : memref<?xi64>) {
    ^bb1(%e: i64):
      %sum = arith.addi %e, %first : i64
      msoac.yield %sum : i64
    }
    msoac.yield %s : memref<?xi64>
  }
  func.return %r : memref<?xi64>
}

// CHECK-LABEL: func.func @reads_free(
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %z) -> (memref<?xi64>) : i64 {
// CHECK:           memref.alloc
// CHECK:         func.return
func.func @reads_free(%xs: memref<?xi64>, %z: memref<?xi64>) -> memref<?xi64> {
  %r = msoac.reduce(%z : memref<?xi64>) over(%xs : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%a: memref<?xi64>, %x: i64):
    %c0 = arith.constant 0 : index
    %n = memref.dim %a, %c0 : memref<?xi64>
    %s = memref.alloc(%n) : memref<?xi64>
    msoac.map ins(%a, %a : memref<?xi64>, memref<?xi64>) outs(%s : memref<?xi64>) {
    ^bb1(%e: i64, %f: i64):
      %sum = arith.addi %e, %f : i64
      msoac.yield %sum : i64
    }
    msoac.yield %s : memref<?xi64>
  }
  func.return %r : memref<?xi64>
}
