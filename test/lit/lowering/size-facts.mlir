// RUN: l0-opt %s -p size-facts | filecheck %s

// size-facts: in the body of a loop from 0 to %m, %m != 0 (and 0 < %m) holds, so a row
// size normalised as select(m != 0, n, 0) is n there; outside the body it is not.

// CHECK-LABEL: func.func private @row_size(
// CHECK:         %[[NZ:.*]] = arith.cmpi ne, %m, %{{.*}} : i64
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[NZ]], %n, %{{.*}} : i64
// CHECK-NEXT:    %{{.*}} = scf.for %i = %{{.*}} to %m step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (i64) : i64 {
// CHECK:           %[[T:.*]] = arith.constant true
// CHECK:           %[[LT:.*]] = arith.cmpi slt, %i, %n : i64
// CHECK-NEXT:      %[[P:.*]] = arith.andi %[[T]], %[[LT]] : i1
// CHECK:         func.return %[[S]], %{{.*}} : i64, i64
func.func private @row_size(%m: i64, %n: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %nz = arith.cmpi ne, %m, %c0 : i64
  %s = arith.select %nz, %n, %c0 : i64
  %r = scf.for %i = %c0 to %m step %c1 iter_args(%a = %c0) -> (i64) : i64 {
    %lt = arith.cmpi slt, %i, %s : i64
    %p = arith.andi %nz, %lt : i1
    %e = arith.extui %p : i1 to i64
    %b = arith.addi %a, %e : i64
    scf.yield %b : i64
  }
  func.return %s, %r : i64, i64
}

// Must not fire: a loop that does not start at 0 (it may run with %m = 0), and a
// condition on another value.
// CHECK-LABEL: func.func private @no_fact(
// CHECK:         scf.for
// CHECK-NEXT:      %{{.*}} = arith.cmpi slt, %i, %[[S:.*]] : i64
// CHECK-NOT:       arith.constant true
// CHECK:         scf.for
// CHECK-NEXT:      %{{.*}} = arith.cmpi slt, %j, %{{.*}} : i64
// CHECK-NOT:       arith.constant true
func.func private @no_fact(%m: i64, %n: i64, %k: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %nz = arith.cmpi ne, %m, %c0 : i64
  %s = arith.select %nz, %n, %c0 : i64
  %r = scf.for %i = %c1 to %m step %c1 iter_args(%a = %c0) -> (i64) : i64 {
    %lt = arith.cmpi slt, %i, %s : i64
    %e = arith.extui %lt : i1 to i64
    %b = arith.addi %a, %e : i64
    scf.yield %b : i64
  }
  %r2 = scf.for %j = %c0 to %k step %c1 iter_args(%a = %c0) -> (i64) : i64 {
    %lt = arith.cmpi slt, %j, %s : i64
    %e = arith.extui %lt : i1 to i64
    %b = arith.addi %a, %e : i64
    scf.yield %b : i64
  }
  func.return %r, %r2 : i64, i64
}

// An scf.parallel from 0 to %m (a map over %m rows, before chunk-parallel) runs only
// when %m > 0; the select's operand is replaced in its body.
// CHECK-LABEL: func.func private @parallel_rows(
// CHECK:         "scf.parallel"
// CHECK:           %{{.*}} = arith.cmpi slt, %{{.*}}, %n : i64
func.func private @parallel_rows(%m: i64, %n: i64, %out: memref<?xi1>) {
  %c0 = arith.constant 0 : i64
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %mi = arith.index_cast %m : i64 to index
  %nz = arith.cmpi ne, %m, %c0 : i64
  %s = arith.select %nz, %n, %c0 : i64
  "scf.parallel"(%i0, %mi, %i1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%ii: index):
    %i = arith.index_cast %ii : index to i64
    %lt = arith.cmpi slt, %i, %s : i64
    memref.store %lt, %out[%ii] : memref<?xi1>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Before the loop: the pure ops that only the body uses (a trip count computed from the
// select, `%s - 1`) see the fact too; the select itself keeps its use after the loop,
// and a check before the loop (an effect) keeps the select.
// CHECK-LABEL: func.func private @before_the_loop(
// CHECK:         %[[S:.*]] = arith.select %{{.*}}, %n, %{{.*}} : i64
// CHECK:         %[[T:.*]] = arith.addi %n, %{{.*}} : i64
// CHECK:         %[[OK:.*]] = arith.cmpi slt, %[[S]], %k : i64
// CHECK-NEXT:    %{{.*}} = soac.assert %[[OK]]
// CHECK:         scf.for %{{.*}} = %{{.*}} to %m step
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[T]] step
// CHECK:         func.return %[[S]] : i64
func.func private @before_the_loop(%m: i64, %n: i64, %k: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %cm1 = arith.constant -1 : i64
  %nz = arith.cmpi ne, %m, %c0 : i64
  %s = arith.select %nz, %n, %c0 : i64
  %t = arith.addi %s, %cm1 : i64
  %ok = arith.cmpi slt, %s, %k : i64
  %cert = soac.assert %ok, "too big" at "f.l0:1:1"
  scf.for %i = %c0 to %m step %c1 : i64 {
    scf.for %j = %c0 to %t step %c1 : i64 {
    }
  }
  func.return %s : i64
}
