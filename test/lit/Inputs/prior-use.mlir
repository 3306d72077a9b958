func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.sine %x : tensor<2xf32>
  %z = stablehlo.add %y, %x : tensor<3xf32>
  return %z : tensor<2xf32>
}
