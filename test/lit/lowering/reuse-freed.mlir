// RUN: l0-opt %s -p reuse-freed | filecheck %s
// RUN: l0-opt %s -p 'reuse-freed{across_iterations=true}' | filecheck %s --check-prefix=ACROSS

// reuse-freed (after dealloc): an allocation takes the buffer of its type freed before
// it in the same block when the sizes agree (and the flag says it was owned).

// A loop that computes the next array from the one it carries: the previous one is
// freed (under its flag) before the next is allocated; the allocation reuses it.
// CHECK-LABEL: func.func private @step(
// CHECK:         scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}, %[[XF:.*]] = %{{.*}}) -> (memref<?x?xf64>, i1) : i64 {
// CHECK:           %[[V:.*]] = memref.load %[[X]]
// CHECK-NOT:       memref.dealloc
// CHECK:           %[[D0:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x?xf64>
// CHECK-NEXT:      %[[E0:.*]] = arith.cmpi eq, %[[D0]], %n : index
// CHECK-NEXT:      %[[F0:.*]] = arith.andi %[[XF]], %[[E0]] : i1
// CHECK:           %[[D1:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x?xf64>
// CHECK-NEXT:      %[[E1:.*]] = arith.cmpi eq, %[[D1]], %m : index
// CHECK-NEXT:      %[[FITS:.*]] = arith.andi %[[F0]], %[[E1]] : i1
// CHECK-NEXT:      %[[Y:.*]] = scf.if %[[FITS]] -> (memref<?x?xf64>) {
// CHECK-NEXT:        scf.yield %[[X]] : memref<?x?xf64>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.if %[[XF]] {
// CHECK-NEXT:          memref.dealloc %[[X]] : memref<?x?xf64>
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[NEW:.*]] = memref.alloc(%n, %m) : memref<?x?xf64>
// CHECK-NEXT:        scf.yield %[[NEW]] : memref<?x?xf64>
// CHECK-NEXT:      }
// CHECK:           memref.store %[[V]], %[[Y]]
func.func private @step(%n: index, %m: index, %k: i64) -> (memref<?x?xf64>, i1) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %true = arith.constant true
  %init = memref.alloc(%n, %m) : memref<?x?xf64>
  %r, %rf = scf.for %i = %c0 to %k step %c1 iter_args(%x = %init, %xf = %true) -> (memref<?x?xf64>, i1) : i64 {
    %v = memref.load %x[%i0, %i0] : memref<?x?xf64>
    scf.if %xf {
      memref.dealloc %x : memref<?x?xf64>
    }
    %y = memref.alloc(%n, %m) : memref<?x?xf64>
    memref.store %v, %y[%i0, %i0] : memref<?x?xf64>
    scf.yield %y, %true : memref<?x?xf64>, i1
  }
  func.return %r, %rf : memref<?x?xf64>, i1
}

// An unconditional free: the allocation's fallback frees it unconditionally.
// CHECK-LABEL: func.func private @unconditional(
// CHECK:         %[[A:.*]] = memref.alloc(%n) : memref<?xf64>
// CHECK:         %[[B:.*]] = scf.if %{{.*}} -> (memref<?xf64>) {
// CHECK-NEXT:      scf.yield %[[A]] : memref<?xf64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      memref.dealloc %[[A]] : memref<?xf64>
// CHECK-NEXT:      %{{.*}} = memref.alloc(%m) : memref<?xf64>
func.func private @unconditional(%n: index, %m: index) -> memref<?xf64> {
  %a = memref.alloc(%n) : memref<?xf64>
  memref.dealloc %a : memref<?xf64>
  %b = memref.alloc(%m) : memref<?xf64>
  func.return %b : memref<?xf64>
}

