// RUN: l0-opt %s -p dealloc | filecheck %s

// Ownership-based deallocation: every buffer is freed after the last use of any value
// that may alias it; memrefs crossing a boundary carry an i1 ownership flag.

// Freed right after its last use, not at the end of the function.
// CHECK-LABEL: func.func private @free_after_last_use(
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[B]]
// CHECK-NEXT:    memref.dealloc %[[B]] : memref<?xf64>
// CHECK-NEXT:    %[[W:.*]] = arith.addf %[[V]], %[[V]]
func.func private @free_after_last_use(%n: index, %i: index) -> f64 {
  %b = memref.alloc(%n) : memref<?xf64>
  %v = memref.load %b[%i] : memref<?xf64>
  %w = arith.addf %v, %v : f64
  func.return %w : f64
}

// A view keeps its buffer alive; freeing goes through the buffer.
// CHECK-LABEL: func.func private @view_keeps_buffer_alive(
// CHECK:         %[[B:.*]] = memref.alloc
// CHECK:         %[[S:.*]] = memref.subview %[[B]]
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[S]]
// CHECK-NEXT:    memref.dealloc %[[B]]
func.func private @view_keeps_buffer_alive(%n: index, %i: index) -> f64 {
  %b = memref.alloc(%n) : memref<?xf64>
  %s = memref.subview %b[%i] [%n] [1] : memref<?xf64> to memref<?xf64, strided<[1], offset: ?>>
  %v = memref.load %s[%i] : memref<?xf64, strided<[1], offset: ?>>
  func.return %v : f64
}

// A returned fresh buffer is owned by the caller (flag true); a parameter is not.
// CHECK-LABEL: func.func private @return_flags(
// CHECK-SAME:    -> (memref<?xf64>, memref<?xf64>, i1, i1)
// CHECK-NOT:     memref.dealloc
// CHECK-DAG:     %[[T:.*]] = arith.constant true
// CHECK-DAG:     %[[F:.*]] = arith.constant false
// CHECK:         func.return %{{.*}}, %{{.*}}, %[[T]], %[[F]] : memref<?xf64>, memref<?xf64>, i1, i1
func.func private @return_flags(%n: index, %p: memref<?xf64>) -> (memref<?xf64>, memref<?xf64>) {
  %b = memref.alloc(%n) : memref<?xf64>
  func.return %b, %p : memref<?xf64>, memref<?xf64>
}

// A loop building a new array each iteration frees the previous one in the next
// iteration (under its flag): the initial array is handed to the loop, which owns it.
// CHECK-LABEL: func.func private @loop_frees_previous_iteration(
// CHECK:         %[[INIT:.*]] = memref.alloc
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    %[[R:.*]], %[[RF:.*]] = scf.for {{.*}} iter_args(%[[X:.*]] = %[[INIT]], %[[XF:.*]] = %[[TRUE]]) -> (memref<?xf64>, i1) : i64 {
// CHECK:           %[[Y:.*]] = memref.alloc
// CHECK:           memref.copy"(%[[X]], %[[Y]])
// CHECK-NEXT:      scf.if %[[XF]] {
// CHECK-NEXT:        memref.dealloc %[[X]]
// CHECK-NEXT:      }
// CHECK:           scf.yield %[[Y]], %{{.*}} : memref<?xf64>, i1
// CHECK:         %[[V:.*]] = memref.load %[[R]]
// CHECK-NEXT:    scf.if %[[RF]] {
// CHECK-NEXT:      memref.dealloc %[[R]]
func.func private @loop_frees_previous_iteration(%n: index, %k: i64) -> f64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %init = memref.alloc(%n) : memref<?xf64>
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%x = %init) -> (memref<?xf64>) : i64 {
    %y = memref.alloc(%n) : memref<?xf64>
    "memref.copy"(%x, %y) : (memref<?xf64>, memref<?xf64>) -> ()
    scf.yield %y : memref<?xf64>
  }
  %v = memref.load %r[%i0] : memref<?xf64>
  func.return %v : f64
}

