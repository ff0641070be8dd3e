// RUN: l0-opt %s -p size-hindrance,verify-uniqueness --split-input-file | filecheck %s

// Thesis Figure 37: the size of a map's output is the size of its input, so the map's
// output is no longer used by the size (a hindrance to fusion).
func.func @map_output(%a: tensor<?xi64>) -> (tensor<?xi64>, i64) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %x : i64
  }
  %n = soac.size(0) %b : tensor<?xi64>
  func.return %b, %n : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @map_output
// CHECK: [[N:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK-NOT: soac.size
// CHECK: func.return %b, [[N]]

// -----

// Thesis 9.1: the zip check of `map(op+, zip(map(f, a), map(g, b)))` checks the sizes
// of the parameters a and b, not of the maps' outputs.
func.func @zip_check(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %a2 = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %x : i64
  }
  %b2 = soac.map(%y = %b : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %y : i64
  }
  %m = soac.size(0) %a2 : tensor<?xi64>
  %n = soac.size(0) %b2 : tensor<?xi64>
  %ok = arith.cmpi eq, %m, %n : i64
  %c = soac.assert %ok, "zip" at "t.l0:4:5"
  %r = soac.map(%x = %a2, %y = %b2 : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
    %s = arith.addi %x, %y : i64
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @zip_check
// CHECK-DAG: [[M:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK-DAG: [[N:%.*]] = soac.size(0) %b : tensor<?xi64>
// CHECK: arith.cmpi eq, [[M]], [[N]] : i64

// -----

// Thesis Figure 38: of size(0, b) and size(0, a), the size of the parameter is better.
func.func @highest_quality(%a: tensor<?xi64>) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %x : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %x : i64
  }
  %n = soac.size(0) %c : tensor<?xi64>
  %d = soac.map(%x = %c : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %n : i64
    soac.yield %y : i64
  }
  func.return %d : tensor<?xi64>
}
// CHECK-LABEL: func.func @highest_quality
// CHECK: [[N:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK: arith.addi %{{.*}}, [[N]] : i64

// -----

// iota(n) has n rows; replicate(n, v) has n rows of the size of v, rows that exist
// only when n > 0 (Note [Sizes of empty arrays]): a select unless n is a constant.
func.func @iota_replicate(%n: i64, %v: tensor<?xf64>) -> (i64, i64, i64, i64) {
  %i = soac.iota %n
  %r = soac.replicate %n, %v : tensor<?xf64>
  %three = arith.constant 3 : i64
  %r3 = soac.replicate %three, %v : tensor<?xf64>
  %s0 = soac.size(0) %i : tensor<?xi64>
  %s1 = soac.size(0) %r : tensor<?x?xf64>
  %s2 = soac.size(1) %r : tensor<?x?xf64>
  %s3 = soac.size(1) %r3 : tensor<?x?xf64>
  func.return %s0, %s1, %s2, %s3 : i64, i64, i64, i64
}
// CHECK-LABEL: func.func @iota_replicate
// CHECK: [[V:%.*]] = soac.size(0) %v : tensor<?xf64>
// CHECK: [[ZERO:%.*]] = arith.constant 0 : i64
// CHECK: [[NZ:%.*]] = arith.cmpi ne, %n, [[ZERO]] : i64
// CHECK: [[S2:%.*]] = arith.select [[NZ]], [[V]], [[ZERO]] : i64
// CHECK: [[S3:%.*]] = soac.size(0) %v : tensor<?xf64>
// CHECK: func.return %n, %n, [[S2]], [[S3]]

// -----

