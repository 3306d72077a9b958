module @jit_f {
  func.func public @main(%arg0: tensor<f64>) -> tensor<f64> {
    stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<> : tensor<0xindex>], result_layouts = []} : (tensor<f64>) -> ()
    return %arg0 : tensor<f64>
  }
}
