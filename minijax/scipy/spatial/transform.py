"""``jax.scipy.spatial.transform``: 3-d rotations (``Rotation``, held as unit quaternions
``(x, y, z, w)``) and their spherical interpolation (``Slerp``), as JAX defines them. Both
are named tuples, so pytrees. The quaternion functions below work on the last axis and
broadcast over the others (a stack of rotations is one array)."""

import re
import typing

import numpy as np

from minijax import numpy as mnp

__all__ = ['Rotation', 'Slerp']

_AXES = {'x': 0, 'y': 1, 'z': 2}


def _parts(quat):
    return tuple(quat[..., i] for i in range(4))


def _norm(vector):
    return mnp.sqrt(mnp.sum(vector * vector, axis=-1))


def _normalized(quat):
    return quat / _norm(quat)[..., None]


def _compose(p, q):
    """The quaternion product ``p q``: ``q``'s rotation, then ``p``'s."""
    cross = mnp.cross(p[..., :3], q[..., :3])
    vector = p[..., 3:] * q[..., :3] + q[..., 3:] * p[..., :3] + cross
    scalar = p[..., 3] * q[..., 3] - mnp.sum(p[..., :3] * q[..., :3], axis=-1)
    return mnp.concatenate([vector, scalar[..., None]], axis=-1)


def _as_matrix(quat):
    x, y, z, w = _parts(quat)
    rows = [[x * x - y * y - z * z + w * w, 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), -x * x + y * y - z * z + w * w, 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), -x * x - y * y + z * z + w * w]]
    return mnp.stack([mnp.stack(row, axis=-1) for row in rows], axis=-2)


def _from_matrix(matrix):
    """The quaternion from the largest of the diagonal and the trace (the stable choice):
    one candidate per choice, the chosen one picked."""
    m = lambda i, j: matrix[..., i, j]  # noqa: E731
    trace = m(0, 0) + m(1, 1) + m(2, 2)
    candidates = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [None] * 4
        q[i], q[j], q[k] = 1 - trace + 2 * m(i, i), m(j, i) + m(i, j), m(k, i) + m(i, k)
        q[3] = m(k, j) - m(j, k)
        candidates.append(mnp.stack(q, axis=-1))
    candidates.append(mnp.stack([m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1),
                                 1 + trace], axis=-1))
    choice = mnp.argmax(mnp.stack([m(0, 0), m(1, 1), m(2, 2), trace], axis=-1), axis=-1)
    return _normalized(mnp.choose(choice[..., None], candidates, mode='clip'))


def _from_rotvec(rotvec, degrees):
    rotvec = mnp.deg2rad(rotvec) if degrees else rotvec
    angle = _norm(rotvec)
    angle2 = angle * angle
    small = .5 - angle2 / 48 + angle2 * angle2 / 3840   # the series near 0
    scale = mnp.where(angle <= 1e-3, small, mnp.sin(angle / 2) / angle)
    return mnp.concatenate([scale[..., None] * rotvec, mnp.cos(angle / 2)[..., None]], axis=-1)


def _as_rotvec(quat, degrees):
    quat = mnp.where(quat[..., 3:] < 0, -quat, quat)
    angle = 2. * mnp.arctan2(_norm(quat[..., :3]), quat[..., 3])
    angle2 = angle * angle
    small = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880
    scale = mnp.where(angle <= 1e-3, small, angle / mnp.sin(angle / 2))
    scale = mnp.rad2deg(scale) if degrees else scale
    return scale[..., None] * quat[..., :3]


def _from_mrp(mrp):
    squared_plus_1 = mnp.sum(mrp * mrp, axis=-1, keepdims=True) + 1
    return mnp.concatenate([2 * mrp[..., :3], 2 - squared_plus_1], axis=-1) / squared_plus_1


def _as_mrp(quat):
    sign = mnp.where(quat[..., 3:] < 0, -1., 1.)
    return sign * quat[..., :3] / (1. + sign * quat[..., 3:])


def _canonical(quat):
    """``quat`` or ``-quat`` (the same rotation), whichever has ``w > 0``, or else the first
    non-zero component positive."""
    x, y, z, w = _parts(quat)
    negate = (w < 0) | ((w == 0) & ((x < 0) | ((x == 0) & ((y < 0) | ((y == 0) & (z < 0))))))
    return mnp.where(negate[..., None], -quat, quat)


