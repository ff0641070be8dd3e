// RUN: l0-opt %s -p bufferise | filecheck %s

// Bufferisation: arrays become memrefs; uniqueness makes let-with a store into its
// source (never a copy); rows, transpose, split and reshape of a contiguous array are
// views; copy copies; fresh results get contiguous (identity-layout) buffers.

// let-with on a unique array: a store into the parameter's own buffer, returned as is.
// CHECK-LABEL: func.func @update_in_place(
// CHECK-SAME:    %[[A:.*]]: memref<?xi64, strided<[?], offset: ?>> {soac.unique}
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.copy
// CHECK:         memref.store %{{.*}}, %[[A]][%{{.*}}]
// CHECK-NOT:     memref.copy
// CHECK:         func.return %[[A]]
func.func @update_in_place(%a: tensor<?xi64> {soac.unique}, %i: i64, %v: i64) -> (tensor<?xi64> {soac.unique}) {
  %c = soac.checked
  %a_1 = soac.update %a[%i] = %v <%c> : tensor<?xi64>
  func.return %a_1 : tensor<?xi64>
}

// In a loop, the carried array stays one buffer: each iteration stores into it.
// CHECK-LABEL: func.func @loop_updates_in_place(
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (memref<?xi64, strided<[?], offset: ?>>)
// CHECK-NOT:       memref.alloc
// CHECK:           memref.store %{{.*}}, %[[X]][
// CHECK-NEXT:      scf.yield %[[X]]
func.func @loop_updates_in_place(%a: tensor<?xi64> {soac.unique}, %n: i64) -> (tensor<?xi64> {soac.unique}) {
  %0 = arith.constant 0 : i64
  %1 = arith.constant 1 : i64
  %c = soac.checked
  %r = scf.for %i = %0 to %n step %1 iter_args(%x = %a) -> (tensor<?xi64>) : i64 {
    %y = soac.update %x[%i] = %i <%c> : tensor<?xi64>
    scf.yield %y : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}

// A row is a rank-reducing subview: no copy.
// CHECK-LABEL: func.func @row_is_a_view(
// CHECK:         %[[R:.*]] = memref.subview %{{.*}}[%{{.*}}, 0] [1, %{{.*}}] [1, 1] : memref<?x?xi64, strided<[?, ?], offset: ?>> to memref<?xi64, strided<[?], offset: ?>>
// CHECK-NOT:     memref.copy
// CHECK:         func.return %[[R]]
func.func @row_is_a_view(%m: tensor<?x?xi64>, %i: i64) -> tensor<?xi64> {
  %c = soac.checked
  %r = soac.index %m[%i] <%c> : tensor<?x?xi64> -> tensor<?xi64>
  func.return %r : tensor<?xi64>
}

// transpose swaps sizes and strides of the same buffer. The sizes it swaps are those
// `size` reports: the inner one is 0 when the outer one is (an array without rows has
// none after the swap either, whatever the buffer's second size).
// CHECK-LABEL: func.func @transpose_is_a_view(
// CHECK:         %{{.*}}, %[[OFF:.*]], %[[S0:.*]], %[[S1:.*]], %[[T0:.*]], %[[T1:.*]] = memref.extract_strided_metadata %[[M:.*]] :
// CHECK-NEXT:    %[[ROWS:.*]] = arith.index_cast %[[S0]] : index to i64
// CHECK-NEXT:    %[[COLS:.*]] = arith.index_cast %[[S1]] : index to i64
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[SOME:.*]] = arith.cmpi ne, %[[ROWS]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[N:.*]] = arith.select %[[SOME]], %[[COLS]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[NI:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT:    memref.reinterpret_cast %[[M]] to offset: [%[[OFF]]], sizes: [%[[NI]], %[[S0]]], strides: [%[[T1]], %[[T0]]]
// CHECK-NOT:     memref.alloc
func.func @transpose_is_a_view(%m: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %t = soac.transpose(0, 1) %m : tensor<?x?xi64>
  func.return %t : tensor<?x?xi64>
}

// A transposition that moves nothing is its operand.
// CHECK-LABEL: func.func @transpose_moving_nothing(
// CHECK-NOT:     memref.extract_strided_metadata
// CHECK:         func.return %m
func.func @transpose_moving_nothing(%m: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %t = soac.transpose(0, 0) %m : tensor<?x?xi64>
  func.return %t : tensor<?x?xi64>
}

// split: two subviews of the operand.
// CHECK-LABEL: func.func @split_is_a_view(
// CHECK:         memref.subview %[[A:.*]][0] [%{{.*}}] [1]
// CHECK:         memref.subview %[[A]][%{{.*}}] [%{{.*}}] [1]
// CHECK-NOT:     memref.alloc
func.func @split_is_a_view(%i: i64, %a: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %c = soac.checked
  %x, %y = soac.split %i, %a <%c> : tensor<?xi64>
  func.return %x, %y : tensor<?xi64>, tensor<?xi64>
}

// reshape of a fresh (contiguous) array: a view; iota writes into a fresh buffer.
// CHECK-LABEL: func.func @reshape_of_fresh_is_a_view(
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:    msoac.iota %[[B]] : memref<?xi64>
// CHECK:         %r = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [%{{.*}}, %{{.*}}], strides: [%{{.*}}, 1] : memref<?xi64> to memref<?x?xi64>
// CHECK-NEXT:    func.return %r : memref<?x?xi64>
func.func @reshape_of_fresh_is_a_view(%n: i64, %k: i64) -> tensor<?x?xi64> {
  %c = soac.checked
  %a = soac.iota %n <%c>
  %r = soac.reshape (%k, %k) %a <%c> : tensor<?xi64> -> tensor<?x?xi64>
  func.return %r : tensor<?x?xi64>
}

// reshape of a parameter (any strides): a view when it is contiguous, else a copy.
// CHECK-LABEL: func.func @reshape_of_param(
// CHECK:         scf.if %{{.*}} -> (memref<?x?xi64, strided<[?, 1], offset: ?>>) {
// CHECK:           memref.reinterpret_cast %[[A:.*]] to offset: [%{{.*}}]
// CHECK:         } else {
// CHECK:           %[[C:.*]] = memref.alloc
// CHECK-NEXT:      "memref.copy"(%[[A]], %[[C]])
// CHECK:           memref.reinterpret_cast %[[C]] to offset: [0]
func.func @reshape_of_param(%a: tensor<?xi64>, %n: i64) -> tensor<?x?xi64> {
  %c = soac.checked
  %two = arith.constant 2 : i64
  %r = soac.reshape (%n, %two) %a <%c> : tensor<?xi64> -> tensor<?x?xi64>
  func.return %r : tensor<?x?xi64>
}

// copy is the one op that copies.
// CHECK-LABEL: func.func @copy_copies(
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:    "memref.copy"(%{{.*}}, %[[B]])
// CHECK:         func.return %[[B]] : memref<?xi64>
func.func @copy_copies(%a: tensor<?xi64>) -> tensor<?xi64> {
  %r = soac.copy %a : tensor<?xi64>
  func.return %r : tensor<?xi64>
}

// Copy elision (Note [Copy elision]): copy of a fresh array nothing else uses is that
// array; the update after it stores into the iota's buffer.
// CHECK-LABEL: func.func @copy_of_fresh_is_elided(
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:    msoac.iota %[[B]] : memref<?xi64>
// CHECK-NOT:     memref.copy
// CHECK-NOT:     memref.alloc
// CHECK:         memref.store %{{.*}}, %[[B]][%{{.*}}]
// CHECK:         func.return %[[B]] : memref<?xi64>
func.func @copy_of_fresh_is_elided(%n: i64) -> tensor<?xi64> {
  %c = soac.checked
  %0 = arith.constant 0 : i64
  %a = soac.iota %n <%c>
  %r = soac.copy %a : tensor<?xi64>
  %s = soac.update %r[%0] = %n <%c> : tensor<?xi64>
  func.return %s : tensor<?xi64>
}

// Must not fire: the fresh array is used after the copy (read after the update).
// CHECK-LABEL: func.func @copy_of_fresh_used_later_copies(
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:    msoac.iota %[[B]] : memref<?xi64>
// CHECK:         %[[R:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:    "memref.copy"(%[[B]], %[[R]])
func.func @copy_of_fresh_used_later_copies(%n: i64) -> (tensor<?xi64>, i64) {
  %c = soac.checked
  %0 = arith.constant 0 : i64
  %a = soac.iota %n <%c>
  %r = soac.copy %a : tensor<?xi64>
  %s = soac.update %r[%0] = %n <%c> : tensor<?xi64>
  %x = soac.index %a[%0] <%c> : tensor<?xi64> -> i64
  func.return %s, %x : tensor<?xi64>, i64
}

// Must not fire: a copy in a loop of a fresh array from before it runs once per
// iteration, and each iteration needs its own array.
// CHECK-LABEL: func.func @copy_in_loop_copies(
// CHECK:         scf.for
// CHECK:           memref.alloc
// CHECK-NEXT:      "memref.copy"
func.func @copy_in_loop_copies(%n: i64) -> i64 {
  %c = soac.checked
  %0 = arith.constant 0 : i64
  %1 = arith.constant 1 : i64
  %a = soac.iota %n <%c>
  %t = scf.for %i = %0 to %n step %1 iter_args(%acc = %0) -> (i64) : i64 {
    %r = soac.copy %a : tensor<?xi64>
    %s = soac.update %r[%0] = %i <%c> : tensor<?xi64>
    %x = soac.index %s[%0] <%c> : tensor<?xi64> -> i64
    %y = arith.addi %acc, %x : i64
    scf.yield %y : i64
  }
  func.return %t : i64
}

// size(1, m) is 0 when m has no rows (normalised shapes, as the interpreter).
// CHECK-LABEL: func.func @size_is_normalised(
// CHECK:         %[[D0:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         %[[D1:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         %[[NZ:.*]] = arith.cmpi ne, %[[D0]], %{{.*}} : i64
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[NZ]], %[[D1]], %{{.*}} : i64
// CHECK:         func.return %[[S]]
func.func @size_is_normalised(%m: tensor<?x?xi64>) -> i64 {
  %s = soac.size(1) %m : tensor<?x?xi64>
  func.return %s : i64
}

// Values merging in a branch get the least static layout of what flows in: a cast.
// CHECK-LABEL: func.func @branch_merges_layouts(
// CHECK:         scf.if %{{.*}} -> (memref<?xi64, strided<[?], offset: ?>>) {
// CHECK:           %[[F:.*]] = memref.alloc
// CHECK:           %[[K:.*]] = "memref.cast"(%[[F]]) : (memref<?xi64>) -> memref<?xi64, strided<[?], offset: ?>>
// CHECK-NEXT:      scf.yield %[[K]]
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %{{.*}} : memref<?xi64, strided<[?], offset: ?>>
func.func @branch_merges_layouts(%b: i1, %a: tensor<?xi64>) -> tensor<?xi64> {
  %r = scf.if %b -> (tensor<?xi64>) {
    %f = soac.copy %a : tensor<?xi64>
    scf.yield %f : tensor<?xi64>
  } else {
    scf.yield %a : tensor<?xi64>
  }
  func.return %r : tensor<?xi64>
}

// replicate of an array nobody consumes is a view: every row is the operand (stride 0).
// CHECK-LABEL: func.func @replicate_read_only_is_a_view(
// CHECK:         %[[Z:.*]] = arith.constant 0 : i64
// CHECK:         %[[ZZ:.*]] = arith.index_cast %[[Z]] : i64 to index
// CHECK-NEXT:    %[[R:.*]] = memref.reinterpret_cast %[[A:.*]] to offset: [%{{.*}}], sizes: [%{{.*}}, %{{.*}}], strides: [%[[ZZ]], %{{.*}}] : memref<?xf64, strided<[?], offset: ?>> to memref<?x?xf64, strided<[?, ?], offset: ?>>
// CHECK-NOT:     msoac.replicate
func.func @replicate_read_only_is_a_view(%a: tensor<?xf64>, %n: i64) -> tensor<?xf64> {
  %z = arith.constant 0.0 : f64
  %r = soac.replicate %n, %a : tensor<?xf64>
  %s = soac.map(%row = %r : tensor<?x?xf64>) -> tensor<?xf64> {
    %t = soac.reduce(%acc = %z : f64) over(%x = %row : tensor<?xf64>) {
      %u = arith.addf %acc, %x : f64
      soac.yield %u : f64
    }
    soac.yield %t : f64
  }
  func.return %s : tensor<?xf64>
}

// A map whose lambda only replicates its row k times (k from outside), read by nobody
// who consumes it, is a view of its input with a stride-0 second dimension.
// CHECK-LABEL: func.func @map_replicate_rows_is_a_view(
// CHECK:         %{{[0-9]+}}, %[[OFF:[0-9]+]], %[[N:[0-9]+]], %[[M:[0-9]+]], %[[SN:[0-9]+]], %[[SM:[0-9]+]] = memref.extract_strided_metadata %a
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[K:.*]] = arith.index_cast %k : i64 to index
// CHECK-NEXT:    %[[ZZ:.*]] = arith.index_cast %[[Z]] : i64 to index
// CHECK-NEXT:    %r = memref.reinterpret_cast %a to offset: [%[[OFF]]], sizes: [%[[N]], %[[K]], %[[M]]], strides: [%[[SN]], %[[ZZ]], %[[SM]]] :
// CHECK-NOT:     msoac.replicate
func.func @map_replicate_rows_is_a_view(%a: tensor<?x?xf64>, %k: i64) -> tensor<?xi64> {
  %r = soac.map(%row = %a : tensor<?x?xf64>) -> tensor<?x?x?xf64> {
    %rep = soac.replicate %k, %row : tensor<?xf64>
    soac.yield %rep : tensor<?x?xf64>
  }
  %s = soac.map(%m = %r : tensor<?x?x?xf64>) -> tensor<?xi64> {
    %u = soac.size(0) %m : tensor<?x?xf64>
    soac.yield %u : i64
  }
  func.return %s : tensor<?xi64>
}