// split(i, a): i rows and size(0, a) - i rows; concat: the sum of the rows, and inner
// sizes those of the operand that has rows.
func.func @split_concat(%i: i64, %a: tensor<?x?xi64>, %b: tensor<?x?xi64>) -> (i64, i64, i64, i64) {
  %x, %y = soac.split %i, %a : tensor<?x?xi64>
  %c = soac.concat %a, %b : tensor<?x?xi64>
  %s0 = soac.size(0) %x : tensor<?x?xi64>
  %s1 = soac.size(0) %y : tensor<?x?xi64>
  %s2 = soac.size(0) %c : tensor<?x?xi64>
  %s3 = soac.size(1) %c : tensor<?x?xi64>
  func.return %s0, %s1, %s2, %s3 : i64, i64, i64, i64
}
// CHECK-LABEL: func.func @split_concat
// CHECK: [[A:%.*]] = soac.size(0) %a : tensor<?x?xi64>
// CHECK: [[Y:%.*]] = arith.subi [[A]], %i : i64
// CHECK: [[A0:%.*]] = soac.size(0) %a : tensor<?x?xi64>
// CHECK: [[B0:%.*]] = soac.size(0) %b : tensor<?x?xi64>
// CHECK: [[C0:%.*]] = arith.addi [[A0]], [[B0]] : i64
// CHECK: [[A1:%.*]] = soac.size(1) %a : tensor<?x?xi64>
// CHECK: [[B1:%.*]] = soac.size(1) %b : tensor<?x?xi64>
// CHECK: [[C1:%.*]] = arith.maxsi [[A1]], [[B1]] : i64
// CHECK: func.return %i, [[Y]], [[C0]], [[C1]]

// -----

// transpose permutes the sizes; a dimension that moves behind a 0 is 0 too.
// reshape has the sizes it is given, under the same proviso.
func.func @transpose_reshape(%a: tensor<?x?xi64>, %m: i64, %n: i64, %v: tensor<?xi64>) -> (i64, i64, i64, i64) {
  %t = soac.transpose(0, 1) %a : tensor<?x?xi64>
  %r = soac.reshape (%m, %n) %v : tensor<?xi64> -> tensor<?x?xi64>
  %s0 = soac.size(0) %t : tensor<?x?xi64>
  %s1 = soac.size(1) %t : tensor<?x?xi64>
  %s2 = soac.size(0) %r : tensor<?x?xi64>
  %s3 = soac.size(1) %r : tensor<?x?xi64>
  func.return %s0, %s1, %s2, %s3 : i64, i64, i64, i64
}
// CHECK-LABEL: func.func @transpose_reshape
// CHECK: [[T0:%.*]] = soac.size(1) %a : tensor<?x?xi64>
// CHECK: [[G:%.*]] = soac.size(1) %a : tensor<?x?xi64>
// CHECK: [[A0:%.*]] = soac.size(0) %a : tensor<?x?xi64>
// CHECK: [[Z:%.*]] = arith.constant 0 : i64
// CHECK: [[C:%.*]] = arith.cmpi ne, [[G]], [[Z]] : i64
// CHECK: [[T1:%.*]] = arith.select [[C]], [[A0]], [[Z]] : i64
// CHECK: [[Z2:%.*]] = arith.constant 0 : i64
// CHECK: [[C2:%.*]] = arith.cmpi ne, %m, [[Z2]] : i64
// CHECK: [[R1:%.*]] = arith.select [[C2]], %n, [[Z2]] : i64
// CHECK: func.return [[T0]], [[T1]], %m, [[R1]]

// -----

// An array literal has as many rows as elements; a copy the sizes of its source.
func.func @literal_copy(%x: i64, %a: tensor<?xi64>) -> (i64, i64) {
  %l = soac.array [%x, %x, %x] : tensor<?xi64>
  %c = soac.copy %a : tensor<?xi64>
  %s0 = soac.size(0) %l : tensor<?xi64>
  %s1 = soac.size(0) %c : tensor<?xi64>
  func.return %s0, %s1 : i64, i64
}
// CHECK-LABEL: func.func @literal_copy
// CHECK: [[THREE:%.*]] = arith.constant 3 : i64
// CHECK: [[A:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK: func.return [[THREE]], [[A]]

// -----

// A row of a matrix has the matrix's inner size.
func.func @row(%a: tensor<?x?xf64>, %i: i64) -> i64 {
  %r = soac.index %a[%i] : tensor<?x?xf64> -> tensor<?xf64>
  %n = soac.size(0) %r : tensor<?xf64>
  func.return %n : i64
}
// CHECK-LABEL: func.func @row
// CHECK: [[N:%.*]] = soac.size(1) %a : tensor<?x?xf64>
// CHECK: func.return [[N]]

// -----