def _elementary(axis, angle):
    """The rotation by ``angle`` about coordinate axis ``axis``."""
    parts = [mnp.zeros_like(angle)] * 3 + [mnp.cos(angle / 2.)]
    parts[axis] = mnp.sin(angle / 2.)
    return mnp.stack(parts, axis=-1)


def _check_sequence(seq):
    """Whether ``seq`` names intrinsic (upper case) axes; JAX's errors for a bad one."""
    intrinsic = re.match(r'^[XYZ]{1,3}$', seq) is not None
    if not (intrinsic or re.match(r'^[xyz]{1,3}$', seq)):
        raise ValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                         f"['X', 'Y', 'Z'], got {seq}")
    if any(seq[i] == seq[i + 1] for i in range(len(seq) - 1)):
        raise ValueError(f'Expected consecutive axes to be different, got {seq}')
    return intrinsic


def _euler_from_quat(quat, axes, extrinsic, degrees):
    """The angles about ``axes`` (static), by the method of Bernardes and Viollet (2022)
    SciPy uses: angles 0 and 2 from half sums and differences, the middle one directly."""
    i, j, k = axes if extrinsic else axes[::-1]
    symmetric = i == k
    k = 3 - i - j if symmetric else k
    sign = (i - j) * (j - k) * (k - i) // 2
    q = _parts(quat)
    if symmetric:
        a, b, c, d = q[3], q[i], q[j], q[k] * sign
    else:
        a, b, c, d = q[3] - q[j], q[i] + q[k] * sign, q[j] + q[3], q[k] * sign - q[i]
    middle = 2 * mnp.arctan2(mnp.hypot(c, d), mnp.hypot(a, b))
    case = mnp.where(mnp.abs(middle) <= 1e-7, 1,
                     mnp.where(mnp.abs(middle - np.pi) <= 1e-7, 2, 0))
    half_sum, half_diff = mnp.arctan2(b, a), mnp.arctan2(d, c)
    angles = [mnp.where(case == 1, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1)),
              middle, mnp.zeros_like(middle)]
    first, third = (0, 2) if extrinsic else (2, 0)
    angles[first] = mnp.where(case == 0, half_sum - half_diff, angles[first])
    angles[third] = mnp.where(case == 0, half_sum + half_diff, angles[third])
    if not symmetric:
        angles[third], angles[1] = angles[third] * sign, angles[1] - np.pi / 2
    angles = (mnp.stack(angles, axis=-1) + np.pi) % (2 * np.pi) - np.pi
    return mnp.rad2deg(angles) if degrees else angles


