// RUN: l0-opt %s -p bounds --split-input-file | filecheck %s

// Note [Counted values]: `%n` is an int parameter, but the check runs inside a map over
// `iota(%n)`: there `%n` counts iterations, so `%n - 1` cannot wrap, the branch fact
// `i < %n - 1` holds of the integers and proves the stencil's `i + 1 < %n` (the size of
// `%x`, built over `iota(%n)`).
func.func @stencil_counted(%n: i64) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %m1 = arith.constant -1 : i64
  %in = soac.iota %n
  %x = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %i : i64
  }
  %last = arith.addi %m1, %n : i64
  %r = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %p = arith.cmpi slt, %i, %last : i64
    %e = scf.if %p -> (i64) {
      %j = arith.addi %one, %i : i64
      %hi = arith.cmpi slt, %j, %n : i64
      %c = soac.assert %hi, "index {0} out of bounds" (%j : i64) at "t.l0:1:1"
      %v = soac.index %x[%j] <%c> : tensor<?xi64> -> i64
      scf.yield %v : i64
    } else {
      scf.yield %zero : i64
    }
    soac.yield %e : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @stencil_counted
// CHECK:         %r = soac.map
// CHECK-NOT:       soac.assert
// CHECK:           soac.index %x[%j] <{{%.*}}>
// CHECK-NOT:       soac.assert
// CHECK:         func.return %r

// -----

