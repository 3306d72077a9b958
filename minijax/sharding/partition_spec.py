"""``PartitionSpec`` (``P``): for each dimension of an array, the mesh axes it is split over.

An entry is ``None`` (not split), an axis name, or a tuple of names (split over their
product, the first one major). ``unreduced`` and ``reduced`` name axes over which the value is
a partial sum still to reduce, or already reduced and kept for the transpose (JAX 0.10.2's
explicit-sharding sets).
"""
from __future__ import annotations


class _Unconstrained:
    """``P.UNCONSTRAINED``: a dimension whose sharding the compiler chooses."""

    def __repr__(self):
        return 'UNCONSTRAINED'

    def __reduce__(self):
        return 'UNCONSTRAINED'


UNCONSTRAINED = _Unconstrained()


def _canonical_entry(entry):
    """An entry as JAX stores it: a list becomes a tuple, a tuple of one name that name."""
    if isinstance(entry, (list, tuple)):
        entry = tuple(entry)
        return entry[0] if len(entry) == 1 else entry
    return entry


def _axis_set(what, axes) -> frozenset:
    if isinstance(axes, frozenset):
        return axes
    if not isinstance(axes, set):
        raise TypeError(f'{what} argument of PartitionSpec should of type `frozenset` or `set`. '
                        f'Got type {axes}')
    return frozenset(axes)


class PartitionSpec:
    """How each dimension of an array is partitioned over a mesh's axes
    (``jax.sharding.PartitionSpec``, also ``jax.P``); ``P('x', None)`` splits the first
    dimension over axis ``x``. Specs are equal when their entries and sets are."""
    __slots__ = ('_partitions', 'unreduced', 'reduced', '__weakref__')

    UNCONSTRAINED = UNCONSTRAINED

    def __init__(self, *partitions, unreduced=frozenset(), reduced=frozenset()):
        partitions = tuple(map(_canonical_entry, partitions))
        unreduced = _axis_set('unreduced', unreduced)
        reduced = _axis_set('reduced', reduced)
        _check(partitions, unreduced, reduced)
        object.__setattr__(self, '_partitions', partitions)
        object.__setattr__(self, 'unreduced', unreduced)
        object.__setattr__(self, 'reduced', reduced)

    def __setattr__(self, name, value):
        raise AttributeError(f'PartitionSpec is immutable: cannot set {name!r}')

    def __init_subclass__(cls, *args, **kwargs):
        raise TypeError('Subclassing `jax.P` is prohibited.')

    partitions = property(lambda self: self._partitions)

    def _key(self):
        return self._partitions, self.unreduced, self.reduced

    def __eq__(self, other):
        return isinstance(other, PartitionSpec) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        entries = repr(self._partitions)[1:-1]
        if not self.unreduced and not self.reduced:
            return f'P({entries})'
        sets = ', '.join(f'{name}={set(axes)!r}' for name, axes in
                         (('unreduced', self.unreduced), ('reduced', self.reduced)) if axes)
        entries = '' if not entries else entries + ' ' if entries.endswith(',') \
            else entries + ', '
        return f'P({entries}{sets})'

    def __reduce__(self):
        return _partition_spec, (self._partitions, self.unreduced, self.reduced)

    def _check_plain(self, what, instead):
        if self.reduced or self.unreduced:
            raise ValueError(f'Using {what} is dangerous when PartitionSpec has non-empty '
                             f'unreduced/reduced set. Please use {instead}')

    def __getitem__(self, i):
        self._check_plain('pspec[...]', 'spec.partitions[...]')
        return self._partitions[i]

    def __iter__(self):
        self._check_plain('*pspec', '*spec.partitions')
        return iter(self._partitions)

    def __len__(self):
        return len(self._partitions)

    def __add__(self, other):
        if isinstance(other, PartitionSpec):
            return PartitionSpec(*self._partitions, *other._partitions,
                                 unreduced={*self.unreduced, *other.unreduced},
                                 reduced={*self.reduced, *other.reduced})
        if isinstance(other, tuple):
            self._check_tuple(other, '__add__')
            return PartitionSpec(*self._partitions, *other)
        return NotImplemented

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        self._check_tuple(other, '__radd__')
        return PartitionSpec(*other, *self._partitions)

    def _check_tuple(self, other, method):
        for name, axes in (('unreduced', self.unreduced), ('reduced', self.reduced)):
            if axes:
                raise TypeError(f'other {other} cannot be of instance `tuple` when self {self} '
                                f'has {name} in `{method}` of PartitionSpec.')

    def index(self, value):
        return self._partitions.index(_canonical_entry(value))

    def count(self, value):
        return self._partitions.count(_canonical_entry(value))

    def update(self, partitions=None, unreduced=None, reduced=None) -> 'PartitionSpec':
        return PartitionSpec(*(self._partitions if partitions is None else partitions),
                             unreduced=self.unreduced if unreduced is None else unreduced,
                             reduced=self.reduced if reduced is None else reduced)

    def _normalized_spec_for_aval(self, ndim: int) -> 'PartitionSpec':
        """One entry per dimension (None for the missing ones and the unconstrained)."""
        entries = [None if p is UNCONSTRAINED else p for p in self._partitions]
        return self.update(partitions=entries + [None] * (ndim - len(entries)))

    def _check_compatible_wrt_shape(self, shape):
        if len(shape) < len(self._partitions):
            extra = ' For scalars the PartitionSpec should be P()' if not shape else ''
            raise ValueError(f'PartitionSpec {self} is only valid for values of rank at least '
                             f'{len(self._partitions)}, but was applied to a value of rank '
                             f'{len(shape)}.{extra}')


P = PartitionSpec


def _partition_spec(partitions, unreduced, reduced):
    return PartitionSpec(*partitions, unreduced=unreduced, reduced=reduced)


def _check(partitions, unreduced, reduced):
    """The sets name mesh axes, do not overlap, and no partitioned axis is in one."""
    if not unreduced and not reduced:
        return
    for name, axes in (('unreduced', unreduced), ('reduced', reduced)):
        if None in axes:
            raise ValueError(f'{name} cannot contain None. All elements in {name} should refer '
                             'to the mesh axes.')
    if unreduced & reduced:
        raise ValueError('`unreduced` and `reduced` argument to PartitionSpec cannot overlap. '
                         f'Got unreduced: {unreduced} and reduced: {reduced}')
    for entry in partitions:
        for axis in entry if isinstance(entry, tuple) else (entry,):
            for name, axes in (('unreduced', unreduced), ('reduced', reduced)):
                if axis in axes:
                    raise ValueError(f'partitions cannot overlap with {name} axes passed to '
                                     f'PartitionSpec. Got partitions: {partitions} and '
                                     f'{name} axes: {axes}')


def spec_axes(spec: PartitionSpec) -> list:
    """The mesh axes a spec partitions over, in order (``None``s and unconstrained out)."""
    return [axis for entry in spec.partitions if entry is not None and entry is not UNCONSTRAINED
            for axis in (entry if isinstance(entry, tuple) else (entry,))]
