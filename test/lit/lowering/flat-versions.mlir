// RUN: l0-opt %s -p bufferise,convert-soac-to-scf | filecheck %s --check-prefix=SCF
// RUN: l0-opt %s -p bufferise,convert-soac-to-scf,convert-parallel-to-omp | filecheck %s --check-prefix=OMP
// RUN: echo '2 [1.0, 2.0, 3.0] [[1.0, 2.0], [3.0, 4.0]]' > %t.in
// RUN: l0-run --backend=multicore --threads 2 --print-params %S/Inputs/flat-strikes.l0 < %t.in | filecheck %s --check-prefix=PARAMS
// RUN: l0-run --no-cache --backend=multicore --threads 2 --param main:2:3:map.flatten_below=0 %S/Inputs/flat-strikes.l0 < %t.in | filecheck %s --check-prefix=OUT
// RUN: l0-run --no-cache --backend=multicore --threads 2 --param main:2:3:map.flatten_below=100 %S/Inputs/flat-strikes.l0 < %t.in | filecheck %s --check-prefix=OUT
// RUN: not l0-run --backend=multicore --param main:2:3:map.flatten_belo=3 %S/Inputs/flat-strikes.l0 < %t.in 2>&1 | filecheck %s --check-prefix=BAD

// A versioned nest at the loop level (l0.lowering.loop_ir.versions): multicore's -O
// (`interchange{parallel-bodies=true versioned=true}`) of
//   fun [[[real]]] main(int n, [real] ks, [[real]] grid) =
//     map(fn [[real]] (real k) =>
//           loop (g = grid) = for t < n do
//             map(fn [real] ([real] row) => map(fn real (real v) => v * 0.5 + k, row), g)
//           in g,
//         ks)
// `soac.threshold` becomes the comparison of the strikes' count with the parameter
// `main:2:3:map.flatten_below` (default: the thread count). In the kept version the
// map over strikes runs on the threads, each strike's time loop and grid maps
// sequential inside it (its result's rows are allocated beforehand: their shape is the
// grid's, `keeps_shape`); in the flattened copy the step's nest is a loop over
// strikes x rows (a perfect nest of two maps, as on the gpu), which
// convert-parallel-to-omp makes one loop over all its iterations (row-major: i = k /
// rows, j = k % rows).

// The program itself (Inputs/flat-strikes.l0) through l0-run: its threshold, listed with
// its default on 2 threads, and either version, forced, printing the same result.
// PARAMS: main:2:3:map.flatten_below 2
// OUT: {{^}}[{{\[}}[1.750000, 2.000000], [2.250000, 2.500000]], {{\[}}[3.250000, 3.500000], [3.750000, 4.000000]], {{\[}}[4.750000, 5.000000], [5.250000, 5.500000]]]
// BAD: l0-run: error: unknown parameter 'main:2:3:map.flatten_belo' (the program's parameters: main:2:3:map.flatten_below,

// SCF:       l0.param = "main:2:3:map.flatten_below", l0.param_default = "threads*1"
// SCF-LABEL: func.func @main
// SCF:         %[[WIDE:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : i64
// SCF-NEXT:    scf.if %[[WIDE]] -> (memref<?x?x?xf64>) {
// SCF:           "scf.parallel"({{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}>
// SCF:             scf.for %t
// SCF-NOT:         "scf.parallel"
// SCF:           l0.site = "main:2:3:map"
// SCF:         } else {
// SCF:           "scf.parallel"({{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}>
// SCF:           l0.site = "main:2:3:map"
// SCF:           scf.for
// SCF:             "scf.parallel"({{.*}}) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}>
// SCF:             l0.site = "main:2:3:map"

// The kept version is not collapsed (must not fire): the strikes on the threads, each
// running its time loop and the grid's maps as loops inside its iteration.
// OMP-LABEL: func.func @main
// OMP:         "omp.loop_nest"
// OMP-NEXT:      ^bb0(%{{.*}}: index):
// OMP-NOT:       arith.remui
// OMP:           scf.for %t
// OMP:         l0.site = "main:2:3:map"
// The flattened copy's is one loop over strikes x rows.
// OMP:       } else {
// OMP:         l0.site = "main:2:3:map.2"
// OMP:         "omp.loop_nest"(%{{.*}}, %[[TOTAL:.*]], %{{.*}})
// OMP-NEXT:      ^bb0(%[[K:.*]]: index):
// OMP-NEXT:        %[[J:.*]] = arith.remui %[[K]], %[[ROWS:.*]] : index
// OMP-NEXT:        %[[I:.*]] = arith.divui %[[K]], %[[ROWS]] : index
// OMP-NOT:       "scf.parallel"
// OMP:         l0.site = "main:2:3:map.3"

builtin.module {
  func.func @main(%n: i64, %ks: tensor<?xf64>, %grid: tensor<?x?xf64>) -> tensor<?x?x?xf64> {
    %0 = arith.constant 5.000000e-01 : f64
    %1 = arith.constant 0 : i64
    %2 = arith.constant 1 : i64
    %3 = soac.size(0) %ks : tensor<?xf64>
    %4 = soac.threshold %3, "flatten_below" default "threads*1" at "p.l0:2:3"
    %5 = scf.if %4 -> (tensor<?x?x?xf64>) {
      %6 = soac.map(%k = %ks : tensor<?xf64>) at "p.l0:2:3" -> tensor<?x?x?xf64> {
        %g = scf.for %t = %1 to %n step %2 iter_args(%g_1 = %grid) -> (tensor<?x?xf64>) : i64 {
          %7 = soac.map(%row = %g_1 : tensor<?x?xf64>) at "p.l0:4:11" -> tensor<?x?xf64> {
            %8 = soac.map(%v = %row : tensor<?xf64>) at "p.l0:4:41" -> tensor<?xf64> {
              %9 = arith.mulf %0, %v : f64
              %10 = arith.addf %9, %k : f64
              soac.yield %10 : f64
            }
            soac.yield %8 : tensor<?xf64>
          }
          scf.yield %7 : tensor<?x?xf64>
        } {loc = "p.l0:3:9"}
        soac.yield %g : tensor<?x?xf64>
      }
      scf.yield %6 : tensor<?x?x?xf64>
    } else {
      %11 = soac.map(%k_1 = %ks : tensor<?xf64>) at "p.l0:2:3" -> tensor<?x?x?xf64> {
        soac.yield %grid : tensor<?x?xf64>
      }
      %12 = scf.for %t_1 = %1 to %n step %2 iter_args(%13 = %11) -> (tensor<?x?x?xf64>) : i64 {
        %14 = soac.map(%k_2 = %ks, %g_2 = %13 : tensor<?xf64>, tensor<?x?x?xf64>) at "p.l0:2:3" -> tensor<?x?x?xf64> {
          %15 = soac.map(%row_1 = %g_2 : tensor<?x?xf64>) at "p.l0:4:11" -> tensor<?x?xf64> {
            %16 = soac.map(%v_1 = %row_1 : tensor<?xf64>) at "p.l0:4:41" -> tensor<?xf64> {
              %17 = arith.mulf %0, %v_1 : f64
              %18 = arith.addf %17, %k_2 : f64
              soac.yield %18 : f64
            }
            soac.yield %16 : tensor<?xf64>
          }
          soac.yield %15 : tensor<?x?xf64>
        }
        scf.yield %14 : tensor<?x?x?xf64>
      } {loc = "p.l0:3:9"}
      scf.yield %12 : tensor<?x?x?xf64>
    }
    func.return %5 : tensor<?x?x?xf64>
  }
}

