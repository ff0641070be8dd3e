// RUN: l0-opt %s -p simplify,verify-uniqueness --split-input-file | filecheck %s

// `size` folded through the op that built the array.
func.func @sizes(%n: i64, %a: tensor<?xi64>, %m: tensor<?x?xi64>, %x: i64, %i: i64,
                 %c: !soac.cert) -> (i64, i64, i64, i64, i64, i64, i64) {
  %three = arith.constant 3 : i64
  %r = soac.replicate %three, %a : tensor<?xi64>
  %s1 = soac.size(1) %r : tensor<?x?xi64>
  %mp = soac.map(%e = %a : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %e : i64
  }
  %s2 = soac.size(0) %mp : tensor<?xi64>
  %em = soac.empty : tensor<?x?xi64>
  %s3 = soac.size(1) %em : tensor<?x?xi64>
  %row = soac.index %m[%i] <%c> : tensor<?x?xi64> -> tensor<?xi64>
  %s4 = soac.size(0) %row : tensor<?xi64>
  %cp = soac.copy %m : tensor<?x?xi64>
  %s5 = soac.size(1) %cp : tensor<?x?xi64>
  %l = soac.array [%a, %a] : tensor<?x?xi64>
  %s6 = soac.size(1) %l : tensor<?x?xi64>
  %rs = soac.reshape (%three, %n) %a : tensor<?xi64> -> tensor<?x?xi64>
  %s7 = soac.size(1) %rs : tensor<?x?xi64>
  func.return %s1, %s2, %s3, %s4, %s5, %s6, %s7 : i64, i64, i64, i64, i64, i64, i64
}
// CHECK-LABEL: func.func @sizes
// CHECK-DAG:     [[A0:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK-DAG:     [[Z:%.*]] = arith.constant 0 : i64
// CHECK-DAG:     [[M1:%.*]] = soac.size(1) %m : tensor<?x?xi64>
// CHECK:         func.return [[A0]], {{%.*}}, [[Z]], [[M1]], {{%.*}}, {{%.*}}, %n

// -----

// Note [Sizes of empty arrays]: an inner size is not folded where the array may be
// empty, since the size of an empty array's inner dimensions is 0 whatever its
// source's are: replicate of an unknown count, transpose, map, filter.
func.func @no_inner_sizes(%n: i64, %a: tensor<?xi64>, %m: tensor<?x?xi64>) -> (i64, i64, i64) {
  %r = soac.replicate %n, %a : tensor<?xi64>
  %s1 = soac.size(1) %r : tensor<?x?xi64>
  %t = soac.transpose(0, 1) %m : tensor<?x?xi64>
  %s2 = soac.size(0) %t : tensor<?x?xi64>
  %f = soac.filter(%row = %m : tensor<?x?xi64>) {
    %p = arith.constant true
    soac.yield %p : i1
  }
  %s3 = soac.size(1) %f : tensor<?x?xi64>
  func.return %s1, %s2, %s3 : i64, i64, i64
}
// CHECK-LABEL: func.func @no_inner_sizes
// CHECK:         %s1 = soac.size(1) %r
// CHECK:         %s2 = soac.size(0) %t
// CHECK:         %s3 = soac.size(1) %f

// -----

// Note [Using an array again]: the size of a copy is not taken from the original
// when the original is consumed (here by a let-with) and may have changed; the size
// of an iota is its count whatever happens to the array.
func.func @no_size_of_consumed(%a: tensor<?xi64> {soac.unique}, %n: i64, %v: i64) -> (tensor<?xi64>, i64, i64) {
  %zero = arith.constant 0 : i64
  %cp = soac.copy %a : tensor<?xi64>
  %b = soac.update %a[%zero] = %v : tensor<?xi64>
  %s = soac.size(0) %cp : tensor<?xi64>
  %io = soac.iota %n
  %u = soac.update %io[%zero] = %v : tensor<?xi64>
  %t = soac.size(0) %u : tensor<?xi64>
  func.return %b, %s, %t : tensor<?xi64>, i64, i64
}
// CHECK-LABEL: func.func @no_size_of_consumed
// CHECK:         %s = soac.size(0) %cp
// CHECK:         func.return %b, %s, %n

