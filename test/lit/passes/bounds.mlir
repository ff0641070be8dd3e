// RUN: l0-opt %s -p bounds,verify-uniqueness --split-input-file | filecheck %s

// `a[i]` over `iota(size(0, a))` needs no check: 0 <= i <= size(0, a) - 1.
func.func @prove_iota_of_size(%a: tensor<?xi64>) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %n = soac.size(0) %a : tensor<?xi64>
  %is = soac.iota %n
  %r = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xi64> {
    %s = soac.size(0) %a : tensor<?xi64>
    %lo = arith.cmpi sle, %zero, %i : i64
    %hi = arith.cmpi slt, %i, %s : i64
    %ok = arith.andi %lo, %hi : i1
    %c = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%i, %s : i64, i64) at "t.l0:1:1"
    %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @prove_iota_of_size
// CHECK-NOT:     soac.assert
// CHECK:         soac.map
// CHECK-NEXT:      [[C:%.*]] = soac.checked
// CHECK-NEXT:      soac.index %a[%i] <[[C]]>

// -----

// The thesis's example (6.1): `a[i] + a[2*i]` over `iota(n)` checks once, before the
// map, that n <= size(0, a) and that n <= (size(0, a) - 1) / 2 + 1 (2*(n-1) < size),
// each check reporting the index and size of the iteration where it would first fail,
// unless the other fails earlier. `0 <= i` and `0 <= 2*i` are proved.
func.func @hoist_affine_checks(%a: tensor<?xi64>, %n: i64, %is: tensor<?xi64>) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %two = arith.constant 2 : i64
  %in = soac.iota %n
  %r = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %s = soac.size(0) %a : tensor<?xi64>
    %lo = arith.cmpi sle, %zero, %i : i64
    %hi = arith.cmpi slt, %i, %s : i64
    %ok = arith.andi %lo, %hi : i1
    %c = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%i, %s : i64, i64) at "t.l0:1:25"
    %x = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
    %j = arith.muli %two, %i : i64
    %lo2 = arith.cmpi sle, %zero, %j : i64
    %hi2 = arith.cmpi slt, %j, %s : i64
    %ok2 = arith.andi %lo2, %hi2 : i1
    %c2 = soac.assert %ok2, "index {0} out of bounds for array of size {1}" (%j, %s : i64, i64) at "t.l0:1:32"
    %y = soac.index %a[%j] <%c2> : tensor<?xi64> -> i64
    %z = arith.addi %x, %y : i64
    soac.yield %z : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @hoist_affine_checks
// CHECK:         [[S:%.*]] = soac.size(0) %a
// CHECK-NEXT:    [[OK1:%.*]] = arith.cmpi sle, %n, [[S]] : i64
// CHECK-NEXT:    [[ONE:%.*]] = arith.constant 1 : i64
// CHECK-NEXT:    [[S1:%.*]] = arith.subi [[S]], [[ONE]] : i64
// CHECK-NEXT:    [[TWO:%.*]] = arith.constant 2 : i64
// CHECK-NEXT:    [[H:%.*]] = arith.floordivsi [[S1]], [[TWO]] : i64
// CHECK-NEXT:    [[T2:%.*]] = arith.addi [[H]], [[ONE]] : i64
// CHECK-NEXT:    [[OK2:%.*]] = arith.cmpi sle, %n, [[T2]] : i64
// CHECK-NEXT:    [[B1:%.*]] = arith.cmpi slt, [[T2]], [[S]] : i64
// CHECK-NEXT:    [[G1:%.*]] = arith.ori [[OK1]], [[B1]] : i1
// CHECK-NEXT:    [[C1:%.*]] = soac.assert [[G1]], "index {0} out of bounds for array of size {1}" ([[S]], [[S]] : i64, i64) at "t.l0:1:25"
// CHECK-NEXT:    [[B2:%.*]] = arith.cmpi sle, [[S]], [[T2]] : i64
// CHECK-NEXT:    [[G2:%.*]] = arith.ori [[OK2]], [[B2]] : i1
// CHECK-NEXT:    [[J:%.*]] = arith.muli [[TWO]], [[T2]] : i64
// CHECK-NEXT:    [[C2:%.*]] = soac.assert [[G2]], "index {0} out of bounds for array of size {1}" ([[J]], [[S]] : i64, i64) at "t.l0:1:32"
// CHECK-NEXT:    soac.map
// CHECK-NOT:       soac.assert
// CHECK:           soac.index %a[%i] <[[C1]]>
// CHECK:           soac.index %a[%j] <[[C2]]>