// A branch yielding a fresh array or a parameter: its flag says which.
// CHECK-LABEL: func.func private @branch_flags(
// CHECK:         %[[R:.*]], %[[F:.*]] = scf.if %{{.*}} -> (memref<?xf64>, i1) {
// CHECK:           %[[B:.*]] = memref.alloc
// CHECK:           scf.yield %[[B]], %{{.*}} : memref<?xf64>, i1
// CHECK:         } else {
// CHECK:           %[[NO:.*]] = arith.constant false
// CHECK-NEXT:      scf.yield %{{.*}}, %[[NO]] : memref<?xf64>, i1
// CHECK:         memref.load %[[R]]
// CHECK-NEXT:    scf.if %[[F]] {
// CHECK-NEXT:      memref.dealloc %[[R]]
func.func private @branch_flags(%c: i1, %n: index, %p: memref<?xf64>) -> f64 {
  %i0 = arith.constant 0 : index
  %r = scf.if %c -> (memref<?xf64>) {
    %b = memref.alloc(%n) : memref<?xf64>
    scf.yield %b : memref<?xf64>
  } else {
    scf.yield %p : memref<?xf64>
  }
  %v = memref.load %r[%i0] : memref<?xf64>
  func.return %v : f64
}

// A callee that may return its argument (updated in place): whether the result is the
// argument's buffer is decided at run time, by comparing aligned pointers.
// CHECK-LABEL: func.func private @maybe_same(
// CHECK-SAME:    -> (memref<?xf64>, i1)
func.func private @maybe_same(%c: i1, %p: memref<?xf64>) -> memref<?xf64> {
  %r = scf.if %c -> (memref<?xf64>) {
    scf.yield %p : memref<?xf64>
  } else {
    %i0 = arith.constant 0 : index
    %b = memref.alloc(%i0) : memref<?xf64>
    scf.yield %b : memref<?xf64>
  }
  func.return %r : memref<?xf64>
}
// CHECK-LABEL: func.func private @call_result_may_be_argument(
// CHECK:         %[[A:.*]] = memref.alloc
// CHECK-NEXT:    %[[R:.*]], %[[RF:.*]] = func.call @maybe_same(%{{.*}}, %[[A]]) : (i1, memref<?xf64>) -> (memref<?xf64>, i1)
// CHECK-DAG:     %[[PR:.*]] = "memref.extract_aligned_pointer_as_index"(%[[R]])
// CHECK-DAG:     %[[PA:.*]] = "memref.extract_aligned_pointer_as_index"(%[[A]])
// CHECK:         %[[SAME:.*]] = arith.cmpi eq, %[[PR]], %[[PA]] : index
// CHECK:         func.return %[[R]], %{{.*}} : memref<?xf64>, i1
func.func private @call_result_may_be_argument(%c: i1, %n: index) -> memref<?xf64> {
  %a = memref.alloc(%n) : memref<?xf64>
  %r = func.call @maybe_same(%c, %a) : (i1, memref<?xf64>) -> memref<?xf64>
  func.return %r : memref<?xf64>
}

// A public function keeps its signature: a wrapper of the private implementation,
// which internal calls use.
// CHECK-LABEL: func.func private @entry.impl(%{{.*}}: index) -> (memref<?xf64>, i1) {
// CHECK-LABEL: func.func @entry(%{{.*}}: index) -> memref<?xf64> attributes {l0.entry = "entry"} {
// CHECK-NEXT:    %[[R:.*]], %{{.*}} = func.call @entry.impl(%{{.*}}) : (index) -> (memref<?xf64>, i1)
// CHECK-NEXT:    func.return %[[R]] : memref<?xf64>
// CHECK-LABEL: func.func private @caller(
// CHECK:         func.call @entry.impl(
func.func @entry(%n: index) -> memref<?xf64> {
  %b = memref.alloc(%n) : memref<?xf64>
  func.return %b : memref<?xf64>
}
func.func private @caller(%n: index) -> f64 {
  %i0 = arith.constant 0 : index
  %r = func.call @entry(%n) : (index) -> memref<?xf64>
  %v = memref.load %r[%i0] : memref<?xf64>
  func.return %v : f64
}