// -----

// The size of a loop's merge value that the body only updates in place is the size
// of its initial value.
func.func @loop_keeps_shape(%n: i64, %v: i64) -> (tensor<?xi64>, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %a = soac.iota %n
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %a) -> (tensor<?xi64>) : i64 {
    %s = soac.size(0) %acc : tensor<?xi64>
    %u = soac.update %acc[%i] = %s : tensor<?xi64>
    scf.yield %u : tensor<?xi64>
  }
  %t = soac.size(0) %r : tensor<?xi64>
  func.return %r, %t : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @loop_keeps_shape
// CHECK:         scf.for
// CHECK-NEXT:      soac.update %acc[%i] = %n
// CHECK:         func.return %r, %n

// -----

// Indexing a literal with a constant: the element; out of bounds, nothing (the
// bounds check fails at run time); a literal of arrays only when neither the element
// nor the result is ever consumed.
func.func @literal_index(%x: i64, %y: i64, %a: tensor<?xi64>, %b: tensor<?xi64>) -> (i64, i64, tensor<?xi64>) {
  %one = arith.constant 1 : i64
  %five = arith.constant 5 : i64
  %l = soac.array [%x, %y] : tensor<?xi64>
  %e = soac.index %l[%one] : tensor<?xi64> -> i64
  %f = soac.index %l[%five] : tensor<?xi64> -> i64
  %m = soac.array [%a, %b] : tensor<?x?xi64>
  %r = soac.index %m[%one] : tensor<?x?xi64> -> tensor<?xi64>
  func.return %e, %f, %r : i64, i64, tensor<?xi64>
}
// The literal of arrays stays: its rows may differ in shape, which fails at run time.
// CHECK-LABEL: func.func @literal_index
// CHECK:         %f = soac.index %l[%five]
// CHECK-NEXT:    %m = soac.array [%a, %b]
// CHECK-NEXT:    func.return %y, %f, %b

// -----

func.func @no_literal_row_consumed(%a: tensor<?xi64>, %b: tensor<?xi64>, %v: i64) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %m = soac.array [%a, %b] : tensor<?x?xi64>
  %r = soac.index %m[%zero] : tensor<?x?xi64> -> tensor<?xi64>
  %c = soac.copy %r : tensor<?xi64>
  %rr = soac.copy %m : tensor<?x?xi64>
  %row = soac.index %rr[%zero] : tensor<?x?xi64> -> tensor<?xi64>
  %u = soac.update %row[%zero] = %v : tensor<?xi64>
  func.return %u : tensor<?xi64>
}
// The row of the literal is not consumed: it becomes %a; the row of a fresh copy of
// it is consumed, and must stay a row of the copy.
// CHECK-LABEL: func.func @no_literal_row_consumed
// CHECK:         %row = soac.index %rr[%zero]
// CHECK-NEXT:    %u = soac.update %row[%zero] = %v

// -----

// Indexing a let-with result at the index just written gives the value written;
// indexing a copy reads the original when nothing consumes it.
func.func @update_and_copy(%a: tensor<?xi64>, %i: i64, %v: i64, %c: !soac.cert) -> (tensor<?xi64>, i64, i64) {
  %cp = soac.copy %a : tensor<?xi64>
  %u = soac.update %cp[%i] = %v <%c> : tensor<?xi64>
  %e = soac.index %u[%i] : tensor<?xi64> -> i64
  %d = soac.copy %a : tensor<?xi64>
  %f = soac.index %d[%i] <%c> : tensor<?xi64> -> i64
  func.return %u, %e, %f : tensor<?xi64>, i64, i64
}
// CHECK-LABEL: func.func @update_and_copy
// CHECK:         %f = soac.index %a[%i] <%c>
// CHECK-NEXT:    func.return %u, %v, %f

// -----