// A row-size select of a counted value, `select(%m != 0, %n, 0)` (the rows of a map
// over `%m` rows once `size-hindrance` has written their size as the parameter `%n`),
// is `%n` inside a map over `iota(%m)`, and `%n` is counted there (a map over
// `iota(%n)` ran before): `j < cols` and `j + 1 <= cols` hold for `j` over `iota(%n)`.
func.func @select_of_counted(%n: i64, %m: i64, %a: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %in = soac.iota %n
  %x = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %i : i64
  }
  %nz = arith.cmpi ne, %m, %zero : i64
  %cols = arith.select %nz, %n, %zero : i64
  %im = soac.iota %m
  %r = soac.map(%i = %im : tensor<?xi64>) -> tensor<?x?xi64> {
    %row = soac.map(%j = %in : tensor<?xi64>) -> tensor<?xi64> {
      %hi = arith.cmpi slt, %j, %cols : i64
      %c = soac.assert %hi, "index {0} out of bounds" (%j : i64) at "t.l0:1:1"
      %j1 = arith.addi %one, %j : i64
      %hi1 = arith.cmpi sle, %j1, %cols : i64
      %c1 = soac.assert %hi1, "index {0} out of bounds" (%j : i64) at "t.l0:1:2"
      %v = soac.index %x[%j] <%c, %c1> : tensor<?xi64> -> i64
      soac.yield %v : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @select_of_counted
// CHECK-NOT:     soac.assert
// CHECK:         func.return %r

// -----

// Must not fire: nothing counts `%n` where the check runs (the map is over
// `iota(%m)`, and no SOAC over `iota(%n)` ran before), so `%n - 1` may wrap (`%n` the
// least int: `i < %n - 1` holds and `i + 1 < %n` fails): the check stays.
func.func @stencil_not_counted(%n: i64, %m: i64, %x: tensor<?xi64>) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %m1 = arith.constant -1 : i64
  %im = soac.iota %m
  %last = arith.addi %m1, %n : i64
  %r = soac.map(%i = %im : tensor<?xi64>) -> tensor<?xi64> {
    %p = arith.cmpi slt, %i, %last : i64
    %e = scf.if %p -> (i64) {
      %j = arith.addi %one, %i : i64
      %hi = arith.cmpi slt, %j, %n : i64
      %c = soac.assert %hi, "index {0} out of bounds" (%j : i64) at "t.l0:1:1"
      %v = soac.index %x[%j] <%c> : tensor<?xi64> -> i64
      scf.yield %v : i64
    } else {
      scf.yield %zero : i64
    }
    soac.yield %e : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @stencil_not_counted
// CHECK:         scf.if
// CHECK:           soac.assert %hi, "index {0} out of bounds"

// -----

// Must not fire: a select of an uncounted value is no row size (`%n` may be negative,
// and then so is the select where `%m` has rows): `j < cols` stays.
func.func @select_not_counted(%n: i64, %m: i64, %k: i64, %x: tensor<?xi64>) -> tensor<?x?xi64> {
  %zero = arith.constant 0 : i64
  %nz = arith.cmpi ne, %m, %zero : i64
  %cols = arith.select %nz, %n, %zero : i64
  %im = soac.iota %m
  %ik = soac.iota %k
  %r = soac.map(%i = %im : tensor<?xi64>) -> tensor<?x?xi64> {
    %row = soac.map(%j = %ik : tensor<?xi64>) -> tensor<?xi64> {
      %e = soac.index %x[%j] : tensor<?xi64> -> i64
      %hi = arith.cmpi slt, %e, %cols : i64
      %c = soac.assert %hi, "{0} too big" (%e : i64) at "t.l0:1:1"
      soac.yield %e : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @select_not_counted
// CHECK:         soac.assert %hi, "{0} too big"

// -----

// Must not fire: the map over `iota(%n)` ran, but the iota's check was weakened when
// it left a map over `%m` rows (`0 <= %n || %m == 0`): with `%m = 0` the iota is built
// and mapped over whatever `%n`, so `%n` may be negative and counts nothing.
func.func @weakened_iota(%n: i64, %m: i64, %k: i64, %x: tensor<?xi64>)
    -> (tensor<?xi64>, tensor<?xi64>) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %m1 = arith.constant -1 : i64
  %nonneg = arith.cmpi sle, %zero, %n : i64
  %empty = arith.cmpi eq, %m, %zero : i64
  %ok = arith.ori %nonneg, %empty : i1
  %cn = soac.assert %ok, "negative size {0} given to iota" (%n : i64) at "t.l0:1:1"
  %in = soac.iota %n <%cn>
  %y = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    soac.yield %i : i64
  }
  %ik = soac.iota %k
  %last = arith.addi %m1, %n : i64
  %r = soac.map(%i = %ik : tensor<?xi64>) -> tensor<?xi64> {
    %p = arith.cmpi slt, %i, %last : i64
    %e = scf.if %p -> (i64) {
      %j = arith.addi %one, %i : i64
      %hi = arith.cmpi slt, %j, %n : i64
      %c = soac.assert %hi, "index {0} out of bounds" (%j : i64) at "t.l0:1:2"
      %v = soac.index %x[%j] <%c> : tensor<?xi64> -> i64
      scf.yield %v : i64
    } else {
      scf.yield %zero : i64
    }
    soac.yield %e : i64
  }
  func.return %y, %r : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @weakened_iota
// CHECK:         %r = soac.map
// CHECK:           soac.assert %hi, "index {0} out of bounds"

// -----

// The same weakened check, where the check runs inside a map over `iota(%m)` (and not
// over `iota(%n)`): there `%m` is not 0, so the iota's check held, `%n` counts the
// iterations of `%y`'s map (run before, in the same lambda), and `%n - 1` cannot wrap:
// the branch fact proves the stencil's check.
func.func @weakened_iota_inside(%n: i64, %m: i64, %k: i64, %x: tensor<?xi64>)
    -> tensor<?x?xi64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %m1 = arith.constant -1 : i64
  %nonneg = arith.cmpi sle, %zero, %n : i64
  %empty = arith.cmpi eq, %m, %zero : i64
  %ok = arith.ori %nonneg, %empty : i1
  %cn = soac.assert %ok, "negative size {0} given to iota" (%n : i64) at "t.l0:1:1"
  %in = soac.iota %n <%cn>
  %im = soac.iota %m
  %ik = soac.iota %k
  %last = arith.addi %m1, %n : i64
  %r = soac.map(%g = %im : tensor<?xi64>) -> tensor<?x?xi64> {
    %y = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
      soac.yield %i : i64
    }
    %row = soac.map(%i = %ik : tensor<?xi64>) -> tensor<?xi64> {
      %p = arith.cmpi slt, %i, %last : i64
      %e = scf.if %p -> (i64) {
        %j = arith.addi %one, %i : i64
        %hi = arith.cmpi slt, %j, %n : i64
        %c = soac.assert %hi, "index {0} out of bounds" (%j : i64) at "t.l0:1:2"
        %v = soac.index %y[%j] <%c> : tensor<?xi64> -> i64
        scf.yield %v : i64
      } else {
        scf.yield %zero : i64
      }
      soac.yield %e : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @weakened_iota_inside
// CHECK:         %r = soac.map
// CHECK-NOT:       soac.assert
// CHECK:         func.return %r