class Rotation(typing.NamedTuple):
    """A rotation in 3 dimensions, or a stack of them: ``quat`` is ``(..., 4)``, scalar
    last."""
    quat: typing.Any

    @classmethod
    def concatenate(cls, rotations):
        return cls(mnp.concatenate([rotation.quat for rotation in rotations]))

    @classmethod
    def from_euler(cls, seq, angles, degrees=False):
        """Rotations about the axes of ``seq`` (lower case: fixed axes, upper case: the
        rotating body's), by ``angles`` (last axis: one per axis)."""
        if not 1 <= len(seq) <= 3:
            raise ValueError('Expected axis specification to be a non-empty string of upto 3 '
                             f'characters, got {seq}')
        intrinsic = _check_sequence(seq)
        angles = mnp.atleast_1d(angles)
        angles = mnp.deg2rad(angles) if degrees else angles
        axes = [_AXES[axis] for axis in seq.lower()]
        result = _elementary(axes[0], angles[..., 0])
        for n, axis in enumerate(axes[1:], 1):
            quat = _elementary(axis, angles[..., n])
            result = _compose(result, quat) if intrinsic else _compose(quat, result)
        return cls(result)

    @classmethod
    def from_matrix(cls, matrix):
        return cls(_from_matrix(mnp.asarray(matrix)))

    @classmethod
    def from_mrp(cls, mrp):
        return cls(_from_mrp(mnp.asarray(mrp)))

    @classmethod
    def from_quat(cls, quat):
        return cls(_normalized(mnp.asarray(quat)))

    @classmethod
    def from_rotvec(cls, rotvec, degrees=False):
        return cls(_from_rotvec(mnp.asarray(rotvec), degrees))

    @classmethod
    def identity(cls, num=None, dtype=float):
        assert num is None
        return cls(mnp.array([0., 0., 0., 1.], dtype=dtype))

    @classmethod
    def random(cls, random_key, num=None):
        raise NotImplementedError()

    def __getitem__(self, indexer):
        if self.single:
            raise TypeError('Single rotation is not subscriptable.')
        return Rotation(self.quat[indexer])

    def __len__(self):
        if self.single:
            raise TypeError('Single rotation has no len().')
        return self.quat.shape[0]

    def __mul__(self, other):
        """The composition: ``other``, then ``self``."""
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def apply(self, vectors, inverse=False):
        """The rotated ``vectors`` (``(..., 3)``, broadcast against the rotations)."""
        matrix = self.as_matrix()
        matrix = mnp.swapaxes(matrix, -1, -2) if inverse else matrix
        return mnp.matmul(matrix, mnp.asarray(vectors)[..., None])[..., 0]

    def as_euler(self, seq, degrees=False):
        if len(seq) != 3:
            raise ValueError(f'Expected 3 axes, got {seq}.')
        intrinsic = _check_sequence(seq)
        return _euler_from_quat(self.quat, tuple(_AXES[a] for a in seq.lower()),
                                not intrinsic, degrees)

    def as_matrix(self):
        return _as_matrix(self.quat)

    def as_mrp(self):
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees=False):
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical=False, scalar_first=False):
        quat = _canonical(self.quat) if canonical else self.quat
        return mnp.roll(quat, shift=1, axis=-1) if scalar_first else quat

    def inv(self):
        return Rotation(self.quat * mnp.array([-1, -1, -1, 1], dtype=self.quat.dtype))

    def magnitude(self):
        """The rotation angles, in [0, pi]."""
        return 2. * mnp.arctan2(_norm(self.quat[..., :3]), mnp.abs(self.quat[..., 3]))

    def mean(self, weights=None):
        """The (weighted) mean rotation: the leading eigenvector of ``sum w q q^T``."""
        w = (mnp.ones(self.quat.shape[0], dtype=self.quat.dtype) if weights is None
             else mnp.asarray(weights, dtype=self.quat.dtype))
        if w.ndim != 1:
            raise ValueError(f'Expected `weights` to be 1 dimensional, got shape {w.shape}.')
        if w.shape[0] != len(self):
            raise ValueError('Expected `weights` to have number of values equal to number of '
                             f'rotations, got {w.shape[0]} values and {len(self)} rotations.')
        _, vectors = mnp.linalg.eigh(mnp.dot(w[None, :] * self.quat.T, self.quat))
        return Rotation(vectors[:, -1])

    @property
    def single(self):
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation between rotations at increasing ``times``: each
    interval turns at a constant rate about one axis. Made by ``Slerp.init``."""
    times: typing.Any
    timedelta: typing.Any
    rotations: Rotation
    rotvecs: typing.Any

    @classmethod
    def init(cls, times, rotations):
        if not isinstance(rotations, Rotation):
            raise TypeError('`rotations` must be a `Rotation` instance.')
        if rotations.single or len(rotations) == 1:
            raise ValueError('`rotations` must be a sequence of at least 2 rotations.')
        times = mnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError('Expected times to be specified in a 1 dimensional array, got '
                             f'{times.ndim} dimensions.')
        if times.shape[0] != len(rotations):
            raise ValueError('Expected number of rotations to be equal to number of timestamps '
                             f'given, got {len(rotations)} rotations and {times.shape[0]} '
                             'timestamps.')
        starts = Rotation(rotations.as_quat()[:-1])
        steps = starts.inv() * Rotation(rotations.as_quat()[1:])
        return cls(times, mnp.diff(times), starts, steps.as_rotvec())

    def __call__(self, times):
        """The interpolated rotation at each of ``times`` (a scalar: a single rotation)."""
        at = mnp.asarray(times, dtype=self.times.dtype)
        if at.ndim > 1:
            raise ValueError('`times` must be at most 1-dimensional.')
        single = at.ndim == 0
        at = mnp.atleast_1d(at)
        interval = mnp.maximum(mnp.searchsorted(self.times, at) - 1, 0)
        alpha = (at - self.times[interval]) / self.timedelta[interval]
        result = self.rotations[interval] * Rotation.from_rotvec(
            self.rotvecs[interval] * alpha[:, None])
        return result[0] if single else result