// -----

// An `scf.for` reading one element too far (test/programs/runtime/index_loop.l0): the
// check moves before the loop, reporting the index of the first failing iteration.
func.func @hoist_from_loop(%a: tensor<?xi64>) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %n = soac.size(0) %a : tensor<?xi64>
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %j = arith.addi %i, %one : i64
    %s = soac.size(0) %a : tensor<?xi64>
    %lo = arith.cmpi sle, %zero, %j : i64
    %hi = arith.cmpi slt, %j, %s : i64
    %ok = arith.andi %lo, %hi : i1
    %c = soac.assert %ok, "index {0} out of bounds for array of size {1}" (%j, %s : i64, i64) at "t.l0:5:9"
    %x = soac.index %a[%j] <%c> : tensor<?xi64> -> i64
    %t = arith.addi %acc, %x : i64
    scf.yield %t : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @hoist_from_loop
// CHECK:         %n = soac.size(0) %a
// CHECK:         [[S:%.*]] = soac.size(0) %a
// CHECK:         [[F:%.*]] = arith.subi [[S]], {{%.*}} : i64
// CHECK:         [[T:%.*]] = arith.maxsi [[F]], {{%.*}} : i64
// CHECK-NEXT:    [[OK:%.*]] = arith.cmpi sle, %n, [[T]] : i64
// CHECK-NEXT:    [[J:%.*]] = arith.addi [[T]], {{%.*}} : i64
// CHECK-NEXT:    [[C:%.*]] = soac.assert [[OK]], "index {0} out of bounds for array of size {1}" ([[J]], [[S]] : i64, i64)
// CHECK-NEXT:    scf.for
// CHECK-NOT:       soac.assert
// CHECK:           soac.index %a[%j] <[[C]]>

// -----

