// RUN: l0-opt %s -p simplify --split-input-file | filecheck %s

// Scalar folding (Note [Exact folding] in passes/simplify/arith.py): as the
// interpreter computes, wrapping integers and IEEE reals.

func.func @wrapping() -> (i64, i64, i64, i64, i64) {
  %max = arith.constant 9223372036854775807 : i64
  %min = arith.constant -9223372036854775808 : i64
  %one = arith.constant 1 : i64
  %m1 = arith.constant -1 : i64
  %three = arith.constant 3 : i64
  %forty = arith.constant 40 : i64
  %a = arith.addi %max, %one : i64
  %b = arith.floordivsi %min, %m1 : i64
  %c = math.ipowi %three, %forty : i64
  %d = arith.muli %max, %max : i64
  %e = arith.subi %min, %one : i64
  func.return %a, %b, %c, %d, %e : i64, i64, i64, i64, i64
}
// CHECK-LABEL: func.func @wrapping
// CHECK-DAG:     [[A:%.*]] = arith.constant -9223372036854775808 : i64
// CHECK-DAG:     [[C:%.*]] = arith.constant -6289078614652622815 : i64
// CHECK-DAG:     [[D:%.*]] = arith.constant 1 : i64
// CHECK-DAG:     [[E:%.*]] = arith.constant 9223372036854775807 : i64
// CHECK:         func.return [[A]], {{%.*}}, [[C]], [[D]], [[E]]

// -----

// Integer / and % floor; divsi and remsi truncate; shifts by 64 or more shift every
// bit out (-1 for >> of a negative number).
func.func @division_and_shifts() -> (i64, i64, i64, i64, i64, i64) {
  %m7 = arith.constant -7 : i64
  %two = arith.constant 2 : i64
  %c64 = arith.constant 64 : i64
  %one = arith.constant 1 : i64
  %a = arith.floordivsi %m7, %two : i64
  %b = arith.divsi %m7, %two : i64
  %c = arith.remsi %m7, %two : i64
  %d = arith.shli %one, %c64 : i64
  %e = arith.shrsi %m7, %c64 : i64
  %f = arith.shrui %m7, %c64 : i64
  func.return %a, %b, %c, %d, %e, %f : i64, i64, i64, i64, i64, i64
}
// CHECK-LABEL: func.func @division_and_shifts
// CHECK-NEXT:    %a = arith.constant -4 : i64
// CHECK-NEXT:    %b = arith.constant -3 : i64
// CHECK-NEXT:    %c = arith.constant -1 : i64
// CHECK-NEXT:    %d = arith.constant 0 : i64
// CHECK-NEXT:    %e = arith.constant -1 : i64
// CHECK-NEXT:    %f = arith.constant 0 : i64
// CHECK-NEXT:    func.return %a, %b, %c, %d, %e, %f

// -----

// Comparisons, booleans, chars, conversions.
func.func @compare_and_convert() -> (i1, i1, i1, i1, i1, f64, i64, i64) {
  %m1 = arith.constant -1 : i64
  %one = arith.constant 1 : i64
  %t = arith.constant true
  %f = arith.constant false
  %ca = arith.constant 97 : i32
  %cb = arith.constant 98 : i32
  %r = arith.constant -3.99 : f64
  %a = arith.cmpi slt, %m1, %one : i64
  %b = arith.cmpi ult, %m1, %one : i64
  %c = arith.andi %t, %f : i1
  %d = arith.xori %t, %t : i1
  %e = arith.cmpi slt, %ca, %cb : i32
  %g = arith.sitofp %m1 : i64 to f64
  %h = arith.fptosi %r : f64 to i64
  %s = arith.select %f, %one, %m1 : i64
  func.return %a, %b, %c, %d, %e, %g, %h, %s : i1, i1, i1, i1, i1, f64, i64, i64
}
// CHECK-LABEL: func.func @compare_and_convert
// CHECK-NEXT:    %m1 = arith.constant -1 : i64
// CHECK-NEXT:    %a = arith.constant true
// CHECK-NEXT:    %b = arith.constant false
// CHECK-NEXT:    %c = arith.constant false
// CHECK-NEXT:    %d = arith.constant false
// CHECK-NEXT:    %e = arith.constant true
// CHECK-NEXT:    %g = arith.constant -1.000000e+00 : f64
// CHECK-NEXT:    %h = arith.constant -3 : i64
// CHECK-NEXT:    func.return %a, %b, %c, %d, %e, %g, %h, %m1

// -----

