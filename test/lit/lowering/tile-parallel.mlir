// RUN: l0-opt %s -p tile-parallel | filecheck %s

// tile-parallel (cpu and multicore, after reuse-freed): a one-dimensional scf.parallel
// over rows whose body is effect-free ops and a column loop (holding a loop, unable to
// fail) becomes C = max(1, min(width, n)) chunks of rows, each running the columns in
// tiles of 32 over all of its rows: the column loop's bounds are computed before the
// loop, the body is inlined at row lb + k, and its column loop runs [jt, min(jt+32, m)).
// The tile loop counts its tiles, ceil((m - first) / 32), and jt is first + 32 * tile,
// min(jt+32, m) is jt + min(32, m - jt): no jt + 32 that could wrap near 2^63.

// CHECK-LABEL: func.func private @product(
// CHECK:         %[[M:.*]] = arith.index_cast %m : index to i64
// CHECK:         %[[N:.*]] = arith.maxsi
// CHECK:         %[[W:.*]] = func.call @l0_parallel_width() : () -> i64
// CHECK-NEXT:    %[[MIN:.*]] = arith.minsi %[[W]], %[[N]] : i64
// CHECK:         %[[C:.*]] = arith.maxsi %[[MIN]], %{{.*}} : i64
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^bb0(%{{.*}}: index):
// CHECK:           %[[Q:.*]] = arith.divsi %[[N]], %[[C]] : i64
// CHECK-NEXT:      %[[R:.*]] = arith.remsi %[[N]], %[[C]] : i64
// CHECK:           arith.divsi %{{.*}}, %[[C]] : i64
// CHECK-NEXT:      %[[LO:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK:           arith.divsi %{{.*}}, %[[C]] : i64
// CHECK-NEXT:      %[[HI:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK:           %[[T:.*]] = arith.constant 32 : i64
// CHECK-NEXT:      %[[SPAN:.*]] = arith.subi %[[M]], %{{.*}} : i64
// CHECK:           %[[INEXACT:.*]] = arith.extui %{{.*}} : i1 to i64
// CHECK-NEXT:      %[[TILES:.*]] = arith.addi %{{.*}}, %[[INEXACT]] : i64
// CHECK:           scf.for %[[TILE:.*]] = %{{.*}} to %[[TILES]] step %{{.*}} : i64 {
// CHECK-NEXT:        %[[OFF:.*]] = arith.muli %[[TILE]], %[[T]] : i64
// CHECK-NEXT:        %[[JT:.*]] = arith.addi %{{.*}}, %[[OFF]] : i64
// CHECK-NEXT:        %[[LEFT:.*]] = arith.subi %[[M]], %[[JT]] : i64
// CHECK-NOT:         arith.addi %[[JT]], %[[T]]
// CHECK:             %[[WIDTH:.*]] = arith.minsi %[[LEFT]], %{{.*}} : i64
// CHECK-NEXT:        %[[END:.*]] = arith.addi %[[JT]], %[[WIDTH]] : i64
// CHECK:             scf.for %[[K:.*]] = %[[LO]] to %[[HI]] step %{{.*}} : i64 {
// CHECK-NEXT:          %[[R:.*]] = arith.addi %{{.*}}, %[[K]] : i64
// CHECK-NEXT:          %[[I:.*]] = arith.index_cast %[[R]] : i64 to index
// CHECK-NEXT:          %[[ROW:.*]] = memref.subview %x[%[[I]], 0]
// CHECK:               scf.for %[[J:.*]] = %[[JT]] to %[[END]] step %{{.*}} : i64 {
// CHECK:                 scf.for
// CHECK:                 memref.store %{{.*}}, %out[%[[I]], %{{.*}}]
// CHECK:             }
// CHECK:           }
// CHECK:           scf.reduce
// CHECK-NOT:     "scf.parallel"
// CHECK:         func.return
func.func private @product(%x: memref<?x?xi64>, %y: memref<?x?xi64>, %out: memref<?x?xi64>,
                           %n: index, %m: index, %p: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %row = memref.subview %x[%i, 0] [1, %p] [1, 1] : memref<?x?xi64> to memref<?xi64, strided<[1], offset: ?>>
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %cols = arith.index_cast %m : index to i64
    %len = arith.index_cast %p : index to i64
    scf.for %j = %z to %cols step %one : i64 {
      %jj = arith.index_cast %j : i64 to index
      %s = scf.for %k = %z to %len step %one iter_args(%acc = %z) -> (i64) : i64 {
        %kk = arith.index_cast %k : i64 to index
        %a = memref.load %row[%kk] : memref<?xi64, strided<[1], offset: ?>>
        %b = memref.load %y[%jj, %kk] : memref<?x?xi64>
        %ab = arith.muli %a, %b : i64
        %r = arith.addi %acc, %ab : i64
        scf.yield %r : i64
      }
      memref.store %s, %out[%i, %jj] : memref<?x?xi64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: the column loop can fail (a check), so the order of its iterations,
// which decides the error reported, stays the sequential one.
// CHECK-LABEL: func.func private @checked(
// CHECK-NOT:     l0_parallel_width
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK:         func.return
func.func private @checked(%y: memref<?x?xi64>, %out: memref<?x?xi64>, %n: index, %m: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    scf.for %j = %z to %m step %one : i64 {
      %jj = arith.index_cast %j : i64 to index
      %s = scf.for %k = %z to %m step %one iter_args(%acc = %z) -> (i64) : i64 {
        %kk = arith.index_cast %k : i64 to index
        %b = memref.load %y[%jj, %kk] : memref<?x?xi64>
        %r = arith.addi %acc, %b : i64
        scf.yield %r : i64
      }
      %ok = arith.cmpi sge, %s, %z : i64
      cf.assert %ok, "negative"
      memref.store %s, %out[%i, %jj] : memref<?x?xi64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: a straight-line column loop (an elementwise 2-D map) reuses nothing
// across rows and keeps its long vectorised loop.
// CHECK-LABEL: func.func private @elementwise(
// CHECK-NOT:     l0_parallel_width
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK:         func.return
func.func private @elementwise(%out: memref<?x?xi64>, %n: index, %m: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    scf.for %j = %z to %m step %one : i64 {
      %jj = arith.index_cast %j : i64 to index
      memref.store %j, %out[%i, %jj] : memref<?x?xi64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: the column count depends on the row (a load of it), so there is no
// common column range to tile; nor does a body with a load before its column loop
// (a tile later would reload what an earlier one stored).
// CHECK-LABEL: func.func private @ragged(
// CHECK-NOT:     l0_parallel_width
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK:         func.return
func.func private @ragged(%lens: memref<?xi64>, %out: memref<?x?xi64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %m = memref.load %lens[%i] : memref<?xi64>
    scf.for %j = %z to %m step %one : i64 {
      %jj = arith.index_cast %j : i64 to index
      %s = scf.for %k = %z to %j step %one iter_args(%acc = %z) -> (i64) : i64 {
        %r = arith.addi %acc, %k : i64
        scf.yield %r : i64
      }
      memref.store %s, %out[%i, %jj] : memref<?x?xi64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: a loop with a reduction (its partials are combined by
// convert-parallel-to-omp) and a two-dimensional loop.
// CHECK-LABEL: func.func private @reduction(
// CHECK-NOT:     l0_parallel_width
// CHECK:         "scf.parallel"(%c0, %n, %c1, %z)
// CHECK:         func.return
func.func private @reduction(%n: index, %m: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %r = "scf.parallel"(%c0, %n, %c1, %z) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    %one = arith.constant 1 : i64
    %v = scf.for %k = %z to %m step %one iter_args(%acc = %z) -> (i64) : i64 {
      %s = arith.addi %acc, %k : i64
      scf.yield %s : i64
    }
    scf.reduce(%v : i64) {
    ^bb1(%a: i64, %b: i64):
      %s = arith.addi %a, %b : i64
      scf.reduce.return %s : i64
    }
  }) : (index, index, index, i64) -> i64
  func.return %r : i64
}

// The column count computed in the body by a chain of ops (a size, then a cast): the
// chain is cloned before the loop, each clone using the clones before it.
// CHECK-LABEL: func.func private @bounds_chain(
// CHECK:         %[[Z:zero.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D:.*]] = memref.dim %y, %[[Z]] : memref<?x?xi64>
// CHECK-NEXT:    %[[M:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK:         "scf.parallel"
// CHECK:           arith.subi %[[M]], %{{.*}} : i64
// CHECK:           scf.for
// CHECK-NEXT:        arith.muli
// CHECK-NEXT:        %[[JT:.*]] = arith.addi
// CHECK-NEXT:        arith.subi %[[M]], %[[JT]] : i64
func.func private @bounds_chain(%y: memref<?x?xi64>, %out: memref<?x?xi64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zero = arith.constant 0 : index
    %d = memref.dim %y, %zero : memref<?x?xi64>
    %cols = arith.index_cast %d : index to i64
    scf.for %j = %z to %cols step %one : i64 {
      %jj = arith.index_cast %j : i64 to index
      %s = scf.for %k = %z to %cols step %one iter_args(%acc = %z) -> (i64) : i64 {
        %kk = arith.index_cast %k : i64 to index
        %b = memref.load %y[%jj, %kk] : memref<?x?xi64>
        %r = arith.addi %acc, %b : i64
        scf.yield %r : i64
      }
      memref.store %s, %out[%i, %jj] : memref<?x?xi64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