// Must not fire: another element type, another rank, or an allocation before the free.
// CHECK-LABEL: func.func private @no_match(
// CHECK-NEXT:    %[[A:.*]] = memref.alloc(%n) : memref<?xf64>
// CHECK-NEXT:    %[[B:.*]] = memref.alloc(%n) : memref<?xf64>
// CHECK-NEXT:    memref.dealloc %[[A]] : memref<?xf64>
// CHECK-NEXT:    %[[C:.*]] = memref.alloc(%n) : memref<?xi64>
// CHECK-NEXT:    %[[D:.*]] = memref.alloc(%n, %n) : memref<?x?xf64>
// CHECK-NEXT:    func.return
func.func private @no_match(%n: index) -> (memref<?xf64>, memref<?xi64>, memref<?x?xf64>) {
  %a = memref.alloc(%n) : memref<?xf64>
  %b = memref.alloc(%n) : memref<?xf64>
  memref.dealloc %a : memref<?xf64>
  %c = memref.alloc(%n) : memref<?xi64>
  %d = memref.alloc(%n, %n) : memref<?x?xf64>
  func.return %b, %c, %d : memref<?xf64>, memref<?xi64>, memref<?x?xf64>
}

// Across iterations (Note [Reuse across iterations]; only when asked for, by default
// nothing changes): the body allocates the next array
// while it still reads the one it carries, which it frees after. The loop carries a
// spare buffer and whether it owns it (not at first: a view of the initial array, never
// used; an owned spare is freed after the loop): the allocation takes an owned spare
// when the sizes agree, and the carried array, when owned and starting its buffer with
// unit stride, becomes the next spare instead of being freed.
// CHECK-LABEL: func.func private @passes(
// CHECK-NOT:     extract_strided_metadata
// CHECK:         func.return
// ACROSS-LABEL: func.func private @passes(
// ACROSS:         %[[VIEW:.*]] = memref.reinterpret_cast %a to offset: [0], sizes: [%{{.*}}], strides: [1] : memref<?xi64, strided<[?], offset: ?>> to memref<?xi64>
// ACROSS-NEXT:    %r, %rf, %[[LAST:.*]], %[[LASTOWNED:.*]] = scf.for {{.*}} iter_args(%[[X:.*]] = %a, %[[XF:.*]] = %false, %[[SPARE:.*]] = %[[VIEW]], %[[OWNS:.*]] = %{{.*}}) -> (memref<?xi64, strided<[?], offset: ?>>, i1, memref<?xi64>, i1) : i64 {
// ACROSS:           %[[D:.*]] = memref.dim %[[SPARE]], %{{.*}} : memref<?xi64>
// ACROSS-NEXT:      %[[EQ:.*]] = arith.cmpi eq, %[[D]], %n : index
// ACROSS-NEXT:      %[[FITS:.*]] = arith.andi %[[OWNS]], %[[EQ]] : i1
// ACROSS-NEXT:      %[[Y:.*]] = scf.if %[[FITS]] -> (memref<?xi64>) {
// ACROSS-NEXT:        scf.yield %[[SPARE]] : memref<?xi64>
// ACROSS-NEXT:      } else {
// ACROSS-NEXT:        scf.if %[[OWNS]] {
// ACROSS-NEXT:          memref.dealloc %[[SPARE]] : memref<?xi64>
// ACROSS-NEXT:        }
// ACROSS-NEXT:        %{{.*}} = memref.alloc(%n) : memref<?xi64>
// ACROSS:           memref.load %[[X]]
// ACROSS:           memref.store %{{.*}}, %[[Y]]
// ACROSS:           %{{.*}}, %[[OFF:.*]], %{{.*}}, %[[STRIDE:.*]] = memref.extract_strided_metadata %[[X]]
// ACROSS:           %[[AT0:.*]] = arith.cmpi eq, %[[OFF]], %{{.*}} : index
// ACROSS:           %[[UNIT:.*]] = arith.cmpi eq, %[[STRIDE]], %{{.*}} : index
// ACROSS-NEXT:      %[[WHOLE:.*]] = arith.andi %[[AT0]], %[[UNIT]] : i1
// ACROSS-NEXT:      %[[KEEP:.*]] = arith.andi %[[XF]], %[[WHOLE]] : i1
// ACROSS:           %[[NEXT:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%{{.*}}], strides: [1]
// ACROSS:           %[[NOTKEEP:.*]] = arith.xori %[[KEEP]], %{{.*}} : i1
// ACROSS-NEXT:      %[[RELEASE:.*]] = arith.andi %[[XF]], %[[NOTKEEP]] : i1
// ACROSS-NEXT:      scf.if %[[RELEASE]] {
// ACROSS-NEXT:        memref.dealloc %[[X]]
// ACROSS-NEXT:      }
// ACROSS-NOT:       memref.alloc
// ACROSS:           scf.yield %{{.*}}, %{{.*}}, %[[NEXT]], %[[KEEP]] : memref<?xi64, strided<[?], offset: ?>>, i1, memref<?xi64>, i1
// ACROSS:         scf.if %[[LASTOWNED]] {
// ACROSS-NEXT:      memref.dealloc %[[LAST]] : memref<?xi64>
// ACROSS-NEXT:    }
// ACROSS-NEXT:    func.return %r, %rf
func.func private @passes(%a: memref<?xi64, strided<[?], offset: ?>>, %n: index, %k: i64)
    -> (memref<?xi64, strided<[?], offset: ?>>, i1) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %true = arith.constant true
  %false = arith.constant false
  %r, %rf = scf.for %i = %c0 to %k step %c1 iter_args(%x = %a, %xf = %false) -> (memref<?xi64, strided<[?], offset: ?>>, i1) : i64 {
    %y = memref.alloc(%n) : memref<?xi64>
    %v = memref.load %x[%i0] : memref<?xi64, strided<[?], offset: ?>>
    memref.store %v, %y[%i0] : memref<?xi64>
    scf.if %xf {
      memref.dealloc %x : memref<?xi64, strided<[?], offset: ?>>
    }
    %yc = "memref.cast"(%y) : (memref<?xi64>) -> memref<?xi64, strided<[?], offset: ?>>
    scf.yield %yc, %true : memref<?xi64, strided<[?], offset: ?>>, i1
  }
  func.return %r, %rf : memref<?xi64, strided<[?], offset: ?>>, i1
}

