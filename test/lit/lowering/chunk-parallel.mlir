// RUN: l0-opt %s -p chunk-parallel | filecheck %s

// chunk-parallel (after dealloc): a one-dimensional scf.parallel whose body allocates
// becomes a parallel loop over C = max(1, min(width, n)) chunks, each running its rows
// [c*n/C, (c+1)*n/C) in order in an scf.for, the body inlined at row lb + k; memory
// planning then allocates per chunk (per thread), not per row.

// CHECK-LABEL: func.func private @allocating(
// CHECK:         %[[LB:.*]] = arith.index_cast %lb : index to i64
// CHECK:         %[[N:.*]] = arith.maxsi
// CHECK:         %[[W:.*]] = func.call @l0_parallel_width() : () -> i64
// CHECK-NEXT:    %[[MIN:.*]] = arith.minsi %[[W]], %[[N]] : i64
// CHECK:         %[[C:.*]] = arith.maxsi %[[MIN]], %{{.*}} : i64
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%[[CI:.*]]: index):
// Chunk c starts at floor(c*n/C) = c*q + c*r/C (q, r = n / C, n % C), never computing
// c*n, which leaves 64 bits for n near 2^63 (Note [Chunk bounds without overflow]).
// CHECK-NEXT:      %[[CI64:.*]] = arith.index_cast %[[CI]] : index to i64
// CHECK-NEXT:      %[[Q:.*]] = arith.divsi %[[N]], %[[C]] : i64
// CHECK-NEXT:      %[[R:.*]] = arith.remsi %[[N]], %[[C]] : i64
// CHECK-NEXT:      %[[CQ:.*]] = arith.muli %[[CI64]], %[[Q]] : i64
// CHECK-NEXT:      %[[CR:.*]] = arith.muli %[[CI64]], %[[R]] : i64
// CHECK-NEXT:      %[[CRC:.*]] = arith.divsi %[[CR]], %[[C]] : i64
// CHECK-NEXT:      %[[LO:.*]] = arith.addi %[[CQ]], %[[CRC]] : i64
// CHECK-NOT:       arith.muli %{{.*}}, %[[N]]
// CHECK:           %[[NEXT:.*]] = arith.addi %[[CI64]], %{{.*}} : i64
// CHECK-NEXT:      %[[NQ:.*]] = arith.muli %[[NEXT]], %[[Q]] : i64
// CHECK-NEXT:      %[[NR:.*]] = arith.muli %[[NEXT]], %[[R]] : i64
// CHECK-NEXT:      %[[NRC:.*]] = arith.divsi %[[NR]], %[[C]] : i64
// CHECK-NEXT:      %[[HI:.*]] = arith.addi %[[NQ]], %[[NRC]] : i64
// CHECK:           scf.for %[[K:.*]] = %[[LO]] to %[[HI]] step %{{.*}} : i64 {
// CHECK-NEXT:        %[[R:.*]] = arith.addi %[[LB]], %[[K]] : i64
// CHECK-NEXT:        %[[I:.*]] = arith.index_cast %[[R]] : i64 to index
// CHECK-NEXT:        %[[BUF:.*]] = memref.alloc(%m) : memref<?xf64>
// CHECK-NEXT:        memref.store %z, %[[BUF]][%[[I]]] : memref<?xf64>
// CHECK-NEXT:        memref.dealloc %[[BUF]] : memref<?xf64>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.reduce
// CHECK-NOT:     "scf.parallel"
// CHECK:         func.return
func.func private @allocating(%lb: index, %n: index, %m: index) {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%lb, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %buf = memref.alloc(%m) : memref<?xf64>
    memref.store %z, %buf[%i] : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// An allocation deep in the body (in a loop inside it) counts too.
// CHECK-LABEL: func.func private @nested_allocation(
// CHECK:         func.call @l0_parallel_width()
// CHECK:         "scf.parallel"
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NEXT:          memref.alloc
func.func private @nested_allocation(%n: index, %m: index, %t: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i0 = arith.constant 0 : i64
  %i1 = arith.constant 1 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    scf.for %s = %i0 to %t step %i1 : i64 {
      %buf = memref.alloc(%m) : memref<?xf64>
      memref.dealloc %buf : memref<?xf64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: a body that allocates nothing keeps its rows for the runtime's
// schedule and the vectoriser.
// CHECK-LABEL: func.func private @no_allocation(
// CHECK-NOT:     l0_parallel_width
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:       scf.for
// CHECK:         func.return
func.func private @no_allocation(%n: index, %o: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    memref.store %z, %o[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: a reduction, a step other than 1, two dimensions.
// CHECK-LABEL: func.func private @not_chunked(
// CHECK-NOT:     l0_parallel_width
// CHECK:         func.return
func.func private @not_chunked(%n: index, %m: index, %z: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = "scf.parallel"(%c0, %n, %c1, %z) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    %buf = memref.alloc(%m) : memref<?xf64>
    %x = memref.load %buf[%c0] : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    scf.reduce(%x : f64) {
    ^bb1(%a: f64, %b: f64):
      %y = arith.addf %a, %b : f64
      scf.reduce.return %y : f64
    }
  }) : (index, index, index, f64) -> f64
  "scf.parallel"(%c0, %n, %c2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %buf = memref.alloc(%m) : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%c0, %c0, %n, %n, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb0(%i: index, %j: index):
    %buf = memref.alloc(%m) : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    scf.reduce
  }) : (index, index, index, index, index, index) -> ()
  func.return %s : f64
}

// Must not fire: a loop already over chunks (its upper bound a chunk count, marked
// `l0.chunk_count`: a blocked reduction whose chunks allocate their accumulators). Its
// iterations are threads; chunked again, its work would be judged by its few
// iterations and it would seldom fork.
// CHECK-LABEL: func.func private @over_chunks(
// CHECK-NOT:     l0_parallel_width
// CHECK:         "scf.parallel"(%{{.*}}, %[[C:.*]], %{{.*}})
// CHECK-NOT:       scf.for
// CHECK:         func.return
func.func private @over_chunks(%w: i64, %n: i64, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i64
  %least = arith.minsi %w, %n : i64
  %count = arith.maxsi %least, %one {l0.chunk_count = "rows"} : i64
  %cc = arith.index_cast %count : i64 to index
  "scf.parallel"(%c0, %cc, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%c: index):
    %buf = memref.alloc(%m) : memref<?xf64>
    memref.dealloc %buf : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