// no_: a replicate that is updated in place must be materialised (its rows differ).
// CHECK-LABEL: func.func @replicate_updated_is_materialised(
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK-NEXT:    msoac.replicate %{{.*}}, %[[B]] : i64, memref<?xi64>
// CHECK:         memref.store %{{.*}}, %[[B]][
func.func @replicate_updated_is_materialised(%n: i64, %v: i64) -> tensor<?xi64> {
  %c = soac.checked
  %r = soac.replicate %n, %v : i64
  %s = soac.update %r[%v] = %v <%c> : tensor<?xi64>
  func.return %s : tensor<?xi64>
}

// no_: a replicate of an array that is updated in place while the replicate lives must
// be materialised: a view would show the update to the reads after it.
// CHECK-LABEL: func.func @replicate_of_updated_array_is_materialised(
// CHECK:         %r = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xi64>
// CHECK-NEXT:    msoac.replicate %a, %r : memref<?xi64, strided<[?], offset: ?>>, memref<?x?xi64>
// CHECK-NOT:     memref.reinterpret_cast %a
// CHECK:         memref.store %i, %a[
func.func @replicate_of_updated_array_is_materialised(%a: tensor<?xi64> {soac.unique}, %n: i64, %i: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %c = soac.checked
  %r = soac.replicate %n, %a : tensor<?xi64>
  %u = soac.update %a[%i] = %i <%c> : tensor<?xi64>
  %s = soac.map(%row = %r : tensor<?x?xi64>) -> tensor<?xi64> {
    %e = soac.index %row[%i] : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %s, %u : tensor<?xi64>, tensor<?xi64>
}

// no_: likewise for a loop's merge parameter, which the loop body may consume (only a
// function's non-unique parameters are never consumed).
// CHECK-LABEL: func.func @replicate_of_updated_loop_array_is_materialised(
// CHECK:         scf.for
// CHECK:           %r = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xi64>
// CHECK-NEXT:      msoac.replicate %acc, %r : memref<?xi64, strided<[?], offset: ?>>, memref<?x?xi64>
// CHECK-NOT:       memref.reinterpret_cast %acc
// CHECK:           memref.store %k, %acc[
func.func @replicate_of_updated_loop_array_is_materialised(%a: tensor<?xi64> {soac.unique}, %n: i64, %i: i64) -> (tensor<?xi64>, i64) {
  %lb = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %c = soac.checked
  %b, %t = scf.for %k = %lb to %n step %one iter_args(%acc = %a, %sum = %lb) -> (tensor<?xi64>, i64) : i64 {
    %r = soac.replicate %n, %acc : tensor<?xi64>
    %u = soac.update %acc[%i] = %k <%c> : tensor<?xi64>
    %m = soac.map(%row = %r : tensor<?x?xi64>) -> tensor<?xi64> {
      %e = soac.index %row[%i] : tensor<?xi64> -> i64
      soac.yield %e : i64
    }
    %s = soac.reduce(%p = %sum : i64) over(%e = %m : tensor<?xi64>) {
      %f = arith.addi %p, %e : i64
      soac.yield %f : i64
    }
    scf.yield %u, %s : tensor<?xi64>, i64
  }
  func.return %b, %t : tensor<?xi64>, i64
}

// trace calls the runtime with the site, the data pointer, the offset and the shape.
// CHECK-LABEL: func.func @trace_calls_the_runtime(
// CHECK:         func.call @l0_trace_array(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64, i64) -> ()
// CHECK:         func.call @l0_trace_scalar(%{{.*}}, %{{.*}}) : (i64, i64) -> ()
// CHECK-DAG:   func.func private @l0_trace_array(i64, i64, i64, i64) -> ()
// CHECK-DAG:   func.func private @l0_trace_scalar(i64, i64) -> ()
func.func @trace_calls_the_runtime(%a: tensor<?xi64>, %n: i64) -> (tensor<?xi64>, i64) {
  %r, %m = soac.trace(%a, %n : tensor<?xi64>, i64) at "t.l0:1:2"
  func.return %r, %m : tensor<?xi64>, i64
}