// Thesis 9.1.3: inside a lambda, the sizes of the rows are inner sizes of the arrays
// outside, so the zip check in the lambda no longer depends on the lambda (and hoisting
// can take it out).
func.func @lambda_rows(%a: tensor<?x?xi64>, %b: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %r = soac.map(%ar = %a, %br = %b : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
    %m = soac.size(0) %ar : tensor<?xi64>
    %n = soac.size(0) %br : tensor<?xi64>
    %ok = arith.cmpi eq, %m, %n : i64
    %c = soac.assert %ok, "zip" at "t.l0:2:3"
    %s = soac.map(%x = %ar, %y = %br : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
      %z = arith.addi %x, %y : i64
      soac.yield %z : i64
    }
    soac.yield %s : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @lambda_rows
// CHECK: soac.map
// CHECK-DAG: [[M:%.*]] = soac.size(1) %a : tensor<?x?xi64>
// CHECK-DAG: [[N:%.*]] = soac.size(1) %b : tensor<?x?xi64>
// CHECK: arith.cmpi eq, [[M]], [[N]] : i64

// -----

// The rows of a map's output are what its lambda yields: here a map over a row of `a`,
// so size(1, c) is size(1, a) (0 when `a` is empty, as size(1, a) is then too).
func.func @map_inner(%a: tensor<?x?xi64>) -> i64 {
  %c = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %d = soac.map(%x = %row : tensor<?xi64>) -> tensor<?xi64> {
      soac.yield %x : i64
    }
    soac.yield %d : tensor<?xi64>
  }
  %n = soac.size(1) %c : tensor<?x?xi64>
  func.return %n : i64
}
// CHECK-LABEL: func.func @map_inner
// CHECK: [[N:%.*]] = soac.size(1) %a : tensor<?x?xi64>
// CHECK: func.return [[N]]

// -----

// Rows of a size given from outside the lambda exist only when the map has rows.
func.func @map_inner_guarded(%a: tensor<?xi64>, %m: i64) -> i64 {
  %c = soac.map(%x = %a : tensor<?xi64>) -> tensor<?x?xi64> {
    %i = soac.iota %m
    soac.yield %i : tensor<?xi64>
  }
  %n = soac.size(1) %c : tensor<?x?xi64>
  func.return %n : i64
}
// CHECK-LABEL: func.func @map_inner_guarded
// CHECK: [[A:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK: [[Z:%.*]] = arith.constant 0 : i64
// CHECK: [[C:%.*]] = arith.cmpi ne, [[A]], [[Z]] : i64
// CHECK: [[N:%.*]] = arith.select [[C]], %m, [[Z]] : i64
// CHECK: func.return [[N]]

// -----

// A loop whose body keeps the size of its merge value (in-place updates): the size of
// the merge value inside, and of the result after, is that of the initial value, a copy
// of `a`.
func.func @loop_merge(%a: tensor<?xi64>, %n: i64) -> (tensor<?xi64>, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %init = soac.copy %a : tensor<?xi64>
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %init) -> (tensor<?xi64>) : i64 {
    %m = soac.size(0) %acc : tensor<?xi64>
    %u = soac.update %acc[%i] = %m : tensor<?xi64>
    scf.yield %u : tensor<?xi64>
  }
  %s = soac.size(0) %r : tensor<?xi64>
  func.return %r, %s : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @loop_merge
// CHECK: scf.for
// CHECK: [[M:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK: soac.update %acc[%i] = [[M]]
// CHECK: }
// CHECK: [[S:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK: func.return %r, [[S]]

// -----

// The loop consumes `p` after the uses in its body: inside, the size of the merge value
// is that of `p`; after the loop, `p` is consumed and the size stays that of the result.
func.func @loop_consumes_parameter(%p: tensor<?xi64> {soac.unique}, %n: i64) -> (tensor<?xi64> {soac.unique}, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %p) -> (tensor<?xi64>) : i64 {
    %m = soac.size(0) %acc : tensor<?xi64>
    %u = soac.update %acc[%i] = %m : tensor<?xi64>
    scf.yield %u : tensor<?xi64>
  }
  %s = soac.size(0) %r : tensor<?xi64>
  func.return %r, %s : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @loop_consumes_parameter
// CHECK: scf.for
// CHECK: [[M:%.*]] = soac.size(0) %p : tensor<?xi64>
// CHECK: soac.update %acc[%i] = [[M]]
// CHECK: }
// CHECK: [[S:%.*]] = soac.size(0) %r : tensor<?xi64>
// CHECK: func.return %r, [[S]]

// -----

// Before the update consumes `p`, the size of the map's output is that of `p`; after it,
// the size must stay that of the output.
func.func @consumed_after_map(%p: tensor<?xi64> {soac.unique}, %i: i64) -> (tensor<?xi64> {soac.unique}, i64, i64) {
  %b = soac.map(%x = %p : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %x : i64
  }
  %before = soac.size(0) %b : tensor<?xi64>
  %u = soac.update %p[%i] = %i : tensor<?xi64>
  %after = soac.size(0) %b : tensor<?xi64>
  func.return %u, %before, %after : tensor<?xi64>, i64, i64
}
// CHECK-LABEL: func.func @consumed_after_map
// CHECK: [[BEFORE:%.*]] = soac.size(0) %p : tensor<?xi64>
// CHECK: soac.update
// CHECK: [[AFTER:%.*]] = soac.size(0) %b : tensor<?xi64>
// CHECK: func.return %u, [[BEFORE]], [[AFTER]]

// -----

// Both branches of an if yield arrays of the size of `a`.
func.func @if_branches(%p: i1, %a: tensor<?xi64>) -> i64 {
  %r = scf.if %p -> (tensor<?xi64>) {
    %c = soac.copy %a : tensor<?xi64>
    scf.yield %c : tensor<?xi64>
  } else {
    %m = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
      soac.yield %x : i64
    }
    scf.yield %m : tensor<?xi64>
  }
  %n = soac.size(0) %r : tensor<?xi64>
  func.return %n : i64
}
// CHECK-LABEL: func.func @if_branches
// CHECK: [[N:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK: func.return [[N]]

