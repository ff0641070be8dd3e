// RUN: l0-opt %s -p 'convert-soac-to-scf{wide-nests=true}' | filecheck %s
// RUN: l0-opt %s -p convert-soac-to-scf | filecheck %s --check-prefix=NARROW
// The gpu's lowering makes wide nests (`wide_nests`): the CHECK lines. Without the
// option (the CPU back ends), only maps of maps over rows whose inner lambda does not
// read the row as an array are one two-dimensional loop: the NARROW lines.

// Each outermost msoac op becomes a parallel loop over the rows (scf.parallel, printed
// in the generic form), the lambda inlined into the body; results are stored into (or
// copied into) the destinations. SOACs inside a parallel loop become scf.for.

// CHECK-LABEL: func.func @map_scalars(
// CHECK:         "scf.parallel"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT:    ^bb0(%[[II:.*]]: index):
// CHECK-NEXT:      %{{.*}} = arith.index_cast %[[II]] : index to i64
// CHECK-NEXT:      %[[X:.*]] = memref.load %{{.*}}[%[[II]]] : memref<?xf64>
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[X]], %[[X]] : f64
// CHECK-NEXT:      memref.store %[[Y]], %{{.*}}[%[[II]]] : memref<?xf64>
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    })
// CHECK-NOT:     msoac
func.func @map_scalars(%a: memref<?xf64>, %o: memref<?xf64>) {
  msoac.map ins(%a : memref<?xf64>) outs(%o : memref<?xf64>) {
  ^bb0(%x: f64):
    %y = arith.mulf %x, %x : f64
    msoac.yield %y : f64
  }
  func.return
}

// A perfect nest of maps (the outer lambda only maps its rows into its destination
// rows) is one two-dimensional scf.parallel over the elements.
// CHECK-LABEL: func.func @map_row_in_place(
// CHECK:         "scf.parallel"(%[[Z:.*]], %[[Z]], %[[N:.*]], %[[M:.*]], %[[ONE:.*]], %[[ONE]]) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK:           %[[X:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<?x?xf64>
// CHECK-NEXT:      memref.store %[[X]], %{{.*}}[%[[I]], %[[J]]] : memref<?x?xf64>
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    })
// CHECK-NEXT:    func.return
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

// A perfect nest whose inner map runs over an array from outside the nest (a
// distributed map's `iota`), its lambda reading the outer element: one
// two-dimensional loop over (i, j), element i of the outer input and j of the inner
// one.
// NARROW-LABEL: func.func @map_nest_over_outer_array(
// NARROW:         "scf.parallel"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// NARROW:           scf.for
// CHECK-LABEL: func.func @map_nest_over_outer_array(
// CHECK:         %[[M:.*]] = memref.dim %is, %{{.*}} : memref<?xi64>
// CHECK:         "scf.parallel"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK:           memref.load %xs[%[[I]]]
// CHECK:           memref.load %is[%[[J]]]
// CHECK:           arith.mulf
// CHECK:           memref.store %{{.*}}, %o[%[[I]], %[[J]]]
// CHECK-NOT:       scf.for
// CHECK:         func.return
func.func @map_nest_over_outer_array(%xs: memref<?xf64>, %is: memref<?xi64>, %o: memref<?x?xf64>) {
  msoac.map ins(%xs : memref<?xf64>) outs(%o : memref<?x?xf64>) {
  ^bb0(%x: f64, %d: memref<?xf64, strided<[1], offset: ?>>):
    msoac.map ins(%is : memref<?xi64>) outs(%d : memref<?xf64, strided<[1], offset: ?>>) {
    ^bb0(%i: i64):
      %f = arith.sitofp %i : i64 to f64
      %y = arith.mulf %f, %x : f64
      msoac.yield %y : f64
    }
    msoac.yield %d : memref<?xf64, strided<[1], offset: ?>>
  }
  func.return
}

