// RUN: l0-opt %s -p 'simd-map{width=4}' -t 'llvm-ir{lower=false optimize=true}' | filecheck %s
// RUN: l0-opt %s -t 'llvm-ir{lower=false optimize=true}' | filecheck %s --check-prefix=SCALAR

// The lanes' copies that simd-map puts side by side are what LLVM's SLP vectoriser
// turns into vector instructions: after O3 the fold of the n-body shape runs on vectors
// of doubles (as many as the host's registers hold), each lane's sum in its own element.
// Without the pass the fold is a chain of scalar additions in strict order.

// CHECK-LABEL: define {{.*}}@l0.entry.pull(
// CHECK:         load <{{[0-9]+}} x double>
// CHECK:         fsub <{{[0-9]+}} x double>
// CHECK:         fmul <{{[0-9]+}} x double>
// CHECK:         fadd <{{[0-9]+}} x double>
// CHECK:       }

// SCALAR-LABEL: define {{.*}}@l0.entry.pull(
// SCALAR-NOT:    fadd <{{[0-9]+}} x double>
// SCALAR:        fadd double
// SCALAR-NOT:    fadd <{{[0-9]+}} x double>
// SCALAR:      }
func.func @pull(%x: memref<?xf64>, %m: memref<?xf64>, %out: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %n : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %xi = memref.load %x[%i] : memref<?xf64>
    %acc = scf.for %j = %lo to %len step %one iter_args(%a = %zero) -> (f64) : i64 {
      %jj = arith.index_cast %j : i64 to index
      %xj = memref.load %x[%jj] : memref<?xf64>
      %mj = memref.load %m[%jj] : memref<?xf64>
      %d = arith.subf %xj, %xi : f64
      %p = arith.mulf %mj, %d : f64
      %s = arith.addf %a, %p : f64
      scf.yield %s : f64
    }
    memref.store %acc, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
