"""The smaller ``jax.scipy`` namespaces against JAX (x64): ``stats``' summaries and
``gaussian_kde``, ``fft``'s DCTs, ``integrate.trapezoid``, ``ndimage.map_coordinates``,
``sparse.linalg``'s solvers, ``cluster.vq``, ``interpolate``, ``spatial.transform`` and
``signal``'s FFT convolution and spectral analysis. Each test runs one function's cases in one
jitted program per side; gradients where JAX differentiates; JAX's errors."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from testlib import assert_close, jax_answer

import minijax
import minijax.numpy as mnp
import minijax.scipy as msp
import jax.scipy as jsp  # noqa: I001 (the oracle)
import jax.scipy.optimize  # noqa: F401,E402 (a submodule jax.scipy does not import)
import jax.scipy.cluster.vq  # noqa: F401,E402
import jax.scipy.interpolate  # noqa: F401,E402
import jax.scipy.spatial.transform  # noqa: F401,E402
import jax.scipy.sparse.linalg  # noqa: F401,E402


def _both(program, *args, jit=True):
    """``program(scipy, *args)`` for minijax and for JAX (each jitted), leaf by leaf."""
    if jit:
        mine = minijax.jit(lambda *a: program(msp, *a))(*args)
        theirs = jax.jit(lambda *a: program(jsp, *a))(*args)
    else:
        mine, theirs = program(msp, *args), program(jsp, *args)
    mine, theirs = jax.tree.leaves(mine), jax.tree.leaves(theirs)
    assert len(mine) == len(theirs)
    for m, t in zip(mine, theirs):
        assert_close(m, t)

# ----------------------------------------------------------------------------- stats


def test_mode_rankdata_sem(rng):
    x = rng.integers(0, 4, (5, 6)).astype(float)
    with_nan = x.copy()
    with_nan[0, 0] = np.nan

    def program(sp, x, with_nan):
        st = sp.stats
        modes = [st.mode(x, **kw) for kw in ({}, {'axis': None, 'keepdims': True},
                                             {'axis': 1, 'keepdims': True})]
        ranks = [st.rankdata(x, m) for m in ('average', 'min', 'max', 'dense', 'ordinal')]
        ranks += [st.rankdata(x, 'average', axis=1), st.rankdata(with_nan)]
        sems = [st.sem(x), st.sem(x, axis=1, ddof=0), st.sem(x, axis=None),
                st.sem(x, keepdims=True), st.sem(with_nan, nan_policy='omit')]
        return modes, st.mode(x.astype(np.int32)), ranks, sems
    _both(program, x, with_nan)


def test_gaussian_kde(rng):
    data, weights, points = rng.normal(size=(2, 30)), rng.uniform(size=30), rng.normal(size=(2, 7))
    line = rng.normal(size=20)

    def program(sp, data, weights, points, line):
        kdes = [sp.stats.gaussian_kde(data), sp.stats.gaussian_kde(data, 'silverman', weights)]
        other = sp.stats.gaussian_kde(points)
        one_d = sp.stats.gaussian_kde(line)
        return ([(k.covariance, k.evaluate(points), k.logpdf(points),
                  k.integrate_gaussian(np.zeros(2), np.eye(2)), k.integrate_kde(other))
                 for k in kdes], one_d(line[:5]), one_d.integrate_box_1d(-1., 0.5),
                sp.stats.gaussian_kde(line, bw_method=0.5).pdf(line[:3]))
    _both(program, data, weights, points, line)
    mine = minijax.scipy.stats.gaussian_kde(line).resample(minijax.random.key(3), (4,))
    assert_close(mine, jax_answer(
        lambda line: jax.scipy.stats.gaussian_kde(line).resample(jax.random.key(3), (4,)), line))


def test_gaussian_kde_through_grad(rng):
    data, points = rng.normal(size=20), rng.normal(size=5)

    def loss(sp, np_):
        return lambda data: np_.sum(sp.stats.gaussian_kde(data).logpdf(points))
    assert_close(minijax.jit(minijax.grad(loss(msp, mnp)))(data),
                 jax.jit(jax.grad(loss(jsp, jnp)))(data))


STATS_BAD_INPUTS = {
    'mode-nan-policy': lambda st: st.mode(np.ones(3), nan_policy='x'),
    'rankdata-method': lambda st: st.rankdata(np.ones(3), 'x'),
    'kde-one-element': lambda st: st.gaussian_kde(np.ones(1)),
    'kde-bw-method': lambda st: st.gaussian_kde(np.arange(3.), bw_method='x'),
}


@pytest.mark.parametrize('case', STATS_BAD_INPUTS)
def test_stats_bad_input_raises_jax_exception_type(case):
    with pytest.raises(ValueError):
        STATS_BAD_INPUTS[case](jsp.stats)
    with pytest.raises(ValueError):
        STATS_BAD_INPUTS[case](msp.stats)
    for st in (jsp.stats, msp.stats):
        with pytest.raises(NotImplementedError):
            st.mode(np.ones(3), nan_policy='omit')

# ----------------------------------------------------------------------------- fft, integrate


def test_dct_family_and_trapezoid(rng):
    x = rng.normal(size=(4, 5, 6))
    xc = x + 1j * rng.normal(size=x.shape)

    def program(sp, x, xc):
        one_axis = [getattr(sp.fft, f)(x, **kw) for f in ('dct', 'idct')
                    for kw in ({'axis': 0, 'n': 8}, {'n': 3, 'axis': 1, 'norm': 'ortho'})]
        n_axes = [getattr(sp.fft, f)(x, **kw) for f in ('dctn', 'idctn')
                  for kw in ({}, {'s': (3, 7), 'norm': 'ortho'}, {'axes': [1], 's': 4})]
        complex_ = [sp.fft.dct(xc), sp.fft.idctn(xc)]
        return (one_axis, n_axes, complex_, sp.fft.dct(x.astype(np.float32)),
                sp.integrate.trapezoid(x, dx=0.5, axis=1), sp.integrate.trapezoid(x[0, 0], x[1, 1]))
    _both(program, x, xc)

    def loss(sp, np_):
        return lambda x: np_.sum(sp.fft.dctn(x, norm='ortho') ** 2 * x)
    assert_close(minijax.jit(minijax.grad(loss(msp, mnp)))(x), jax.jit(jax.grad(loss(jsp, jnp)))(x))
    for sp in (jsp, msp):
        with pytest.raises(NotImplementedError):
            sp.fft.dct(x, type=3)
        with pytest.raises(ValueError):
            sp.fft.idct(x, norm='forward')

# ----------------------------------------------------------------------------- ndimage


def test_map_coordinates(rng):
    image = rng.normal(size=(5, 7))
    coordinates = [rng.uniform(-3, 8, (4, 3)), rng.uniform(-3, 10, (4, 3))]
    integers = rng.integers(0, 9, (5, 7)).astype(np.int32)

    def program(sp, image, coordinates, integers):
        return ([sp.ndimage.map_coordinates(image, coordinates, order, mode, 0.5)
                 for order in (0, 1)
                 for mode in ('constant', 'nearest', 'wrap', 'mirror', 'reflect')],
                sp.ndimage.map_coordinates(integers, coordinates, 1))
    _both(program, image, coordinates, integers)

    def loss(sp, np_):
        return lambda im, c: np_.sum(sp.ndimage.map_coordinates(im, [c, c], 1))
    for m, t in zip(minijax.jit(minijax.grad(loss(msp, mnp), (0, 1)))(image, coordinates[0]),
                    jax.jit(jax.grad(loss(jsp, jnp), (0, 1)))(image, coordinates[0])):
        assert_close(m, t)
    for sp, error in ((jsp, NotImplementedError), (msp, NotImplementedError)):
        with pytest.raises(error):
            sp.ndimage.map_coordinates(image, coordinates, 3)
        with pytest.raises(ValueError):
            sp.ndimage.map_coordinates(image, coordinates[:1], 1)

# ----------------------------------------------------------------------------- sparse, cluster


def test_krylov_solvers_and_their_gradient(rng):
    a = rng.normal(size=(5, 5))
    spd, general, b = a @ a.T + 5 * np.eye(5), a + 4 * np.eye(5), rng.normal(size=5)
    parts = {'u': rng.normal(size=2), 'v': rng.normal(size=3)}

    def program(sp, spd, general, b, parts):
        linalg, np_ = sp.sparse.linalg, (mnp if sp is msp else jnp)
        blocks = lambda t: {'u': 3 * t['u'], 'v': np_.dot(spd[:3, :3], t['v'])}  # noqa: E731
        diagonal = lambda x: x / np_.diag(spd)  # noqa: E731
        solves = [linalg.cg(spd, b), linalg.cg(lambda x: np_.dot(spd, x), b, x0=b, M=diagonal),
                  linalg.cg(blocks, parts, tol=1e-8), linalg.bicgstab(general, b, maxiter=3),
                  linalg.bicgstab(general, b, atol=1e-9, M=diagonal),
                  linalg.bicgstab(blocks, parts)]
        solves += [linalg.gmres(general, b, solve_method=method, **kw)
                   for method in ('batched', 'incremental')
                   for kw in ({}, {'restart': 2, 'maxiter': 2}, {'M': diagonal, 'tol': 1e-8})]
        solves.append(linalg.gmres(blocks, parts, restart=3))
        loss = lambda b: np_.sum(linalg.cg(spd, b)[0] ** 2 + linalg.gmres(general, b)[0])  # noqa
        return ([x for x, _ in solves], [info for _, info in solves[6:]],
                (minijax.grad if sp is msp else jax.grad)(loss)(b))
    _both(program, spd, general, b, parts)
    for sp in (jsp, msp):
        with pytest.raises(ValueError, match='square matrix'):
            sp.sparse.linalg.cg(np.ones((2, 3)), np.ones(2))
        with pytest.raises(ValueError, match='matching shapes'):
            sp.sparse.linalg.cg(np.eye(2), np.ones(2), x0=np.ones(3))
        with pytest.raises(ValueError, match='solve_method'):
            sp.sparse.linalg.gmres(np.eye(2), np.ones(2), solve_method='qr')


def test_vq(rng):
    obs, book = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    _both(lambda sp, obs, book: [sp.cluster.vq.vq(obs, book), sp.cluster.vq.vq(obs[:, 0],
                                                                                book[:, 0])],
          obs, book)
    for sp in (jsp, msp):
        with pytest.raises(ValueError, match='same rank'):
            sp.cluster.vq.vq(obs, book[0])

# ----------------------------------------------------------------------------- interpolate


def test_regular_grid_interpolator(rng):
    grid = (np.sort(rng.uniform(0, 1, 5)), np.sort(rng.uniform(0, 2, 4)))
    values, xi = rng.normal(size=(5, 4, 2)), rng.uniform(-.1, 2, (7, 2))

    def program(sp, values, xi):
        make = sp.interpolate.RegularGridInterpolator
        calls = [make(grid, values, method, fill_value=fill)(xi)
                 for method in ('linear', 'nearest') for fill in (np.nan, None, 0.)]
        line = make(grid[:1], values[:, 0, 0])
        calls += [line((xi[:, 0],)), line(xi[:, 0]), make(grid, values[..., 0])(xi, 'nearest'),
                  make(grid, values[..., 0])((xi[:3, 0], xi[:3, 1]))]
        return calls
    _both(program, values, xi)

    def through_jit(sp, jit, grad):
        interpolator = sp.interpolate.RegularGridInterpolator(grid, values, fill_value=None)
        return grad(jit(lambda f, x: (f(x) ** 2).sum()), argnums=(0, 1))(interpolator, xi)
    mine, theirs = through_jit(msp, minijax.jit, minijax.grad), through_jit(jsp, jax.jit, jax.grad)
    mine = minijax.tree_util.tree_leaves(mine)  # (JAX does not know minijax's pytree class)
    assert len(mine) == len(jax.tree.leaves(theirs))
    for m, t in zip(mine, jax.tree.leaves(theirs)):
        assert_close(m, t)
    for sp in (jsp, msp):
        make = sp.interpolate.RegularGridInterpolator
        with pytest.raises(ValueError, match='not defined'):
            make(grid, values, 'cubic')
        with pytest.raises(NotImplementedError):
            make(grid, values, bounds_error=True)
        with pytest.raises(ValueError, match='point arrays'):
            make(grid * 2, values[..., 0])
        with pytest.raises(ValueError, match='dimension'):
            make(grid, values)(np.ones((2, 3)))

# ----------------------------------------------------------------------------- spatial


def test_rotation_and_slerp(rng):
    quat, vectors = rng.normal(size=(5, 4)), rng.normal(size=(5, 3))
    angles = rng.uniform(-3, 3, (5, 3))

    def program(sp, quat, vectors, angles):
        R = sp.spatial.transform.Rotation
        a, b = R.from_quat(quat), R.from_euler('xyz', angles)
        c = R.from_euler('ZXZ', angles, degrees=True)
        out = [a.as_matrix(), a.as_rotvec(), a.as_rotvec(True), a.as_mrp(),
               a.as_quat(True, True), a.inv().quat, a.magnitude(), (a * b).quat, a.apply(vectors),
               a.apply(vectors, inverse=True), a[0].apply(vectors), b.quat, c.quat,
               R.from_euler('y', .3).quat, R.from_matrix(a.as_matrix()).quat,
               R.from_matrix(np.diag([1., -1, -1])).quat, R.from_rotvec(vectors).quat,
               R.from_rotvec(vectors * 1e-4, True).quat, R.from_mrp(vectors * .3).quat,
               a.mean().quat, a.mean(np.arange(5.)).quat, R.concatenate([a, b]).quat,
               R.identity().quat]
        out += [r.as_euler(seq, degrees) for seq in ('xyz', 'zyx', 'XYZ', 'zxz', 'ZYZ', 'xyx')
                for r, degrees in ((a, False), (c, True))]
        slerp = sp.spatial.transform.Slerp.init(np.arange(5.), a)
        return out + [slerp(np.array([0., .5, 2.3, 4.])).quat, slerp(1.7).quat]
    _both(program, quat, vectors, angles)

    def turned(sp, grad):
        R = sp.spatial.transform.Rotation
        return grad(lambda v: (R.from_rotvec(v).apply(vectors) ** 3).sum())(vectors)
    assert_close(turned(msp, minijax.grad), turned(jsp, jax.grad))
    for sp in (jsp, msp):
        R, Slerp = sp.spatial.transform.Rotation, sp.spatial.transform.Slerp
        for bad in (lambda: R.from_euler('xxy', angles), lambda: R.from_euler('xYz', angles),
                    lambda: R.from_quat(quat).as_euler('xy'),
                    lambda: Slerp.init(np.arange(1.), R.from_quat(quat[0])),
                    lambda: Slerp.init(np.arange(4.), R.from_quat(quat))):
            with pytest.raises(ValueError):
                bad()
        with pytest.raises(TypeError, match='not subscriptable'):
            R.from_quat(quat[0])[0]

# ----------------------------------------------------------------------------- optimize


def _rosenbrock(np_):
    return lambda x, a: np_.sum(a * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


@pytest.mark.parametrize('options', [{}, {'maxiter': 5}, {'gtol': 1e-8, 'norm': 2}],
                         ids=['default', 'maxiter', 'gtol-norm'])
def test_minimize_bfgs(options, rng):
    """Every field of the result, iterates and counts included, as JAX's."""
    x0 = np.array([-1.2, 1., 0.5, 2.]) + 0.1 * rng.normal(size=4)
    mine = minijax.jit(lambda x: msp.optimize.minimize(_rosenbrock(mnp), x, (100.,),
                                                       method='BFGS', options=options))(x0)
    theirs = jax.jit(lambda x: jsp.optimize.minimize(_rosenbrock(jnp), x, (100.,),
                                                     method='BFGS', options=options))(x0)
    assert type(mine).__name__ == 'OptimizeResults' and mine._fields == theirs._fields
    for m, t in zip(mine, theirs):
        assert_close(m, t)


