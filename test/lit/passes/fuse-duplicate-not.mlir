// RUN: l0-opt %s -p fuse --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'fuse{explain=true}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=WHY

// Maps that must not be split between their consumers (`l0.passes.fuse.duplicate`),
// and what `explain` adds to the reason they were not fused. The consumers are a map
// and a fold, which horizontal fusion cannot merge.

// Not cheap: the work every part needs is a SOAC (not constant-time).
func.func @inner_soac(%a: tensor<?x?xi64>, %zero: i64) -> (tensor<?xi64>, i64) {
  %b = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?xi64> {
    %r = soac.reduce(%p = %zero : i64) over(%e = %row : tensor<?xi64>) {
      %q = arith.addi %p, %e : i64
      soac.yield %q : i64
    }
    soac.yield %r : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.reduce(%p = %zero : i64) over(%e = %b : tensor<?xi64>) {
    %q = arith.maxsi %p, %e : i64
    soac.yield %q : i64
  }
  func.return %c, %s : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @inner_soac
// CHECK: %b = soac.map
// CHECK: %c = soac.map(%{{.*}} = %b
// CHECK: %s = soac.reduce({{.*}}) over(%{{.*}} = %b
// WHY: remark: 'soac.map' %b not fused: two consumers may run in one execution (work would be duplicated); not split between its consumers: it would duplicate a 'soac.reduce'

// -----

// Not cheap: more than 8 scalar operations would be duplicated.
func.func @too_many_ops(%a: tensor<?xi64>, %zero: i64) -> (tensor<?xi64>, i64) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y1 = arith.muli %x, %x : i64
    %y2 = arith.muli %y1, %x : i64
    %y3 = arith.muli %y2, %x : i64
    %y4 = arith.muli %y3, %x : i64
    %y5 = arith.muli %y4, %x : i64
    %y6 = arith.muli %y5, %x : i64
    %y7 = arith.muli %y6, %x : i64
    %y8 = arith.muli %y7, %x : i64
    %y9 = arith.muli %y8, %x : i64
    soac.yield %y9 : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.reduce(%p = %zero : i64) over(%e = %b : tensor<?xi64>) {
    %q = arith.maxsi %p, %e : i64
    soac.yield %q : i64
  }
  func.return %c, %s : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @too_many_ops
// CHECK: %b = soac.map
// CHECK: %c = soac.map(%{{.*}} = %b
// WHY: remark: 'soac.map' %b not fused: two consumers may run in one execution (work would be duplicated); not split between its consumers: it would duplicate 9 scalar operations (at most 8)

// -----

// A loop is never duplicated, however short.
func.func @loop(%a: tensor<?xi64>, %n: i64, %zero: i64) -> (tensor<?xi64>, i64) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %one = arith.constant 1 : i64
    %r = scf.for %i = %zero to %n step %one iter_args(%acc = %x) -> (i64) : i64 {
      %t = arith.addi %acc, %i : i64
      scf.yield %t : i64
    }
    soac.yield %r : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.reduce(%p = %zero : i64) over(%e = %b : tensor<?xi64>) {
    %q = arith.maxsi %p, %e : i64
    soac.yield %q : i64
  }
  func.return %c, %s : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @loop
// CHECK: %b = soac.map
// CHECK: %c = soac.map(%{{.*}} = %b
// WHY: remark: 'soac.map' %b not fused: two consumers may run in one execution (work would be duplicated); not split between its consumers: its lambda has an update, a call or a loop

// -----

// A lambda that may fail is not duplicated (its error could be reported from another
// place, or a trace printed twice).
func.func @may_fail(%a: tensor<?xi64>, %k: i64, %zero: i64) -> (tensor<?xi64>, i64) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %x, %k : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.reduce(%p = %zero : i64) over(%e = %b : tensor<?xi64>) {
    %q = arith.maxsi %p, %e : i64
    soac.yield %q : i64
  }
  func.return %c, %s : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @may_fail
// CHECK: %b = soac.map
// WHY: remark: 'soac.map' %b not fused: two consumers may run in one execution (work would be duplicated); not split between its consumers: its lambda may fail or print

// -----

// Nothing is duplicated into a loop: the consumer in the loop reads the array, so
// the array must exist, and the other consumer keeps reading it too.
func.func @consumer_in_loop(%a: tensor<?xi64>, %n: i64, %zero: i64) -> (tensor<?xi64>, i64) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %one = arith.constant 1 : i64
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %s = soac.reduce(%p = %acc : i64) over(%e = %b : tensor<?xi64>) {
      %t = arith.addi %p, %e : i64
      soac.yield %t : i64
    }
    scf.yield %s : i64
  }
  func.return %c, %r : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @consumer_in_loop
// CHECK: %b = soac.map
// CHECK: %c = soac.map(%{{.*}} = %b
// WHY: remark: 'soac.map' %b not fused: the consumer 'soac.reduce' runs inside a loop or lambda; not split between its consumers: no consumer reads only outputs it may fuse with

// -----

// The contrast: the same shape with a cheap map, which is split (its multiplication
// done in both consumers).
func.func @cheap(%a: tensor<?xi64>, %zero: i64) -> (tensor<?xi64>, i64) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.reduce(%p = %zero : i64) over(%e = %b : tensor<?xi64>) {
    %q = arith.maxsi %p, %e : i64
    soac.yield %q : i64
  }
  func.return %c, %s : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @cheap
// CHECK-NOT: %b = soac.map
// CHECK: %c = soac.map(%x = %a
// CHECK: %s = soac.redomap({{.*}}) over(%{{.*}} = %a
