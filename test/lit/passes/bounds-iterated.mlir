// RUN: l0-opt %s -p bounds --split-input-file | filecheck %s

// Note [Iterated sizes]: `%n` is an arbitrary int, but a map over `iota(%n)` has run
// before the second map, so there `%n` counts iterations and is small: `i + 1 < %n`
// for `i` over `iota(%m)` cannot wrap, and the check moves before the map (as in
// LocVolCalib, whose coefficient maps index arrays of `numX` rows, `numX` a parameter).
func.func @hoist_after_iterated(%n: i64, %m: i64, %a: tensor<?xi64>) -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %in = soac.iota %n
  %x = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %i : i64
  }
  %im = soac.iota %m
  %r = soac.map(%i = %im : tensor<?xi64>) -> tensor<?xi64> {
    %j = arith.addi %i, %one : i64
    %hi = arith.cmpi slt, %j, %n : i64
    %c = soac.assert %hi, "index {0} out of bounds" (%j : i64) at "t.l0:1:1"
    %e = soac.index %x[%j] <%c> : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @hoist_after_iterated
// CHECK:         %im = soac.iota %m
// CHECK:         [[C:%.*]] = soac.assert {{%.*}}, "index {0} out of bounds"
// CHECK-NEXT:    %r = soac.map
// CHECK-NOT:       soac.assert
// CHECK:           soac.index %x[%j] <[[C]]>

// -----

// Must not fire: the map over `iota(%n)` runs only after the map with the check, so
// where the check runs `%n` may be any int (Note [Overflow]) and the check stays.
func.func @iterated_after(%n: i64, %m: i64, %a: tensor<?xi64>) -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %im = soac.iota %m
  %r = soac.map(%i = %im : tensor<?xi64>) -> tensor<?xi64> {
    %j = arith.addi %i, %one : i64
    %hi = arith.cmpi slt, %j, %n : i64
    %c = soac.assert %hi, "index {0} out of bounds" (%j : i64) at "t.l0:1:1"
    %e = soac.index %a[%j] <%c> : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  %in = soac.iota %n
  %x = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %i : i64
  }
  %s = soac.concat %r, %x : tensor<?xi64>
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @iterated_after
// CHECK:         %r = soac.map
// CHECK:           soac.assert
// CHECK:         soac.iota %n

// -----

// Must not fire: the map over `iota(%n)` is in one branch of an `scf.if`, which may
// not run; nothing bounds `%n` after it.
func.func @iterated_in_branch(%n: i64, %m: i64, %p: i1, %a: tensor<?xi64>) -> i64 {
  %one = arith.constant 1 : i64
  %z = arith.constant 0 : i64
  %k = scf.if %p -> (i64) {
    %in = soac.iota %n
    %x = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
      soac.yield %i : i64
    }
    %s = soac.size(0) %x : tensor<?xi64>
    scf.yield %s : i64
  } else {
    scf.yield %z : i64
  }
  %im = soac.iota %m
  %r = soac.map(%i = %im : tensor<?xi64>) -> tensor<?xi64> {
    %j = arith.addi %i, %one : i64
    %hi = arith.cmpi slt, %j, %n : i64
    %c = soac.assert %hi, "index {0} out of bounds" (%j : i64) at "t.l0:1:1"
    %e = soac.index %a[%j] <%c> : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  %t = soac.index %r[%k] : tensor<?xi64> -> i64
  func.return %t : i64
}
// CHECK-LABEL: func.func @iterated_in_branch
// CHECK:         %r = soac.map
// CHECK:           soac.assert