// Thesis 6.1: the zip check of `map(op+, zip(r, b))` for a row r of a compares
// size(1, a) with size(0, b): it leaves the outer map (guarded by the map running).
func.func @hoist_zip_check(%a: tensor<?x?xi64>, %b: tensor<?xi64>) -> tensor<?x?xi64> {
  %r = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %m = soac.size(0) %row : tensor<?xi64>
    %k = soac.size(0) %b : tensor<?xi64>
    %ok = arith.cmpi eq, %m, %k : i64
    %c = soac.assert %ok, "arrays given to zip have different sizes: {0}, {1}" (%m, %k : i64, i64) at "t.l0:2:38"
    %s = soac.map(%x = %row, %y = %b : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %x, %y : i64
      soac.yield %z : i64
    }
    soac.yield %s : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @hoist_zip_check
// CHECK-NEXT:    [[N:%.*]] = soac.size(0) %a : tensor<?x?xi64>
// CHECK-NEXT:    [[M:%.*]] = soac.size(1) %a : tensor<?x?xi64>
// CHECK-NEXT:    [[K:%.*]] = soac.size(0) %b : tensor<?xi64>
// CHECK-NEXT:    [[EQ:%.*]] = arith.cmpi eq, [[M]], [[K]] : i64
// CHECK-NEXT:    [[Z:%.*]] = arith.constant 0 : i64
// CHECK-NEXT:    [[E:%.*]] = arith.cmpi sle, [[N]], [[Z]] : i64
// CHECK-NEXT:    [[G:%.*]] = arith.ori [[EQ]], [[E]] : i1
// CHECK-NEXT:    [[C:%.*]] = soac.assert [[G]], "arrays given to zip have different sizes: {0}, {1}" ([[M]], [[K]] : i64, i64)
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      soac.map({{.*}}) <[[C]]>

// -----

// Note [Overflow]: `i + k` for an arbitrary int k may wrap, so `i + k < size(0, a)` is
// neither proved nor moved (`0 <= i` is proved all the same).
func.func @no_hoist_opaque_offset(%a: tensor<?xi64>, %n: i64, %k: i64) -> tensor<?xi64> {
  %in = soac.iota %n
  %r = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %j = arith.addi %i, %k : i64
    %s = soac.size(0) %a : tensor<?xi64>
    %hi = arith.cmpi slt, %j, %s : i64
    %c = soac.assert %hi, "index {0} out of bounds" (%j : i64) at "t.l0:1:1"
    %e = soac.index %a[%j] <%c> : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_hoist_opaque_offset
// CHECK-NEXT:    soac.iota
// CHECK-NEXT:    soac.map
// CHECK:           soac.assert

// -----

// Note [Exact first failure]: a division by an arbitrary value in the body could fail
// before the check does, so the check stays; what can be proved (`0 <= i`) goes.
func.func @no_hoist_past_division(%a: tensor<?xi64>, %n: i64, %d: i64) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %in = soac.iota %n
  %r = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %q = arith.floordivsi %i, %d : i64
    %s = soac.size(0) %a : tensor<?xi64>
    %lo = arith.cmpi sle, %zero, %i : i64
    %hi = arith.cmpi slt, %i, %s : i64
    %ok = arith.andi %lo, %hi : i1
    %c = soac.assert %ok, "index {0} out of bounds" (%i : i64) at "t.l0:1:1"
    %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
    %t = arith.addi %e, %q : i64
    soac.yield %t : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_hoist_past_division
// CHECK:         soac.map
// CHECK:           [[HI:%.*]] = arith.cmpi slt, %i, %s : i64
// CHECK-NEXT:      soac.assert [[HI]], "index {0} out of bounds" (%i : i64)

// -----

// A check on the accumulator of a reduce depends on more than the iteration: it stays.
func.func @no_hoist_accumulator(%a: tensor<?xi64>, %n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %in = soac.iota %n
  %r = soac.reduce(%acc = %zero : i64) over(%i = %in : tensor<?xi64>) {
    %s = soac.size(0) %a : tensor<?xi64>
    %hi = arith.cmpi slt, %acc, %s : i64
    %c = soac.assert %hi, "index {0} out of bounds" (%acc : i64) at "t.l0:1:1"
    %e = soac.index %a[%acc] <%c> : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @no_hoist_accumulator
// CHECK:         soac.reduce
// CHECK:           soac.assert

// -----

// Note [Witnesses]: the merge value has the size of `%b`, which has the size of `%a`;
// `%a` is consumed by then, so the check before the loop reads the size of `%b`.
func.func @size_of_updated(%a: tensor<?xi64> {soac.unique}, %n: i64) -> (tensor<?xi64> {soac.unique}) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.update %a[%zero] = %one : tensor<?xi64>
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %b) -> (tensor<?xi64>) : i64 {
    %s = soac.size(0) %acc : tensor<?xi64>
    %hi = arith.cmpi slt, %i, %s : i64
    %c = soac.assert %hi, "index {0} out of bounds" (%i : i64) at "t.l0:1:1"
    %u = soac.update %acc[%i] = %i <%c> : tensor<?xi64>
    scf.yield %u : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @size_of_updated
// CHECK:         %b = soac.update %a
// CHECK-NEXT:    [[S:%.*]] = soac.size(0) %b : tensor<?xi64>
// CHECK-NEXT:    [[OK:%.*]] = arith.cmpi sle, %n, [[S]] : i64
// CHECK-NEXT:    [[C:%.*]] = soac.assert [[OK]], "index {0} out of bounds" ([[S]] : i64)
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      soac.update %acc[%i] = %i <[[C]]>
