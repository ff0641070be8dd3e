// RUN: l0-opt %s -p fuse --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'fuse{explain=true}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=WHY

// Siblings horizontal fusion must keep apart (`l0.passes.fuse.horizontal`), and what
// `explain` says.

// A dependence: the second map reads the first one's output (inside its lambda).
func.func @dependent(%a: tensor<?xi64>, %i: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    %y = arith.addi %x, %e : i64
    soac.yield %y : i64
  }
  func.return %b, %c : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @dependent
// CHECK: %b = soac.map
// CHECK: %c = soac.map
// WHY: remark: 'soac.map' %c not merged with its sibling: 'soac.map' uses an output of its sibling

// -----

// Both may fail (a division by a parameter): merged, the second one's error could be
// reported before the first one's.
func.func @both_fail(%a: tensor<?xi64>, %k: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %x, %k : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.remsi %k, %x : i64
    soac.yield %y : i64
  }
  func.return %b, %c : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @both_fail
// CHECK: %b = soac.map
// CHECK: %c = soac.map
// WHY: remark: 'soac.map' %c not merged with its sibling: its sibling and 'soac.map' may both fail or print

// -----

// The first may fail and a check runs between them: the first's work cannot move past it.
func.func @check_between(%a: tensor<?xi64>, %k: i64, %ok: i1) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %x, %k : i64
    soac.yield %y : i64
  }
  %cert = soac.assert %ok, "assertion failed" at "p.l0:3:1"
  %c = soac.map(%x = %a : tensor<?xi64>) <%cert> -> tensor<?xi64> {
    %y = arith.addi %x, %k : i64
    soac.yield %y : i64
  }
  func.return %b, %c : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @check_between
// CHECK: %b = soac.map
// CHECK: %c = soac.map
// WHY: remark: 'soac.map' %c not merged with its sibling: its sibling and 'soac.assert' may both fail or print

// -----

// An array may be consumed between them (an in-place update).
func.func @consumed_between(%a: tensor<?xi64>, %d: tensor<?xi64>, %i: i64) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %e = soac.update %d[%i] = %i : tensor<?xi64>
  %c = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  func.return %b, %c, %e : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @consumed_between
// CHECK: %b = soac.map
// CHECK: %c = soac.map
// WHY: remark: 'soac.map' %c not merged with its sibling: 'soac.update' may consume an array

// -----

// Inputs of sizes not known to be equal: no group (and nothing to explain).
func.func @other_sizes(%a: tensor<?xi64>, %d: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %d : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  func.return %b, %c : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @other_sizes
// CHECK: %b = soac.map
// CHECK: %c = soac.map

// -----

// A map and a fold, or a scan, are not of one family: no SOAC computes both.
func.func @families(%a: tensor<?xi64>, %zero: i64) -> (tensor<?xi64>, i64, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %r = soac.reduce(%p = %zero : i64) over(%e = %a : tensor<?xi64>) {
    %q = arith.addi %p, %e : i64
    soac.yield %q : i64
  }
  %s = soac.scan(%p = %zero : i64) over(%e = %a : tensor<?xi64>) {
    %q = arith.addi %p, %e : i64
    soac.yield %q : i64
  }
  func.return %b, %r, %s : tensor<?xi64>, i64, tensor<?xi64>
}
// CHECK-LABEL: func.func @families
// CHECK: %b = soac.map
// CHECK: %r = soac.reduce
// CHECK: %s = soac.scan

// -----

// The same with two outputs: `explain` names the sibling kept apart by its first output.
func.func @dependent_pair(%a: tensor<?xi64>, %i: i64) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %c, %d = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64>, tensor<?xi64> {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    %y = arith.addi %x, %e : i64
    soac.yield %y, %e : i64, i64
  }
  func.return %b, %c, %d : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @dependent_pair
// CHECK: %b = soac.map
// CHECK: %c, %d = soac.map
// WHY: remark: 'soac.map' %c not merged with its sibling: 'soac.map' uses an output of its sibling

// -----

// Scans kept apart: the second scans the first one's result (a dependence), and a
// scan of rows (array accumulators) is left to ISWIM.
func.func @scans_apart(%a: tensor<?xi64>, %m: tensor<?x?xi64>, %zero: i64,
                       %row: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?x?xi64>) {
  %s = soac.scan(%p = %zero : i64) over(%e = %a : tensor<?xi64>) {
    %q = arith.addi %p, %e : i64
    soac.yield %q : i64
  }
  %t = soac.scan(%p = %zero : i64) over(%e = %s : tensor<?xi64>) {
    %q = arith.addi %p, %e : i64
    soac.yield %q : i64
  }
  %r = soac.scan(%p = %row : tensor<?xi64>) over(%e = %m : tensor<?x?xi64>) {
    soac.yield %e : tensor<?xi64>
  }
  func.return %s, %t, %r : tensor<?xi64>, tensor<?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @scans_apart
// CHECK: %s = soac.scan
// CHECK: %t = soac.scan
// CHECK: %r = soac.scan
// WHY: remark: 'soac.scan' %t not merged with its sibling: 'soac.scan' uses an output of its sibling
