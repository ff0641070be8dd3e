// RUN: l0-opt %s -p inline-map-index,verify-uniqueness --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'inline-map-index{max-ops=1}' --split-input-file | filecheck %s --check-prefix=SMALL

// Thesis 9.2: in `let b = map(f, a) in reduce(min, b[0], b)`, b[0] becomes f(a[0]), so
// that b has one use left, the reduce it can fuse with. The bounds check of b[0] guards
// a[0] (the sizes are equal).
func.func @thesis_example(%a: tensor<?xi64>, %c: !soac.cert) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %first = soac.index %b[%zero] <%c> : tensor<?xi64> -> i64
  %m = soac.reduce(%acc = %first : i64) over(%x = %b : tensor<?xi64>) {
    %lt = arith.cmpi slt, %acc, %x : i64
    %r = arith.select %lt, %acc, %x : i64
    soac.yield %r : i64
  }
  func.return %m : i64
}
// CHECK-LABEL: func.func @thesis_example
// CHECK: [[ROW:%.*]] = soac.index %a[%zero] <%c> : tensor<?xi64> -> i64
// CHECK-NEXT: [[FIRST:%.*]] = arith.addi [[ROW]], %one : i64
// CHECK-NOT: soac.index
// CHECK: soac.reduce(%{{.*}} = [[FIRST]] : i64) over(%{{.*}} = %b : tensor<?xi64>)
// SMALL-LABEL: func.func @thesis_example
// SMALL: soac.index %a[%zero]

// -----

// Every input is indexed, under the certificates of the indexing and of the map (the
// zip check that makes the inputs' sizes equal).
func.func @zipped_inputs(%a: tensor<?xi64>, %d: tensor<?xf64>, %z: !soac.cert, %i: i64, %c: !soac.cert) -> f64 {
  %b = soac.map(%x = %a, %y = %d : tensor<?xi64>, tensor<?xf64>) <%z> -> tensor<?xf64> {
    %xf = arith.sitofp %x : i64 to f64
    %s = arith.mulf %xf, %y : f64
    soac.yield %s : f64
  }
  %e = soac.index %b[%i] <%c> : tensor<?xf64> -> f64
  func.return %e : f64
}
// CHECK-LABEL: func.func @zipped_inputs
// CHECK: [[X:%.*]] = soac.index %a[%i] <%c, %z> : tensor<?xi64> -> i64
// CHECK: [[Y:%.*]] = soac.index %d[%i] <%c, %z> : tensor<?xf64> -> f64
// CHECK: [[XF:%.*]] = arith.sitofp [[X]] : i64 to f64
// CHECK: [[E:%.*]] = arith.mulf [[XF]], [[Y]] : f64
// CHECK: func.return [[E]] : f64
// SMALL-LABEL: func.func @zipped_inputs
// SMALL: soac.index %b[%i]

// -----

// b[i, j] of a map yielding rows: the row is recomputed from a[i], then indexed by j.
func.func @element_of_row(%a: tensor<?x?xi64>, %i: i64, %j: i64) -> i64 {
  %b = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    soac.yield %row : tensor<?xi64>
  }
  %e = soac.index %b[%i, %j] : tensor<?x?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @element_of_row
// CHECK: [[ROW:%.*]] = soac.index %a[%i] : tensor<?x?xi64> -> tensor<?xi64>
// CHECK: [[E:%.*]] = soac.index [[ROW]][%j] : tensor<?xi64> -> i64
// CHECK: func.return [[E]] : i64

// -----

