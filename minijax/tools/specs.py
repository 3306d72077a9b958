"""Argument types and values as written on the command line, and results as printed.

A SPEC is a type: ``f32[3,4]``, ``f64[]``, ``i32[5]``, ``u32[2]``, ``bf16[4]``, ``c64[2]``,
``bool[]`` (long names such as ``float32[...]``, ``complex128[...]`` and MLIR's ``ui32[...]``
work too), or a tuple of SPECs such as ``(f32[3], f32[3])``. A VALUE is ``SPEC=literal``
(``f32[3]=[1, 2, 3]``, ``f64[]=2.5``, ``c64[2]=[1.0+2.0j, -3j]``, ``(f32[2], i32[])=([1, 2],
3)``) or ``@file.npy``. Results print as VALUEs, so an output can be pasted back as an input.
"""
from __future__ import annotations

import ast
import math
import os
import re

import numpy as np

from minijax import dtypes
from minijax.core import ShapeDtypeStruct
from minijax.tools import inputs
from minijax.tools.errors import UsageError

#: dtype -> its name in a SPEC: the MLIR element type, except ``bool`` for ``i1`` and JAX's
#: ``u32`` for MLIR's ``ui32``.
_SHORT_NAMES = {**{dtype: name.replace('ui', 'u') for dtype, name in dtypes.SHORT_NAMES.items()},
                dtypes.bool_: 'bool'}
#: Every name a SPEC may use: the short names, the MLIR names and the NumPy names.
DTYPE_NAMES = {**{name: dtype for dtype, name in dtypes.SHORT_NAMES.items()},
               **{name: dtype for dtype, name in _SHORT_NAMES.items()},
               **{dtype.name: dtype for dtype in _SHORT_NAMES}}
#: The short names, in the order help and errors list them.
SPEC_DTYPES = tuple(_SHORT_NAMES.values())

_TOKEN = re.compile(r'\s*(?:(?P<punct>[(),])|(?P<dtype>\w+)\[(?P<dims>[^\]]*)\])')


# ----------------------------------------------------------------------------- SPEC

def parse_spec(text: str):
    """A ``ShapeDtypeStruct``, or a tuple of them (nested as written), for ``text``."""
    tokens = _tokenize(text)
    tree, rest = _parse_tree(tokens, text)
    if rest:
        raise UsageError(f"bad SPEC '{text}': unexpected text after the type")
    return tree


def _tokenize(text):
    tokens, pos = [], 0
    while text[pos:].strip():
        m = _TOKEN.match(text, pos)
        if m is None:
            raise UsageError(f"bad SPEC '{text}': expected a type like f32[3,4] or a tuple "
                             f"like (f32[3], i32[]) at '{text[pos:].strip()}'")
        tokens.append(m)
        pos = m.end()
    if not tokens:
        raise UsageError('bad SPEC: empty (expected a type like f32[3,4])')
    return tokens


def _parse_tree(tokens, text):
    """Parse one SPEC from the front of ``tokens``; return it and the tokens left."""
    if not tokens:
        raise UsageError(f"bad SPEC '{text}': it ends too early")
    first, rest = tokens[0], tokens[1:]
    if first['dtype']:
        return _array_spec(first, text), rest
    if first['punct'] != '(':
        raise UsageError(f"bad SPEC '{text}': unexpected '{first['punct']}'")
    items = []
    while rest and rest[0]['punct'] != ')':
        item, rest = _parse_tree(rest, text)
        items.append(item)
        if rest and rest[0]['punct'] == ',':
            rest = rest[1:]
        elif not rest or rest[0]['punct'] != ')':
            raise UsageError(f"bad SPEC '{text}': expected ',' or ')' in a tuple")
    if not rest:
        raise UsageError(f"bad SPEC '{text}': missing ')'")
    return tuple(items), rest[1:]


def _array_spec(token, text):
    name, dims = token['dtype'], token['dims']
    if name not in DTYPE_NAMES:
        raise UsageError(f"bad SPEC '{text}': unknown dtype '{name}' "
                         f"(use {', '.join(SPEC_DTYPES)})")
    parts = [d.strip() for d in dims.split(',')] if dims.strip() else []
    if not all(_DIM.fullmatch(p) for p in parts):
        raise UsageError(f"bad SPEC '{text}': dimensions must be non-negative integers, "
                         f"got [{dims}]")
    spec = ShapeDtypeStruct(tuple(int(p) for p in parts), DTYPE_NAMES[name])
    _check_size(spec, text)
    return spec