// Not a perfect nest (the row is also read before the inner map): the outer map is
// parallel, the inner one a sequential loop in each of its iterations, computing its
// row in the destination view: nothing is copied.
// CHECK-LABEL: func.func @map_nest_not_perfect(
// CHECK:         "scf.parallel"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK:           %[[D:.*]] = memref.subview %{{.*}}[%{{.*}}, 0] [1, %{{.*}}] [1, 1] : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK:           %[[R:.*]] = memref.subview %{{.*}} : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK:           memref.load %[[R]]
// CHECK:           scf.for
// CHECK:             memref.load %[[R]]
// CHECK:             arith.addf
// CHECK:             memref.store %{{.*}}, %[[D]]
// CHECK-NOT:       memref.copy
// CHECK:         func.return
func.func @map_nest_not_perfect(%m: memref<?x?xf64>, %o: memref<?x?xf64>) {
  msoac.map ins(%m : memref<?x?xf64>) outs(%o : memref<?x?xf64>) {
  ^bb0(%r: memref<?xf64, strided<[1], offset: ?>>, %d: memref<?xf64, strided<[1], offset: ?>>):
    %c0 = arith.constant 0 : index
    %first = memref.load %r[%c0] : memref<?xf64, strided<[1], offset: ?>>
    msoac.map ins(%r : memref<?xf64, strided<[1], offset: ?>>) outs(%d : memref<?xf64, strided<[1], offset: ?>>) {
    ^bb0(%x: f64):
      %y = arith.addf %x, %first : f64
      msoac.yield %y : f64
    }
    msoac.yield %d : memref<?xf64, strided<[1], offset: ?>>
  }
  func.return
}

// A perfect nest whose inner lambda reads the outer row as an array: one
// two-dimensional loop whose body makes the view of row i it reads (Note [Perfect
// nests of two maps] in l0.lowering.scf.convert_soac_to_scf).
// NARROW-LABEL: func.func @map_nest_inner_uses_row(
// NARROW:         "scf.parallel"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// NARROW:           scf.for
// CHECK-LABEL: func.func @map_nest_inner_uses_row(
// CHECK:         "scf.parallel"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK:           %[[ROW:.*]] = memref.subview %m[%[[I]], 0]
// CHECK:           memref.load %m[%[[I]], %[[J]]]
// CHECK:           memref.load %[[ROW]]
// CHECK:           memref.store %{{.*}}, %o[%[[I]], %[[J]]]
// CHECK-NOT:       scf.for
// CHECK:         func.return
func.func @map_nest_inner_uses_row(%m: memref<?x?xf64>, %o: memref<?x?xf64>) {
  msoac.map ins(%m : memref<?x?xf64>) outs(%o : memref<?x?xf64>) {
  ^bb0(%r: memref<?xf64, strided<[1], offset: ?>>, %d: memref<?xf64, strided<[1], offset: ?>>):
    msoac.map ins(%r : memref<?xf64, strided<[1], offset: ?>>) outs(%d : memref<?xf64, strided<[1], offset: ?>>) {
    ^bb0(%x: f64):
      %c0 = arith.constant 0 : index
      %first = memref.load %r[%c0] : memref<?xf64, strided<[1], offset: ?>>
      %y = arith.addf %x, %first : f64
      msoac.yield %y : f64
    }
    msoac.yield %d : memref<?xf64, strided<[1], offset: ?>>
  }
  func.return
}

// A row computed elsewhere is copied into its destination view.
// CHECK-LABEL: func.func @map_row_copied(
// CHECK:         "scf.parallel"
// CHECK:           %[[D:.*]] = memref.subview %{{.*}} : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK:           "memref.copy"(%{{.*}}, %[[D]])
func.func @map_row_copied(%m: memref<?x?xf64>, %o: memref<?x?xf64>, %v: memref<?xf64>) {
  msoac.map ins(%m : memref<?x?xf64>) outs(%o : memref<?x?xf64>) {
  ^bb0(%r: memref<?xf64, strided<[1], offset: ?>>, %d: memref<?xf64, strided<[1], offset: ?>>):
    msoac.yield %v : memref<?xf64>
  }
  func.return
}

// An allocated result is carried by the loop, allocated at row 0 and checked after: a
// sequential loop (must not be parallel: row 0 decides the shape).
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

// reduce without the `operator` attribute (redomap's fold): the accumulators are
// carried, left to right (must not be parallel: the lambda is not the operator).
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