// An indexing of a map of a map becomes the composition of both lambdas.
func.func @map_of_map(%a: tensor<?xi64>, %i: i64) -> i64 {
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %e = soac.index %c[%i] : tensor<?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @map_of_map
// CHECK: [[X:%.*]] = soac.index %a[%i] : tensor<?xi64> -> i64
// CHECK-NEXT: [[Y:%.*]] = arith.addi [[X]], %one : i64
// CHECK-NEXT: [[E:%.*]] = arith.muli [[Y]], [[Y]] : i64
// CHECK-NEXT: func.return [[E]] : i64

// -----

// A lambda with a branch is cheap too (constant time); the branch is recomputed whole.
func.func @lambda_with_if(%a: tensor<?xi64>, %i: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %neg = arith.cmpi slt, %x, %zero : i64
    %y = scf.if %neg -> (i64) {
      %m = arith.subi %zero, %x : i64
      scf.yield %m : i64
    } else {
      scf.yield %x : i64
    }
    soac.yield %y : i64
  }
  %e = soac.index %b[%i] : tensor<?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @lambda_with_if
// CHECK: [[X:%.*]] = soac.index %a[%i] : tensor<?xi64> -> i64
// CHECK-NEXT: [[NEG:%.*]] = arith.cmpi slt, [[X]], %zero : i64
// CHECK-NEXT: [[Y:%.*]] = scf.if [[NEG]] -> (i64) {
// CHECK-NEXT: arith.subi %zero, [[X]] : i64
// CHECK: } else {
// CHECK-NEXT: scf.yield [[X]] : i64
// CHECK: func.return [[Y]] : i64

// -----

// A branch of an if runs at most once: inlining there is fine.
func.func @inside_if(%a: tensor<?xi64>, %p: i1, %i: i64) -> i64 {
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %r = scf.if %p -> (i64) {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    scf.yield %e : i64
  } else {
    scf.yield %one : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @inside_if
// CHECK: scf.if
// CHECK-NEXT: [[X:%.*]] = soac.index %a[%i] : tensor<?xi64> -> i64
// CHECK-NEXT: [[E:%.*]] = arith.addi [[X]], %one : i64
// CHECK-NEXT: scf.yield [[E]] : i64

// -----

// Inside a loop the recomputation would run once per iteration.
func.func @no_inside_loop(%a: tensor<?xi64>, %n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %s = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    %t = arith.addi %acc, %e : i64
    scf.yield %t : i64
  }
  func.return %s : i64
}
// CHECK-LABEL: func.func @no_inside_loop
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// Inside another SOAC's lambda the recomputation would run once per row.
func.func @no_inside_lambda(%a: tensor<?xi64>, %is: tensor<?xi64>) -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %c = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xi64> {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %c : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_inside_lambda
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// A lambda with a SOAC inside is not cheap.
func.func @no_expensive_lambda(%a: tensor<?x?xi64>, %i: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %b = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?xi64> {
    %s = soac.reduce(%acc = %zero : i64) over(%x = %row : tensor<?xi64>) {
      %t = arith.addi %acc, %x : i64
      soac.yield %t : i64
    }
    soac.yield %s : i64
  }
  %e = soac.index %b[%i] : tensor<?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @no_expensive_lambda
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// Tracing is an effect the user sees: recomputing it would print twice.
func.func @no_trace(%a: tensor<?xi64>, %i: i64) -> i64 {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = soac.trace(%x : i64) at "t.l0:1:1-1:9"
    soac.yield %y : i64
  }
  %e = soac.index %b[%i] : tensor<?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @no_trace
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// A row of the output is left alone: recomputed, it would alias the input instead.
func.func @no_row(%a: tensor<?x?xi64>, %i: i64) -> tensor<?xi64> {
  %b = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    soac.yield %row : tensor<?xi64>
  }
  %r = soac.index %b[%i] : tensor<?x?xi64> -> tensor<?xi64>
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_row
// CHECK: soac.index %b[%i] : tensor<?x?xi64> -> tensor<?xi64>

// -----

// The update consumes `p` before the indexing: `p[i]` there would read a consumed array.
func.func @no_consumed_input(%p: tensor<?xi64> {soac.unique}, %i: i64) -> (tensor<?xi64> {soac.unique}, i64) {
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %p : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %u = soac.update %p[%i] = %one : tensor<?xi64>
  %e = soac.index %b[%i] : tensor<?xi64> -> i64
  func.return %u, %e : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @no_consumed_input
// CHECK: soac.update
// CHECK-NEXT: soac.index %b[%i] : tensor<?xi64> -> i64
