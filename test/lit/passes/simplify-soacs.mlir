// RUN: l0-opt %s -p simplify,verify-uniqueness --split-input-file | filecheck %s

// map over iota becomes a literal of the mapped constants; reduce over it a
// constant (Note [Unrolling constant SOACs]).
func.func @map_reduce_iota() -> (tensor<?xi64>, i64) {
  %n = arith.constant 4 : i64
  %zero = arith.constant 0 : i64
  %a = soac.iota %n
  %m = soac.map(%x = %a : tensor<?xi64>) at "p.l0:1:1" -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.reduce(%acc = %zero : i64) over(%x = %m : tensor<?xi64>) {
    %y = arith.addi %acc, %x : i64
    soac.yield %y : i64
  }
  func.return %m, %s : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @map_reduce_iota
// CHECK-NOT:     soac.map
// CHECK-NOT:     soac.reduce
// CHECK-DAG:     [[C0:%.*]] = arith.constant 0 : i64
// CHECK-DAG:     [[C1:%.*]] = arith.constant 1 : i64
// CHECK-DAG:     [[C4:%.*]] = arith.constant 4 : i64
// CHECK-DAG:     [[C9:%.*]] = arith.constant 9 : i64
// CHECK:         [[M:%.*]] = soac.array {{\[}}[[C0]], [[C1]], [[C4]], [[C9]]] at "p.l0:1:1" : tensor<?xi64>
// CHECK:         [[C14:%.*]] = arith.constant 14 : i64
// CHECK:         func.return [[M]], [[C14]]

// -----

// The fold is a strict left fold in the interpreter's order: subtraction is not
// associative, so ((10 - 1) - 2) - 3 = 4; scan keeps every step (inclusive).
func.func @scan_literal() -> (i64, tensor<?xi64>) {
  %ten = arith.constant 10 : i64
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  %a = soac.array [%one, %two, %three] : tensor<?xi64>
  %r = soac.reduce(%acc = %ten : i64) over(%x = %a : tensor<?xi64>) {
    %y = arith.subi %acc, %x : i64
    soac.yield %y : i64
  }
  %s = soac.scan(%acc = %ten : i64) over(%x = %a : tensor<?xi64>) {
    %y = arith.subi %acc, %x : i64
    soac.yield %y : i64
  }
  func.return %r, %s : i64, tensor<?xi64>
}
// CHECK-LABEL: func.func @scan_literal
// CHECK-NOT:     soac.reduce
// CHECK-NOT:     soac.scan
// CHECK:         [[R:%.*]] = arith.constant 4 : i64
// CHECK:         [[C9:%.*]] = arith.constant 9 : i64
// CHECK:         [[C7:%.*]] = arith.constant 7 : i64
// CHECK:         [[C4:%.*]] = arith.constant 4 : i64
// CHECK:         [[S:%.*]] = soac.array {{\[}}[[C9]], [[C7]], [[C4]]] : tensor<?xi64>
// CHECK:         func.return [[R]], [[S]]

// -----

// filter over replicate and over a literal: the predicate folds, the kept rows
// form a literal, and a filter keeping nothing is empty. Two inputs are filtered
// alike.
func.func @filters() -> (tensor<?xf64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi1>) {
  %n = arith.constant 3 : i64
  %half = arith.constant 5.000000e-01 : f64
  %zero = arith.constant 0.000000e+00 : f64
  %r = soac.replicate %n, %half : f64
  %neg = soac.filter(%x = %r : tensor<?xf64>) {
    %p = arith.cmpf olt, %x, %zero : f64
    soac.yield %p : i1
  }
  %five = arith.constant 5 : i64
  %six = arith.constant 6 : i64
  %seven = arith.constant 7 : i64
  %t = arith.constant true
  %f = arith.constant false
  %a = soac.array [%five, %six, %seven] : tensor<?xi64>
  %b = soac.array [%t, %f, %t] : tensor<?xi1>
  %two = arith.constant 2 : i64
  %odd = soac.filter(%x = %a : tensor<?xi64>) {
    %m = arith.remsi %x, %two : i64
    %one = arith.constant 1 : i64
    %p = arith.cmpi eq, %m, %one : i64
    soac.yield %p : i1
  }
  %fa, %fb = soac.filter(%x = %a, %y = %b : tensor<?xi64>, tensor<?xi1>) {
    soac.yield %y : i1
  }
  func.return %neg, %odd, %fa, %fb : tensor<?xf64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi1>
}
// CHECK-LABEL: func.func @filters
// CHECK-NOT:     soac.filter
// CHECK-DAG:     [[E:%.*]] = soac.empty : tensor<?xf64>
// CHECK-DAG:     [[ODD:%.*]] = soac.array [%five, %seven] : tensor<?xi64>
// CHECK-DAG:     [[FB:%.*]] = soac.array [%t, %t] : tensor<?xi1>
// CHECK-DAG:     [[FA:%.*]] = soac.array [%five, %seven] : tensor<?xi64>
// CHECK:         func.return [[E]], [[ODD]], [[FA]], [[FB]]

// -----

// Rows of a two-dimensional literal: a nested reduce over each row folds too, and
// redomap is a left fold with its inner lambda.
func.func @rows_redomap() -> (tensor<?xi64>, i64) {
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  %zero = arith.constant 0 : i64
  %r0 = soac.array [%one, %two] : tensor<?xi64>
  %r1 = soac.array [%three, %three] : tensor<?xi64>
  %a = soac.array [%r0, %r1] : tensor<?x?xi64>
  %sums = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?xi64> {
    %s = soac.reduce(%acc = %zero : i64) over(%x = %row : tensor<?xi64>) {
      %y = arith.addi %acc, %x : i64
      soac.yield %y : i64
    }
    soac.yield %s : i64
  }
  %d = soac.redomap(%acc = %zero : i64) over(%x = %r0 : tensor<?xi64>) {
    %sq = arith.muli %x, %x : i64
    %y = arith.addi %acc, %sq : i64
    soac.yield %y : i64
  } outer {
  ^bb0(%p: i64, %q: i64):
    %y = arith.addi %p, %q : i64
    soac.yield %y : i64
  }
  func.return %sums, %d : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @rows_redomap
// CHECK-NOT:     soac.map
// CHECK-NOT:     soac.reduce
// CHECK-NOT:     soac.redomap
// CHECK:         [[C3:%.*]] = arith.constant 3 : i64
// CHECK:         [[C6:%.*]] = arith.constant 6 : i64
// CHECK:         [[S:%.*]] = soac.array {{\[}}[[C3]], [[C6]]] : tensor<?xi64>
// CHECK:         [[C5:%.*]] = arith.constant 5 : i64
// CHECK:         func.return [[S]], [[C5]]

// -----

// scanomap: every intermediate result of the left fold with its inner lambda.
func.func @scanomap() -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %zero = arith.constant 0 : i64
  %r0 = soac.array [%one, %two] : tensor<?xi64>
  %d = soac.scanomap(%acc = %zero : i64) over(%x = %r0 : tensor<?xi64>) {
    %sq = arith.muli %x, %x : i64
    %y = arith.addi %acc, %sq : i64
    soac.yield %y : i64
  } outer {
  ^bb0(%p: i64, %q: i64):
    %y = arith.addi %p, %q : i64
    soac.yield %y : i64
  }
  func.return %d : tensor<?xi64>
}
// CHECK-LABEL: func.func @scanomap
// CHECK-NOT:     soac.scanomap
// CHECK:         [[C1:%.*]] = arith.constant 1 : i64
// CHECK:         [[C5:%.*]] = arith.constant 5 : i64
// CHECK:         [[S:%.*]] = soac.array {{\[}}[[C1]], [[C5]]] : tensor<?xi64>
// CHECK:         func.return [[S]]

// -----

// Not unrolled: an array longer than the limit (64), a lambda with a check, an
// input that is not constant, a lambda reading a parameter, a consumed input.
func.func @negatives(%p: tensor<?xi64>, %k: i64) -> (i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %big = arith.constant 65 : i64
  %zero = arith.constant 0 : i64
  %a = soac.iota %big
  %s = soac.reduce(%acc = %zero : i64) over(%x = %a : tensor<?xi64>) {
    %y = arith.addi %acc, %x : i64
    soac.yield %y : i64
  }
  %n = arith.constant 3 : i64
  %b = soac.iota %n
  %checked = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %ok = arith.cmpi slt, %x, %n : i64
    %c = soac.assert %ok, "x too big" at "p.l0:2:2"
    soac.yield %x : i64
  }
  %free = soac.map(%x = %p : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %param = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %k : i64
    soac.yield %y : i64
  }
  %c = soac.iota %n
  %twice = soac.map(%x = %c : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %one = arith.constant 1 : i64
  %u = soac.update %c[%one] = %zero : tensor<?xi64>
  func.return %s, %checked, %free, %param, %twice, %u : i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @negatives
// CHECK:         soac.reduce
// CHECK:         soac.map
// CHECK:         soac.assert
// CHECK:         soac.map
// CHECK:         soac.map
// CHECK:         %twice = soac.map
// CHECK:         soac.update

// -----

// Note [SOACs over empty]: no row, so no lambda runs (even one that reads a
// parameter or may fail): empty results, or the neutral element of a scalar fold.
func.func @over_empty(%k: i64, %z: i64) -> (tensor<?x?xi64>, tensor<?xi64>, i64) {
  %e = soac.empty : tensor<?x?xi64>
  %m = soac.map(%r = %e : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %in = soac.map(%x = %r : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.divsi %x, %k : i64
      soac.yield %y : i64
    }
    soac.yield %in : tensor<?xi64>
  }
  %v = soac.empty : tensor<?xi64>
  %f = soac.filter(%x = %v : tensor<?xi64>) {
    %p = arith.cmpi slt, %x, %k : i64
    soac.yield %p : i1
  }
  %s = soac.reduce(%acc = %z : i64) over(%x = %v : tensor<?xi64>) {
    %t = arith.addi %acc, %x : i64
    soac.yield %t : i64
  }
  func.return %m, %f, %s : tensor<?x?xi64>, tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @over_empty
// CHECK-NOT:     soac.map
// CHECK-NOT:     soac.filter
// CHECK-NOT:     soac.reduce
// CHECK:         func.return {{%.*}}, {{%.*}}, %z

// -----

// SOACs of several outputs over empty (a map to pairs, a filter of a zip): one empty
// array per output (found by the differential fuzzer: the rewrite gave one value for
// two and crashed).
func.func @pairs_over_empty(%k: i64) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %v = soac.empty : tensor<?xi64>
  %a, %b = soac.map(%x = %v : tensor<?xi64>) -> tensor<?xi64>, tensor<?xi64> {
    %y = arith.addi %x, %k : i64
    soac.yield %x, %y : i64, i64
  }
  %c, %d = soac.filter(%x = %v, %y = %v : tensor<?xi64>, tensor<?xi64>) {
    %p = arith.cmpi slt, %x, %y : i64
    soac.yield %p : i1
  }
  func.return %a, %b, %c, %d : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @pairs_over_empty
// CHECK-NOT:     soac.map
// CHECK-NOT:     soac.filter
// CHECK:         %[[A:.*]] = soac.empty : tensor<?xi64>
// CHECK-NEXT:    %[[B:.*]] = soac.empty : tensor<?xi64>
// CHECK:         %[[C:.*]] = soac.empty : tensor<?xi64>
// CHECK-NEXT:    %[[D:.*]] = soac.empty : tensor<?xi64>
// CHECK:         func.return %[[A]], %[[B]], %[[C]], %[[D]]

// -----

// Must not fire: a fold over empty with an array accumulator (its result would alias
// the neutral element), and a map whose input is not known to be empty.
func.func @not_over_empty(%row: tensor<?xi64>, %a: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %e = soac.empty : tensor<?x?xi64>
  %s = soac.reduce(%acc = %row : tensor<?xi64>) over(%x = %e : tensor<?x?xi64>) {
    soac.yield %x : tensor<?xi64>
  }
  %m = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %x : i64
  }
  func.return %s, %m : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @not_over_empty
// CHECK:         soac.reduce
// CHECK:         soac.map