// reduce with its operator: scf.parallel + scf.reduce, the lambda as the reduction.
// Run in order (the cpu back end) it is the left fold from the neutral element.
// CHECK-LABEL: func.func @reduce_parallel(
// CHECK:         %[[S:.*]] = "scf.parallel"(%{{.*}}, %{{.*}}, %{{.*}}, %[[Z:.*]]) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK:           %[[X:.*]] = memref.load %{{.*}}[%[[I]]] : memref<?xf64>
// CHECK-NEXT:      scf.reduce(%[[X]] : f64) {
// CHECK-NEXT:      ^bb0(%[[ACC:.*]]: f64, %[[Y:.*]]: f64):
// CHECK-NEXT:        %[[R:.*]] = arith.addf %[[ACC]], %[[Y]] : f64
// CHECK-NEXT:        scf.reduce.return %[[R]] : f64
// CHECK:         func.return %[[S]]
func.func @reduce_parallel(%a: memref<?xf64>, %z: f64) -> f64 {
  %s = msoac.reduce(%z : f64) over(%a : memref<?xf64>) attributes {operator} -> f64 {
  ^bb0(%acc: f64, %x: f64):
    %y = arith.addf %acc, %x : f64
    msoac.yield %y : f64
  }
  func.return %s : f64
}

// redomap (its operator in `combine`): blocked. C chunks (C from @l0_parallel_width: 1
// on the cpu back end), each folded with the lambda from the neutral element in
// parallel into its partial result; then the partials combined in chunk order. With one
// chunk it is the left fold, and the combining loop runs no iteration.
// CHECK-LABEL: func.func @redomap_blocked(
// CHECK:         %[[W:.*]] = func.call @l0_parallel_width() : () -> i64
// CHECK:         %[[C:.*]] = arith.maxsi
// CHECK:         %[[P:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:         "scf.parallel"
// CHECK:           %[[F:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %z) -> (i64) : i64 {
// CHECK:             %[[SQ:.*]] = arith.muli
// CHECK-NEXT:        %[[S:.*]] = arith.addi %[[ACC]], %[[SQ]] : i64
// CHECK-NEXT:        scf.yield %[[S]] : i64
// CHECK:           memref.store %[[F]], %[[P]][%{{.*}}] : memref<?xi64>
// CHECK-NEXT:      scf.reduce
// CHECK:         %[[P0:.*]] = memref.load %[[P]]
// CHECK:         %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %[[C]] step %{{.*}} iter_args(%[[L:.*]] = %[[P0]]) -> (i64) : i64 {
// CHECK:           %[[PC:.*]] = memref.load %[[P]]
// CHECK-NEXT:      %[[LR:.*]] = arith.addi %[[L]], %[[PC]] : i64
// CHECK-NEXT:      scf.yield %[[LR]] : i64
// CHECK:         func.return %[[R]]
func.func @redomap_blocked(%a: memref<?xi64>, %z: i64) -> i64 {
  %s = msoac.reduce(%z : i64) over(%a : memref<?xi64>) -> i64 {
  ^bb0(%acc: i64, %x: i64):
    %sq = arith.muli %x, %x : i64
    %y = arith.addi %acc, %sq : i64
    msoac.yield %y : i64
  } combine {
  ^bb0(%p: i64, %q: i64):
    %y = arith.addi %p, %q : i64
    msoac.yield %y : i64
  }
  func.return %s : i64
}

// A tuple operator (reduce's lambda, `operator`, two accumulators): blocked, one
// partial per accumulator, combined with the lambda itself.
// CHECK-LABEL: func.func @reduce_tuple_blocked(
// CHECK:         func.call @l0_parallel_width()
// CHECK:         %[[P1:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:    %{{.*}} = arith.index_cast
// CHECK-NEXT:    %[[P2:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         "scf.parallel"
// CHECK:           memref.store %{{.*}}, %[[P1]]
// CHECK-NEXT:      memref.store %{{.*}}, %[[P2]]
// CHECK:         %[[A:.*]], %[[B:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (i64, f64) : i64 {
// CHECK:           memref.load %[[P1]]
// CHECK:           memref.load %[[P2]]
// CHECK-NEXT:      arith.cmpf olt
// CHECK:         func.return %[[A]], %[[B]] : i64, f64
func.func @reduce_tuple_blocked(%i: memref<?xi64>, %a: memref<?xf64>, %z: i64, %w: f64) -> (i64, f64) {
  %s:2 = msoac.reduce(%z, %w : i64, f64) over(%i, %a : memref<?xi64>, memref<?xf64>) attributes {operator} -> i64, f64 {
  ^bb0(%p: i64, %x: f64, %q: i64, %y: f64):
    %lt = arith.cmpf olt, %y, %x : f64
    %k, %v = scf.if %lt -> (i64, f64) {
      scf.yield %q, %y : i64, f64
    } else {
      scf.yield %p, %x : i64, f64
    }
    msoac.yield %k, %v : i64, f64
  }
  func.return %s#0, %s#1 : i64, f64
}

