// `minijax run` runs an .mlir file as given, on XLA or the reference interpreter;
// `minijax check` verifies it and prints its function signatures.

// RUN: minijax run %s --arg 'f32[2]=[1, -2]' --arg 'i32[]=3' | FileCheck %s
// RUN: minijax run %s --arg 'f32[2]=[1, -2]' --arg 'i32[]=3' --backend interpreter | FileCheck %s
// CHECK: f32[2]=[3.0, -6.0]
// CHECK-NEXT: bool[2]=[True, False]

// RUN: minijax check %s | FileCheck %s --check-prefix=SIGNATURES
// SIGNATURES: func.func public @main(tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi1>)
// SIGNATURES-NEXT: func.func private @scale(tensor<2xf32>, tensor<f32>) -> tensor<2xf32>

// RUN: not minijax run %s --arg 'f32[2]=[1, -2]' 2>&1 | FileCheck %s --check-prefix=ARITY
// ARITY: minijax: error: wrong number of --arg for {{.*}}run.mlir: @main takes 2, 1 given
// RUN: not minijax run %s --arg 'f32[2]=[1, -2]' --arg 'i64[]=3' 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: minijax: error: --arg 1 for {{.*}}run.mlir is a tensor<i64> but @main expects tensor<i32>

module @example {
  func.func public @main(%x: tensor<2xf32>, %n: tensor<i32>) -> (tensor<2xf32>, tensor<2xi1>) {
    %nf = stablehlo.convert %n : (tensor<i32>) -> tensor<f32>
    %y = func.call @scale(%x, %nf) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<2xf32>
    %positive = stablehlo.compare GT, %y, %zero, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    return %y, %positive : tensor<2xf32>, tensor<2xi1>
  }
  func.func private @scale(%x: tensor<2xf32>, %s: tensor<f32>) -> tensor<2xf32> {
    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %y = stablehlo.multiply %x, %b : tensor<2xf32>
    return %y : tensor<2xf32>
  }
}
