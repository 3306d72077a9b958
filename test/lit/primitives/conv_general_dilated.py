# RUN: %python %s | FileCheck %s
# conv_general_dilated lowers to one stablehlo.convolution: the dimension numbers say where
# batch (b), features (f, i, o) and the spatial axes (0, 1) sit; 'SAME' padding is worked out
# at trace time (here on the kernel dilated to width 3), and the groups are attributes.
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax


def conv_nchw(x, w):
    return lax.conv(x, w, (1, 1), 'VALID')


def conv_nhwc(x, w):
    return lax.conv_general_dilated(x, w, (2, 1), 'SAME', rhs_dilation=(1, 2),
                                    dimension_numbers=('NHWC', 'HWIO', 'NHWC'),
                                    feature_group_count=2)


print(jit(conv_nchw).lower(ShapeDtypeStruct((2, 3, 5, 4), np.float32),
                           ShapeDtypeStruct((4, 3, 3, 2), np.float32)).as_text())
# CHECK-LABEL: module @jit_conv_nchw
# CHECK: func.func public @main(%[[X:.*]]: tensor<2x3x5x4xf32>, %[[W:.*]]: tensor<4x3x3x2xf32>) -> tensor<2x4x3x3xf32>
# CHECK-NEXT: %[[Y:.*]] = stablehlo.convolution(%[[X]], %[[W]]) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = {{\[\[}}0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x5x4xf32>, tensor<4x3x3x2xf32>) -> tensor<2x4x3x3xf32>
# CHECK-NEXT: return %[[Y]] : tensor<2x4x3x3xf32>

print(jit(conv_nhwc).lower(ShapeDtypeStruct((1, 5, 6, 4), np.float64),
                           ShapeDtypeStruct((3, 2, 2, 6), np.float64)).as_text())
# CHECK-LABEL: module @jit_conv_nhwc
# CHECK: stablehlo.convolution(%{{.*}}, %{{.*}}) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = {{\[\[}}1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x5x6x4xf64>, tensor<3x2x2x6xf64>) -> tensor<1x3x6x6xf64>