// Must not fire: a redomap inside a parallel loop is a thread's sequential fold.
// CHECK-LABEL: func.func @redomap_nested_is_a_fold(
// CHECK:         "scf.parallel"
// CHECK-NOT:       l0_parallel_width
// CHECK:           scf.for
// CHECK-NOT:       "scf.parallel"
// CHECK:         func.return
func.func @redomap_nested_is_a_fold(%m: memref<?x?xi64>, %o: memref<?xi64>, %z: i64) {
  msoac.map ins(%m : memref<?x?xi64>) outs(%o : memref<?xi64>) {
  ^bb0(%row: memref<?xi64, strided<[1], offset: ?>>):
    %s = msoac.reduce(%z : i64) over(%row : memref<?xi64, strided<[1], offset: ?>>) -> i64 {
    ^bb1(%acc: i64, %x: i64):
      %y = arith.addi %acc, %x : i64
      msoac.yield %y : i64
    } combine {
    ^bb2(%p: i64, %q: i64):
      %y2 = arith.addi %p, %q : i64
      msoac.yield %y2 : i64
    }
    msoac.yield %s : i64
  }
  func.return
}

// scan: blocked. C chunks (C from @l0_parallel_width: 1 on the cpu back end); with
// more than one, each chunk's total in parallel and the carry-ins in order; then each
// chunk scanned from its carry-in, in parallel, storing every accumulator.
// CHECK-LABEL: func.func @scan_blocked(
// CHECK:         %[[W:.*]] = func.call @l0_parallel_width() : () -> i64
// CHECK:         %[[C:.*]] = arith.maxsi
// CHECK:         %[[CARRY:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:         memref.store %{{.*}}, %[[CARRY]]
// CHECK:         %[[MANY:.*]] = arith.cmpi sgt, %[[C]], %{{.*}} : i64
// CHECK-NEXT:    scf.if %[[MANY]] {
// CHECK:           "scf.parallel"
// CHECK:             scf.for
// CHECK:               arith.addi
// CHECK:             memref.store %{{.*}}, %[[CARRY]]
// CHECK:           scf.for
// CHECK:             arith.addi
// CHECK:             memref.store %{{.*}}, %[[CARRY]]
// CHECK:         "scf.parallel"
// CHECK:           %[[IN:.*]] = memref.load %[[CARRY]]
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[IN]]) -> (i64) : i64 {
// CHECK:             %[[Y:.*]] = arith.addi %[[ACC]], %{{.*}} : i64
// CHECK:             memref.store %[[Y]], %{{.*}}[%{{.*}}] : memref<?xi64>
// CHECK-NEXT:        scf.yield %[[Y]] : i64
func.func @scan_blocked(%a: memref<?xi64>, %o: memref<?xi64>, %z: i64) {
  msoac.scan(%z : i64) over(%a : memref<?xi64>) outs(%o : memref<?xi64>) {
  ^bb0(%acc: i64, %x: i64):
    %y = arith.addi %acc, %x : i64
    msoac.yield %y : i64
  }
  func.return
}

// scan with an `operator` (from scanomap: the fold also maps each row, here of a
// matrix): each chunk's total is folded from the neutral element over all its rows;
// the carry-ins combine the totals with the operator (subi here, to tell them apart),
// never with the fold; each chunk is then scanned with the fold from its carry-in.
// CHECK-LABEL: func.func @scan_operator_blocked(
// CHECK:         %[[CARRY:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:         memref.store %z, %[[CARRY]]
// CHECK:         scf.if %{{.*}} {
// CHECK:           "scf.parallel"
// CHECK:             arith.remsi
// CHECK:             arith.divsi
// CHECK-NEXT:        %[[LO:.*]] = arith.addi
// CHECK:             arith.divsi
// CHECK-NEXT:        %[[HI:.*]] = arith.addi
// CHECK:             %[[T:.*]] = scf.for %{{.*}} = %[[LO]] to %[[HI]] step %{{.*}} iter_args(%[[A:.*]] = %z) -> (i64) : i64 {
// CHECK:               arith.muli
// CHECK:               arith.addi %[[A]]
// CHECK:             memref.store %[[T]], %[[CARRY]]
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[P:.*]] = %z) -> (i64) : i64 {
// CHECK-NEXT:        arith.index_cast
// CHECK-NEXT:        %[[Q:.*]] = memref.load %[[CARRY]]
// CHECK-NEXT:        %[[S:.*]] = arith.subi %[[P]], %[[Q]] : i64
// CHECK-NEXT:        arith.index_cast
// CHECK-NEXT:        memref.store %[[S]], %[[CARRY]]
// CHECK:         "scf.parallel"
// CHECK:           %[[IN:.*]] = memref.load %[[CARRY]]
// CHECK:           scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[IN]]) -> (i64) : i64 {
// CHECK:             arith.muli
// CHECK:             %[[Y:.*]] = arith.addi %[[ACC]], %{{.*}} : i64
// CHECK:             memref.store %[[Y]], %o[%{{.*}}] : memref<?xi64>
func.func @scan_operator_blocked(%a: memref<?x?xi64>, %o: memref<?xi64>, %z: i64) {
  msoac.scan (%z : i64) over (%a : memref<?x?xi64>) outs(%o : memref<?xi64>) {
  ^bb0(%acc: i64, %row: memref<?xi64, strided<[1], offset: ?>>):
    %c0 = arith.constant 0 : index
    %x = memref.load %row[%c0] : memref<?xi64, strided<[1], offset: ?>>
    %sq = arith.muli %x, %x : i64
    %y = arith.addi %acc, %sq : i64
    msoac.yield %y : i64
  } operator {
  ^bb0(%p: i64, %q: i64):
    %s = arith.subi %p, %q : i64
    msoac.yield %s : i64
  }
  func.return
}

// filter: count per chunk (keeping a flag per row), prefix sum of the counts, allocate,
// scatter each chunk's kept rows from its offset.
// CHECK-LABEL: func.func @filter_count_then_fill(
// CHECK:         %[[FLAGS:.*]] = memref.alloc(%{{.*}}) : memref<?xi1>
// CHECK:         func.call @l0_parallel_width()
// CHECK:         %[[OFFS:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:         "scf.parallel"
// CHECK:           %[[COUNT:.*]] = scf.for {{.*}} iter_args(%[[C:.*]] = %{{.*}}) -> (i64) : i64 {
// CHECK:             %[[P:.*]] = arith.cmpi sgt
// CHECK:             memref.store %[[P]], %[[FLAGS]]
// CHECK:             %[[E:.*]] = arith.extui %[[P]] : i1 to i64
// CHECK-NEXT:        %[[C2:.*]] = arith.addi %[[C]], %[[E]] : i64
// CHECK-NEXT:        scf.yield %[[C2]]
// CHECK:           memref.store %[[COUNT]], %[[OFFS]]
// CHECK:         %[[TOTAL:.*]] = scf.for {{.*}} -> (i64) : i64 {
// CHECK:         %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:         "scf.parallel"
// CHECK:           %[[J0:.*]] = memref.load %[[OFFS]]
// CHECK:           scf.for {{.*}} iter_args(%[[J:.*]] = %[[J0]]) -> (i64) : i64 {
// CHECK:             %[[K:.*]] = memref.load %[[FLAGS]]
// CHECK-NEXT:        scf.if %[[K]] -> (i64) {
// CHECK:               memref.store %{{.*}}, %[[OUT]][%{{.*}}]
// CHECK:         func.return %[[OUT]]
func.func @filter_count_then_fill(%a: memref<?xi64>, %z: i64) -> memref<?xi64> {
  %f = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%x: i64):
    %p = arith.cmpi sgt, %x, %z : i64
    msoac.yield %p : i1
  }
  func.return %f : memref<?xi64>
}

