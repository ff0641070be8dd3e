// RUN: l0-opt %s -p forward-iota | filecheck %s

// forward-iota (after convert-soac-to-scf): a buffer that only its fill loop writes, with
// 0..n-1, holds its index: a load of it after the loop is the index it loads at, and a
// buffer nothing reads any more is neither allocated nor filled.

// map(f, iota(n)): the fill loop (parallel, index induction variable) and the load in
// the map's loop go; the map's bound (a dim of the buffer) is the allocation's size.
// CHECK-LABEL: func.func private @map_over_iota(
// CHECK-NOT:     memref<?xi64>
// CHECK:         %[[OUT:.*]] = memref.alloc(%n) : memref<?xf64>
// CHECK-NEXT:    "scf.parallel"(%{{.*}}, %n, %{{.*}})
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:      %[[X:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[R:.*]] = arith.sitofp %[[X]] : i64 to f64
// CHECK-NEXT:      memref.store %[[R]], %[[OUT]][%[[I]]] : memref<?xf64>
// CHECK-NOT:     memref<?xi64>
func.func private @map_over_iota(%n: index) -> memref<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc(%n) : memref<?xi64>
  %d = memref.dim %buf, %c0 : memref<?xi64>
  "scf.parallel"(%c0, %d, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    memref.store %v, %buf[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  %out = memref.alloc(%d) : memref<?xf64>
  "scf.parallel"(%c0, %d, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%j: index):
    %x = memref.load %buf[%j] : memref<?xi64>
    %r = arith.sitofp %x : i64 to f64
    memref.store %r, %out[%j] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return %out : memref<?xf64>
}

// Nested in a parallel loop the fill is an scf.for with an i64 induction variable; a
// load at any index (here one past a row's neighbour) reads that index.
// CHECK-LABEL: func.func private @nested(
// CHECK-NOT:     memref.alloc
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %m step %{{.*}} : i64 {
// CHECK-NEXT:      %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK-NEXT:      %[[X:.*]] = arith.index_cast %[[KI]] : index to i64
// CHECK-NEXT:      %[[Y:.*]] = arith.addi %[[X]], %[[X]] : i64
// CHECK-NOT:     memref.alloc
func.func private @nested(%m: i64, %out: memref<?xi64>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %mi = arith.index_cast %m : i64 to index
  %buf = memref.alloc(%mi) : memref<?xi64>
  scf.for %i = %c0 to %m step %c1 : i64 {
    %ii = arith.index_cast %i : i64 to index
    memref.store %i, %buf[%ii] : memref<?xi64>
  }
  scf.for %k = %c0 to %m step %c1 : i64 {
    %ki = arith.index_cast %k : i64 to index
    %x = memref.load %buf[%ki] : memref<?xi64>
    %y = arith.addi %x, %x : i64
    memref.store %y, %out[%ki] : memref<?xi64>
  }
  func.return
}

// A fill loop that also does something else: the loads are forwarded, the loop and
// the buffer stay.
// CHECK-LABEL: func.func private @busy_fill(
// CHECK:         %[[BUF:.*]] = memref.alloc(%n) : memref<?xi64>
// CHECK:           memref.store %{{.*}}, %[[BUF]][%{{.*}}] : memref<?xi64>
// CHECK:           memref.store %{{.*}}, %other[%{{.*}}] : memref<?xf64>
// CHECK:         %[[X:.*]] = arith.index_cast %k : index to i64
// CHECK-NEXT:    func.return %[[X]] : i64
func.func private @busy_fill(%n: index, %k: index, %other: memref<?xf64>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %buf = memref.alloc(%n) : memref<?xi64>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    memref.store %v, %buf[%i] : memref<?xi64>
    memref.store %z, %other[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  %x = memref.load %buf[%k] : memref<?xi64>
  func.return %x : i64
}

// Must not fire: the buffer is written again (an in-place update of the iota).
// CHECK-LABEL: func.func private @updated(
// CHECK:         memref.store %{{.*}}, %[[BUF:.*]][%{{.*}}] : memref<?xi64>
// CHECK:         memref.store %{{.*}}, %[[BUF]][%k] : memref<?xi64>
// CHECK-NEXT:    %[[X:.*]] = memref.load %[[BUF]][%k] : memref<?xi64>
func.func private @updated(%n: index, %k: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %seven = arith.constant 7 : i64
  %buf = memref.alloc(%n) : memref<?xi64>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    memref.store %v, %buf[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  memref.store %seven, %buf[%k] : memref<?xi64>
  %x = memref.load %buf[%k] : memref<?xi64>
  func.return %x : i64
}

// Must not fire: a view of the buffer (a store could reach it through the view), and
// a buffer returned from the function.
// CHECK-LABEL: func.func private @escapes(
// CHECK:         %[[X:.*]] = memref.load %[[BUF:.*]][%k] : memref<?xi64>
// CHECK:         func.return %[[X]], %{{.*}}, %[[BUF2:.*]] :
func.func private @escapes(%n: index, %k: index) -> (i64, memref<?xi64, strided<[1], offset: ?>>, memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc(%n) : memref<?xi64>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    memref.store %v, %buf[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  %x = memref.load %buf[%k] : memref<?xi64>
  %view = memref.subview %buf[1] [%k] [1] : memref<?xi64> to memref<?xi64, strided<[1], offset: ?>>
  %buf2 = memref.alloc(%n) : memref<?xi64>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    memref.store %v, %buf2[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return %x, %view, %buf2 : i64, memref<?xi64, strided<[1], offset: ?>>, memref<?xi64>
}

// Must not fire: the fill stores something else than its index (i + 1), runs from 1,
// or stops short of the buffer's size; and a load before the fill loop.
// CHECK-LABEL: func.func private @not_iota(
// CHECK-COUNT-4: memref.load
// CHECK-NOT:     memref.load
func.func private @not_iota(%n: index, %m: index, %k: index) -> (i64, i64, i64, i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i64
  %a = memref.alloc(%n) : memref<?xi64>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    %w = arith.addi %v, %one : i64
    memref.store %w, %a[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  %xa = memref.load %a[%k] : memref<?xi64>
  %b = memref.alloc(%n) : memref<?xi64>
  "scf.parallel"(%c1, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    memref.store %v, %b[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  %xb = memref.load %b[%k] : memref<?xi64>
  %c = memref.alloc(%n) : memref<?xi64>
  "scf.parallel"(%c0, %m, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    memref.store %v, %c[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  %xc = memref.load %c[%k] : memref<?xi64>
  %d = memref.alloc(%n) : memref<?xi64>
  %xd = memref.load %d[%k] : memref<?xi64>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    memref.store %v, %d[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return %xa, %xb, %xc, %xd : i64, i64, i64, i64
}