// A callee whose result never aliases its argument (its summary says so): the caller
// frees the argument right after the call, without a run-time comparison.
// CHECK-LABEL: func.func private @fresh(
func.func private @fresh(%p: memref<?xf64>) -> memref<?xf64> {
  %i0 = arith.constant 0 : index
  %b = memref.alloc(%i0) : memref<?xf64>
  func.return %b : memref<?xf64>
}
// CHECK-LABEL: func.func private @call_result_fresh(
// CHECK:         %[[A:.*]] = memref.alloc
// CHECK-NEXT:    %{{.*}}, %{{.*}} = func.call @fresh(%[[A]])
// CHECK-NEXT:    memref.dealloc %[[A]] : memref<?xf64>
// CHECK-NOT:     extract_aligned_pointer
// CHECK:         func.return
func.func private @call_result_fresh(%n: index) -> memref<?xf64> {
  %a = memref.alloc(%n) : memref<?xf64>
  %r = func.call @fresh(%a) : (memref<?xf64>) -> memref<?xf64>
  func.return %r : memref<?xf64>
}

// A loop that swaps two arrays: each result may be either initial array (the alias
// class of a result takes in the init of the iteration argument it is yielded from),
// so the loop owns neither; both are freed after the last use of either result.
// CHECK-LABEL: func.func private @loop_swaps(
// CHECK:         %[[A:.*]] = memref.alloc
// CHECK-NEXT:    %[[B:.*]] = memref.alloc
// CHECK-NEXT:    %[[F:.*]] = arith.constant false
// CHECK-NEXT:    %[[R:.*]], %{{.*}}, %{{.*}}, %{{.*}} = scf.for {{.*}} iter_args(%{{.*}} = %[[A]], %{{.*}} = %[[B]], %{{.*}} = %[[F]], %{{.*}} = %[[F]])
// CHECK:         memref.load %[[R]]
// CHECK:         memref.dealloc %[[B]]
// CHECK-NEXT:    memref.dealloc %[[A]]
func.func private @loop_swaps(%n: index, %k: i64) -> f64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %a = memref.alloc(%n) : memref<?xf64>
  %b = memref.alloc(%n) : memref<?xf64>
  %r, %s = scf.for %i = %c0 to %k step %c1 iter_args(%x = %a, %y = %b) -> (memref<?xf64>, memref<?xf64>) : i64 {
    scf.yield %y, %x : memref<?xf64>, memref<?xf64>
  }
  %v = memref.load %r[%i0] : memref<?xf64>
  func.return %v : f64
}

// Summaries are a fixpoint over the module: `@via` returns what `@returns_param` returns
// (its parameter), which is known only after `@via` was first looked at; `@via`, and then
// its caller `@calls_later` (both before it in the module, after functions that call
// neither), are looked at again. So `%a` is not freed before the load through `%r`.
// CHECK-LABEL: func.func private @calls_later(
// CHECK:         %[[A:.*]] = memref.alloc
// CHECK-NEXT:    %[[R:.*]], %{{.*}} = func.call @via(%[[A]])
// CHECK-NEXT:    %{{.*}} = memref.load %[[R]]
// CHECK:         memref.dealloc %[[A]] : memref<?xf64>
// CHECK:         func.return
func.func private @calls_later(%n: index) -> f64 {
  %i0 = arith.constant 0 : index
  %a = memref.alloc(%n) : memref<?xf64>
  %r = func.call @via(%a) : (memref<?xf64>) -> memref<?xf64>
  %v = memref.load %r[%i0] : memref<?xf64>
  func.return %v : f64
}
func.func private @via(%x: memref<?xf64>) -> memref<?xf64> {
  %r = func.call @returns_param(%x) : (memref<?xf64>) -> memref<?xf64>
  func.return %r : memref<?xf64>
}
func.func private @returns_param(%y: memref<?xf64>) -> memref<?xf64> {
  func.return %y : memref<?xf64>
}

