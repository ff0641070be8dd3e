// RUN: l0-opt %s -p rebind,verify-uniqueness --split-input-file | filecheck %s

// The `main` of thesis 6.3: `a[i]` and `v * a[i]` in the reduce's lambda are the ones
// computed before it: the lambda keeps only its own additions.
func.func @thesis_main(%a: tensor<?xi64>, %i: i64, %v: i64) -> i64 {
  %n = soac.size(0) %a : tensor<?xi64>
  %ok = arith.cmpi slt, %i, %n : i64
  %c = soac.assert %ok, "index {0} out of bounds" (%i : i64) at "t.l0:2:15"
  %index10 = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
  %times11 = arith.muli %v, %index10 : i64
  %res5 = soac.reduce(%sum3 = %times11 : i64) over(%x4 = %a : tensor<?xi64>) {
    %plus6 = arith.addi %sum3, %x4 : i64
    %m = soac.size(0) %a : tensor<?xi64>
    %ok2 = arith.cmpi slt, %i, %m : i64
    %c2 = soac.assert %ok2, "index {0} out of bounds" (%i : i64) at "t.l0:3:51"
    %index7 = soac.index %a[%i] <%c2> : tensor<?xi64> -> i64
    %times8 = arith.muli %index7, %v : i64
    %plus9 = arith.addi %plus6, %times8 : i64
    soac.yield %plus9 : i64
  }
  func.return %res5 : i64
}
// CHECK-LABEL: func.func @thesis_main
// CHECK:         %times11 = arith.muli %v, %index10 : i64
// CHECK-NEXT:    soac.reduce(%sum3 = %times11 : i64) over(%x4 = %a : tensor<?xi64>) {
// CHECK-NEXT:      %plus6 = arith.addi %sum3, %x4 : i64
// CHECK-NEXT:      %plus9 = arith.addi %plus6, %times11 : i64
// CHECK-NEXT:      soac.yield %plus9 : i64
// CHECK-NEXT:    }

// -----

// Hoisting out of branches exposes CSE (thesis 6.1.1): the two `x * y` become one op
// before the `if`.
func.func @branches_meet(%c: i1, %x: i64, %y: i64) -> i64 {
  %r = scf.if %c -> (i64) {
    %a = arith.muli %x, %y : i64
    %a1 = arith.addi %a, %x : i64
    scf.yield %a1 : i64
  } else {
    %b = arith.muli %y, %x : i64
    %b1 = arith.subi %b, %x : i64
    scf.yield %b1 : i64
  }
  func.return %r : i64
}
// CHECK-LABEL: func.func @branches_meet
// CHECK-NEXT:    %a = arith.muli %x, %y : i64
// CHECK-NEXT:    %a1 = arith.addi %a, %x : i64
// CHECK-NEXT:    %b1 = arith.subi %a, %x : i64
// CHECK-NEXT:    scf.if %c
// CHECK-NEXT:      scf.yield %a1
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %b1

// -----

// An op hoisted out of two lambdas meets the equal op computed before them.
func.func @hoisted_meets_outer(%a: tensor<?x?xi64>, %y: i64) -> (i64, tensor<?x?xi64>) {
  %two = arith.constant 2 : i64
  %k = arith.muli %two, %y : i64
  %r = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %s = soac.map(%x = %row : tensor<?xi64>) -> tensor<?xi64> {
      %t = arith.muli %y, %two : i64
      %u = arith.addi %x, %t : i64
      soac.yield %u : i64
    }
    soac.yield %s : tensor<?xi64>
  }
  func.return %k, %r : i64, tensor<?x?xi64>
}
// CHECK-LABEL: func.func @hoisted_meets_outer
// CHECK:         %k = arith.muli %two, %y : i64
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      soac.map
// CHECK-NEXT:        arith.addi %x, %k : i64

// -----

func.func @f(%a: tensor<?xi64> {soac.unique}, %i: i64) -> i64 {
  %u = soac.update %a[%i] = %i : tensor<?xi64>
  %s = soac.size(0) %u : tensor<?xi64>
  func.return %s : i64
}

// Thesis 6.1.1 and 6.2 together: the consumed `iota(10)` in the lambda neither leaves
// it nor merges with the one before it.
func.func @no_rebind_consumed(%b: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %ten = arith.constant 10 : i64
  %outer = soac.iota %ten
  %r = soac.map(%i = %b : tensor<?xi64>) -> tensor<?xi64> {
    %a = soac.iota %ten
    %v = func.call @f(%a, %i) : (tensor<?xi64>, i64) -> i64
    soac.yield %v : i64
  }
  func.return %outer, %r : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @no_rebind_consumed
// CHECK:         %outer = soac.iota %ten
// CHECK-NEXT:    soac.map
// CHECK-NEXT:      %a = soac.iota %ten
// CHECK-NEXT:      func.call @f(%a, %i)