// Reals fold as IEEE doubles: -0.0, infinities and NaN come out as at run time;
// NaN is unordered.
func.func @reals() -> (f64, f64, f64, f64, i1, i1, f64) {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %m1 = arith.constant -1.0 : f64
  %a = arith.negf %zero : f64
  %b = arith.divf %one, %zero : f64
  %c = arith.divf %zero, %zero : f64
  %d = math.sqrt %m1 : f64
  %e = arith.cmpf olt, %c, %one : f64
  %f = arith.cmpf une, %c, %c : f64
  %g = arith.mulf %zero, %m1 : f64
  func.return %a, %b, %c, %d, %e, %f, %g : f64, f64, f64, f64, i1, i1, f64
}
// CHECK-LABEL: func.func @reals
// CHECK-NEXT:    %a = arith.constant -0.000000e+00 : f64
// CHECK-NEXT:    %b = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:    %c = arith.constant 0x7ff8000000000000 : f64
// CHECK-NEXT:    %d = arith.constant 0x{{[7f]}}ff8000000000000 : f64
// CHECK-NEXT:    %e = arith.constant false
// CHECK-NEXT:    %f = arith.constant true
// CHECK-NEXT:    %g = arith.constant -0.000000e+00 : f64
// CHECK-NEXT:    func.return %a, %b, %c, %d, %e, %f, %g

// -----

// Not folded, because each fails at run time: division and remainder by zero, a
// shift by a negative count, trunc of NaN or of a real beyond the integer range, a
// negative integer power.
func.func @no_fold_faults() -> (i64, i64, i64, i64, i64, i64) {
  %zero = arith.constant 0 : i64
  %seven = arith.constant 7 : i64
  %m1 = arith.constant -1 : i64
  %nan = arith.constant 0x7FF8000000000000 : f64
  %big = arith.constant 1.0e19 : f64
  %a = arith.floordivsi %seven, %zero : i64
  %b = arith.remsi %seven, %zero : i64
  %c = arith.shli %seven, %m1 : i64
  %d = arith.fptosi %nan : f64 to i64
  %e = arith.fptosi %big : f64 to i64
  %f = math.ipowi %seven, %m1 : i64
  func.return %a, %b, %c, %d, %e, %f : i64, i64, i64, i64, i64, i64
}
// CHECK-LABEL: func.func @no_fold_faults
// CHECK:         %a = arith.floordivsi %seven, %zero
// CHECK-NEXT:    %b = arith.remsi %seven, %zero
// CHECK-NEXT:    %c = arith.shli %seven, %m1
// CHECK-NEXT:    %d = arith.fptosi %nan
// CHECK-NEXT:    %e = arith.fptosi %big
// CHECK-NEXT:    %f = math.ipowi %seven, %m1

// -----

// The Accelerate seed's algebraic simplifications on integers: x + 0 = 0 + x = x - 0
// = x, x * 1 = 1 * x = x / 1 = x, x * 0 = 0 * x = 0, and more.
func.func @int_identities(%x: i64, %b: i1) -> (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i1, i1, i1) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %m1 = arith.constant -1 : i64
  %t = arith.constant true
  %f = arith.constant false
  %a = arith.addi %x, %zero : i64
  %c = arith.subi %x, %zero : i64
  %d = arith.muli %one, %x : i64
  %e = arith.floordivsi %x, %one : i64
  %g = arith.muli %x, %zero : i64
  %h = arith.subi %x, %x : i64
  %i = arith.andi %x, %m1 : i64
  %j = arith.ori %x, %x : i64
  %k = arith.xori %x, %x : i64
  %l = arith.remsi %x, %one : i64
  %m = arith.andi %b, %t : i1
  %n = arith.ori %b, %f : i1
  %o = arith.cmpi sle, %x, %x : i64
  func.return %a, %c, %d, %e, %g, %h, %i, %j, %k, %l, %m, %n, %o : i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i1, i1, i1
}
// CHECK-LABEL: func.func @int_identities
// CHECK-NEXT:    %g = arith.constant 0 : i64
// CHECK-NEXT:    %h = arith.constant 0 : i64
// CHECK-NEXT:    %k = arith.constant 0 : i64
// CHECK-NEXT:    %l = arith.constant 0 : i64
// CHECK-NEXT:    %o = arith.constant true
// CHECK-NEXT:    func.return %x, %x, %x, %x, %g, %h, %x, %x, %k, %l, %b, %b, %o

// -----

// On reals, only identities that hold for every double: 1.0 * x, x / 1.0,
// -0.0 + x, x - 0.0. Not x + 0.0 (wrong for x = -0.0) nor x * 0.0 (wrong for NaN,
// infinities and negative x); constants go to the front of + and *.
func.func @real_identities(%x: f64) -> (f64, f64, f64, f64, f64, f64, f64) {
  %zero = arith.constant 0.0 : f64
  %nzero = arith.constant -0.0 : f64
  %one = arith.constant 1.0 : f64
  %a = arith.mulf %x, %one : f64
  %b = arith.divf %x, %one : f64
  %c = arith.addf %x, %nzero : f64
  %d = arith.subf %x, %zero : f64
  %e = arith.addf %x, %zero : f64
  %f = arith.mulf %x, %zero : f64
  %n = arith.negf %x : f64
  %g = arith.negf %n : f64
  func.return %a, %b, %c, %d, %e, %f, %g : f64, f64, f64, f64, f64, f64, f64
}
// CHECK-LABEL: func.func @real_identities
// CHECK-NEXT:    %zero = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %e = arith.addf %zero, %x : f64
// CHECK-NEXT:    %f = arith.mulf %zero, %x : f64
// CHECK-NEXT:    func.return %x, %x, %x, %x, %e, %f, %x

