builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "l0_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xi64>) -> (), kernel}> ({
    ^bb0(%out: memref<?xi64>):
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
  func.func @main(%n: i64) {
    %c1 = arith.constant 1 : index
    "gpu.launch_func"(%c1, %c1, %c1, %c1, %c1, %c1, %n) <{kernel = @l0_kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, i64) -> ()
    func.return
  }
}
