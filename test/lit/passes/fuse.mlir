// RUN: l0-opt %s -p fuse,verify-uniqueness --split-input-file | filecheck %s

// FUSE-MAP-MAP (7.1.1): the consumer's lambda runs the producer's first; the producer
// and its intermediate array are gone. The consumer's other input stays, the
// producer's input is added, and both SOACs' certificates guard the result.
func.func @map_map(%a: tensor<?xi64>, %d: tensor<?xi64>, %c1: !soac.cert, %c2: !soac.cert) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) <%c1> -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %r = soac.map(%u = %d, %v = %b : tensor<?xi64>, tensor<?xi64>) <%c2> -> tensor<?xi64> {
    %w = arith.addi %u, %v : i64
    soac.yield %w : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @map_map
// CHECK-NEXT:    %r = soac.map(%u = %d, %x = %a : tensor<?xi64>, tensor<?xi64>) <%c2, %c1> -> tensor<?xi64> {
// CHECK-NEXT:      %y = arith.muli %x, %x : i64
// CHECK-NEXT:      %w = arith.addi %u, %y : i64
// CHECK-NEXT:      soac.yield %w : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r

// -----

// An input both SOACs read becomes one input of the fused map (7.4: "removing
// duplicate input arrays"); a producer with two outputs feeds two arguments.
func.func @shared_input(%a: tensor<?xi64>) -> tensor<?xi64> {
  %b, %e = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64>, tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    %z = arith.muli %x, %x : i64
    soac.yield %y, %z : i64, i64
  }
  %r = soac.map(%p = %a, %q = %b, %s = %e : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
    %t = arith.subi %q, %s : i64
    %w = arith.addi %p, %t : i64
    soac.yield %w : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @shared_input
// CHECK-NEXT:    %r = soac.map(%p = %a : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %y = arith.addi %p, %p : i64
// CHECK-NEXT:      %z = arith.muli %p, %p : i64
// CHECK-NEXT:      %t = arith.subi %y, %z : i64
// CHECK-NEXT:      %w = arith.addi %p, %t : i64

// -----

// map -> reduce gives a redomap (7.1.1): the reduce's lambda is the outer operator,
// and the inner lambda maps, then folds.
func.func @map_reduce(%a: tensor<?xf64>, %zero: f64) -> f64 {
  %b = soac.map(%x = %a : tensor<?xf64>) -> tensor<?xf64> {
    %y = arith.mulf %x, %x : f64
    soac.yield %y : f64
  }
  %s = soac.reduce(%acc = %zero : f64) over(%e = %b : tensor<?xf64>) {
    %t = arith.addf %acc, %e : f64
    soac.yield %t : f64
  }
  func.return %s : f64
}
// CHECK-LABEL: func.func @map_reduce
// CHECK-NEXT:    %s = soac.redomap(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) {
// CHECK-NEXT:      %y = arith.mulf %x, %x : f64
// CHECK-NEXT:      %t = arith.addf %acc, %y : f64
// CHECK-NEXT:      soac.yield %t : f64
// CHECK-NEXT:    } outer {
// CHECK-NEXT:    ^{{.*}}(%[[P:.*]]: f64, %[[Q:.*]]: f64):
// CHECK-NEXT:      %{{.*}} = arith.addf %[[P]], %[[Q]] : f64
// CHECK:         func.return %s : f64

// -----

// A chain: map -> map -> reduce is one redomap, whichever pair fuses first.
func.func @chain(%a: tensor<?xi64>, %zero: i64) -> i64 {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.reduce(%acc = %zero : i64) over(%e = %c : tensor<?xi64>) {
    %t = arith.maxsi %acc, %e : i64
    soac.yield %t : i64
  }
  func.return %s : i64
}
// CHECK-LABEL: func.func @chain
// CHECK-NOT:     soac.map
// CHECK:         soac.redomap({{.*}}) over(%{{.*}} = %a : tensor<?xi64>)
// CHECK-NOT:     soac.map
// CHECK:         func.return

// -----

// map -> redomap: the producer runs before the inner lambda; accumulators stay first.
func.func @map_redomap(%a: tensor<?xi64>, %zero: i64) -> i64 {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.redomap(%acc = %zero : i64) over(%e = %b : tensor<?xi64>) {
    %sq = arith.muli %e, %e : i64
    %t = arith.addi %acc, %sq : i64
    soac.yield %t : i64
  } outer {
  ^bb0(%p: i64, %q: i64):
    %t = arith.addi %p, %q : i64
    soac.yield %t : i64
  }
  func.return %s : i64
}
// CHECK-LABEL: func.func @map_redomap
// CHECK-NEXT:    %s = soac.redomap(%acc = %zero : i64) over(%x = %a : tensor<?xi64>) {
// CHECK-NEXT:      %y = arith.addi %x, %x : i64
// CHECK-NEXT:      %sq = arith.muli %y, %y : i64

// -----

// Nested maps (the thesis's P1 before fusion): the outer maps fuse, then the inner
// ones inside the fused lambda, then the inner map into the reduce.
func.func @nested(%a: tensor<?x?xi64>, %b: tensor<?x?xi64>, %zero: i64) -> tensor<?xi64> {
  %p = soac.map(%x = %a, %y = %b : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
    %m = soac.map(%u = %x, %v = %y : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
      %w = arith.muli %u, %v : i64
      soac.yield %w : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %r = soac.map(%row = %p : tensor<?x?xi64>) -> tensor<?xi64> {
    %s = soac.reduce(%acc = %zero : i64) over(%e = %row : tensor<?xi64>) {
      %t = arith.addi %acc, %e : i64
      soac.yield %t : i64
    }
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @nested
// CHECK-NEXT:    %r = soac.map(%x = %a, %y = %b : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %s = soac.redomap(%acc = %zero : i64) over(%u = %x, %v = %y : tensor<?xi64>, tensor<?xi64>) {
// CHECK-NEXT:        %w = arith.muli %u, %v : i64
// CHECK-NEXT:        %t = arith.addi %acc, %w : i64

// -----

// A producer whose rows are arrays fuses when their shape is known before it runs
// (here replicate(n, row)); the replicate then feeds the inner map, whose row of it
// is the row itself (7.1.1 replicate fusion), and the replicate is dead.
func.func @regular_rows(%a: tensor<?x?xi64>, %t: tensor<?x?xi64>, %n: i64) -> tensor<?x?x?xi64> {
  %ar = soac.map(%x = %a : tensor<?x?xi64>) -> tensor<?x?x?xi64> {
    %rep = soac.replicate %n, %x : tensor<?xi64>
    soac.yield %rep : tensor<?x?xi64>
  }
  %r = soac.map(%p = %ar : tensor<?x?x?xi64>) -> tensor<?x?x?xi64> {
    %m = soac.map(%u = %p, %v = %t : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
      %w = soac.map(%i = %u, %j = %v : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
        %k = arith.addi %i, %j : i64
        soac.yield %k : i64
      }
      soac.yield %w : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  }
  func.return %r : tensor<?x?x?xi64>
}
// CHECK-LABEL: func.func @regular_rows
// CHECK-NEXT:    %r = soac.map(%x = %a : tensor<?x?xi64>) -> tensor<?x?x?xi64> {
// CHECK-NEXT:      %m = soac.map(%v = %t : tensor<?x?xi64>) -> tensor<?x?xi64> {
// CHECK-NEXT:        %w = soac.map(%i = %x, %j = %v : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {

// -----

// Replicate fusion into a reduce makes it a redomap (only the inner lambda may see
// something other than rows); a replicate that is the only input stays (it gives
// the number of iterations).
func.func @replicate_inputs(%a: tensor<?xi64>, %n: i64, %v: i64, %zero: i64) -> (i64, tensor<?xi64>) {
  %rep = soac.replicate %n, %v : i64
  %s:2 = soac.reduce(%acc1 = %zero, %acc2 = %zero : i64, i64) over(%x = %a, %y = %rep : tensor<?xi64>, tensor<?xi64>) {
    %t = arith.addi %acc1, %x : i64
    %u = arith.addi %acc2, %y : i64
    soac.yield %t, %u : i64, i64
  }
  %only = soac.map(%y = %rep : tensor<?xi64>) -> tensor<?xi64> {
    %d = arith.addi %y, %y : i64
    soac.yield %d : i64
  }
  func.return %s#0, %only : i64, tensor<?xi64>
}
// CHECK-LABEL: func.func @replicate_inputs
// CHECK:         %s, %s_1 = soac.redomap(%acc1 = %zero, %acc2 = %zero : i64, i64) over(%x = %a : tensor<?xi64>) {
// CHECK-NEXT:      %t = arith.addi %acc1, %x : i64
// CHECK-NEXT:      %u = arith.addi %acc2, %v : i64
// CHECK:         soac.map(%{{.*}} = %rep : tensor<?xi64>)

// -----

// filter -> filter: `if p(x) then q(x) else false` (&& is not lazy in L0).
func.func @filter_filter(%a: tensor<?xi64>, %zero: i64) -> tensor<?xi64> {
  %b = soac.filter(%x = %a : tensor<?xi64>) {
    %p = arith.cmpi sgt, %x, %zero : i64
    soac.yield %p : i1
  }
  %c = soac.filter(%x = %b : tensor<?xi64>) {
    %q = arith.divsi %zero, %x : i64
    %r = arith.cmpi eq, %q, %zero : i64
    soac.yield %r : i1
  }
  func.return %c : tensor<?xi64>
}
// CHECK-LABEL: func.func @filter_filter
// CHECK-NEXT:    %c = soac.filter(%x = %a : tensor<?xi64>) {
// CHECK-NEXT:      %p = arith.cmpi sgt, %x, %zero : i64
// CHECK-NEXT:      %[[G:.*]] = scf.if %p -> (i1) {
// CHECK-NEXT:        %q = arith.divsi %zero, %x : i64
// CHECK-NEXT:        %r = arith.cmpi eq, %q, %zero : i64
// CHECK-NEXT:        scf.yield %r : i1
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[F:.*]] = arith.constant false
// CHECK-NEXT:        scf.yield %[[F]] : i1
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %[[G]] : i1

// -----

// filter -> reduce: a redomap folding only the rows the filter keeps; the filter's
// second output is the reduce's only input, so the fold sees one argument of two.
func.func @filter_reduce(%a: tensor<?xi64>, %f: tensor<?xf64>, %zero: f64, %c: !soac.cert) -> f64 {
  %b, %g = soac.filter(%x = %a, %y = %f : tensor<?xi64>, tensor<?xf64>) <%c> {
    %k = arith.constant 0 : i64
    %p = arith.cmpi sgt, %x, %k : i64
    soac.yield %p : i1
  }
  %s = soac.reduce(%acc = %zero : f64) over(%e = %g : tensor<?xf64>) {
    %t = arith.addf %acc, %e : f64
    soac.yield %t : f64
  }
  func.return %s : f64
}
// CHECK-LABEL: func.func @filter_reduce
// CHECK-NEXT:    %s = soac.redomap(%acc = %zero : f64) over(%x = %a, %[[Y:.*]] = %f : tensor<?xi64>, tensor<?xf64>) <%c> {
// CHECK-NEXT:      %k = arith.constant 0 : i64
// CHECK-NEXT:      %p = arith.cmpi sgt, %x, %k : i64
// CHECK-NEXT:      %[[G:.*]] = scf.if %p -> (f64) {
// CHECK-NEXT:        %t = arith.addf %acc, %[[Y]] : f64
// CHECK-NEXT:        scf.yield %t : f64
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %acc : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %[[G]] : f64

// -----

// Consumers on the two branches of an `if` never both run (7.4.1, Figure 25): the
// producer fuses into each, and disappears.
func.func @branches(%a: tensor<?xi64>, %c: i1) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %r = scf.if %c -> (tensor<?xi64>) {
    %t = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.addi %x, %x : i64
      soac.yield %y : i64
    }
    scf.yield %t : tensor<?xi64>
  } else {
    %e = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.subi %x, %x : i64
      soac.yield %y : i64
    }
    scf.yield %e : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @branches
// CHECK-NEXT:    %r = scf.if %c -> (tensor<?xi64>) {
// CHECK-NEXT:      %t = soac.map(%{{.*}} = %a : tensor<?xi64>)
// CHECK-NEXT:        arith.muli
// CHECK-NEXT:        arith.addi
// CHECK:         } else {
// CHECK-NEXT:      %e = soac.map(%{{.*}} = %a : tensor<?xi64>)
// CHECK-NEXT:        arith.muli
// CHECK-NEXT:        arith.subi

// -----

// Inside a loop body, producer and consumer in the same iteration fuse.
func.func @in_loop(%a: tensor<?xi64>, %n: i64) -> tensor<?xi64> {
  %lb = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %lb to %n step %one iter_args(%acc = %a) -> (tensor<?xi64>) : i64 {
    %b = soac.map(%x = %acc : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.addi %x, %i : i64
      soac.yield %y : i64
    }
    %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.muli %x, %x : i64
      soac.yield %y : i64
    }
    scf.yield %c : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @in_loop
// CHECK:         scf.for
// CHECK-NEXT:      %c = soac.map(%{{.*}} = %acc : tensor<?xi64>)
// CHECK-NEXT:        arith.addi
// CHECK-NEXT:        arith.muli

// -----

// Only one of the two lambdas may fail: the failures happen in the same order fused
// or not, so both cases fuse.
func.func @one_may_fail(%a: tensor<?xi64>, %d: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %e = soac.map(%x = %d : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %f = soac.map(%x = %e : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %x, %x : i64
    soac.yield %y : i64
  }
  func.return %c, %f : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @one_may_fail
// CHECK-NEXT:    %c = soac.map(%x = %a : tensor<?xi64>)
// CHECK-NEXT:      arith.divsi
// CHECK-NEXT:      arith.addi
// CHECK:         %f = soac.map(%{{.*}} = %d : tensor<?xi64>)
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      arith.divsi

// -----

// PULL-TRANSPOSE (8.1.2): the producer is a perfect nest of two maps, so the
// transposition of its output moves to its input, and it fuses with the column sums.
func.func @pull_transpose(%a: tensor<?x?xf64>, %zero: f64) -> tensor<?xf64> {
  %b = soac.map(%r = %a : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %m = soac.map(%x = %r : tensor<?xf64>) -> tensor<?xf64> {
      %y = arith.mulf %x, %x : f64
      soac.yield %y : f64
    }
    soac.yield %m : tensor<?xf64>
  }
  %t = soac.transpose(0, 1) %b : tensor<?x?xf64>
  %s = soac.map(%c = %t : tensor<?x?xf64>) -> tensor<?xf64> {
    %v = soac.reduce(%acc = %zero : f64) over(%e = %c : tensor<?xf64>) {
      %w = arith.addf %acc, %e : f64
      soac.yield %w : f64
    }
    soac.yield %v : f64
  }
  func.return %s : tensor<?xf64>
}
// CHECK-LABEL: func.func @pull_transpose
// CHECK-NEXT:    %[[T:.*]] = soac.transpose(0, 1) %a : tensor<?x?xf64>
// CHECK-NEXT:    %s = soac.map(%r = %[[T]] : tensor<?x?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:      %v = soac.redomap(%acc = %zero : f64) over(%x = %r : tensor<?xf64>) {
// CHECK-NEXT:        %y = arith.mulf %x, %x : f64
// CHECK-NEXT:        %w = arith.addf %acc, %y : f64

// -----

// PUSH-TRANSPOSE (8.1.1): the producer is not a nest (its lambda builds iota), but the
// consumer is a perfect nest of two maps: it runs over the untransposed output and the
// inverse transposition of its other input, and its result is transposed back.
func.func @push_transpose(%a: tensor<?x?xi64>, %d: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %n = soac.size(0) %r : tensor<?xi64>
    %i = soac.iota %n
    soac.yield %i : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %b : tensor<?x?xi64>
  %s = soac.map(%c = %t, %e = %d : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
    %m = soac.map(%x = %c, %y = %e : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
      %z = arith.addi %x, %y : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @push_transpose
// CHECK-NEXT:    %[[D:.*]] = soac.transpose(1, -1) %d : tensor<?x?xi64>
// CHECK-NEXT:    %[[F:.*]] = soac.map(%e = %[[D]], %r = %a : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
// CHECK-NEXT:      %n = soac.size(0) %r : tensor<?xi64>
// CHECK-NEXT:      %i = soac.iota %n
// CHECK-NEXT:      %m = soac.map(%x = %i, %y = %e : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
// CHECK:         %s = soac.transpose(0, 1) %[[F]] : tensor<?x?xi64>
// CHECK-NEXT:    func.return %s

// -----

// PULL-TRANSPOSE through a nest with an input invariant to its outer level (Note
// [Arrays that enter a nest below its top]): `c` follows the columns, which become
// the new outer level, so its element is read by index in the new inner lambda, at
// the new outer level's position (an `iota` of its size), under the certificate of
// the zip that took it; then the nest fuses with the column sums.
func.func @pull_transpose_invariant(%a: tensor<?x?xf64>, %c: tensor<?xf64>, %ok: !soac.cert, %zero: f64) -> tensor<?xf64> {
  %b = soac.map(%r = %a : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %m = soac.map(%x = %r, %y = %c : tensor<?xf64>, tensor<?xf64>) <%ok> -> tensor<?xf64> {
      %z = arith.mulf %x, %y : f64
      soac.yield %z : f64
    }
    soac.yield %m : tensor<?xf64>
  }
  %t = soac.transpose(0, 1) %b : tensor<?x?xf64>
  %s = soac.map(%col = %t : tensor<?x?xf64>) -> tensor<?xf64> {
    %v = soac.reduce(%acc = %zero : f64) over(%e = %col : tensor<?xf64>) {
      %w = arith.addf %acc, %e : f64
      soac.yield %w : f64
    }
    soac.yield %v : f64
  }
  func.return %s : tensor<?xf64>
}
// CHECK-LABEL: func.func @pull_transpose_invariant
// CHECK-NEXT:    %[[T:.*]] = soac.transpose(0, 1) %a : tensor<?x?xf64>
// CHECK-NEXT:    %[[N:.*]] = soac.size(0) %[[T]] : tensor<?x?xf64>
// CHECK-NEXT:    %[[J:.*]] = soac.iota %[[N]]
// CHECK-NEXT:    %s = soac.map(%r = %[[T]], %[[JE:.*]] = %[[J]] : tensor<?x?xf64>, tensor<?xi64>) -> tensor<?xf64> {
// CHECK-NEXT:      %v = soac.redomap(%acc = %zero : f64) over(%x = %r : tensor<?xf64>) <%ok> {
// CHECK-NEXT:        %y = soac.index %c[%[[JE]]] <%ok> : tensor<?xf64> -> f64
// CHECK-NEXT:        %z = arith.mulf %x, %y : f64
// CHECK-NEXT:        %w = arith.addf %acc, %z : f64

// -----

// An invariant input that follows every dimension the transposition moves (it enters
// at the second level, and `transpose(1, 1)` swaps the second and third) stays where
// it is, transposed the same way (shifted by the level above it).
func.func @pull_transpose_spanning(%a: tensor<?x?x?xf64>, %c: tensor<?x?xf64>, %zero: f64) -> tensor<?x?xf64> {
  %b = soac.map(%r = %a : tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
    %m = soac.map(%x = %r, %y = %c : tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64> {
      %n = soac.map(%e = %x, %f = %y : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> {
        %z = arith.mulf %e, %f : f64
        soac.yield %z : f64
      }
      soac.yield %n : tensor<?xf64>
    }
    soac.yield %m : tensor<?x?xf64>
  }
  %t = soac.transpose(1, 1) %b : tensor<?x?x?xf64>
  %s = soac.map(%p = %t : tensor<?x?x?xf64>) -> tensor<?x?xf64> {
    %q = soac.map(%col = %p : tensor<?x?xf64>) -> tensor<?xf64> {
      %v = soac.reduce(%acc = %zero : f64) over(%g = %col : tensor<?xf64>) {
        %w = arith.addf %acc, %g : f64
        soac.yield %w : f64
      }
      soac.yield %v : f64
    }
    soac.yield %q : tensor<?xf64>
  }
  func.return %s : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @pull_transpose_spanning
// CHECK-NEXT:    %[[A:.*]] = soac.transpose(1, 1) %a : tensor<?x?x?xf64>
// CHECK-NEXT:    %[[C:.*]] = soac.transpose(0, 1) %c : tensor<?x?xf64>
// CHECK-NEXT:    %s = soac.map(%r = %[[A]] : tensor<?x?x?xf64>) -> tensor<?x?xf64> {
// CHECK-NEXT:      %q = soac.map(%x = %r, %y = %[[C]] : tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:        %v = soac.redomap(%acc = %zero : f64) over(%e = %x, %f = %y : tensor<?xf64>, tensor<?xf64>) {
// CHECK-NEXT:          %z = arith.mulf %e, %f : f64

// -----

// PUSH-TRANSPOSE of a consumer nest with an invariant input: on the untransposed
// rows, `c` follows the outer level no more, and is read by index; the new outer
// level's count is the producer's input's (a size of the producer's output would
// keep it from fusing), and the producer fuses.
func.func @push_transpose_invariant(%a: tensor<?x?xi64>, %c: tensor<?xi64>) -> tensor<?x?xi64> {
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %n = soac.size(0) %r : tensor<?xi64>
    %i = soac.iota %n
    soac.yield %i : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %b : tensor<?x?xi64>
  %s = soac.map(%col = %t : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %m = soac.map(%x = %col, %y = %c : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
      %z = arith.addi %x, %y : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @push_transpose_invariant
// CHECK-NEXT:    %[[N:.*]] = soac.size(0) %a : tensor<?x?xi64>
// CHECK-NEXT:    %[[J:.*]] = soac.iota %[[N]]
// CHECK-NEXT:    %[[F:.*]] = soac.map(%[[JE:.*]] = %[[J]], %r = %a : tensor<?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
// CHECK-NEXT:      %n = soac.size(0) %r : tensor<?xi64>
// CHECK-NEXT:      %i = soac.iota %n
// CHECK-NEXT:      %m = soac.map(%x = %i : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:        %y = soac.index %c[%[[JE]]] : tensor<?xi64> -> i64
// CHECK:         %s = soac.transpose(0, 1) %[[F]] : tensor<?x?xi64>
// CHECK-NEXT:    func.return %s

// -----

// The consumer updates rows of another array in place: it consumes that array, not
// the one the producer reads (updated only after both), so they still fuse.
func.func @consumer_updates_other(%a: tensor<?xi64> {soac.unique}, %d: tensor<?x?xi64> {soac.unique}, %i: i64) -> (tensor<?x?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%v = %b, %r = %d : tensor<?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
    %u = soac.update %r[%i] = %v : tensor<?xi64>
    soac.yield %u : tensor<?xi64>
  }
  %e = soac.update %a[%i] = %i : tensor<?xi64>
  func.return %c, %e : tensor<?x?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @consumer_updates_other
// CHECK-NEXT:    %c = soac.map(%r = %d, %x = %a : tensor<?x?xi64>, tensor<?xi64>) -> tensor<?x?xi64> {
// CHECK-NEXT:      %y = arith.muli %x, %x : i64
// CHECK-NEXT:      %u = soac.update %r[%i] = %y : tensor<?xi64>

// -----

// The consumer's row parameter may be consumed, but only outside its lambda: the fold
// returns the (fresh) row it gets, which is updated after it. Nothing in the lambda
// consumes the row, so the producer still fuses.
func.func @row_escapes(%a: tensor<?x?xi64>, %z: tensor<?xi64>, %i: i64) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %y = soac.map(%e = %x : tensor<?xi64>) -> tensor<?xi64> {
      %f = arith.muli %e, %e : i64
      soac.yield %f : i64
    }
    soac.yield %y : tensor<?xi64>
  }
  %s = soac.reduce(%p = %z : tensor<?xi64>) over(%r = %b : tensor<?x?xi64>) {
    soac.yield %r : tensor<?xi64>
  }
  %u = soac.update %s[%i] = %i : tensor<?xi64>
  func.return %u : tensor<?xi64>
}
// CHECK-LABEL: func.func @row_escapes
// CHECK-NEXT:    %s = soac.redomap(%p = %z : tensor<?xi64>) over(%x = %a : tensor<?x?xi64>) {
// CHECK-NEXT:      %y = soac.map(%e = %x : tensor<?xi64>) -> tensor<?xi64> {
// CHECK:         } outer {
// CHECK:         %u = soac.update %s[%i] = %i : tensor<?xi64>