// Must not fire across iterations: a carried array of two dimensions, and one freed
// inside a branch (not the body's own free).
// ACROSS-LABEL: func.func private @passes_kept(
// ACROSS-NOT:     extract_strided_metadata
// ACROSS:         func.return
func.func private @passes_kept(%a: memref<?x?xi64>, %n: index, %k: i64, %c: i1) -> memref<?x?xi64> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%x = %a) -> (memref<?x?xi64>) : i64 {
    %y = memref.alloc(%n, %n) : memref<?x?xi64>
    %v = memref.load %x[%i0, %i0] : memref<?x?xi64>
    memref.store %v, %y[%i0, %i0] : memref<?x?xi64>
    memref.dealloc %x : memref<?x?xi64>
    scf.yield %y : memref<?x?xi64>
  }
  %s = arith.constant 0 : index
  %b = memref.alloc(%n) : memref<?xi64>
  %q = scf.for %i = %c0 to %k step %c1 iter_args(%x = %b) -> (memref<?xi64>) : i64 {
    %y = memref.alloc(%n) : memref<?xi64>
    %v = memref.load %x[%i0] : memref<?xi64>
    memref.store %v, %y[%i0] : memref<?xi64>
    scf.if %c {
      memref.dealloc %x : memref<?xi64>
    } else {
      memref.dealloc %x : memref<?xi64>
    }
    scf.yield %y : memref<?xi64>
  }
  memref.dealloc %q : memref<?xi64>
  func.return %r : memref<?x?xi64>
}
