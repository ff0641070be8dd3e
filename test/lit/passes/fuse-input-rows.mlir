// RUN: l0-opt %s -p fuse,verify-uniqueness --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'fuse{explain=true}' --split-input-file -o /dev/null 2>&1 | filecheck %s --check-prefix=EXPLAIN

// Note [An input indexed by the iteration number]: the map over `iota(n)` has `%b` as
// an input beside the iota, and reads `b[i, k]` in a loop (a tridiagonal solve's
// right-hand side `r[k]` of the row `r = b[i]`, folded by the simplifier into
// `b[i, k]`). That is the row `%r` the lambda already has: the indexing reads `%r`,
// keeping its certificate, and then `%b`'s only use is the input, so its map fuses.
func.func @loop_reads_input_row(%a: tensor<?x?xf64>, %n: i64, %m: i64,
                                %ok: i1) -> tensor<?xf64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %z = arith.constant 0.0 : f64
  %b = soac.map(%x = %a : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %y = soac.map(%e = %x : tensor<?xf64>) -> tensor<?xf64> {
      %f = arith.addf %e, %e : f64
      soac.yield %f : f64
    }
    soac.yield %y : tensor<?xf64>
  }
  %is = soac.iota %n
  %c = soac.map(%i = %is, %r = %b : tensor<?xi64>, tensor<?x?xf64>) -> tensor<?xf64> {
    %s = scf.for %k = %zero to %m step %one iter_args(%acc = %z) -> (f64) : i64 {
      %ck = soac.assert %ok, "index {0} out of bounds" (%k : i64) at "t.l0:1:1"
      %e = soac.index %b[%i, %k] <%ck> : tensor<?x?xf64> -> f64
      %t = arith.addf %acc, %e : f64
      scf.yield %t : f64
    }
    soac.yield %s : f64
  }
  func.return %c : tensor<?xf64>
}
// CHECK-LABEL: func.func @loop_reads_input_row
// CHECK-NOT:     %b = soac.map
// CHECK:         %c = soac.map(%i = %is, %x = %a : tensor<?xi64>, tensor<?x?xf64>)
// CHECK-NEXT:      %y = soac.map(%e = %x : tensor<?xf64>)
// CHECK:           scf.for
// CHECK:             %ck = soac.assert
// CHECK-NEXT:        %e_1 = soac.index %y[%k] <%ck> : tensor<?xf64> -> f64

// -----

// Must not fire: the lambda consumes its row `%r` (an in-place update), so after it
// `b[i, k]` is no longer `%r[k]`; the indexing of `%b` stays, and so does `%b`'s map.
func.func @row_consumed(%a: tensor<?x?xf64>, %n: i64, %k: i64) -> tensor<?xf64> {
  %z = arith.constant 0.0 : f64
  %b = soac.map(%x = %a : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %y = soac.map(%e = %x : tensor<?xf64>) -> tensor<?xf64> {
      %f = arith.addf %e, %e : f64
      soac.yield %f : f64
    }
    soac.yield %y : tensor<?xf64>
  }
  %is = soac.iota %n
  %c = soac.map(%i = %is, %r = %b : tensor<?xi64>, tensor<?x?xf64>) -> tensor<?xf64> {
    %w = soac.update %r[%k] = %z : tensor<?xf64>
    %e = soac.index %b[%i, %k] : tensor<?x?xf64> -> f64
    %v = soac.index %w[%k] : tensor<?xf64> -> f64
    %t = arith.addf %e, %v : f64
    soac.yield %t : f64
  }
  func.return %c : tensor<?xf64>
}
// CHECK-LABEL: func.func @row_consumed
// CHECK:         %b = soac.map
// CHECK:         %c = soac.map(%i = %is, %r = %b
// CHECK:           soac.index %b[%i, %k]
// EXPLAIN: remark: 'soac.map' %b not fused: output %b is used by 'soac.index', not as an input array

// -----

// Must not fire: the index is not the iteration number (`%j`, from outside), so
// `b[j, k]` is some other row of `%b`.
func.func @other_row(%a: tensor<?x?xf64>, %n: i64, %j: i64, %k: i64) -> tensor<?xf64> {
  %b = soac.map(%x = %a : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %y = soac.map(%e = %x : tensor<?xf64>) -> tensor<?xf64> {
      %f = arith.addf %e, %e : f64
      soac.yield %f : f64
    }
    soac.yield %y : tensor<?xf64>
  }
  %is = soac.iota %n
  %c = soac.map(%i = %is, %r = %b : tensor<?xi64>, tensor<?x?xf64>) -> tensor<?xf64> {
    %e = soac.index %b[%j, %k] : tensor<?x?xf64> -> f64
    %v = soac.index %r[%k] : tensor<?xf64> -> f64
    %t = arith.addf %e, %v : f64
    soac.yield %t : f64
  }
  func.return %c : tensor<?xf64>
}
// CHECK-LABEL: func.func @other_row
// CHECK:         %b = soac.map
// CHECK:         soac.index %b[%j, %k]
// EXPLAIN: remark: 'soac.map' %b not fused: output %b is used by 'soac.index', not as an input array
