// RUN: l0-opt %s -p reuse-freed | filecheck %s

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
