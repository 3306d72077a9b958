// `minijax check` on an invalid module: the MLIR diagnostic at file:line:col, exit 1.
// `minijax run` reports the same.

// RUN: not minijax check %s 2>&1 | FileCheck %s
// RUN: not minijax run %s --arg 'f32[3]=[1, 2, 3]' 2>&1 | FileCheck %s
// CHECK: {{.*}}check-invalid.mlir:13:8: error: 'stablehlo.add' op requires the same shape for all operands and results
// CHECK-NOT: Traceback

// RUN: not minijax check %S/no-such-file.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: minijax: error: no such file: '{{.*}}no-such-file.mlir'

func.func public @main(%arg0: tensor<3xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %arg0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
