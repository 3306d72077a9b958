# RUN: %python %s | FileCheck %s
# The decompositions of lax.linalg lower as JAX lowers them on CPU: a stablehlo.custom_call of
# one of jaxlib's LAPACK kernels, on column-major matrices (operand_layouts [0, 1]), options
# as ui8 characters in mhlo.backend_config, the result reusing the operand's buffer. A
# failure (info != 0) becomes NaNs. cholesky also zeroes the upper triangle; lu's pivots
# count from 1 in LAPACK, from 0 in JAX; triangular_solve, qr, eigh and svd call trsm,
# geqrf + orgqr, syevd and gesdd; eig calls geev, whose real and imaginary parts of the
# eigenvalues make one complex array; schur calls gees (zgees for a complex matrix).
import numpy as np
from minijax import ShapeDtypeStruct, jit, lax

L = lax.linalg
x = ShapeDtypeStruct((3, 3), np.float64)


def factor(x):
    return L.cholesky(x, symmetrize_input=False)


print(jit(factor).lower(x).as_text())
# CHECK-LABEL: module @jit_factor
# CHECK: %[[F:.*]]:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = {{.*}}} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<i32>)
# CHECK: %[[OK:.*]] = stablehlo.compare EQ, %[[F]]#1, %{{.*}}, SIGNED
# CHECK: %[[NAN:.*]] = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
# CHECK: %[[G:.*]] = stablehlo.select %{{.*}}, %[[F]]#0, %{{.*}}
# CHECK: %[[LOWER:.*]] = stablehlo.compare GE, %{{.*}}, %{{.*}}, SIGNED
# CHECK: stablehlo.select %[[LOWER]], %[[G]], %{{.*}} : tensor<3x3xi1>, tensor<3x3xf64>


def the_others(a, b):
    return (L.triangular_solve(a, b, left_side=True, lower=True), L.lu(a)[:2],
            L.qr(a, full_matrices=False), L.eigh(a), L.svd(a))


print(jit(the_others).lower(x, ShapeDtypeStruct((3, 2), np.float64)).as_text())
# CHECK-LABEL: module @jit_the_others
# CHECK: stablehlo.custom_call @lapack_dtrsm_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}
# CHECK: stablehlo.custom_call @lapack_dgetrf_ffi(%arg0)
# CHECK: stablehlo.custom_call @lapack_dgeqrf_ffi(%arg0)
# CHECK: stablehlo.custom_call @lapack_dorgqr_ffi
# CHECK: stablehlo.custom_call @lapack_dsyevd_ffi({{.*}}) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}
# CHECK: stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 65 : ui8}


def eigen(a):
    return L.eig(a), L.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)


print(jit(eigen).lower(x).as_text())
# CHECK-LABEL: module @jit_eigen
# CHECK: %[[E:.*]]:5 = stablehlo.custom_call @lapack_dgeev_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>]{{.*}} : (tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, tensor<i32>)
# CHECK: stablehlo.complex %[[E]]#0, %[[E]]#1 : tensor<3xcomplex<f64>>
# CHECK: stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
# CHECK: stablehlo.custom_call @lapack_dgeev_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 78 : ui8}


def schur_forms(a, c):
    return L.schur(a), L.schur(c, compute_schur_vectors=False)


print(jit(schur_forms).lower(x, ShapeDtypeStruct((3, 3), np.complex128)).as_text())
# CHECK-LABEL: module @jit_schur_forms
# CHECK: %[[S:.*]]:6 = stablehlo.custom_call @lapack_dgees_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>]{{.*}} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<i32>, tensor<i32>)
# CHECK: stablehlo.compare EQ, %[[S]]#5, %{{.*}}, SIGNED
# CHECK: %[[C:.*]]:5 = stablehlo.custom_call @lapack_zgees_ffi(%arg1) {backend_config = "", mhlo.backend_config = {mode = 78 : ui8, sort = 78 : ui8}{{.*}} : (tensor<3x3xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, tensor<3xcomplex<f64>>, tensor<i32>, tensor<i32>)


# lu_pivots_to_permutation (lu's third result): a loop over the pivots, minijax's own (JAX's
# loop scatters; the permutations agree).
def permutation(pivots):
    return L.lu_pivots_to_permutation(pivots, 4)


print(jit(permutation).lower(ShapeDtypeStruct((3,), np.int32)).as_text())
# CHECK-LABEL: module @jit_permutation
# CHECK: %[[P:.*]] = stablehlo.iota dim = 0 : tensor<4xi32>
# CHECK: stablehlo.while(%iterArg = %[[P]], %iterArg_1 = %arg0, {{.*}}) : tensor<4xi32>, tensor<3xi32>
# CHECK: stablehlo.dynamic_slice %iterArg_1, %{{.*}}, sizes = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<1xi32>
