builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "l0_kernels"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    "gpu.launch_func"(%c1, %c2, %c1, %c1, %c1, %c1) <{kernel = @l0_kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>}> : (index, index, index, index, index, index) -> ()
    func.return
  }
}
