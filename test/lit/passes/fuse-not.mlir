// RUN: l0-opt %s -p 'fuse{horizontal=false duplicate=false}' --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'fuse{explain=true horizontal=false duplicate=false}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=WHY

// Cases where fusion must not fire (7.1.2, 7.1.3, and errors): the IR is unchanged,
// and `explain` says why. Vertical fusion alone: merging siblings and splitting
// producers, which would fuse some of these, have their own tests
// (fuse-horizontal*.mlir, fuse-duplicate*.mlir).

// Two consumers on one path: fusing into both would compute b twice (7.1.3).
func.func @two_consumers(%a: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %d = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.subi %x, %x : i64
    soac.yield %y : i64
  }
  func.return %c, %d : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @two_consumers
// CHECK: %b = soac.map
// CHECK: %c = soac.map(%{{.*}} = %b
// CHECK: %d = soac.map(%{{.*}} = %b
// WHY: remark: 'soac.map' %b not fused: two consumers may run in one execution (work would be duplicated)

// -----

// An output that is also indexed must exist (7.4.1, the UNFUSIBLE set).
func.func @indexed(%a: tensor<?xi64>, %i: i64) -> (tensor<?xi64>, i64) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %e = soac.index %b[%i] : tensor<?xi64> -> i64
  func.return %c, %e : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @indexed
// CHECK: %b = soac.map
// CHECK: soac.map(%{{.*}} = %b
// WHY: remark: 'soac.map' %b not fused: output %b is used by 'soac.index', not as an input array

// -----

