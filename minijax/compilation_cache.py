"""The persistent compilation cache: executables XLA compiled, kept on disk, so that another
process running the same program loads its executable instead of compiling it again (a
test suite, an autograder, the next notebook session), as JAX's cache does.

It is off until a directory is set, JAX's way: ``config.update('jax_compilation_cache_dir',
path)`` or the ``JAX_COMPILATION_CACHE_DIR`` environment variable. Like JAX's, it keeps only
the executables that took at least ``jax_persistent_cache_min_compile_time_secs`` to compile
(1 s by default) and are at least ``jax_persistent_cache_min_entry_size_bytes`` long.

An entry is named by a hash of everything its executable depends on: the module (without
its locations, as JAX keys it: a program moved to another line loads the executable compiled
before, whose metadata then names the old line; ``jax_compilation_cache_include_metadata_in_key``
keeps them), the compile options, the platform, the devices it runs on and how many the
process has, jaxlib's version and the XLA flags in the environment; so a different program,
jaxlib, flag or device count never loads a wrong one. An entry is written whole (to a
temporary file, then renamed), so two processes writing the same one at once leave one of
their two equal files. It starts with the SHA-256 digest of the executable after it: an entry
cut short or with a byte changed on disk is compiled again and replaced, never handed to XLA
(whose loader may take a changed byte for code). A module that calls back into Python is
never cached: its callbacks are functions of the process that lowered it.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import tempfile

import jaxlib

from minijax.config import config

ENVIRONMENT_VARIABLE = 'JAX_COMPILATION_CACHE_DIR'


def directory() -> pathlib.Path | None:
    """Where entries live, or None when the cache is off."""
    path = config.jax_compilation_cache_dir or os.environ.get(ENVIRONMENT_VARIABLE)
    return pathlib.Path(path) if path else None


def key(module, options_bytes: bytes, platform: str, device_ids, device_count: int) -> str:
    """The entry name of a compilation: a hash of all it depends on (``device_ids``: the
    devices it runs on; ``device_count``: how many the process's client has)."""
    module_bytes = module.operation.get_asm(
        binary=True, enable_debug_info=config.jax_compilation_cache_include_metadata_in_key)
    digest = hashlib.sha256()
    for part in (module_bytes, options_bytes, platform.encode(), repr(tuple(device_ids)).encode(),
                 str(device_count).encode(), jaxlib.__version__.encode(),
                 os.environ.get('XLA_FLAGS', '').encode()):
        digest.update(len(part).to_bytes(8, 'little'))
        digest.update(part)
    return digest.hexdigest()


class CorruptEntry(Exception):
    """An entry whose bytes are not those written: cut short, or changed on disk."""


def load(name: str) -> bytes | None:
    """The serialized executable of entry ``name``, or None if there is none; a
    ``CorruptEntry`` if its digest does not match."""
    folder = directory()
    try:
        entry = (folder / name).read_bytes() if folder else None
    except OSError:
        return None
    if entry is None:
        return None
    digest, serialized = entry[:_DIGEST_BYTES], entry[_DIGEST_BYTES:]
    if hashlib.sha256(serialized).digest() != digest:
        raise CorruptEntry(f'compilation cache entry {name} is corrupt')
    return serialized


_DIGEST_BYTES = 32  # (SHA-256)


def store(name: str, serialized: bytes, compile_seconds: float) -> None:
    """Keep ``serialized`` as entry ``name`` if it is worth keeping; a cache that cannot be
    written is skipped (the program has its executable either way)."""
    folder = directory()
    if (folder is None or compile_seconds < config.jax_persistent_cache_min_compile_time_secs
            or len(serialized) < config.jax_persistent_cache_min_entry_size_bytes):
        return
    temporary = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f'.{name}-', delete=False) as f:
            temporary = f.name
            f.write(hashlib.sha256(serialized).digest())
            f.write(serialized)
        os.replace(temporary, folder / name)
    except OSError:
        if temporary:
            pathlib.Path(temporary).unlink(missing_ok=True)
