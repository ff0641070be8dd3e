// RUN: l0-opt %s -t 'llvm-ir{lower=false}' | filecheck %s
// RUN: l0-opt %s -t 'llvm-ir{lower=false optimize=true}' | filecheck %s --check-prefix=OPT

// A strided view is its exploded descriptor; an access is an inbounds GEP on
// offset + sum(i_k * stride_k), with nsw index arithmetic and a TBAA tag.

// CHECK-LABEL: define internal {i32, double} @"l0.fn.corner"(ptr noalias %"ctx", ptr %"a.allocated", ptr %"a.aligned", i64 %"a.offset", i64 %"a.size0", i64 %"a.size1", i64 %"a.stride0", i64 %"a.stride1", i64 %"i")
// CHECK:      %[[ROW:.*]] = mul nsw i64 %"i", %"a.stride0"
// CHECK-NEXT: %[[LIN:.*]] = add nsw i64 %"a.offset", %[[ROW]]
// CHECK-NEXT: %[[P:.*]] = getelementptr inbounds double, ptr %"a.aligned", i64 %[[LIN]]
// CHECK-NEXT: load double, ptr %[[P]], align 8, !tbaa
func.func @corner(%a: memref<?x?xf64, strided<[?, ?], offset: ?>>, %i: index) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%i, %c0] : memref<?x?xf64, strided<[?, ?], offset: ?>>
  func.return %v : f64
}

// An identity layout has a constant unit inner stride and offset 0: the address of
// b[i, j] is i * size1 + j.
// CHECK-LABEL: @"l0.fn.contiguous"
// CHECK:      %[[R:.*]] = mul nsw i64 %"i", %"b.size1"
// CHECK-NEXT: %[[L:.*]] = add nsw i64 %[[R]], %"j"
// CHECK-NEXT: getelementptr inbounds i64, ptr %"b.aligned", i64 %[[L]]
func.func @contiguous(%b: memref<?x?xi64>, %i: index, %j: index) -> i64 {
  %v = memref.load %b[%i, %j] : memref<?x?xi64>
  func.return %v : i64
}

// Allocation failure is an error status, never a NULL dereference.
// CHECK-LABEL: @"l0.fn.fresh"
// CHECK:      call {i64, i1} @"llvm.smul.with.overflow.i64"
// CHECK:      %[[M:.*]] = call ptr @"l0.rt.alloc"
// CHECK-NEXT: %[[OK:.*]] = icmp ne ptr %[[M]], null
// CHECK-NEXT: br i1 %[[OK]], label %"ok", label %"error", !prof
// CHECK:      error:
// CHECK-NEXT: getelementptr inbounds i64, ptr %"ctx", i64 0
// CHECK-NEXT: store i64 1
func.func @fresh(%n: index) -> memref<?xf64> {
  %b = memref.alloc(%n) : memref<?xf64>
  func.return %b : memref<?xf64>
}

// OPT-LABEL: define {{.*}}i32 @l0.entry.corner(ptr {{.*}}%ctx, ptr {{.*}}%slots)
// OPT-LABEL: define {{.*}}i32 @l0.entry.fresh(
// OPT:       call ptr @malloc(i64

// A reinterpret_cast to an identity layout with an offset (a slice of a buffer expanded
// for a parallel loop): the offset moves the aligned pointer, since an identity layout's
// offset is 0; with offset 0 the pointer is the source's.
// CHECK-LABEL: @"l0.fn.slice"
// CHECK:      %[[P:.*]] = getelementptr inbounds double, ptr %"b.aligned", i64 %"off"
// CHECK:      getelementptr inbounds double, ptr %[[P]], i64
// CHECK-LABEL: @"l0.fn.whole"
// CHECK-NOT:  getelementptr inbounds double, ptr %"b.aligned", i64 0
// CHECK:      getelementptr inbounds double, ptr %"b.aligned", i64
func.func @slice(%b: memref<?xf64>, %off: index, %n: index, %i: index) -> f64 {
  %v = memref.reinterpret_cast %b to offset: [%off], sizes: [%n], strides: [1] : memref<?xf64> to memref<?xf64>
  %x = memref.load %v[%i] : memref<?xf64>
  func.return %x : f64
}
func.func @whole(%b: memref<?xf64>, %n: index, %i: index) -> f64 {
  %v = memref.reinterpret_cast %b to offset: [0], sizes: [%n], strides: [1] : memref<?xf64> to memref<?xf64>
  %x = memref.load %v[%i] : memref<?xf64>
  func.return %x : f64
}