// Transpose: indexing needs every permuted dimension indexed (`transpose(1, 1, a)[i, j]`
// would be `a[i, :, j]`); transpose(k, 0) is the identity.
func.func @transposes(%a: tensor<?x?x?xi64>, %i: i64, %j: i64) -> (tensor<?xi64>, tensor<?xi64>, tensor<?x?x?xi64>) {
  %t = soac.transpose(0, 1) %a : tensor<?x?x?xi64>
  %r = soac.index %t[%i, %j] : tensor<?x?x?xi64> -> tensor<?xi64>
  %t2 = soac.transpose(1, 1) %a : tensor<?x?x?xi64>
  %s = soac.index %t2[%i, %j] : tensor<?x?x?xi64> -> tensor<?xi64>
  %u = soac.transpose(1, 0) %a : tensor<?x?x?xi64>
  func.return %r, %s, %u : tensor<?xi64>, tensor<?xi64>, tensor<?x?x?xi64>
}
// CHECK-LABEL: func.func @transposes
// CHECK:         %r = soac.index %a[%j, %i]
// CHECK:         %s = soac.index %t2[%i, %j]
// CHECK-NEXT:    func.return %r, %s, %a

// -----

// Indexing through a reshape of an array of rank 2 is left alone (it would need
// division); so is a partial index.
func.func @no_reshape_index(%a: tensor<?x?xi64>, %b: tensor<?xi64>, %n: i64, %m: i64, %i: i64, %j: i64) -> (i64, tensor<?xi64>) {
  %r = soac.reshape (%n, %m) %a : tensor<?x?xi64> -> tensor<?x?xi64>
  %e = soac.index %r[%i, %j] : tensor<?x?xi64> -> i64
  %s = soac.reshape (%n, %m) %b : tensor<?xi64> -> tensor<?x?xi64>
  %row = soac.index %s[%i] : tensor<?x?xi64> -> tensor<?xi64>
  func.return %e, %row : i64, tensor<?xi64>
}
// CHECK-LABEL: func.func @no_reshape_index
// CHECK:         %e = soac.index %r[%i, %j]
// CHECK:         %row = soac.index %s[%i]

// -----

// Note [Filter outputs]: the outputs of one filter have the same number of rows, so
// the size of a later one is the first's (a zip check between them then compares a
// size with itself, which `cse` and `simplify` prove).
func.func @filter_outputs(%a: tensor<?xi64>, %b: tensor<?xi64>) -> (i64, i64, i1) {
  %x, %y = soac.filter(%p = %a, %q = %b : tensor<?xi64>, tensor<?xi64>) {
    %t = arith.cmpi slt, %p, %q : i64
    soac.yield %t : i1
  }
  %sx = soac.size(0) %x : tensor<?xi64>
  %sy = soac.size(0) %y : tensor<?xi64>
  %same = arith.cmpi eq, %sx, %sy : i64
  func.return %sx, %sy, %same : i64, i64, i1
}
// CHECK-LABEL: func.func @filter_outputs
// CHECK:         [[X:%.*]], [[Y:%.*]] = soac.filter
// CHECK-NOT:     soac.size(0) [[Y]]
// CHECK:         [[SX:%.*]] = soac.size(0) [[X]] : tensor<?xi64>
// CHECK-NOT:     soac.size(0) [[Y]]
// CHECK:         [[SY:%.*]] = soac.size(0) [[X]] : tensor<?xi64>
// CHECK:         arith.cmpi eq, [[SX]], [[SY]]

// -----

// Only the outer size: an inner size of a later output stays (an empty result hides
// it, Note [Sizes of empty arrays]), and so does the size of the first output.
func.func @no_filter_inner_size(%m: tensor<?x?xi64>, %a: tensor<?xi64>) -> (i64, i64) {
  %x, %rows = soac.filter(%p = %a, %r = %m : tensor<?xi64>, tensor<?x?xi64>) {
    %t = arith.constant true
    soac.yield %t : i1
  }
  %s0 = soac.size(0) %x : tensor<?xi64>
  %s1 = soac.size(1) %rows : tensor<?x?xi64>
  func.return %s0, %s1 : i64, i64
}
// CHECK-LABEL: func.func @no_filter_inner_size
// CHECK:         [[X:%.*]], [[R:%.*]] = soac.filter
// CHECK-DAG:     soac.size(0) [[X]] : tensor<?xi64>
// CHECK-DAG:     soac.size(1) [[R]] : tensor<?x?xi64>