// A consumer in a loop body would recompute the producer every iteration (Figure 28).
func.func @consumer_in_loop(%a: tensor<?xi64>, %n: i64) -> i64 {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %lb = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %lb to %n step %one iter_args(%acc = %lb) -> (i64) : i64 {
    %s = soac.reduce(%p = %acc : i64) over(%e = %b : tensor<?xi64>) {
      %t = arith.addi %p, %e : i64
      soac.yield %t : i64
    }
    scf.yield %s : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @consumer_in_loop
// CHECK: %b = soac.map
// CHECK: soac.reduce({{.*}}) over(%{{.*}} = %b
// WHY: remark: 'soac.map' %b not fused: the consumer 'soac.reduce' runs inside a loop or lambda

// -----

// A consumer inside a lambda likewise (the thesis bans fusing into SOAC functions).
func.func @consumer_in_lambda(%a: tensor<?xi64>, %d: tensor<?xi64>) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %r = soac.map(%z = %d : tensor<?xi64>) -> tensor<?xi64> {
    %s = soac.reduce(%p = %z : i64) over(%e = %b : tensor<?xi64>) {
      %t = arith.addi %p, %e : i64
      soac.yield %t : i64
    }
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @consumer_in_lambda
// CHECK: %b = soac.map
// WHY: remark: 'soac.map' %b not fused: the consumer 'soac.reduce' runs inside a loop or lambda

// -----

// The producer's input is consumed (updated in place) between the two: fused, the
// producer would read it after the update (7.1.2).
func.func @consumed_between(%a: tensor<?xi64> {soac.unique}, %i: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %u = soac.update %a[%i] = %i : tensor<?xi64>
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  func.return %c, %u : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @consumed_between
// CHECK: %b = soac.map
// CHECK: soac.update
// CHECK: soac.map(%{{.*}} = %b
// WHY: remark: 'soac.map' %b not fused: an array the producer reads may be consumed before the consumer

// -----

// The consumer updates the row it gets from the producer in place; fused, that row
// would be the producer's input row itself.
func.func @consumes_row(%a: tensor<?x?xi64>, %i: i64) -> tensor<?x?xi64> {
  %b = soac.map(%x = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    soac.yield %x : tensor<?xi64>
  }
  %c = soac.map(%r = %b : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %u = soac.update %r[%i] = %i : tensor<?xi64>
    soac.yield %u : tensor<?xi64>
  }
  func.return %c : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @consumes_row
// CHECK: %b = soac.map
// WHY: remark: 'soac.map' %b not fused: the consumer's lambda consumes a row of the producer's output

// -----

// Rows of a shape only known when each is computed (iota(x)) may be irregular: the
// producer reports that, fused it could not.
func.func @irregular(%a: tensor<?xi64>) -> tensor<?x?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?x?xi64> {
    %y = soac.iota %x
    soac.yield %y : tensor<?xi64>
  }
  %c = soac.map(%r = %b : tensor<?x?xi64>) -> tensor<?x?xi64> {
    soac.yield %r : tensor<?xi64>
  }
  func.return %c : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @irregular
// CHECK: %b = soac.map
// WHY: remark: 'soac.map' %b not fused: its rows may differ in shape (the irregularity check would vanish)

// -----

// Both lambdas may fail (division by zero): fused, the consumer's error for row 0
// would come before the producer's for row 5, the reverse of what the program does.
func.func @both_fail(%a: tensor<?xi64>, %d: tensor<?xi64>) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %b, %z = %d : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %x, %z : i64
    soac.yield %y : i64
  }
  func.return %c : tensor<?xi64>
}
// CHECK-LABEL: func.func @both_fail
// CHECK: %b = soac.map
// WHY: remark: 'soac.map' %b not fused: the producer may fail or print, and so may 'soac.map' before the consumer's rows are done

// -----

// The producer may fail and a check runs between the two.
func.func @check_between(%a: tensor<?xi64>, %ok: i1) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %x, %x : i64
    soac.yield %y : i64
  }
  %k = soac.assert %ok, "no" at "t.l0:1:1"
  %c = soac.map(%x = %b : tensor<?xi64>) <%k> -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  func.return %c : tensor<?xi64>
}
// CHECK-LABEL: func.func @check_between
// CHECK: %b = soac.map
// WHY: remark: 'soac.map' %b not fused: the producer may fail or print, and so may 'soac.assert' before the consumer's rows are done

// -----

// No rule fuses a map into a filter (the filter would have to output the map's rows).
func.func @no_rule(%a: tensor<?xi64>, %zero: i64) -> tensor<?xi64> {
  %c = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %f = soac.filter(%x = %c : tensor<?xi64>) {
    %p = arith.cmpi sgt, %x, %zero : i64
    soac.yield %p : i1
  }
  func.return %f : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_rule
// CHECK: %c = soac.map
// CHECK: soac.filter
// WHY: remark: 'soac.map' %c not fused: output %c is an input of 'soac.filter', which no rule fuses with 'soac.map'

// -----

// A filter's consumer with an input of its own would see rows the filter dropped.
func.func @filter_other_input(%a: tensor<?xi64>, %d: tensor<?xi64>, %zero: i64) -> i64 {
  %b = soac.filter(%x = %a : tensor<?xi64>) {
    %p = arith.cmpi sgt, %x, %zero : i64
    soac.yield %p : i1
  }
  %s = soac.redomap(%acc = %zero : i64) over(%e = %b, %g = %d : tensor<?xi64>, tensor<?xi64>) {
    %t = arith.addi %acc, %e : i64
    %u = arith.addi %t, %g : i64
    soac.yield %u : i64
  } outer {
  ^bb0(%p: i64, %q: i64):
    %t = arith.addi %p, %q : i64
    soac.yield %t : i64
  }
  func.return %s : i64
}
// CHECK-LABEL: func.func @filter_other_input
// CHECK: %b = soac.filter
// CHECK: soac.redomap
// WHY: remark: 'soac.filter' %b not fused: a consumer of the filter has other inputs too

// -----

// A producer that may fail, with its consumer in a branch: fused, it would run only
// when the branch is taken, and its error would vanish on the other path.
func.func @failing_into_branch(%a: tensor<?xi64>, %c: i1) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %x, %x : i64
    soac.yield %y : i64
  }
  %r = scf.if %c -> (tensor<?xi64>) {
    %t = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.addi %x, %x : i64
      soac.yield %y : i64
    }
    scf.yield %t : tensor<?xi64>
  } else {
    scf.yield %a : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @failing_into_branch
// CHECK: %b = soac.map
// WHY: remark: 'soac.map' %b not fused: the producer may fail or print, and the consumer runs only when a branch is taken

// -----

// A transposition that neither the producer (its lambda is not just a map) nor the
// consumer (a reduce over the columns, not a map nest) can take: no fusion (8.1).
func.func @transposed_no_nest(%a: tensor<?x?xi64>, %zero: i64) -> tensor<?xi64> {
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %n = soac.size(0) %r : tensor<?xi64>
    %i = soac.iota %n
    soac.yield %i : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %b : tensor<?x?xi64>
  %s = soac.map(%c = %t : tensor<?x?xi64>) -> tensor<?xi64> {
    %v = soac.reduce(%acc = %zero : i64) over(%e = %c : tensor<?xi64>) {
      %w = arith.addi %acc, %e : i64
      soac.yield %w : i64
    }
    soac.yield %v : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @transposed_no_nest
// CHECK: %b = soac.map
// CHECK: soac.transpose(0, 1) %b
// WHY: remark: 'soac.map' %b not fused: its outputs are transposed, and neither it nor its consumers are map nests deep enough to move the transposition, that can neither fail nor print (8.1; it is a map nest of depth 1, and the transposition moves 2 dimensions)

// -----

// Outputs transposed in two different ways cannot both be undone.
func.func @transposed_twice(%a: tensor<?x?x?xi64>) -> (tensor<?x?x?xi64>, tensor<?x?x?xi64>) {
  %b = soac.map(%r = %a : tensor<?x?x?xi64>) -> tensor<?x?x?xi64> {
    %m = soac.map(%x = %r : tensor<?x?xi64>) -> tensor<?x?xi64> {
      %n = soac.map(%y = %x : tensor<?xi64>) -> tensor<?xi64> {
        %z = arith.addi %y, %y : i64
        soac.yield %z : i64
      }
      soac.yield %n : tensor<?xi64>
    }
    soac.yield %m : tensor<?x?xi64>
  }
  %t = soac.transpose(0, 1) %b : tensor<?x?x?xi64>
  %u = soac.transpose(0, 2) %b : tensor<?x?x?xi64>
  func.return %t, %u : tensor<?x?x?xi64>, tensor<?x?x?xi64>
}
// CHECK-LABEL: func.func @transposed_twice
// CHECK: %b = soac.map
// WHY: remark: 'soac.map' %b not fused: its outputs are transposed in different ways

// -----

// A nest whose inner lambda reads a row of the outer level (`r[i]`) is no perfect
// nest: its element [i, j] depends on all of row i, so transposing its input would
// read a column instead (8.1). The consumer (a reduce over the columns) is no nest
// either: no fusion.
func.func @transposed_reads_outer_row(%a: tensor<?x?xi64>, %zero: i64, %i: i64) -> tensor<?xi64> {
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %m = soac.map(%x = %r : tensor<?xi64>) -> tensor<?xi64> {
      %h = soac.index %r[%i] : tensor<?xi64> -> i64
      %y = arith.addi %x, %h : i64
      soac.yield %y : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %b : tensor<?x?xi64>
  %s = soac.map(%col = %t : tensor<?x?xi64>) -> tensor<?xi64> {
    %v = soac.reduce(%acc = %zero : i64) over(%e = %col : tensor<?xi64>) {
      %w = arith.addi %acc, %e : i64
      soac.yield %w : i64
    }
    soac.yield %v : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @transposed_reads_outer_row
// CHECK: %b = soac.map
// CHECK: soac.transpose(0, 1) %b
// WHY: remark: 'soac.map' %b not fused: its outputs are transposed, and neither it nor its consumers are map nests deep enough to move the transposition, that can neither fail nor print (8.1; it is a map nest of depth 1, and the transposition moves 2 dimensions)

// -----

// An inner level that takes the outer row twice is no perfect nest (each row argument
// must go down once): no fusion.
func.func @transposed_row_twice(%a: tensor<?x?xi64>, %zero: i64) -> tensor<?xi64> {
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %m = soac.map(%x = %r, %y = %r : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
      %z = arith.muli %x, %y : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %b : tensor<?x?xi64>
  %s = soac.map(%col = %t : tensor<?x?xi64>) -> tensor<?xi64> {
    %v = soac.reduce(%acc = %zero : i64) over(%e = %col : tensor<?xi64>) {
      %w = arith.addi %acc, %e : i64
      soac.yield %w : i64
    }
    soac.yield %v : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @transposed_row_twice
// CHECK: %b = soac.map
// CHECK: soac.transpose(0, 1) %b
// WHY: remark: 'soac.map' %b not fused: its outputs are transposed, and neither it nor its consumers are map nests deep enough to move the transposition, that can neither fail nor print (8.1; it is a map nest of depth 1, and the transposition moves 2 dimensions)

// -----

// A nest with an input invariant to its outer level (Note [Arrays that enter a nest
// below its top]) whose lambda may fail (a division): moving the transposition would
// reorder its elements, and so which division fails first.
func.func @transposed_invariant_fails(%a: tensor<?x?xi64>, %c: tensor<?xi64>, %zero: i64) -> tensor<?xi64> {
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %m = soac.map(%x = %r, %y = %c : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
      %z = arith.divsi %x, %y : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %b : tensor<?x?xi64>
  %s = soac.map(%col = %t : tensor<?x?xi64>) -> tensor<?xi64> {
    %v = soac.reduce(%acc = %zero : i64) over(%e = %col : tensor<?xi64>) {
      %w = arith.addi %acc, %e : i64
      soac.yield %w : i64
    }
    soac.yield %v : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @transposed_invariant_fails
// CHECK: %b = soac.map
// CHECK: soac.transpose(0, 1) %b
// WHY: remark: 'soac.map' %b not fused: its outputs are transposed, and neither it nor its consumers are map nests deep enough to move the transposition, that can neither fail nor print (8.1; it may fail or print)

// -----

// The invariant input of the nest is updated in place before the consumer: fusion
// would read it after the update.
func.func @transposed_invariant_consumed(%a: tensor<?x?xi64>, %c: tensor<?xi64> {soac.unique}, %zero: i64, %i: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %m = soac.map(%x = %r, %y = %c : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
      %z = arith.muli %x, %y : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %d = soac.update %c[%i] = %zero : tensor<?xi64>
  %t = soac.transpose(0, 1) %b : tensor<?x?xi64>
  %s = soac.map(%col = %t : tensor<?x?xi64>) -> tensor<?xi64> {
    %v = soac.reduce(%acc = %zero : i64) over(%e = %col : tensor<?xi64>) {
      %w = arith.addi %acc, %e : i64
      soac.yield %w : i64
    }
    soac.yield %v : i64
  }
  func.return %s, %d : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @transposed_invariant_consumed
// CHECK: %b = soac.map
// CHECK: soac.transpose(0, 1) %b
// WHY: remark: 'soac.map' %b not fused: an array the producer reads may be consumed before the consumer

// -----

// The inner input is built inside the outer lambda (it depends on the row), not
// invariant to the outer level: no nest.
func.func @transposed_invariant_inside(%a: tensor<?x?xi64>, %zero: i64) -> tensor<?xi64> {
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %n = soac.size(0) %r : tensor<?xi64>
    %c = soac.iota %n
    %m = soac.map(%x = %r, %y = %c : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
      %z = arith.muli %x, %y : i64
      soac.yield %z : i64
    }
    soac.yield %m : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %b : tensor<?x?xi64>
  %s = soac.map(%col = %t : tensor<?x?xi64>) -> tensor<?xi64> {
    %v = soac.reduce(%acc = %zero : i64) over(%e = %col : tensor<?xi64>) {
      %w = arith.addi %acc, %e : i64
      soac.yield %w : i64
    }
    soac.yield %v : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @transposed_invariant_inside
// CHECK: %b = soac.map
// CHECK: soac.transpose(0, 1) %b
// WHY: remark: 'soac.map' %b not fused: its outputs are transposed, and neither it nor its consumers are map nests deep enough to move the transposition, that can neither fail nor print (8.1; it is a map nest of depth 1, and the transposition moves 2 dimensions)

// -----

// The same with two outputs: `explain` names the producer by its first output.
func.func @indexed_pair(%a: tensor<?xi64>, %i: i64) -> (tensor<?xi64>, tensor<?xi64>, i64) {
  %b, %d = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64>, tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y, %x : i64, i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %e = soac.index %b[%i] : tensor<?xi64> -> i64
  func.return %c, %d, %e : tensor<?xi64>, tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @indexed_pair
// CHECK: %b, %d = soac.map
// CHECK: soac.map(%{{.*}} = %b
// WHY: remark: 'soac.map' %b not fused: output %b is used by 'soac.index', not as an input array

// -----

// The contrast with @two_consumers: consumers on the two branches of an `if` never
// both run, so the producer fuses into each by vertical fusion alone (no duplication
// of work; here duplication is off).
func.func @branch_consumers(%a: tensor<?xi64>, %c: i1) -> tensor<?xi64> {
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
// CHECK-LABEL: func.func @branch_consumers
// CHECK-NEXT:    %r = scf.if %c -> (tensor<?xi64>) {
// CHECK-NEXT:      %t = soac.map(%{{.*}} = %a : tensor<?xi64>)
// CHECK:         } else {
// CHECK-NEXT:      %e = soac.map(%{{.*}} = %a : tensor<?xi64>)
// `explain` says nothing of SOACs that fused, nor of ops that are no producers.
// WHY-NOT: remark: {{.*}} not fused: None

// -----

// Consumers on both branches of an `if`, neither of which may take the producer, for
// different reasons: the remark gives the first consumer's in program order (the
// consumers are sorted; their uses of %b are listed newest first).
func.func @first_reason_in_order(%a: tensor<?x?xi64> {soac.unique}, %c: i1, %i: i64) -> tensor<?x?xi64> {
  %b = soac.map(%x = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %y = soac.map(%e = %x : tensor<?xi64>) -> tensor<?xi64> {
      %f = arith.muli %e, %e : i64
      soac.yield %f : i64
    }
    soac.yield %y : tensor<?xi64>
  }
  %r = scf.if %c -> (tensor<?x?xi64>) {
    %t = soac.map(%w = %b : tensor<?x?xi64>) -> tensor<?x?xi64> {
      %u = soac.update %w[%i] = %i : tensor<?xi64>
      soac.yield %u : tensor<?xi64>
    }
    scf.yield %t : tensor<?x?xi64>
  } else {
    %e = soac.map(%w = %b, %q = %a : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
      %u = soac.update %q[%i] = %i : tensor<?xi64>
      soac.yield %u : tensor<?xi64>
    }
    scf.yield %e : tensor<?x?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @first_reason_in_order
// CHECK: %b = soac.map
// CHECK: %t = soac.map(%{{.*}} = %b
// CHECK: soac.map(%{{.*}} = %b, %{{.*}} = %a
// WHY: remark: 'soac.map' %b not fused: the consumer's lambda consumes a row of the producer's output