def test_minimize_bad_input():
    for sp in (jsp, msp):
        with pytest.raises(TypeError):
            sp.optimize.minimize(_rosenbrock(np), np.ones(3), 1., method='BFGS')
        with pytest.raises(ValueError):
            sp.optimize.minimize(_rosenbrock(np), np.ones(3), (1.,), method='nelder-mead')
    with pytest.raises(NotImplementedError, match="'BFGS' only"):
        msp.optimize.minimize(_rosenbrock(np), np.ones(3), (1.,),
                              method='l-bfgs-experimental-do-not-rely-on-this')

# ----------------------------------------------------------------------------- signal


def test_fftconvolve_and_detrend(rng):
    x, k = rng.normal(size=(3, 64)), rng.normal(size=(3, 5))

    def program(sp, x, k):
        sg = sp.signal
        return (sg.fftconvolve(x, k), sg.fftconvolve(x, k, 'same', axes=1),
                sg.fftconvolve(x[0], k[0] + 1j, 'valid'), sg.convolve(x, k, method='fft'),
                sg.correlate(x, k, method='fft'), sg.detrend(x),
                sg.detrend(x, axis=0, type='constant'), sg.detrend(x, bp=[10, 40]))
    _both(program, x, k)

    def loss(sp, np_):
        return lambda x: np_.sum(sp.signal.fftconvolve(x, k, 'same') ** 2)
    assert_close(minijax.jit(minijax.grad(loss(msp, mnp)))(x), jax.jit(jax.grad(loss(jsp, jnp)))(x))


