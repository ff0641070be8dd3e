// RUN: l0-opt %s -t 'llvm-ir{lower=false}' | filecheck %s

// L0 integers wrap: no nsw on arith ops; division is guarded so it never traps.

// CHECK-LABEL: @"l0.fn.wrap"
// CHECK:      add i64 %"x", %"y"
// CHECK-NEXT: mul i64
func.func @wrap(%x: i64, %y: i64) -> i64 {
  %s = arith.addi %x, %y : i64
  %p = arith.muli %s, %y : i64
  func.return %p : i64
}

// CHECK-LABEL: @"l0.fn.floordiv"
// CHECK:      %[[Z:.*]] = icmp eq i64 %"y", 0
// CHECK-NEXT: %[[M1:.*]] = icmp eq i64 %"y", -1
// CHECK-NEXT: %[[BAD:.*]] = or i1 %[[Z]], %[[M1]]
// CHECK-NEXT: %[[SAFE:.*]] = select i1 %[[BAD]], i64 1, i64 %"y"
// CHECK-NEXT: sdiv i64 %"x", %[[SAFE]]
func.func @floordiv(%x: i64, %y: i64) -> i64 {
  %q = arith.floordivsi %x, %y : i64
  func.return %q : i64
}

// CHECK-LABEL: @"l0.fn.trunc"
// CHECK: call i64 @"llvm.fptosi.sat.i64.f64"(double %"r")
func.func @trunc(%r: f64) -> i64 {
  %i = arith.fptosi %r : f64 to i64
  func.return %i : i64
}

// CHECK-LABEL: @"l0.fn.checked"
// CHECK:      br i1 %"ok", label %"ok{{.*}}", label %"error", !prof
// CHECK:      error:
// CHECK:      store i64 3, ptr
// CHECK:      store i64 %"i", ptr
func.func @checked(%ok: i1, %i: i64) -> i64 {
  %c = soac.assert %ok, "index {0} out of bounds" (%i : i64) at "a.l0:1:2"
  func.return %i : i64
}