// A filter inside a parallel map stays the sequential count-then-fill.
// CHECK-LABEL: func.func @nested_filter_is_sequential(
// CHECK:         "scf.parallel"
// CHECK-NOT:       "scf.parallel"
// CHECK-NOT:       l0_parallel_width
// CHECK:           scf.for
// CHECK:         func.return
func.func @nested_filter_is_sequential(%m: memref<?x?xi64>, %z: i64) {
  msoac.map ins(%m : memref<?x?xi64>) {
  ^bb0(%r: memref<?xi64, strided<[1], offset: ?>>):
    %f = msoac.filter ins(%r : memref<?xi64, strided<[1], offset: ?>>) -> memref<?xi64> {
    ^bb1(%x: i64):
      %p = arith.cmpi sgt, %x, %z : i64
      msoac.yield %p : i1
    }
    msoac.yield
  }
  func.return
}

// iota and replicate fill their destination in parallel.
// CHECK-LABEL: func.func @iota_and_replicate(
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%[[II:.*]]: index):
// CHECK-NEXT:      %[[I:.*]] = arith.index_cast %[[II]] : index to i64
// CHECK-NEXT:      memref.store %[[I]], %{{.*}}[%[[II]]] : memref<?xi64>
// CHECK:         "scf.parallel"
// CHECK:           %[[ROW:.*]] = memref.subview
// CHECK-NEXT:      "memref.copy"(%{{.*}}, %[[ROW]])
func.func @iota_and_replicate(%o: memref<?xi64>, %v: memref<?xf64>, %p: memref<?x?xf64>) {
  msoac.iota %o : memref<?xi64>
  msoac.replicate %v, %p : memref<?xf64>, memref<?x?xf64>
  func.return
}

