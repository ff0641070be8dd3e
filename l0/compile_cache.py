"""The compile cache: compiled programs kept on disk, so an unchanged program is not compiled again.

An entry is one program compiled with one set of options: its object code and what
calling it needs (`l0.lowering.engine.NativeEngine.save`, plus the L0 signatures of its
functions). It lives in `$XDG_CACHE_HOME/l0` (default `~/.cache/l0`), in a file named
by the key: a hash of everything the code depends on (`key`):

* the source text and the file name (error messages name it);
* the options: back end, threads, `-O` and the target of its pipeline (cpu and gpu
  code are optimised differently: Note [One pipeline per target] in
  `l0.passes.pipeline`), fast-math, entry points, and the settings of the environment
  that change the code (the checking heap, allocation counting, the test-only
  `L0_MIN_CHUNK`: `l0.lowering.min_chunk`);
* the compiler itself: a hash of the package's own source files (`compiler_hash`), so
  any change to the compiler, even uncommitted, misses; and the llvmlite version;
* the CPU: LLVM's name for the host CPU and its features (code uses all of them).

Note [Cache entries are checked, and written atomically]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A file is `MAGIC`, the SHA-256 of the rest, the length of the JSON part, the JSON part
and the object code. `load` returns None, never raises, for a missing, truncated,
corrupt (checksum) or foreign (another `MAGIC`) file, which the caller then compiles
and stores again. `store` writes to a temporary file in the cache directory and renames
it over the entry: a rename is atomic, so a concurrent reader sees the old file or the
new one, never half of one, and concurrent writers of one key each write a whole
entry (the last one stays). Failing to write (read-only or full disk) is silent: the
cache only saves time.

`l0-run --no-cache`, `L0_NO_CACHE=1` or `l0.compile(..., cache=False)` skip the cache.
This module imports neither xDSL nor the front end: a hit loads nothing of the compiler.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MAGIC = b"L0CACHE1\n"
ENV_OFF = "L0_NO_CACHE"
_HEADER = len(MAGIC) + 32 + 8

_compiler_hash: str | None = None
_host: str | None = None


def enabled(requested: bool = True) -> bool:
    """Whether to use the cache: `requested`, unless `L0_NO_CACHE` is set (not "0")."""
    return requested and os.environ.get(ENV_OFF, "").strip() in ("", "0")


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/l0`, or `~/.cache/l0` (the XDG base directory default)."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "l0"


def compiler_hash() -> str:
    """A hash of the compiler's own source files (every `.py`, `.c` and `.lark` file of
    the `l0` package and the packages it maps), computed once per process."""
    global _compiler_hash
    if _compiler_hash is None:
        import l0

        h = hashlib.sha256()
        for root in sorted({os.path.realpath(p) for p in _package_dirs(l0)}):
            for directory, subdirs, files in os.walk(root):
                subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith((".py", ".c", ".lark")):
                        path = os.path.join(directory, name)
                        h.update(os.path.relpath(path, os.path.dirname(root)).encode())
                        h.update(b"\0")
                        with open(path, "rb") as f:
                            h.update(f.read())
                        h.update(b"\0")
        _compiler_hash = h.hexdigest()
    return _compiler_hash


def _package_dirs(package: Any) -> list[str]:
    """The directories of `package` and of the subpackages mapped outside it (an editable
    install maps `l0.passes` to passes/, ...)."""
    import importlib.util

    dirs = list(package.__path__)
    for name in ("l0.dialects", "l0.passes", "l0.lowering"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            dirs.extend(spec.submodule_search_locations)
    return dirs


def host_cpu() -> str:
    """LLVM's name for the host CPU and its features, and the llvmlite version."""
    global _host
    if _host is None:
        import llvmlite
        import llvmlite.binding as llvm

        _host = (f"{llvm.get_process_triple()} {llvm.get_host_cpu_name()} "
                 f"{llvm.get_host_cpu_features().flatten()} llvmlite {llvmlite.__version__}")
    return _host


def key(source: str, filename: str, options: Mapping[str, object]) -> str:
    """The cache key of `source` (named `filename`) compiled with `options` (JSON-able),
    by this compiler for this CPU."""
    data = json.dumps({"source": source, "filename": filename, "options": dict(options),
                       "compiler": compiler_hash(), "host": host_cpu()}, sort_keys=True)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def entry_path(cache_key: str) -> Path:
    return cache_dir() / f"{cache_key}.bin"


def load(cache_key: str) -> tuple[dict[str, Any], bytes] | None:
    """The data and object code stored under `cache_key`, or None (Note [Cache entries
    are checked, and written atomically])."""
    try:
        blob = entry_path(cache_key).read_bytes()
    except OSError:
        return None
    if len(blob) < _HEADER or not blob.startswith(MAGIC):
        return None
    digest, body = blob[len(MAGIC):len(MAGIC) + 32], blob[len(MAGIC) + 32:]
    if hashlib.sha256(body).digest() != digest:
        return None
    size = int.from_bytes(body[:8], "little")
    if size > len(body) - 8:
        return None
    try:
        data = json.loads(body[8:8 + size].decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return data, body[8 + size:]


def store(cache_key: str, data: Mapping[str, Any], object_code: bytes) -> bool:
    """Keep `data` (JSON-able) and `object_code` under `cache_key`; False if it could not
    be written (Note [Cache entries are checked, and written atomically])."""
    text = json.dumps(data, sort_keys=True).encode("utf-8")
    body = len(text).to_bytes(8, "little") + text + object_code
    blob = MAGIC + hashlib.sha256(body).digest() + body
    import tempfile  # here: a hit never writes

    directory = cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{cache_key[:16]}-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, entry_path(cache_key))
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True
