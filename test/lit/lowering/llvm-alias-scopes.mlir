// RUN: l0-opt %s -t 'llvm-ir{lower=false}' | filecheck %s
// RUN: l0-opt %s -t 'llvm-ir{lower=false optimize=true}' | filecheck %s --check-prefix=OPT

// Alias scopes: a load or store through a memref whose allocation sites are known
// (allocations, their views, `scf.if` results and `scf.for` carried values) gets one
// scope per site and is declared not to alias every other site of its function. An
// allocation of no elements is no site; parameters, `memref.alloca`s and what the
// analysis does not follow are unknown and get no scope.

// Two growing buffers (as hoist-allocs makes them): loop phis that start at the same
// empty buffer and are replaced by fresh allocations. Each access has its own buffer's
// scope and the other's in its noalias list.
// CHECK-LABEL: @"l0.fn.grow"
// CHECK:       store double %{{.*}}, ptr %{{.*}}, !tbaa !{{[0-9]+}}, !alias.scope ![[US:[0-9]+]], !noalias ![[UN:[0-9]+]]
// CHECK:       load double, ptr %{{.*}}, !tbaa !{{[0-9]+}}, !alias.scope ![[UN]], !noalias ![[US]]
func.func @grow(%n: index, %u0: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %empty = memref.alloc(%c0) : memref<?xf64>
  %r:3 = scf.for %t = %c0 to %n step %c1 iter_args(%u = %empty, %v = %empty, %acc = %z)
      -> (memref<?xf64>, memref<?xf64>, f64) {
    %cap = memref.dim %u, %c0 : memref<?xf64>
    %more = arith.cmpi sgt, %n, %cap : index
    %u1, %v1 = scf.if %more -> (memref<?xf64>, memref<?xf64>) {
      %a = memref.alloc(%n) : memref<?xf64>
      %b = memref.alloc(%n) : memref<?xf64>
      scf.yield %a, %b : memref<?xf64>, memref<?xf64>
    } else {
      scf.yield %u, %v : memref<?xf64>, memref<?xf64>
    }
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %u0[%i] : memref<?xf64>
      memref.store %x, %u1[%i] : memref<?xf64>
    }
    memref.store %z, %v1[%c0] : memref<?xf64>
    scf.for %i = %c1 to %n step %c1 {
      %x = memref.load %u1[%i] : memref<?xf64>
      %im = arith.subi %i, %c1 : index
      %p = memref.load %v1[%im] : memref<?xf64>
      %q = arith.divf %x, %p : f64
      memref.store %q, %v1[%i] : memref<?xf64>
    }
    %last = memref.load %v1[%c0] : memref<?xf64>
    %s = arith.addf %acc, %last : f64
    scf.yield %u1, %v1, %s : memref<?xf64>, memref<?xf64>, f64
  }
  func.return %r#2 : f64
}

// A value that may be either of two allocations has both scopes, and does not alias
// the third.
// CHECK-LABEL: @"l0.fn.either"
// CHECK:       store i64 %{{.*}}, !alias.scope ![[EITHER:[0-9]+]], !noalias ![[THIRD:[0-9]+]]
func.func @either(%c: i1, %n: index, %x: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc(%n) : memref<?xi64>
  %b = memref.alloc(%n) : memref<?xi64>
  %d = memref.alloc(%n) : memref<?xi64>
  %e = scf.if %c -> (memref<?xi64>) {
    scf.yield %a : memref<?xi64>
  } else {
    scf.yield %b : memref<?xi64>
  }
  memref.store %x, %e[%c0] : memref<?xi64>
  memref.store %x, %d[%c0] : memref<?xi64>
  %v = memref.load %d[%c0] : memref<?xi64>
  func.return %v : i64
}

