// RUN: l0-opt %s -p dce,verify-uniqueness --split-input-file | filecheck %s

// Thesis 5.3: a binding none of whose names is used is removed; its operands may
// then be dead too. The check stays: it may fail (docs/reference.md §5), even though the
// index it guards is gone.
func.func @dead_chain(%a: tensor<?xi64>, %i: i64) -> i64 {
  %n = soac.size(0) %a : tensor<?xi64>
  %ok = arith.cmpi slt, %i, %n : i64
  %c = soac.assert %ok, "index out of bounds" at "t.l0:1:1"
  %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
  %f = arith.addi %e, %e : i64
  %g = arith.muli %f, %i : i64
  func.return %i : i64
}
// CHECK-LABEL: func.func @dead_chain
// CHECK-NEXT:    %n = soac.size(0) %a
// CHECK-NEXT:    %ok = arith.cmpi slt, %i, %n
// CHECK-NEXT:    %c = soac.assert %ok
// CHECK-NEXT:    func.return %i

// -----

// A trace prints, so it stays when its result is unused.
func.func @keep_trace(%x: i64) -> i64 {
  %t = soac.trace(%x : i64) at "t.l0:1:1"
  func.return %x : i64
}
// CHECK-LABEL: func.func @keep_trace
// CHECK-NEXT:    soac.trace

// -----

// A SOAC whose lambda is pure goes when unused; one whose lambda checks something
// stays, and so does a map that may build an irregular array (its rows are iotas
// of different lengths), which fails at run time.
func.func @soacs(%a: tensor<?xi64>, %m: i64) -> i64 {
  %pure = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %sum = soac.reduce(%acc = %m : i64) over(%x = %a : tensor<?xi64>) {
    %y = arith.addi %acc, %x : i64
    soac.yield %y : i64
  }
  %checked = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %ok = arith.cmpi slt, %x, %m : i64
    %c = soac.assert %ok, "too big" at "t.l0:3:1"
    soac.yield %x : i64
  }
  %irregular = soac.map(%x = %a : tensor<?xi64>) -> tensor<?x?xi64> {
    %r = soac.iota %x
    soac.yield %r : tensor<?xi64>
  }
  %regular = soac.map(%x = %a : tensor<?xi64>) -> tensor<?x?xi64> {
    soac.yield %a : tensor<?xi64>
  }
  func.return %m : i64
}
// CHECK-LABEL: func.func @soacs
// CHECK-NEXT:    %checked = soac.map
// CHECK:         %irregular = soac.map
// CHECK-NOT:     soac.map
// CHECK-NOT:     soac.reduce
// CHECK:         func.return %m

// -----

// Integer faults the interpreter reports without an assert: a shift by a count not
// known to be non-negative, trunc of a real not known to be in range, division by a
// divisor not known to be non-zero. Safe constants make them removable.
func.func @faults(%x: i64, %k: i64, %r: f64) -> i64 {
  %two = arith.constant 2 : i64
  %big = arith.constant 1.0e300 : f64
  %half = arith.constant 2.5 : f64
  %s1 = arith.shli %x, %k : i64
  %s2 = arith.shli %x, %two : i64
  %t1 = arith.fptosi %r : f64 to i64
  %t2 = arith.fptosi %big : f64 to i64
  %t3 = arith.fptosi %half : f64 to i64
  %d1 = arith.floordivsi %x, %k : i64
  %d2 = arith.floordivsi %x, %two : i64
  %p1 = math.ipowi %x, %k : i64
  %p2 = math.ipowi %x, %two : i64
  func.return %x : i64
}
// CHECK-LABEL: func.func @faults
// CHECK:         %s1 = arith.shli %x, %k
// CHECK-NEXT:    %t1 = arith.fptosi %r
// CHECK-NEXT:    %t2 = arith.fptosi %big
// CHECK-NEXT:    %d1 = arith.floordivsi %x, %k
// CHECK-NEXT:    %p1 = math.ipowi %x, %k
// CHECK-NEXT:    func.return %x

// -----

// Array literals: of scalars, or of rows known to have one shape, they go; of rows
// that may differ in shape, they stay (an irregular array fails at run time).
func.func @literals(%a: tensor<?xi64>, %b: tensor<?xi64>, %x: i64) -> i64 {
  %l1 = soac.array [%x, %x] : tensor<?xi64>
  %l2 = soac.array [%a, %a] : tensor<?x?xi64>
  %r1 = soac.array [%x, %x] : tensor<?xi64>
  %r2 = soac.array [%x, %x] : tensor<?xi64>
  %l3 = soac.array [%r1, %r2] : tensor<?x?xi64>
  %l4 = soac.array [%a, %b] at "t.l0:4:4" : tensor<?x?xi64>
  func.return %x : i64
}
// CHECK-LABEL: func.func @literals
// CHECK-NEXT:    %l4 = soac.array [%a, %b]
// CHECK-NEXT:    func.return %x

// -----

// A call of a function with a check has an effect; a call of a pure function, even a
// recursive one, does not.
func.func @checks(%x: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi sle, %zero, %x : i64
  %c = soac.assert %ok, "negative" at "t.l0:5:5"
  func.return %x : i64
}
func.func @calls_checks(%x: i64) -> i64 {
  %y = func.call @checks(%x) : (i64) -> i64
  func.return %y : i64
}
func.func @pure_rec(%x: i64) -> i64 {
  %y = func.call @pure_rec(%x) : (i64) -> i64
  func.return %y : i64
}
func.func @main(%x: i64) -> i64 {
  %a = func.call @calls_checks(%x) : (i64) -> i64
  %b = func.call @pure_rec(%x) : (i64) -> i64
  func.return %x : i64
}
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %a = func.call @calls_checks(%x)
// CHECK-NEXT:    func.return %x

// -----

// Loops and branches go when their results are unused and their bodies are pure;
// with a check inside, they stay.
func.func @regions(%n: i64, %c: i1) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %pure = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %s = arith.addi %acc, %i : i64
    scf.yield %s : i64
  }
  %impure = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %ok = arith.cmpi slt, %acc, %n : i64
    %k = soac.assert %ok, "too big" at "t.l0:6:6"
    %s = arith.addi %acc, %i : i64
    scf.yield %s : i64
  }
  %branch = scf.if %c -> (i64) {
    scf.yield %one : i64
  } else {
    scf.yield %zero : i64
  }
  func.return %n : i64
}
// CHECK-LABEL: func.func @regions
// CHECK-NOT:     %pure
// CHECK:         %impure = scf.for
// CHECK:           soac.assert
// CHECK-NOT:     scf.if
// CHECK:         func.return %n

// -----

// Dead code inside lambdas and loop bodies goes too.
func.func @nested(%a: tensor<?xi64>) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %dead = arith.muli %x, %x : i64
    soac.yield %x : i64
  }
  func.return %b : tensor<?xi64>
}
// CHECK-LABEL: func.func @nested
// CHECK-NEXT:    %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      soac.yield %x : i64

// -----

// A division by a size plus a positive constant cannot fail (the divisor is at least
// 1): unused, it goes. By a size alone (possibly 0) it stays.
func.func @divisor_size_plus_one(%a: tensor<?xi64>, %x: i64) {
  %one = arith.constant 1 : i64
  %n = soac.size(0) %a : tensor<?xi64>
  %w = arith.addi %n, %one : i64
  %q = arith.remsi %x, %w : i64
  %r = arith.floordivsi %x, %n : i64
  func.return
}
// CHECK-LABEL: func.func @divisor_size_plus_one
// CHECK-NOT:     arith.remsi
// CHECK:         arith.floordivsi %x, %n