// -----

// The rows of a scan's output are as many as its input's.
func.func @scan_output(%a: tensor<?xi64>, %z: i64) -> i64 {
  %s = soac.scan(%acc = %z : i64) over(%x = %a : tensor<?xi64>) {
    %y = arith.addi %acc, %x : i64
    soac.yield %y : i64
  }
  %n = soac.size(0) %s : tensor<?xi64>
  func.return %n : i64
}
// CHECK-LABEL: func.func @scan_output
// CHECK: [[N:%.*]] = soac.size(0) %a : tensor<?xi64>
// CHECK: func.return [[N]]

// -----

// The size of a filter's output depends on the data: nothing to rewrite.
func.func @no_filter_output(%a: tensor<?xi64>, %t: i64) -> i64 {
  %f = soac.filter(%x = %a : tensor<?xi64>) {
    %p = arith.cmpi slt, %x, %t : i64
    soac.yield %p : i1
  }
  %n = soac.size(0) %f : tensor<?xi64>
  func.return %n : i64
}
// CHECK-LABEL: func.func @no_filter_output
// CHECK: [[N:%.*]] = soac.size(0) %f : tensor<?xi64>
// CHECK: func.return [[N]]

// -----

// `p` is consumed by the update, so the size of the result cannot be taken from it.
func.func @no_consumed_source(%p: tensor<?xi64> {soac.unique}, %i: i64) -> (tensor<?xi64> {soac.unique}, i64) {
  %u = soac.update %p[%i] = %i : tensor<?xi64>
  %n = soac.size(0) %u : tensor<?xi64>
  func.return %u, %n : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @no_consumed_source
// CHECK: [[N:%.*]] = soac.size(0) %u : tensor<?xi64>
// CHECK: func.return %u, [[N]]

// -----

// The rows the lambda yields have a size that depends on the row: nothing to rewrite.
func.func @no_lambda_dependent_rows(%a: tensor<?xi64>) -> i64 {
  %c = soac.map(%x = %a : tensor<?xi64>) -> tensor<?x?xi64> {
    %i = soac.iota %x
    soac.yield %i : tensor<?xi64>
  }
  %n = soac.size(1) %c : tensor<?x?xi64>
  func.return %n : i64
}
// CHECK-LABEL: func.func @no_lambda_dependent_rows
// CHECK: [[N:%.*]] = soac.size(1) %c : tensor<?x?xi64>
// CHECK: func.return [[N]]

// -----

// The loop grows its merge value: its size is not that of the initial value.
func.func @no_loop_variant_size(%a: tensor<?xi64>, %n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %a) -> (tensor<?xi64>) : i64 {
    %m = soac.size(0) %acc : tensor<?xi64>
    %c = soac.concat %acc, %a : tensor<?xi64>
    scf.yield %c : tensor<?xi64>
  }
  %s = soac.size(0) %r : tensor<?xi64>
  func.return %s : i64
}
// CHECK-LABEL: func.func @no_loop_variant_size
// CHECK: soac.size(0) %acc : tensor<?xi64>
// CHECK: [[S:%.*]] = soac.size(0) %r : tensor<?xi64>
// CHECK: func.return [[S]]

