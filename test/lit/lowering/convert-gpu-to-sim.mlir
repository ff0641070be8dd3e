// RUN: l0-opt %s -p convert-gpu-to-sim --split-input-file --verify-diagnostics | filecheck %s

// A kernel with a barrier: a function looping over the blocks, and for each block
// over the threads once per phase. Workgroup memory is one array per block (made
// before the phases), the uniform arithmetic is computed once per block, a function
// of the thread id used across the barrier is recomputed in the second phase. The
// launch becomes a call with the grid and block sizes; gpu.alloc/memcpy/dealloc
// become memref.alloc/copy/dealloc.
// CHECK-LABEL: func.func @host(%a: memref<?xf64>, %h: memref<?xf64>) {
// CHECK-NEXT:    %n = arith.constant 4 : index
// CHECK-NEXT:    %one = arith.constant 1 : index
// CHECK-NEXT:    %d = memref.alloc(%n) : memref<?xf64>
// CHECK-NEXT:    "memref.copy"(%h, %d)
// CHECK-NEXT:    func.call @l0_kernels.k(%d, %one, %n) : (memref<?xf64>, index, index) -> ()
// CHECK-NEXT:    memref.dealloc %d : memref<?xf64>
// CHECK-NOT:   gpu.
// CHECK:       func.func private @l0_kernels.k(%m: memref<?xf64>, %[[GRID:.*]]: index, %bd: index) {
// CHECK:         scf.for %b = %{{.*}} to %[[GRID]] step %{{.*}} {
// CHECK-NEXT:      %wg = memref.alloca() : memref<4xf64>
// CHECK-NEXT:      %base = arith.muli %b, %bd : index
// CHECK-NEXT:      %c3 = arith.constant 3 : index
// CHECK-NEXT:      scf.for %[[T:.*]] = %{{.*}} to %bd step %{{.*}} {
// CHECK-NEXT:        %g = arith.addi %base, %[[T]] : index
// CHECK-NEXT:        %x = memref.load %m[%g] : memref<?xf64>
// CHECK-NEXT:        memref.store %x, %wg[%[[T]]] : memref<4xf64>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.for %[[T2:.*]] = %{{.*}} to %bd step %{{.*}} {
// CHECK-NEXT:        %[[G2:.*]] = arith.addi %base, %[[T2]] : index
// CHECK-NEXT:        %r = arith.subi %c3, %[[T2]] : index
// CHECK-NEXT:        %y = memref.load %wg[%r] : memref<4xf64>
// CHECK-NEXT:        memref.store %y, %m[%[[G2]]] : memref<?xf64>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @host(%a: memref<?xf64>, %h: memref<?xf64>) {
  %n = arith.constant 4 : index
  %one = arith.constant 1 : index
  %d = "gpu.alloc"(%n) <{operandSegmentSizes = array<i32: 0, 1, 0>}> : (index) -> memref<?xf64>
  "gpu.memcpy"(%d, %h) {operandSegmentSizes = array<i32: 0, 1, 1>} : (memref<?xf64>, memref<?xf64>) -> ()
  "gpu.launch_func"(%one, %one, %one, %n, %one, %one, %d) <{kernel = @l0_kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<?xf64>) -> ()
  "gpu.dealloc"(%d) {operandSegmentSizes = array<i32: 0, 1>} : (memref<?xf64>) -> ()
  func.return
}
"gpu.module"() <{sym_name = "l0_kernels"}> ({
  "gpu.func"() <{function_type = (memref<?xf64>) -> (), kernel}> ({
  ^bb0(%m: memref<?xf64>):
    %wg = memref.alloca() : memref<4xf64, 3 : i64>
    %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %b = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %bd = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
    %base = arith.muli %b, %bd : index
    %g = arith.addi %base, %t : index
    %x = memref.load %m[%g] : memref<?xf64>
    memref.store %x, %wg[%t] : memref<4xf64, 3 : i64>
    "gpu.barrier"() : () -> ()
    %c3 = arith.constant 3 : index
    %r = arith.subi %c3, %t : index
    %y = memref.load %wg[%r] : memref<4xf64, 3 : i64>
    memref.store %y, %m[%g] : memref<?xf64>
    "gpu.return"() : () -> ()
  }) {sym_name = "k"} : () -> ()
}) : () -> ()

// -----

// The rule for barriers (docs/gpu.md): a value a thread loaded before the barrier
// cannot be used after it (it must go through workgroup memory).
func.func @bad() {
  func.return
}
"gpu.module"() <{sym_name = "l0_kernels"}> ({
  "gpu.func"() <{function_type = (memref<?xf64>) -> (), kernel}> ({
  ^bb0(%m: memref<?xf64>):
    %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %x = memref.load %m[%t] : memref<?xf64>
    "gpu.barrier"() : () -> ()
    memref.store %x, %m[%t] : memref<?xf64>
    "gpu.return"() : () -> ()
  }) {sym_name = "k"} : () -> ()
}) : () -> ()
// CHECK: convert-gpu-to-sim: kernel k: memref.load defines a value used across a barrier that is neither uniform nor a function of the thread id

// -----

// A barrier must be reached by every thread of a block: never inside control flow.
func.func @bad2() {
  func.return
}
"gpu.module"() <{sym_name = "l0_kernels"}> ({
  "gpu.func"() <{function_type = (i1) -> (), kernel}> ({
  ^bb0(%c: i1):
    scf.if %c {
      "gpu.barrier"() : () -> ()
    }
    "gpu.return"() : () -> ()
  }) {sym_name = "k"} : () -> ()
}) : () -> ()
// CHECK: convert-gpu-to-sim: kernel k: a barrier inside control flow
