// RUN: l0-opt %s -p fuse,verify-uniqueness --split-input-file | filecheck %s

// SWAP-TRANSPOSE: the transposition of a map whose lambda only maps an array defined
// outside it (the one-hot rows of a histogram, `map(fn x => map(fn j => j == x, js),
// xs)`) is the map with its two levels exchanged, where the map has rows; the
// per-column reduces that read it (`iswim`'s form, under its test for rows) then fuse
// with it, one redomap over `xs` per column.
func.func @histogram(%xs: tensor<?xi64>, %js: tensor<?xi64>, %ne: tensor<?xi64>) -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %zero = arith.constant 0 : i64
  %rows = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xi64> {
    %r = soac.map(%j = %js : tensor<?xi64>) -> tensor<?xi64> {
      %e = arith.cmpi eq, %j, %x : i64
      %v = arith.select %e, %one, %zero : i64
      soac.yield %v : i64
    }
    soac.yield %r : tensor<?xi64>
  }
  %n = soac.size(0) %xs : tensor<?xi64>
  %none = arith.cmpi eq, %n, %zero : i64
  %t = soac.transpose(0, 1) %rows : tensor<?x?xi64>
  %s = scf.if %none -> (tensor<?xi64>) {
    scf.yield %ne : tensor<?xi64>
  } else {
    %m = soac.map(%col = %t : tensor<?x?xi64>) -> tensor<?xi64> {
      %f = soac.reduce(%a = %zero : i64) over(%b = %col : tensor<?xi64>) {
        %z = arith.addi %a, %b : i64
        soac.yield %z : i64
      }
      soac.yield %f : i64
    }
    scf.yield %m : tensor<?xi64>
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @histogram
// CHECK-NOT:     soac.transpose
// CHECK:         } else {
// CHECK-NEXT:      %m = soac.map(%j = %js : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:        %[[F:.*]] = soac.redomap(%{{.*}} = %zero : i64) over(%x = %xs : tensor<?xi64>) {
// CHECK-NEXT:          %e = arith.cmpi eq, %j, %x : i64
// CHECK-NEXT:          %v = arith.select %e, %one, %zero : i64
// CHECK-NEXT:          arith.addi %{{.*}}, %v : i64
// CHECK:             soac.yield %[[F]] : i64
// CHECK-NOT:     soac.transpose

// -----

// Must not fire: the inner map's array is made inside the producer (it is not the
// same for every row), or the innermost lambda may fail (the exchange reorders it), or
// (@no_rows_test) the transposition is read where the producer may have no rows (then
// it is an array with every dimension 0, the exchanged map `len(js)` empty rows).
func.func @not_swappable(%xs: tensor<?xi64>, %js: tensor<?xi64>, %n: i64) -> (tensor<?x?xi64>, tensor<?x?xi64>) {
  %zero = arith.constant 0 : i64
  %rows = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xi64> {
    %own = soac.replicate %n, %x : i64
    %r = soac.map(%j = %own : tensor<?xi64>) -> tensor<?xi64> {
      %v = arith.addi %j, %x : i64
      soac.yield %v : i64
    }
    soac.yield %r : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %rows : tensor<?x?xi64>
  %rows2 = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xi64> {
    %r = soac.map(%j = %js : tensor<?xi64>) -> tensor<?xi64> {
      %v = arith.divsi %j, %x : i64
      soac.yield %v : i64
    }
    soac.yield %r : tensor<?xi64>
  }
  %t2 = soac.transpose(0, 1) %rows2 : tensor<?x?xi64>
  %s:2 = soac.map(%c = %t, %d = %t2 : tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>, tensor<?x?xi64> {
    %u = soac.map(%e = %c : tensor<?xi64>) -> tensor<?xi64> {
      soac.yield %e : i64
    }
    %w = soac.map(%e = %d : tensor<?xi64>) -> tensor<?xi64> {
      soac.yield %e : i64
    }
    soac.yield %u, %w : tensor<?xi64>, tensor<?xi64>
  }
  func.return %s#0, %s#1 : tensor<?x?xi64>, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @not_swappable
// CHECK:         %t = soac.transpose(0, 1) %rows
// CHECK:         %t2 = soac.transpose(0, 1) %rows2

func.func @no_rows_test(%xs: tensor<?xi64>, %js: tensor<?xi64>) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %rows = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xi64> {
    %r = soac.map(%j = %js : tensor<?xi64>) -> tensor<?xi64> {
      %v = arith.addi %j, %x : i64
      soac.yield %v : i64
    }
    soac.yield %r : tensor<?xi64>
  }
  %t = soac.transpose(0, 1) %rows : tensor<?x?xi64>
  %m = soac.map(%col = %t : tensor<?x?xi64>) -> tensor<?xi64> {
    %f = soac.reduce(%a = %zero : i64) over(%b = %col : tensor<?xi64>) {
      %z = arith.addi %a, %b : i64
      soac.yield %z : i64
    }
    soac.yield %f : i64
  }
  func.return %m : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_rows_test
// CHECK:         %t = soac.transpose(0, 1) %rows