// A block yielding values of two classes, the first with no buffer it owns (a
// parameter) and the second with one (fresh): the fresh buffer is handed over to the
// caller with its flag set, not freed before the return.
// CHECK-LABEL: func.func private @returns_param_then_fresh(
// CHECK:         %[[B:.*]] = memref.alloc
// CHECK-NEXT:    %[[F:.*]] = arith.constant false
// CHECK-NEXT:    %[[T:.*]] = arith.constant true
// CHECK-NEXT:    func.return %p, %[[B]], %[[F]], %[[T]] :
func.func private @returns_param_then_fresh(%p: memref<?xf64>, %n: index) -> (memref<?xf64>, memref<?xf64>) {
  %b = memref.alloc(%n) : memref<?xf64>
  func.return %p, %b : memref<?xf64>, memref<?xf64>
}

// A loop yields the second result of a call (fresh) in place of its second array: the
// class of that loop result takes in the init it replaces (`%b`) only, not the init
// numbered like the call's result; the loop owns both inits, and nothing frees `%a` or
// `%b` after it.
// CHECK-LABEL: func.func private @loop_yields_second_result(
// CHECK:         %[[T0:.*]] = arith.constant true
// CHECK-NEXT:    %[[T1:.*]] = arith.constant true
// CHECK-NEXT:    %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = scf.for {{.*}} iter_args(%x = %a, %y = %b, %{{.*}} = %[[T0]], %{{.*}} = %[[T1]])
// CHECK-NOT:     memref.dealloc %{{a|b}} :
// CHECK:         func.return
func.func private @two_fresh_buffers(%n: index) -> (memref<?xf64>, memref<?xf64>) {
  %a = memref.alloc(%n) : memref<?xf64>
  %b = memref.alloc(%n) : memref<?xf64>
  func.return %a, %b : memref<?xf64>, memref<?xf64>
}
func.func private @loop_yields_second_result(%n: index, %k: i64) -> f64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %a = memref.alloc(%n) : memref<?xf64>
  %b = memref.alloc(%n) : memref<?xf64>
  %r, %s = scf.for %i = %c0 to %k step %c1 iter_args(%x = %a, %y = %b) -> (memref<?xf64>, memref<?xf64>) : i64 {
    %p, %q = func.call @two_fresh_buffers(%n) : (index) -> (memref<?xf64>, memref<?xf64>)
    scf.yield %x, %q : memref<?xf64>, memref<?xf64>
  }
  %v = memref.load %r[%i0] : memref<?xf64>
  %w = memref.load %s[%i0] : memref<?xf64>
  %t = arith.addf %v, %w : f64
  func.return %t : f64
}

// A buffer handed down into a branch is freed there after the last use of any value of
// its class, an enclosing block's argument included: `%m` may be `%a` (the callee may
// return its parameter), so it is freed after the store through `%a`, not after the
// load through `%m`.
// CHECK-LABEL: func.func private @branch_uses_param_after_call(
// CHECK:         %m, %[[OWN:.*]] = func.call @param_or_fresh(
// CHECK-NEXT:    scf.if %c {
// CHECK-NEXT:      %v = memref.load %m[%i0]
// CHECK-NEXT:      memref.store %v, %a[%i0]
// CHECK-NEXT:      scf.if %[[OWN]] {
// CHECK-NEXT:        memref.dealloc %m : memref<?xf64>
func.func private @param_or_fresh(%p: memref<?xf64>, %c: i1, %n: index) -> memref<?xf64> {
  %r = scf.if %c -> (memref<?xf64>) {
    scf.yield %p : memref<?xf64>
  } else {
    %b = memref.alloc(%n) : memref<?xf64>
    scf.yield %b : memref<?xf64>
  }
  func.return %r : memref<?xf64>
}
func.func private @branch_uses_param_after_call(%a: memref<?xf64>, %c: i1, %n: index) {
  %i0 = arith.constant 0 : index
  %m = func.call @param_or_fresh(%a, %c, %n) : (memref<?xf64>, i1, index) -> memref<?xf64>
  scf.if %c {
    %v = memref.load %m[%i0] : memref<?xf64>
    memref.store %v, %a[%i0] : memref<?xf64>
    scf.yield
  } else {
    scf.yield
  }
  func.return
}