_DIM = re.compile(r'[0-9]+')
_INT64_MAX = 2 ** 63 - 1


def _memory_bytes() -> int:
    """This machine's physical memory, where the PJRT CPU client runs modules."""
    try:
        return os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
    except (ValueError, OSError):  # not known here: XLA's own limit, an int64 byte count
        return _INT64_MAX


def _check_size(spec, text) -> None:
    """A UsageError for an array larger than memory: XLA would fail to allocate it, or abort
    the process when its byte count overflows an int64 (as MLIR does for a dimension)."""
    if any(d > _INT64_MAX for d in spec.shape):
        raise UsageError(f"bad SPEC '{text}': a dimension is larger than {_INT64_MAX}")
    nbytes = math.prod(spec.shape) * spec.dtype.itemsize
    if nbytes > _memory_bytes():
        raise UsageError(f"bad SPEC '{text}': {format_spec(spec)} takes {nbytes:.3g} bytes, "
                         f"more than this machine's memory ({_memory_bytes():.3g} bytes)")


def format_spec(x) -> str:
    """``f32[3,4]`` for anything with a shape and a dtype."""
    dtype = np.dtype(x.dtype)
    return f'{_SHORT_NAMES.get(dtype, dtype.name)}[{",".join(str(d) for d in x.shape)}]'


# ----------------------------------------------------------------------------- VALUE

def parse_value(text: str):
    """The NumPy array (or tuple of them, as the SPEC says) of ``SPEC=literal`` or ``@file.npy``."""
    if text.startswith('@'):
        return _load_npy(text[1:])
    spec_text, eq, literal_text = text.partition('=')
    if not eq:
        raise UsageError(f"bad VALUE '{text}': expected SPEC=literal (like f32[3]=[1,2,3]) "
                         'or @file.npy')
    return _value_for(parse_spec(spec_text), parse_literal(literal_text), text)


def _load_npy(path):
    inputs.check_file(path)
    try:
        with open(path, 'rb') as f:
            if f.read(len(_NPY_MAGIC)) != _NPY_MAGIC:
                raise UsageError(f"'{path}' is not a .npy file (write one with numpy.save)")
            f.seek(0)
            value = np.load(f, allow_pickle=False)
    except (OSError, ValueError) as err:
        raise UsageError(f"cannot read '{path}' as a .npy array: {err}") from None
    if not isinstance(value, np.ndarray) or value.dtype not in dtypes.SUPPORTED:
        raise UsageError(f"'{path}' holds {getattr(value, 'dtype', type(value).__name__)}, "
                         f"not an array of {', '.join(SPEC_DTYPES)}")
    return value


_NPY_MAGIC = b'\x93NUMPY'


def _value_for(spec, literal, text):
    if isinstance(spec, tuple):
        if not isinstance(literal, (tuple, list)) or len(literal) != len(spec):
            raise UsageError(f"VALUE '{text}': the SPEC is a tuple of {len(spec)} but the "
                             'literal is not a tuple of as many values')
        return tuple(_value_for(s, x, text) for s, x in zip(spec, literal))
    return _array_for(spec, literal, text)


# Which kinds of literal each kind of array accepts: integers are fine as floats, floats as
# complex numbers, not back.
_ACCEPTED_KINDS = {'b': 'b', 'i': 'i', 'u': 'i', 'f': 'if', 'c': 'ifc'}
_LITERAL_KINDS = {bool: 'b', int: 'i', float: 'f', complex: 'c'}


def _array_for(spec, literal, text):
    wanted = format_spec(spec)
    shape, kinds = _shape_and_kinds(literal, text)
    if shape != spec.shape:
        raise UsageError(f"VALUE '{text}': the literal has shape {shape} but {wanted} "
                         f'has shape {spec.shape}')
    wrong = sorted(kinds - set(_ACCEPTED_KINDS[dtypes.kind(spec.dtype)]))
    if wrong:
        raise UsageError(f"VALUE '{text}': {wanted} needs "
                         f'{_KIND_NAMES[dtypes.kind(spec.dtype)]}, the literal has '
                         f'{_LITERAL_NAMES[wrong[0]]}')
    out_of_range = UsageError(f"VALUE '{text}': a number is out of range for {wanted}")
    try:
        with np.errstate(over='ignore'):
            value = np.array(literal, dtype=spec.dtype)
    except OverflowError:  # NumPy's answer for an integer that does not fit
        raise out_of_range from None
    if dtypes.is_inexact(spec.dtype) and not np.array_equal(
            np.isfinite(value), np.isfinite(np.array(literal, dtype=np.complex128))):
        raise out_of_range  # a float32 (or complex64) overflow
    return value