// -----

// A loop mapping over its merge value keeps its inner size: inside and after the loop,
// the sizes of rows are those of `a` (which the loop's initial value copies). Deciding
// this asks for the size of `acc` while it is being decided (Note [Memoising loop sizes]).
func.func @loop_of_maps(%a: tensor<?x?xi64>, %n: i64) -> (i64, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %init = soac.copy %a : tensor<?x?xi64>
  %r, %s = scf.for %i = %zero to %n step %one iter_args(%acc = %init, %t = %zero) -> (tensor<?x?xi64>, i64) : i64 {
    %m = soac.map(%row = %acc : tensor<?x?xi64>) -> tensor<?x?xi64> {
      %w = soac.size(0) %row : tensor<?xi64>
      %d = soac.map(%x = %row : tensor<?xi64>) -> tensor<?xi64> {
        %y = arith.addi %x, %w : i64
        soac.yield %y : i64
      }
      soac.yield %d : tensor<?xi64>
    }
    %q = soac.size(1) %m : tensor<?x?xi64>
    scf.yield %m, %q : tensor<?x?xi64>, i64
  }
  %u = soac.size(1) %r : tensor<?x?xi64>
  func.return %u, %s : i64, i64
}
// CHECK-LABEL: func.func @loop_of_maps
// CHECK: soac.map(%row = %acc
// CHECK-NEXT: [[W:%.*]] = soac.size(1) %a : tensor<?x?xi64>
// CHECK: arith.addi %x, [[W]] : i64
// CHECK: [[Q:%.*]] = soac.size(1) %a : tensor<?x?xi64>
// CHECK-NEXT: scf.yield %m, [[Q]]
// CHECK: [[U:%.*]] = soac.size(1) %a : tensor<?x?xi64>
// CHECK-NEXT: func.return [[U]], %s

// -----

// A scan whose lambda maps over its accumulator keeps the accumulator's size: inside,
// the size of %x is that of the neutral element (so the zip check no longer depends on
// the lambda and can be hoisted, which `iswim` needs); a scan that concatenates does not.
func.func @fold_accumulator(%a: tensor<?x?xi64>, %ne: tensor<?xi64>) -> (tensor<?x?xi64>, tensor<?x?xi64>) {
  %s = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %n = soac.size(0) %x : tensor<?xi64>
    %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
      %z = arith.addi %p, %n : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %t = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
    %n = soac.size(0) %x : tensor<?xi64>
    %c = soac.concat %x, %y : tensor<?xi64>
    soac.yield %c : tensor<?xi64>
  }
  func.return %s, %t : tensor<?x?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @fold_accumulator
// CHECK:         %s = soac.scan
// CHECK-NEXT:      %n = soac.size(0) %ne : tensor<?xi64>
// CHECK:         %t = soac.scan
// CHECK-NEXT:      %{{.*}} = soac.size(0) %x_1 : tensor<?xi64>

// -----