def test_stft_istft_welch_csd(rng):
    x, y = rng.normal(size=(3, 64)), rng.normal(size=(3, 64))

    def program(sp, x, y):
        sg = sp.signal
        _, _, z = sg.stft(x, nperseg=16)
        _, _, z_hamming = sg.stft(x, nperseg=16, noverlap=12, window='hamming')
        return (sg.stft(x, nperseg=16),
                sg.stft(x, nperseg=15, noverlap=5, boundary='even', detrend='linear',
                        return_onesided=False),
                sg.stft(x.T, nperseg=16, window='hamming', axis=0, boundary='odd',
                        padded=False),
                sg.stft(x, nperseg=16, boundary='constant'),
                sg.welch(x, nperseg=16),
                sg.welch(x, nperseg=16, average='median', scaling='spectrum'),
                sg.csd(x, y, nperseg=20, nfft=32),
                sg.istft(z, nperseg=16),
                sg.istft(z_hamming, window='hamming', noverlap=12))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        _both(program, x, y)


SIGNAL_BAD_INPUTS = {
    'fftconvolve-ranks': lambda sg: sg.fftconvolve(np.ones(3), np.ones((2, 2))),
    'fftconvolve-mode': lambda sg: sg.fftconvolve(np.ones(3), np.ones(2), 'x'),
    'detrend-type': lambda sg: sg.detrend(np.ones(3), type='x'),
    'stft-overlap': lambda sg: sg.stft(np.ones(32), nperseg=8, noverlap=8),
    'stft-boundary': lambda sg: sg.stft(np.ones(32), nperseg=8, boundary='x'),
    'welch-average': lambda sg: sg.welch(np.ones((2, 16)), nperseg=8, average='x'),
    'istft-axes': lambda sg: sg.istft(np.ones((5, 4)), time_axis=0, freq_axis=0),
}


@pytest.mark.parametrize('case', SIGNAL_BAD_INPUTS)
def test_signal_bad_input_raises_jax_exception_type(case):
    for sp in (jsp, msp):
        with pytest.raises(ValueError):
            SIGNAL_BAD_INPUTS[case](sp.signal)
