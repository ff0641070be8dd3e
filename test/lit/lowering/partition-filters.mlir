// RUN: l0-opt %s -p partition-filters | filecheck %s

// Two filters of one block over the same inputs whose predicates are complements
// become one msoac.partition where the first was: the first filter's predicate and
// result are the kept class, the second's result the rejected class.

// A radix sort's split by a bit: `(k >> b) & 1 = 0` and `(k >> b) & 1 = 1`, each
// checking the shift amount (the second one's check, at another place, can never fail
// once the first's passed: the partition keeps the first's), the kept class read
// before the second filter.
// CHECK-LABEL: func.func @split_by_bit(
// CHECK:         %[[Z:.*]], %[[O:.*]] = msoac.partition ins(%ks : memref<?xi64>) -> memref<?xi64>, memref<?xi64> {
// CHECK-NEXT:    ^bb0(%k: i64):
// CHECK-NEXT:      %{{.*}} = arith.cmpi sge, %b, %c0 : i64
// CHECK-NEXT:      %{{.*}} = soac.assert
// CHECK-NEXT:      %{{.*}} = arith.shrsi %k, %b : i64
// CHECK-NEXT:      %[[BIT:.*]] = arith.andi %c1, %{{.*}} : i64
// CHECK-NEXT:      %[[P:.*]] = arith.cmpi eq, %[[BIT]], %c0 : i64
// CHECK-NEXT:      msoac.yield %[[P]] : i1
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = memref.dim %[[Z]], %{{.*}}
// CHECK-NOT:     msoac.filter
// CHECK:         func.return %[[Z]], %[[O]]
func.func @split_by_bit(%ks: memref<?xi64>, %b: i64) -> (memref<?xi64>, memref<?xi64>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %z = msoac.filter ins(%ks : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%k: i64):
    %ok = arith.cmpi sge, %b, %c0 : i64
    %c = soac.assert %ok, "shift by a negative amount: {0}" (%b : i64) at "r.l0:3:5"
    %s = arith.shrsi %k, %b : i64
    %bit = arith.andi %c1, %s : i64
    %p = arith.cmpi eq, %bit, %c0 : i64
    msoac.yield %p : i1
  }
  %nz = memref.dim %z, %i0 : memref<?xi64>
  %o = msoac.filter ins(%ks : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%k: i64):
    %ok = arith.cmpi sge, %b, %c0 : i64
    %c = soac.assert %ok, "negative shift" at "r.l0:4:5"
    %s = arith.shrsi %k, %b : i64
    %bit = arith.andi %s, %c1 : i64
    %p = arith.cmpi eq, %bit, %c1 : i64
    msoac.yield %p : i1
  }
  func.return %z, %o : memref<?xi64>, memref<?xi64>
}

// `not p` and `p` (an xori with true), over two inputs; the first filter keeps the
// rows where the predicate is false, so the partition's kept class is theirs.
// CHECK-LABEL: func.func @negation_two_inputs(
// CHECK-NEXT:    %[[N:.*]], %[[N2:.*]], %[[Y:.*]], %[[Y2:.*]] = msoac.partition ins(%a, %x : memref<?xi1>, memref<?xf64>) -> memref<?xi1>, memref<?xf64>, memref<?xi1>, memref<?xf64> {
// CHECK:           arith.xori
// CHECK-NOT:     msoac.filter
// CHECK:         func.return %[[N]], %[[N2]], %[[Y]], %[[Y2]]
func.func @negation_two_inputs(%a: memref<?xi1>, %x: memref<?xf64>)
    -> (memref<?xi1>, memref<?xf64>, memref<?xi1>, memref<?xf64>) {
  %no, %no_x = msoac.filter ins(%a, %x : memref<?xi1>, memref<?xf64>) -> memref<?xi1>, memref<?xf64> {
  ^bb0(%p: i1, %v: f64):
    %t = arith.constant true
    %q = arith.xori %p, %t : i1
    msoac.yield %q : i1
  }
  %yes, %yes_x = msoac.filter ins(%a, %x : memref<?xi1>, memref<?xf64>) -> memref<?xi1>, memref<?xf64> {
  ^bb0(%p: i1, %v: f64):
    msoac.yield %p : i1
  }
  func.return %no, %no_x, %yes, %yes_x : memref<?xi1>, memref<?xf64>, memref<?xi1>, memref<?xf64>
}

// Negated comparisons: `slt`/`sge` on the same operands, and on floats `olt`/`uge`
// (NaN fails `olt` and passes `uge`), over the rows of a matrix (loaded elements).
// CHECK-LABEL: func.func @negated_compares(
// CHECK:         msoac.partition ins(%a : memref<?xi64>)
// CHECK:           arith.cmpi slt
// CHECK:         msoac.partition ins(%m : memref<?x?xf64>)
// CHECK:           arith.cmpf olt
// CHECK-NOT:     msoac.filter
// CHECK:         func.return
func.func @negated_compares(%a: memref<?xi64>, %z: i64, %m: memref<?x?xf64>, %y: f64) {
  %lo = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi slt, %v, %z : i64
    msoac.yield %p : i1
  }
  %hi = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi sge, %v, %z : i64
    msoac.yield %p : i1
  }
  %small = msoac.filter ins(%m : memref<?x?xf64>) -> memref<?x?xf64> {
  ^bb0(%r: memref<?xf64, strided<[1], offset: ?>>):
    %i = arith.constant 0 : index
    %v = memref.load %r[%i] : memref<?xf64, strided<[1], offset: ?>>
    %p = arith.cmpf olt, %v, %y : f64
    msoac.yield %p : i1
  }
  %large = msoac.filter ins(%m : memref<?x?xf64>) -> memref<?x?xf64> {
  ^bb0(%r: memref<?xf64, strided<[1], offset: ?>>):
    %i = arith.constant 0 : index
    %v = memref.load %r[%i] : memref<?xf64, strided<[1], offset: ?>>
    %p = arith.cmpf uge, %v, %y : f64
    msoac.yield %p : i1
  }
  func.return
}

