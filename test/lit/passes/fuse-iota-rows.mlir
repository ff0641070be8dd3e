// RUN: l0-opt %s -p fuse,verify-uniqueness --split-input-file | filecheck %s

// Indexing by the iteration number as a row input (`l0.passes.fuse.iota_rows`): a map
// over `iota(size(0, a))` reads `b[i]` of `b = map(f, a)`, which has as many rows;
// `b` becomes an input, and then fuses (map-map).
func.func @map_over_iota(%a: tensor<?xi64>, %k: i64) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %k : i64
    soac.yield %y : i64
  }
  %n = soac.size(0) %a : tensor<?xi64>
  %is = soac.iota %n
  %c = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xi64> {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    %s = arith.addi %e, %i : i64
    soac.yield %s : i64
  }
  func.return %c : tensor<?xi64>
}
// CHECK-LABEL: func.func @map_over_iota
// CHECK-NEXT:    %n = soac.size(0) %a
// CHECK-NEXT:    %is = soac.iota %n
// CHECK-NEXT:    %c = soac.map(%i = %is, %x = %a : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %y = arith.muli %x, %k : i64
// CHECK-NEXT:      %s = arith.addi %y, %i : i64
// CHECK-NEXT:      soac.yield %s : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c

// -----

// In a fold (a dot product written with indices, the map over iota already fused
// into the reduce), and under a branch of the lambda: the two maps fuse into the
// redomap.
func.func @redomap_over_iota(%a: tensor<?xi64>, %zero: i64, %p: i1) -> i64 {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %n = soac.size(0) %a : tensor<?xi64>
  %is = soac.iota %n
  %r = soac.redomap(%acc = %zero : i64) over(%i = %is : tensor<?xi64>) {
    %v = scf.if %p -> (i64) {
      %e = soac.index %b[%i] : tensor<?xi64> -> i64
      scf.yield %e : i64
    } else {
      scf.yield %i : i64
    }
    %s = arith.addi %acc, %v : i64
    soac.yield %s : i64
  } outer {
  ^bb0(%u: i64, %w: i64):
    %t = arith.addi %u, %w : i64
    soac.yield %t : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @redomap_over_iota
// CHECK-NOT:     soac.map
// CHECK:         %r = soac.redomap(%acc = %zero : i64) over(%i = %is, %x = %a : tensor<?xi64>, tensor<?xi64>) {
// CHECK-NEXT:      %y = arith.muli %x, %x : i64
// CHECK-NEXT:      %v = scf.if %p -> (i64) {
// CHECK-NEXT:        scf.yield %y : i64

// -----

// Must not fire (Note [When an index is a row]): the iota's size is not known to be
// the array's (a parameter: the indexing may be out of bounds); the index is not the
// iteration number; the indexing is in a loop of the lambda (it may read a row many
// times); the indexed array is no map's output.
func.func @not_rows(%a: tensor<?xi64>, %m: i64, %k: i64, %c: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %k : i64
    soac.yield %y : i64
  }
  %ms = soac.iota %m
  %r1 = soac.map(%i = %ms : tensor<?xi64>) -> tensor<?xi64> {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  %n = soac.size(0) %a : tensor<?xi64>
  %is = soac.iota %n
  %r2 = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xi64> {
    %one = arith.constant 1 : i64
    %j = arith.subi %n, %one : i64
    %e = soac.index %b[%j] : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  %r3 = soac.map(%i = %is : tensor<?xi64>) -> tensor<?xi64> {
    %zero = arith.constant 0 : i64
    %s = scf.for %t = %zero to %k step %k iter_args(%acc = %zero) -> (i64) : i64 {
      %e = soac.index %b[%i] : tensor<?xi64> -> i64
      %u = arith.addi %acc, %e : i64
      scf.yield %u : i64
    }
    soac.yield %s : i64
  }
  %cs = soac.size(0) %c : tensor<?xi64>
  %ci = soac.iota %cs
  %r4 = soac.map(%i = %ci : tensor<?xi64>) -> tensor<?xi64> {
    %e = soac.index %c[%i] : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %r1, %r2, %r3, %r4 : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @not_rows
// CHECK:         %r1 = soac.map(%i = %ms : tensor<?xi64>)
// CHECK:           soac.index %b[%i]
// CHECK:         %r2 = soac.map(%{{.*}} = %is : tensor<?xi64>)
// CHECK:           soac.index %b[%j]
// CHECK:         %r3 = soac.map(%[[I3:.*]] = %is : tensor<?xi64>)
// CHECK:             soac.index %b[%[[I3]]]
// CHECK:         %r4 = soac.map(%[[I4:.*]] = %ci : tensor<?xi64>)
// CHECK:           soac.index %c[%[[I4]]]
