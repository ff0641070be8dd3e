// RUN: l0-opt %s -p fuse,verify-uniqueness --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'fuse{explain=true}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=WHY

// Map into scan (scanomap, redomap's pattern for scan): the scan becomes
// `scanomap(op, op, ne, a)` and the map is composed into its inner lambda; the outer
// lambda is the scan's operator, unchanged. Both SOACs' certificates guard the result.
func.func @map_scan(%a: tensor<?xi64>, %zero: i64, %c1: !soac.cert, %c2: !soac.cert) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) <%c1> -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.scan(%p = %zero : i64) over(%e = %b : tensor<?xi64>) <%c2> {
    %t = arith.addi %p, %e : i64
    soac.yield %t : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @map_scan
// CHECK-NEXT:    %s = soac.scanomap(%p = %zero : i64) over(%x = %a : tensor<?xi64>) <%c2, %c1> {
// CHECK-NEXT:      %y = arith.muli %x, %x : i64
// CHECK-NEXT:      %t = arith.addi %p, %y : i64
// CHECK-NEXT:      soac.yield %t : i64
// CHECK-NEXT:    } outer {
// CHECK-NEXT:    ^bb0(%p_1: i64, %e: i64):
// CHECK-NEXT:      %t_1 = arith.addi %p_1, %e : i64
// CHECK-NEXT:      soac.yield %t_1 : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s

// -----

// A chain: two maps fuse into one scan, one after the other; a scan input that is not
// a map's output stays an input. The operator here (composing affine maps
// x -> a*x + b) is not commutative: the fold keeps its order.
func.func @chain(%a: tensor<?xi64>, %d: tensor<?xi64>, %one: i64, %zero: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %s, %t = soac.scan(%p = %one, %q = %zero : i64, i64) over(%e = %c, %f = %d : tensor<?xi64>, tensor<?xi64>) {
    %pe = arith.muli %p, %e : i64
    %qe = arith.muli %q, %e : i64
    %r = arith.addi %qe, %f : i64
    soac.yield %pe, %r : i64, i64
  }
  func.return %s, %t : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %s, %t = soac.scanomap(%p = %one, %q = %zero : i64, i64) over(%f = %d, %x = %a : tensor<?xi64>, tensor<?xi64>) {
// CHECK-NEXT:      %y = arith.addi %x, %one : i64
// CHECK-NEXT:      %y_1 = arith.muli %y, %y : i64
// CHECK-NEXT:      %pe = arith.muli %p, %y_1 : i64
// CHECK-NEXT:      %qe = arith.muli %q, %y_1 : i64
// CHECK-NEXT:      %r = arith.addi %qe, %f : i64
// CHECK-NEXT:      soac.yield %pe, %r : i64, i64
// CHECK-NEXT:    } outer {
// CHECK:         }
// CHECK-NEXT:    func.return %s, %t

// -----

// Must not fire: the map's output is also returned (it must exist; fusing would
// compute it twice).
func.func @also_returned(%a: tensor<?xi64>, %zero: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.scan(%p = %zero : i64) over(%e = %b : tensor<?xi64>) {
    %t = arith.addi %p, %e : i64
    soac.yield %t : i64
  }
  func.return %s, %b : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @also_returned
// CHECK-NEXT:    %b = soac.map
// CHECK:         soac.scan(
// WHY: remark: 'soac.map' %b not fused: output %b is used by 'func.return', not as an input array

// -----

// Must not fire: both lambdas may fail (a division each): fused, the scan's division
// by a row could fail before a later row's division in the map, another error.
func.func @both_fail(%a: tensor<?xi64>, %zero: i64, %k: i64) -> tensor<?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %k, %x : i64
    soac.yield %y : i64
  }
  %s = soac.scan(%p = %zero : i64) over(%e = %b : tensor<?xi64>) {
    %t = arith.divsi %p, %e : i64
    soac.yield %t : i64
  }
  func.return %s : tensor<?xi64>
}
// CHECK-LABEL: func.func @both_fail
// CHECK-NEXT:    %b = soac.map
// CHECK:         soac.scan(
// WHY: remark: 'soac.map' %b not fused: the producer may fail or print, and so may 'soac.scan' before the consumer's rows are done

// -----

// Must not fire: the map's output is the scan's neutral element (a row of
// accumulators), not an input array.
func.func @as_neutral(%a: tensor<?xi64>, %m: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %s = soac.scan(%p = %b : tensor<?xi64>) over(%r = %m : tensor<?x?xi64>) {
    soac.yield %r : tensor<?xi64>
  }
  func.return %s : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @as_neutral
// CHECK-NEXT:    %b = soac.map
// WHY: remark: 'soac.map' %b not fused: output %b is the neutral element of 'soac.scan'
