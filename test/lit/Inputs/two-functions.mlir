// A module without @main (not a lit test: Inputs/ holds no tests).
func.func @double(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.add %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @negate(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.negate %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