def _shape_and_kinds(literal, text) -> tuple[tuple[int, ...], set[str]]:
    """The shape of a nested list literal and the kinds of number in it ('b', 'i', 'f').
    Python's own numbers decide the kinds: NumPy would make [0, 2**64 - 1] a float array."""
    if not isinstance(literal, (list, tuple)):
        return (), {_LITERAL_KINDS[type(literal)]}
    parts = [_shape_and_kinds(item, text) for item in literal]
    shapes = {shape for shape, _ in parts}
    if len(shapes) > 1:
        raise UsageError(f"VALUE '{text}': the literal is not a rectangular array")
    inner = shapes.pop() if shapes else ()
    return (len(literal), *inner), set().union(*(kinds for _, kinds in parts))


_KIND_NAMES = {'b': 'True/False values', 'i': 'integers', 'u': 'integers',
               'f': 'real numbers', 'c': 'numbers'}
_LITERAL_NAMES = {'b': 'bool', 'i': 'int64', 'f': 'float64', 'c': 'complex128'}  # NumPy's


def parse_literal(text: str):
    """Nested lists/tuples of numbers and booleans, with ``nan``, ``inf``, ``true``, ``false``;
    a complex number is ``REAL+IMAGj`` or ``REAL-IMAGj`` (``1.5-2.0j``, ``nan+infj``), or
    ``IMAGj`` alone."""
    try:
        return _literal(ast.parse(text.strip(), mode='eval').body)
    except SyntaxError:
        raise UsageError(f"bad literal '{text}': expected a number, True/False or a [list] "
                         'of them') from None
    except ValueError as err:
        raise UsageError(f"bad literal '{text}': {err}") from None


_NAMES = {'nan': float('nan'), 'inf': float('inf'), 'true': True, 'false': False,
          'nanj': complex(0, float('nan')), 'infj': complex(0, float('inf'))}


def _literal(node):
    if isinstance(node, ast.List):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_literal(e) for e in node.elts)
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float, complex)):
        if not all(map(math.isfinite, _parts(node.value))):
            raise ValueError('a number is out of range for float64 (for infinity, write inf)')
        return node.value
    if isinstance(node, ast.Name) and node.id.lower() in _NAMES:
        return _NAMES[node.id.lower()]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _literal(node.operand)
        if isinstance(value, (int, float, complex)) and not isinstance(value, bool):
            return _negated(value) if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _complex(node)
    raise ValueError(f"'{ast.unparse(node)}' is not a number, a boolean or a list of them")


def _parts(x) -> tuple:
    return (x.real, x.imag) if isinstance(x, complex) else (x,)


def _negated(x):
    """``-x``; an imaginary number keeps its real part +0.0 (Python's ``-2j`` is ``-0-2j``)."""
    return complex(x.real, -x.imag) if isinstance(x, complex) else -x


def _complex(node) -> complex:
    """``REAL+IMAGj`` or ``REAL-IMAGj``, built from its parts rather than by Python's
    arithmetic, which would lose a -0.0 or a nan part."""
    real, imag = _literal(node.left), _literal(node.right)
    if not (type(real) in (int, float) and isinstance(imag, complex) and imag.real == 0):
        raise ValueError(f"'{ast.unparse(node)}' is not a complex number (write it as "
                         'REAL+IMAGj, such as 1.0-2.0j)')
    return complex(real, -imag.imag if isinstance(node.op, ast.Sub) else imag.imag)


def format_value(x) -> str:
    """``f32[3]=[1.0, 2.0, 3.0]``: shortest round-tripping numbers, one line."""
    x = np.asarray(x)
    return f'{format_spec(x)}={_format_elements(x)}'


def _format_elements(x: np.ndarray) -> str:
    if x.ndim == 0:
        return _format_complex(x[()]) if dtypes.is_complex(x.dtype) else str(x[()])
    return '[' + ', '.join(_format_elements(row) for row in x) + ']'


def _format_complex(z) -> str:
    """``1.0+2.0j``, ``-0.0-infj``: each part as its real type prints, in the form
    ``parse_literal`` reads back (NumPy's ``(1+2j)`` does not)."""
    sign = '-' if np.signbit(z.imag) else '+'
    return f'{z.real!s}{sign}{abs(z.imag)!s}j'