// Must not fire: predicates that are not complements (`slt`/`sgt` both miss equal
// rows; `olt`/`oge` both miss NaN; a bit compared with 0 and with 2), filters of
// different inputs, a second filter checking what the first does not (it could fail
// where the first did not).
// CHECK-LABEL: func.func @not_complements(
// CHECK-NOT:     msoac.partition
// CHECK:         func.return
func.func @not_complements(%a: memref<?xi64>, %b: memref<?xi64>, %f: memref<?xf64>, %z: i64,
                           %y: f64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %lt = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi slt, %v, %z : i64
    msoac.yield %p : i1
  }
  %gt = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi sgt, %v, %z : i64
    msoac.yield %p : i1
  }
  %flt = msoac.filter ins(%f : memref<?xf64>) -> memref<?xf64> {
  ^bb0(%v: f64):
    %p = arith.cmpf olt, %v, %y : f64
    msoac.yield %p : i1
  }
  %fge = msoac.filter ins(%f : memref<?xf64>) -> memref<?xf64> {
  ^bb0(%v: f64):
    %p = arith.cmpf oge, %v, %y : f64
    msoac.yield %p : i1
  }
  %b0 = msoac.filter ins(%b : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %bit = arith.andi %v, %c1 : i64
    %p = arith.cmpi eq, %bit, %c0 : i64
    msoac.yield %p : i1
  }
  %b2 = msoac.filter ins(%b : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %bit = arith.andi %v, %c1 : i64
    %p = arith.cmpi eq, %bit, %c2 : i64
    msoac.yield %p : i1
  }
  %other = msoac.filter ins(%b : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi sge, %v, %z : i64
    msoac.yield %p : i1
  }
  %unchecked = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi slt, %v, %z : i64
    msoac.yield %p : i1
  }
  %checked = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %ok = arith.cmpi sge, %v, %c0 : i64
    %c = soac.assert %ok, "negative" at "r.l0:1:1"
    %p = arith.cmpi sge, %v, %z : i64
    msoac.yield %p : i1
  }
  func.return
}

// Must not fire: between the filters, the first one's result is consumed by a map
// (which writes memory: the input could change), the input is updated in place, or
// the second filter's lambda captures a value computed in between.
// CHECK-LABEL: func.func @consumed_in_between(
// CHECK-NOT:     msoac.partition
// CHECK:         func.return
func.func @consumed_in_between(%a: memref<?xi64>, %z: i64, %out: memref<?xi64>) {
  %lt = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi slt, %v, %z : i64
    msoac.yield %p : i1
  }
  msoac.map ins(%lt : memref<?xi64>) outs(%out : memref<?xi64>) {
  ^bb0(%v: i64):
    msoac.yield %v : i64
  }
  %ge = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi sge, %v, %z : i64
    msoac.yield %p : i1
  }
  func.return
}

// CHECK-LABEL: func.func @updated_in_between(
// CHECK-NOT:     msoac.partition
// CHECK:         func.return
func.func @updated_in_between(%a: memref<?xi64>, %z: i64) {
  %i0 = arith.constant 0 : index
  %lt = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi slt, %v, %z : i64
    msoac.yield %p : i1
  }
  memref.store %z, %a[%i0] : memref<?xi64>
  %ge = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi sge, %v, %z : i64
    msoac.yield %p : i1
  }
  func.return
}

// CHECK-LABEL: func.func @captured_from_in_between(
// CHECK-NOT:     msoac.partition
// CHECK:         func.return
func.func @captured_from_in_between(%a: memref<?xi64>, %z: i64) {
  %lt = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi slt, %v, %z : i64
    msoac.yield %p : i1
  }
  %w = arith.addi %z, %z : i64
  %ge = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi sge, %v, %w : i64
    msoac.yield %p : i1
  }
  func.return
}

// A third filter stays: each filter pairs once, with the first later one that fits.
// CHECK-LABEL: func.func @three_filters(
// CHECK:         %[[LT:.*]], %[[GE:.*]] = msoac.partition
// CHECK:         %[[LT2:.*]] = msoac.filter
// CHECK:         func.return %[[LT]], %[[GE]], %[[LT2]]
func.func @three_filters(%a: memref<?xi64>, %z: i64) -> (memref<?xi64>, memref<?xi64>, memref<?xi64>) {
  %lt = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi slt, %v, %z : i64
    msoac.yield %p : i1
  }
  %ge = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi sge, %v, %z : i64
    msoac.yield %p : i1
  }
  %lt2 = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
  ^bb0(%v: i64):
    %p = arith.cmpi slt, %v, %z : i64
    msoac.yield %p : i1
  }
  func.return %lt, %ge, %lt2 : memref<?xi64>, memref<?xi64>, memref<?xi64>
}