// Depth 2 (Note [Keeping the accumulator's shape]): a scan of maps of maps keeps both
// dimensions of its accumulator, though the best size of the inner rows is `y`'s (of
// `a`), not `x`'s: inside, the inner dimension of %x is that of the neutral element.
func.func @fold_accumulator_depth_two(%a: tensor<?x?x?xi64>, %ne: tensor<?x?xi64>) -> tensor<?x?x?xi64> {
  %s = soac.scan(%x = %ne : tensor<?x?xi64>) over(%y = %a : tensor<?x?x?xi64>) {
    %w = soac.size(1) %x : tensor<?x?xi64>
    %m = soac.map(%u = %x, %v = %y : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
      %i = soac.map(%p = %u, %q = %v : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
        %z = arith.addi %p, %w : i64
        soac.yield %z : i64
      }
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  }
  func.return %s : tensor<?x?x?xi64>
}
// CHECK-LABEL: func.func @fold_accumulator_depth_two
// CHECK:         %s = soac.scan
// CHECK-NEXT:      %w = soac.size(1) %ne : tensor<?x?xi64>

// -----

// Must not fire: the inner rows of each step are those of `y` (`v` alone is mapped), so
// the step changes the accumulator's inner dimension to `a`'s; a map over the rows of
// `y` yielding a row of `x` has rows only where `a` has (the guard is not a dimension
// of `x`: with no rows, the inner dimension would become 0); a row that a filter makes
// has a size that depends on the values.
func.func @no_fold_accumulator_depth_two(%a: tensor<?x?x?xi64>, %ne: tensor<?x?xi64>, %k: i64) -> (tensor<?x?x?xi64>, tensor<?x?x?xi64>, tensor<?x?x?xi64>) {
  %s = soac.scan(%x = %ne : tensor<?x?xi64>) over(%y = %a : tensor<?x?x?xi64>) {
    %w = soac.size(1) %x : tensor<?x?xi64>
    %m = soac.map(%u = %x, %v = %y : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
      %i = soac.map(%q = %v : tensor<?xi64>) -> tensor<?xi64> {
        %z = arith.addi %q, %w : i64
        soac.yield %z : i64
      }
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  }
  %t = soac.scan(%x = %ne : tensor<?x?xi64>) over(%y = %a : tensor<?x?x?xi64>) {
    %w = soac.size(1) %x : tensor<?x?xi64>
    %m = soac.map(%v = %y : tensor<?x?xi64>) -> tensor<?x?xi64> {
      %r = soac.index %x[%k] : tensor<?x?xi64> -> tensor<?xi64>
      soac.yield %r : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  }
  %f = soac.scan(%x = %ne : tensor<?x?xi64>) over(%y = %a : tensor<?x?x?xi64>) {
    %w = soac.size(1) %x : tensor<?x?xi64>
    %m = soac.map(%u = %x, %v = %y : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
      %i = soac.filter(%p = %u : tensor<?xi64>) {
        %c = arith.cmpi slt, %p, %k : i64
        soac.yield %c : i1
      }
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  }
  func.return %s, %t, %f : tensor<?x?x?xi64>, tensor<?x?x?xi64>, tensor<?x?x?xi64>
}
// CHECK-LABEL: func.func @no_fold_accumulator_depth_two
// CHECK:         %s = soac.scan
// CHECK-NEXT:      %w = soac.size(1) %x : tensor<?x?xi64>
// CHECK:         %t = soac.scan
// CHECK-NEXT:      %{{.*}} = soac.size(1) %x{{.*}} : tensor<?x?xi64>
// CHECK:         %f = soac.scan
// CHECK-NEXT:      %{{.*}} = soac.size(1) %x{{.*}} : tensor<?x?xi64>

// -----

// A scanomap keeps its accumulator's size when both its fold and its operator do (the
// operator then only combines values of that size): inside both, the sizes of the
// accumulators are the neutral element's. Not when the operator concatenates.
func.func @scanomap_accumulator(%a: tensor<?x?x?xi64>, %ne: tensor<?x?xi64>) -> (tensor<?x?x?xi64>, tensor<?x?x?xi64>) {
  %s = soac.scanomap(%x = %ne : tensor<?x?xi64>) over(%y = %a : tensor<?x?x?xi64>) {
    %w = soac.size(1) %x : tensor<?x?xi64>
    %m = soac.map(%u = %x, %v = %y : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
      %i = soac.map(%p = %u, %q = %v : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
        %z = arith.addi %p, %w : i64
        soac.yield %z : i64
      }
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  } outer {
  ^bb0(%l: tensor<?x?xi64>, %r: tensor<?x?xi64>):
    %w2 = soac.size(1) %l : tensor<?x?xi64>
    %m = soac.map(%u = %l, %v = %r : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
      %i = soac.map(%p = %u, %q = %v : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
        %z = arith.addi %p, %q : i64
        soac.yield %z : i64
      }
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  }
  %t = soac.scanomap(%x = %ne : tensor<?x?xi64>) over(%y = %a : tensor<?x?x?xi64>) {
    %w = soac.size(1) %x : tensor<?x?xi64>
    %m = soac.map(%u = %x, %v = %y : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
      %i = soac.map(%p = %u, %q = %v : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
        %z = arith.addi %p, %w : i64
        soac.yield %z : i64
      }
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  } outer {
  ^bb0(%l: tensor<?x?xi64>, %r: tensor<?x?xi64>):
    %m = soac.map(%u = %l, %v = %r : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
      %i = soac.concat %u, %v : tensor<?xi64>
      soac.yield %i : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  }
  func.return %s, %t : tensor<?x?x?xi64>, tensor<?x?x?xi64>
}
// CHECK-LABEL: func.func @scanomap_accumulator
// CHECK:         %s = soac.scanomap
// CHECK-NEXT:      %w = soac.size(1) %ne : tensor<?x?xi64>
// CHECK:           %w2 = soac.size(1) %ne : tensor<?x?xi64>
// CHECK:         %t = soac.scanomap
// CHECK-NEXT:      %{{.*}} = soac.size(1) %x{{.*}} : tensor<?x?xi64>

// -----

// Note [Branches on an empty size]: an `if` on `g == 0` (or `0 != g`) whose branch for
// g = 0 yields an empty array has the other branch's size where g is not 0, else 0.
// Not when the condition is another comparison, nor when that branch is not empty.
func.func @empty_branch(%m: tensor<?x?xi64>, %g: i64) -> (i64, i64, i64, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %e = arith.cmpi eq, %g, %zero : i64
  %s = scf.if %e -> (tensor<?x?xi64>) {
    %0 = soac.empty : tensor<?x?xi64>
    scf.yield %0 : tensor<?x?xi64>
  } else {
    %1 = soac.copy %m : tensor<?x?xi64>
    scf.yield %1 : tensor<?x?xi64>
  }
  %n = soac.size(0) %s : tensor<?x?xi64>
  %f = arith.cmpi ne, %zero, %g : i64
  %t = scf.if %f -> (tensor<?x?xi64>) {
    %2 = soac.copy %m : tensor<?x?xi64>
    scf.yield %2 : tensor<?x?xi64>
  } else {
    %3 = soac.empty : tensor<?x?xi64>
    scf.yield %3 : tensor<?x?xi64>
  }
  %p = soac.size(1) %t : tensor<?x?xi64>
  %l = arith.cmpi slt, %g, %one : i64
  %u = scf.if %l -> (tensor<?x?xi64>) {
    %4 = soac.empty : tensor<?x?xi64>
    scf.yield %4 : tensor<?x?xi64>
  } else {
    %5 = soac.copy %m : tensor<?x?xi64>
    scf.yield %5 : tensor<?x?xi64>
  }
  %q = soac.size(0) %u : tensor<?x?xi64>
  %v = scf.if %e -> (tensor<?x?xi64>) {
    %6 = soac.copy %m : tensor<?x?xi64>
    scf.yield %6 : tensor<?x?xi64>
  } else {
    %7 = soac.empty : tensor<?x?xi64>
    scf.yield %7 : tensor<?x?xi64>
  }
  %w = soac.size(0) %v : tensor<?x?xi64>
  func.return %n, %p, %q, %w : i64, i64, i64, i64
}
// CHECK-LABEL: func.func @empty_branch
// CHECK:         [[M0:%.*]] = soac.size(0) %m : tensor<?x?xi64>
// CHECK-NEXT:    [[Z:%.*]] = arith.constant 0 : i64
// CHECK-NEXT:    [[NZ:%.*]] = arith.cmpi ne, %g, [[Z]] : i64
// CHECK-NEXT:    %{{.*}} = arith.select [[NZ]], [[M0]], [[Z]] : i64
// CHECK:         [[M1:%.*]] = soac.size(1) %m : tensor<?x?xi64>
// CHECK:         %{{.*}} = arith.select %{{.*}}, [[M1]], %{{.*}} : i64
// CHECK:         %q = soac.size(0) %u : tensor<?x?xi64>
// CHECK:         %w = soac.size(0) %v : tensor<?x?xi64>

// -----

// Note [Sizes taken in the body]: the body builds its next value over
// `iota(size(0, x))` and `iota(size(1, x))`, `x` the merge parameter (LocVolCalib's
// time loop: `numX = size(0, myResult)`); it keeps both dimensions, so the sizes inside
// and after the loop are those of the initial value, a map over `iota(%n)` of
// `replicate(%m, ...)`: `%n`, and `%m` when there are rows.
func.func @body_counts_rows(%n: i64, %m: i64, %t: i64) -> (tensor<?x?xi64>, i64, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %in = soac.iota %n
  %init = soac.map(%i = %in : tensor<?xi64>) -> tensor<?x?xi64> {
    %row = soac.replicate %m, %i : i64
    soac.yield %row : tensor<?xi64>
  }
  %r = scf.for %k = %zero to %t step %one iter_args(%x = %init) -> (tensor<?x?xi64>) : i64 {
    %rows = soac.size(0) %x : tensor<?x?xi64>
    %cols = soac.size(1) %x : tensor<?x?xi64>
    %ir = soac.iota %rows
    %next = soac.map(%i = %ir : tensor<?xi64>) -> tensor<?x?xi64> {
      %ic = soac.iota %cols
      %row = soac.map(%j = %ic : tensor<?xi64>) -> tensor<?xi64> {
        %e = soac.index %x[%i, %j] : tensor<?x?xi64> -> i64
        %f = arith.addi %e, %k : i64
        soac.yield %f : i64
      }
      soac.yield %row : tensor<?xi64>
    }
    scf.yield %next : tensor<?x?xi64>
  }
  %s0 = soac.size(0) %r : tensor<?x?xi64>
  %s1 = soac.size(1) %r : tensor<?x?xi64>
  func.return %r, %s0, %s1 : tensor<?x?xi64>, i64, i64
}
// CHECK-LABEL: func.func @body_counts_rows
// CHECK:         scf.for
// CHECK:           %ir = soac.iota %n
// CHECK:         }
// CHECK:         [[C:%.*]] = arith.cmpi ne, %n, {{%.*}} : i64
// CHECK-NEXT:    [[S1:%.*]] = arith.select [[C]], %m, {{%.*}} : i64
// CHECK-NEXT:    func.return %r, %n, [[S1]]

// -----

// Must not fire: the body counts its rows from the wrong dimension (`size(1, x)` rows,
// a transposition of the shape), so it does not keep the size; the sizes of the
// merge parameter and of the result stay as they are.
func.func @body_counts_other_dim(%n: i64, %m: i64, %t: i64) -> (tensor<?x?xi64>, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %in = soac.iota %n
  %init = soac.map(%i = %in : tensor<?xi64>) -> tensor<?x?xi64> {
    %row = soac.replicate %m, %i : i64
    soac.yield %row : tensor<?xi64>
  }
  %r = scf.for %k = %zero to %t step %one iter_args(%x = %init) -> (tensor<?x?xi64>) : i64 {
    %rows = soac.size(0) %x : tensor<?x?xi64>
    %cols = soac.size(1) %x : tensor<?x?xi64>
    %ic = soac.iota %cols
    %next = soac.map(%j = %ic : tensor<?xi64>) -> tensor<?x?xi64> {
      %ir = soac.iota %rows
      %row = soac.map(%i = %ir : tensor<?xi64>) -> tensor<?xi64> {
        %e = soac.index %x[%i, %j] : tensor<?x?xi64> -> i64
        soac.yield %e : i64
      }
      soac.yield %row : tensor<?xi64>
    }
    scf.yield %next : tensor<?x?xi64>
  }
  %s0 = soac.size(0) %r : tensor<?x?xi64>
  func.return %r, %s0 : tensor<?x?xi64>, i64
}
// CHECK-LABEL: func.func @body_counts_other_dim
// CHECK:         scf.for
// CHECK:           %rows = soac.size(0) %x
// CHECK:         }
// CHECK:         %s0 = soac.size(0) %r
// CHECK-NEXT:    func.return %r, %s0