// Buffers a loop swaps (ping-pong): each carried value may be either allocation, so
// accesses through both have both scopes and are not told apart (only from the third).
// CHECK-LABEL: @"l0.fn.swap"
// CHECK:       store i64 %{{.*}}, !alias.scope ![[PP:[0-9]+]], !noalias ![[PC:[0-9]+]]
// CHECK:       load i64, ptr %{{.*}}, !alias.scope ![[PP]], !noalias ![[PC]]
// CHECK:       store i64 %{{.*}}, !alias.scope ![[PC]], !noalias ![[PP]]
func.func @swap(%n: index, %x: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc(%n) : memref<?xi64>
  %b = memref.alloc(%n) : memref<?xi64>
  %c = memref.alloc(%n) : memref<?xi64>
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%p = %a, %q = %b)
      -> (memref<?xi64>, memref<?xi64>) {
    memref.store %x, %p[%c0] : memref<?xi64>
    %v = memref.load %q[%c0] : memref<?xi64>
    memref.store %v, %c[%c0] : memref<?xi64>
    scf.yield %q, %p : memref<?xi64>, memref<?xi64>
  }
  %w = memref.load %c[%c0] : memref<?xi64>
  func.return %w : i64
}

// Must not fire: a parameter, a value that may be a parameter, a stack buffer, and an
// allocation that is the function's only site (nothing to tell it from).
// CHECK-LABEL: @"l0.fn.unknown"
// CHECK-NOT:   !alias.scope
// CHECK-NOT:   !noalias
// CHECK:       ret
func.func @unknown(%c: i1, %p: memref<?xi64>, %x: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc(%c4) : memref<?xi64>
  %e = scf.if %c -> (memref<?xi64>) {
    scf.yield %a : memref<?xi64>
  } else {
    scf.yield %p : memref<?xi64>
  }
  memref.store %x, %e[%c0] : memref<?xi64>
  memref.store %x, %p[%c0] : memref<?xi64>
  %s = memref.alloca() : memref<4xi64>
  memref.store %x, %s[%c0] : memref<4xi64>
  %v = memref.load %s[%c0] : memref<4xi64>
  memref.store %v, %a[%c0] : memref<?xi64>
  %w = memref.load %a[%c0] : memref<?xi64>
  func.return %w : i64
}