// partition: the filter's counting pass (flags, count per chunk, prefix sum), then one
// writing pass sending each row to its class: the kept rows from the chunk's offset,
// the rejected ones from the chunk's start minus that offset.
// CHECK-LABEL: func.func @partition_count_then_write(
// CHECK:         %[[FLAGS:.*]] = memref.alloc(%{{.*}}) : memref<?xi1>
// CHECK:         %[[OFFS:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:         "scf.parallel"
// CHECK:           scf.for
// CHECK:             %[[P:.*]] = arith.cmpi sgt
// CHECK:             memref.store %[[P]], %[[FLAGS]]
// CHECK:         %[[TOTAL:.*]] = scf.for {{.*}} -> (i64) : i64 {
// CHECK:         %[[REST:.*]] = arith.subi %[[N:.*]], %[[TOTAL]] : i64
// CHECK:         %[[T:.*]] = arith.index_cast %[[TOTAL]] : i64 to index
// CHECK-NEXT:    %[[KEPT:.*]] = memref.alloc(%[[T]]) : memref<?xi64>
// CHECK:         %[[R:.*]] = arith.index_cast %[[REST]] : i64 to index
// CHECK-NEXT:    %[[REJ:.*]] = memref.alloc(%[[R]]) : memref<?xi64>
// CHECK:         "scf.parallel"
// CHECK:           %[[J0:.*]] = memref.load %[[OFFS]]
// CHECK:           %[[K0:.*]] = arith.subi %[[LO:.*]], %[[J0]] : i64
// CHECK:           scf.for {{.*}} iter_args(%[[J:.*]] = %[[J0]], %[[K:.*]] = %[[K0]]) -> (i64, i64) : i64 {
// CHECK:             %[[F:.*]] = memref.load %[[FLAGS]]
// CHECK-NEXT:        %{{.*}}, %{{.*}} = scf.if %[[F]] -> (i64, i64) {
// CHECK:               memref.store %{{.*}}, %[[KEPT]][%{{.*}}]
// CHECK:             } else {
// CHECK:               memref.store %{{.*}}, %[[REJ]][%{{.*}}]
// CHECK:         func.return %[[KEPT]], %[[REJ]]
// CHECK-NOT:     msoac
func.func @partition_count_then_write(%a: memref<?xi64>, %z: i64) -> (memref<?xi64>, memref<?xi64>) {
  %t, %f = msoac.partition ins(%a : memref<?xi64>) -> memref<?xi64>, memref<?xi64> {
  ^bb0(%x: i64):
    %p = arith.cmpi sgt, %x, %z : i64
    msoac.yield %p : i1
  }
  func.return %t, %f : memref<?xi64>, memref<?xi64>
}

// A partition inside a parallel map: count, then write, sequentially.
// CHECK-LABEL: func.func @nested_partition_is_sequential(
// CHECK:         "scf.parallel"
// CHECK-NOT:       "scf.parallel"
// CHECK-NOT:       l0_parallel_width
// CHECK:           scf.for
// CHECK:           scf.for {{.*}} -> (i64, i64)
// CHECK:         func.return
func.func @nested_partition_is_sequential(%m: memref<?x?xi64>, %z: i64) {
  msoac.map ins(%m : memref<?x?xi64>) {
  ^bb0(%r: memref<?xi64, strided<[1], offset: ?>>):
    %t, %f = msoac.partition ins(%r : memref<?xi64, strided<[1], offset: ?>>) -> memref<?xi64>, memref<?xi64> {
    ^bb1(%x: i64):
      %p = arith.cmpi sgt, %x, %z : i64
      msoac.yield %p : i1
    }
    msoac.yield
  }
  func.return
}
