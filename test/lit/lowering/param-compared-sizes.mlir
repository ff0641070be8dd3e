// RUN: l0-opt %s -p 'convert-parallel-to-omp{profile=true}' | filecheck %s
// RUN: l0-opt %s -p convert-parallel-to-omp | filecheck %s --check-prefix=OFF
// RUN: l0-opt %s -p 'convert-parallel-to-omp{profile=true}' -t llvm-ir | filecheck %s --check-prefix=LLVM
// RUN: not l0-opt %s -p 'convert-parallel-to-omp{profile=maybe}' 2>&1 | filecheck %s --check-prefix=BAD

// Compiled with profiling, a threshold notes the sizes it is compared with (Note
// [Thresholds record what they compare]): the region's work (trips x 3, saturated)
// goes into the table of its parameter unless the table holds it already: cell 0
// counts the sizes kept (clamped to the 64 cells), cell 1 those that did not fit.
// CHECK-DAG:   "memref.global"() <{sym_name = "[[SEEN:l0_param_seen\.0]]", type = memref<66xi64>, initial_value, sym_visibility = "public"}>
// CHECK-DAG:   "memref.global"() <{sym_name = "l0_param.0", {{.*}}l0.param = "main:3:7:map.min_work"
// CHECK-LABEL: func.func @main(
// CHECK:         %[[WORK:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK:         %[[MW:.*]] = arith.select
// CHECK:         %[[TABLE:.*]] = memref.get_global @[[SEEN]] : memref<66xi64>
// CHECK:         %[[COUNT:.*]] = memref.load %[[TABLE]]
// CHECK:         %[[CAP:.*]] = arith.constant 64 : i64
// CHECK-NEXT:    %[[HELD:.*]] = arith.minsi %{{.*}}, %[[CAP]] : i64
// CHECK:         %[[FOUND:.*]] = scf.for %{{.*}} = %{{.*}} to %[[HELD]] step %{{.*}} iter_args(%[[ANY:.*]] = %{{.*}}) -> (i1) : i64 {
// CHECK:           %[[OLD:.*]] = memref.load %[[TABLE]]
// CHECK-NEXT:      %[[SAME:.*]] = arith.cmpi eq, %[[OLD]], %[[WORK]] : i64
// CHECK-NEXT:      %[[OR:.*]] = arith.ori %[[ANY]], %[[SAME]] : i1
// CHECK-NEXT:      scf.yield %[[OR]] : i1
// CHECK:         %[[NEW:.*]] = arith.xori %[[FOUND]], %{{.*}} : i1
// CHECK-NEXT:    scf.if %[[NEW]] {
// CHECK:           %[[ROOM:.*]] = arith.cmpi slt, %[[HELD]], %{{.*}} : i64
// CHECK-NEXT:      scf.if %[[ROOM]] {
// CHECK:             memref.store %[[WORK]], %[[TABLE]]
// CHECK:             memref.store %{{.*}}, %[[TABLE]]
// CHECK:           } else {
// CHECK:             memref.store %{{.*}}, %[[TABLE]]
// CHECK:         %[[ENOUGH:.*]] = arith.cmpi sge, %[[WORK]], %[[MW]] : i64
// CHECK:         "omp.parallel"

// Without profiling, nothing is noted: no table.
// OFF-NOT:     l0_param_seen
// OFF:         arith.cmpi sge
// OFF-NOT:     l0_param_seen

// Profiling (and so noting sizes) is on or off: another value is an error, status 2.
// BAD: l0-opt: error: bad options for pass 'convert-parallel-to-omp': Incompatible types: given ('maybe',), expected <class 'bool'>

// The table is an exported, zeroed global the driver finds by name.
// LLVM:        @"l0.global.l0_param_seen.0" = global [66 x i64] zeroinitializer
// LLVM-LABEL:  define internal {i32} @"l0.fn.main"(
// LLVM:          store i64
func.func @main(%a: memref<?xf64>, %o: memref<?xf64>) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %n = memref.dim %a, %z : memref<?xf64>
  "scf.parallel"(%z, %n, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf64>
    memref.store %x, %o[%i] : memref<?xf64>
    scf.reduce
  }) {l0.site = "main:3:7:map"} : (index, index, index) -> ()
  func.return
}