// Four growing buffers, as in a tridiagonal solve's forward loop (uu[i] from uu[i - 1],
// u[i] from u[i - 1]). Without the scopes LLVM cannot tell the phis apart and reloads
// uu[i - 1] and u[i - 1], just stored, in each iteration; with them both stay in
// registers (phis) and the loop loads only a[i] and b[i].
// The scopes, one domain per function (metadata follows the functions):
// CHECK-LABEL: @"l0.fn.solve"
// CHECK:       ![[DOM:[0-9]+]] = !{ !"l0 alias grow" }
// CHECK-DAG:   ![[SU:[0-9]+]] = !{ !"l0 alias grow: site 0", ![[DOM]] }
// CHECK-DAG:   ![[US]] = !{ ![[SU]] }
// CHECK-DAG:   ![[SV:[0-9]+]] = !{ !"l0 alias grow: site 1", ![[DOM]] }
// CHECK-DAG:   ![[UN]] = !{ ![[SV]] }
// CHECK-DAG:   ![[S0:[0-9]+]] = !{ !"l0 alias either: site 0", !{{[0-9]+}} }
// CHECK-DAG:   ![[S1:[0-9]+]] = !{ !"l0 alias either: site 1", !{{[0-9]+}} }
// CHECK-DAG:   ![[S2:[0-9]+]] = !{ !"l0 alias either: site 2", !{{[0-9]+}} }
// CHECK-DAG:   ![[EITHER]] = !{ ![[S0]], ![[S1]] }
// CHECK-DAG:   ![[THIRD]] = !{ ![[S2]] }
// CHECK-DAG:   ![[P0:[0-9]+]] = !{ !"l0 alias swap: site 0", !{{[0-9]+}} }
// CHECK-DAG:   ![[P1:[0-9]+]] = !{ !"l0 alias swap: site 1", !{{[0-9]+}} }
// CHECK-DAG:   ![[P2:[0-9]+]] = !{ !"l0 alias swap: site 2", !{{[0-9]+}} }
// CHECK-DAG:   ![[PP]] = !{ ![[P0]], ![[P1]] }
// CHECK-DAG:   ![[PC]] = !{ ![[P2]] }
// OPT-LABEL: @l0.entry.solve
// OPT:       for.body.2{{.*}}:
// OPT-NEXT:  phi double
// OPT-NEXT:  phi double
// OPT-NEXT:  phi i64
// OPT-NOT:   {{^[a-z0-9._]+:}}
// OPT-COUNT-2: load double
// OPT-NOT:   load double
// OPT:       br i1
func.func @solve(%n: index, %m: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 1.0 : f64
  %empty = memref.alloc(%c0) : memref<?xf64>
  %r:5 = scf.for %t = %c0 to %m step %c1 iter_args(%a = %empty, %b = %empty, %uu = %empty, %u = %empty, %acc = %z)
      -> (memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, f64) {
    %cap = memref.dim %a, %c0 : memref<?xf64>
    %more = arith.cmpi sgt, %n, %cap : index
    %a1 = scf.if %more -> (memref<?xf64>) {
      %x = memref.alloc(%n) : memref<?xf64>
      scf.yield %x : memref<?xf64>
    } else {
      scf.yield %a : memref<?xf64>
    }
    %capb = memref.dim %b, %c0 : memref<?xf64>
    %moreb = arith.cmpi sgt, %n, %capb : index
    %b1 = scf.if %moreb -> (memref<?xf64>) {
      %x = memref.alloc(%n) : memref<?xf64>
      scf.yield %x : memref<?xf64>
    } else {
      scf.yield %b : memref<?xf64>
    }
    %capu = memref.dim %uu, %c0 : memref<?xf64>
    %moreu = arith.cmpi sgt, %n, %capu : index
    %uu1 = scf.if %moreu -> (memref<?xf64>) {
      %x = memref.alloc(%n) : memref<?xf64>
      scf.yield %x : memref<?xf64>
    } else {
      scf.yield %uu : memref<?xf64>
    }
    %capv = memref.dim %u, %c0 : memref<?xf64>
    %morev = arith.cmpi sgt, %n, %capv : index
    %u1 = scf.if %morev -> (memref<?xf64>) {
      %x = memref.alloc(%n) : memref<?xf64>
      scf.yield %x : memref<?xf64>
    } else {
      scf.yield %u : memref<?xf64>
    }
    scf.for %i = %c0 to %n step %c1 {
      %ti = arith.index_cast %i : index to i64
      %f = arith.sitofp %ti : i64 to f64
      memref.store %f, %a1[%i] : memref<?xf64>
      memref.store %f, %b1[%i] : memref<?xf64>
    }
    memref.store %z, %uu1[%c0] : memref<?xf64>
    memref.store %z, %u1[%c0] : memref<?xf64>
    scf.for %i = %c1 to %n step %c1 {
      %im = arith.subi %i, %c1 : index
      %ai = memref.load %a1[%i] : memref<?xf64>
      %p = memref.load %uu1[%im] : memref<?xf64>
      %q = arith.divf %ai, %p : f64
      %bi = memref.load %b1[%i] : memref<?xf64>
      %v = arith.subf %bi, %q : f64
      memref.store %v, %uu1[%i] : memref<?xf64>
      %w = memref.load %u1[%im] : memref<?xf64>
      %y = arith.mulf %q, %w : f64
      %y2 = arith.subf %ai, %y : f64
      memref.store %y2, %u1[%i] : memref<?xf64>
    }
    %last = memref.load %u1[%c0] : memref<?xf64>
    %s = arith.addf %acc, %last : f64
    scf.yield %a1, %b1, %uu1, %u1, %s : memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, f64
  }
  func.return %r#4 : f64
}