// -----

// Reassociation of integer + * & | ^: constants go to the front of commutative
// operators and combine, and a constant moves out of a single-use operand.
func.func @reassociate(%x: i64, %y: i64) -> (i64, i64, i64) {
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  %a = arith.muli %x, %two : i64
  %b = arith.muli %a, %three : i64
  %c = arith.addi %x, %two : i64
  %d = arith.addi %c, %y : i64
  %e = arith.addi %d, %three : i64
  %f = arith.xori %x, %two : i64
  %g = arith.xori %f, %two : i64
  func.return %b, %e, %g : i64, i64, i64
}
// CHECK-LABEL: func.func @reassociate
// CHECK-DAG:     [[SIX:%.*]] = arith.constant 6 : i64
// CHECK-DAG:     [[B:%.*]] = arith.muli [[SIX]], %x : i64
// CHECK-DAG:     [[FIVE:%.*]] = arith.constant 5 : i64
// CHECK-DAG:     [[XY:%.*]] = arith.addi %x, %y : i64
// CHECK-DAG:     [[E:%.*]] = arith.addi [[FIVE]], [[XY]] : i64
// CHECK:         func.return [[B]], [[E]], %x

// -----

// Subtraction: x - c is (-c) + x, so it reassociates with additions; c1 - (c2 + x)
// is (c1 - c2) - x; -(-x) is x.
func.func @subtraction(%x: i64) -> (i64, i64, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %ten = arith.constant 10 : i64
  %a = arith.subi %x, %one : i64
  %b = arith.addi %a, %ten : i64
  %c = arith.subi %ten, %a : i64
  %n = arith.subi %zero, %x : i64
  %d = arith.subi %zero, %n : i64
  func.return %b, %c, %d : i64, i64, i64
}
// CHECK-LABEL: func.func @subtraction
// CHECK-DAG:     [[NINE:%.*]] = arith.constant 9 : i64
// CHECK-DAG:     [[B:%.*]] = arith.addi [[NINE]], %x : i64
// CHECK-DAG:     [[ELEVEN:%.*]] = arith.constant 11 : i64
// CHECK-DAG:     [[C:%.*]] = arith.subi [[ELEVEN]], %x : i64
// CHECK:         func.return [[B]], [[C]], %x

// -----

// Reals are not reassociated: (x + 1.0) + 2.0 is not x + 3.0 in floating point.
func.func @no_real_reassociation(%x: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %a = arith.addf %x, %one : f64
  %b = arith.addf %a, %two : f64
  func.return %b : f64
}
// CHECK-LABEL: func.func @no_real_reassociation
// CHECK:         %a = arith.addf %one, %x : f64
// CHECK-NEXT:    %b = arith.addf %two, %a : f64

// -----

// `not (a < b)` is `a >= b`; for reals the unordered opposite, exact with NaN.
// select on a constant, on equal values, and on true/false.
func.func @negation_and_select(%x: i64, %y: i64, %u: f64, %v: f64, %c: i1) -> (i1, i1, i64, i1, i1) {
  %t = arith.constant true
  %f = arith.constant false
  %lt = arith.cmpi slt, %x, %y : i64
  %a = arith.xori %lt, %t : i1
  %flt = arith.cmpf olt, %u, %v : f64
  %b = arith.xori %t, %flt : i1
  %s = arith.select %c, %x, %x : i64
  %d = arith.select %c, %t, %f : i1
  %e = arith.select %c, %f, %t : i1
  func.return %a, %b, %s, %d, %e : i1, i1, i64, i1, i1
}
// CHECK-LABEL: func.func @negation_and_select
// CHECK-DAG:     [[A:%.*]] = arith.cmpi sge, %x, %y : i64
// CHECK-DAG:     [[B:%.*]] = arith.cmpf uge, %u, %v : f64
// CHECK-DAG:     [[E:%.*]] = arith.xori %{{.*}}, %c : i1
// CHECK:         func.return [[A]], [[B]], %x, %c, [[E]]

// -----

// -0.0 - x is -x for every double; 0.0 - x is not (it is 0.0, not -0.0, for x = 0.0).
func.func @real_negation(%x: f64) -> (f64, f64) {
  %nz = arith.constant -0.0 : f64
  %z = arith.constant 0.0 : f64
  %a = arith.subf %nz, %x : f64
  %b = arith.subf %z, %x : f64
  func.return %a, %b : f64, f64
}
// CHECK-LABEL: func.func @real_negation
// CHECK:         %a = arith.negf %x : f64
// CHECK-NEXT:    %b = arith.subf %z, %x : f64

// -----

// Types l0 does not use (f32 here) are left alone.
func.func @other_types() -> f32 {
  %a = arith.constant 1.5 : f32
  %b = arith.constant 2.5 : f32
  %c = arith.addf %a, %b : f32
  func.return %c : f32
}
// CHECK-LABEL: func.func @other_types
// CHECK:         %c = arith.addf %a, %b : f32
