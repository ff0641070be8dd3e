"""The compile cache: compiled programs kept on disk, so an unchanged program is not compiled again.

An entry is one program compiled with one set of options: its object code and what
calling it needs (an engine's `save`, e.g. `l0.lowering.runtime.engine.NativeEngine.save`, and
what its user adds: the API keeps the L0 signatures of the functions). It lives in
`$XDG_CACHE_HOME/l0` (default `~/.cache/l0`), in a file named by the key: a hash of
everything the code depends on (`key`, `program_key`):

* the source text and the file name (error messages name it);
* the options: back end, threads, `-O` and the target of its pipeline (cpu and gpu
  code are optimised differently: Note [One pipeline per target] in
  `l0.passes.pipeline`), fast-math, entry points, and the settings of the environment
  that change the code (the checking heap, allocation counting: `program_key`; the test-only
  `L0_MIN_CHUNK`: `l0.lowering.runtime.min_chunk`, and `L0_LLVM_OPT`:
  `l0.lowering.runtime.llvm_level`);
* the compiler itself: a hash of every file of the package (`compiler_hash`: its
  Python, the grammar, the C runtime, any data file), so any change to the compiler,
  even uncommitted, misses; and the llvmlite version;
* the CPU: LLVM's name for the host CPU and its features (code uses all of them).

Its users: `l0.api.CompiledProgram` (whole programs) and `l0.distributed.kernels` (the
chunk kernels of a Dask call), both through `program_key`, `load_engine` and
`store_engine`.

Note [Cache entries are checked, and written atomically]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A file is `MAGIC`, the SHA-256 of the rest, then the rest: the key it was stored under
(64 hex digits), the length of the JSON part, the JSON part and the object code. The
digest covers the key as well as the body, and `load` checks that the key inside is the
one asked for: an entry copied (or hard-linked) under another program's key is not
run. `load` returns None, never raises, for a missing, truncated, corrupt (checksum),
misplaced (key) or foreign (another `MAGIC`) file, which the caller then compiles and
stores again. `store` writes a temporary file (created exclusively, mode 0600) in the
cache directory and renames it over the entry: a rename is atomic, so a concurrent
reader sees the old file or the new one, never half of one, and concurrent writers of
one key each write a whole entry (the last one stays). Failing to write (read-only or
full disk) is silent: the cache only saves time.

Note [Who the cache trusts]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
A hit runs the native code of a file, as the user who runs l0: whoever can write an
entry, or the directory it is in, can run code as that user. What the cache defends
against is another local user (a shared machine; a shared `XDG_CACHE_HOME`, or one
under /tmp, where anyone may make the `l0` directory first) and an entry that is not
what its name says. It trusts the user, root and the environment (whoever sets your
`XDG_CACHE_HOME` can set your `PYTHONPATH`); the digest is a checksum, not a
signature. So:

* the directory: `l0`, and any directory the cache makes on the way to it, is made
  with mode 0700; it is opened without following a symbolic link (`O_NOFOLLOW`) and
  used only if it is a directory owned by this user (the effective uid) and writable
  by nobody else (no group or other write bit). Directories above it that are there
  already are taken as they are (a `~/.cache` linked elsewhere is the user's choice);
* everything after goes through the opened directory (`openat`, `renameat`): a
  directory swapped in after the check is never used;
* an entry is opened without following a symbolic link, and read only if it is a
  regular file owned by this user and writable by nobody else;
* an entry names its key inside, under the digest: copied or hard-linked under another
  key, it is refused (Note [Cache entries are checked, and written atomically]).

A directory or entry refused for its owner, mode, kind or a link gets one warning
line on stderr (once per path and process), and the program is compiled instead, as
on a miss; nothing is stored in a refused directory. A refused key or digest is
silent: it is damage, and the entry is written again.

`l0-run --no-cache`, `L0_NO_CACHE=1` or `l0.compile(..., cache=False)` skip the cache,
as does a system without `O_NOFOLLOW` and directory descriptors. This module imports
neither xDSL nor the front end: a hit loads nothing of the compiler.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

MAGIC = b"L0CACHE2\n"
ENV_OFF = "L0_NO_CACHE"
_KEY = re.compile(r"[0-9a-f]{64}")
_DIGEST = 32
_HEADER = len(MAGIC) + _DIGEST + 64 + 8
_SKIPPED_DIRS = frozenset({"__pycache__"})
_SKIPPED_SUFFIXES = (".pyc", ".pyo")
"""Files of the package that shape no code: Python's bytecode caches."""

_SUPPORTED = (hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
              and hasattr(os, "geteuid")
              and {os.open, os.mkdir, os.rename, os.unlink, os.stat} <= os.supports_dir_fd)
"""Whether this system can open the cache as Note [Who the cache trusts] asks."""

_compiler_hash: str | None = None
_host: str | None = None
_warned: set[str] = set()


def enabled(requested: bool = True) -> bool:
    """Whether to use the cache: `requested`, unless `L0_NO_CACHE` is set (not "0")
    or the system cannot open files without following links."""
    return (requested and _SUPPORTED
            and os.environ.get(ENV_OFF, "").strip() in ("", "0"))


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/l0`, or `~/.cache/l0` (the XDG base directory default)."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "l0"


# -- the key ---------------------------------------------------------------------


def compiler_files() -> list[tuple[str, str]]:
    """Every file of the compiler, as (name relative to its package's parent, path),
    sorted: all files under the package's directories but Python's bytecode caches, so
    a data file added to the package (a grammar, C source) is hashed without being
    listed here."""
    import l0

    files = []
    for root in sorted({os.path.realpath(p) for p in _package_dirs(l0)}):
        for directory, subdirs, names in os.walk(root):
            subdirs[:] = sorted(d for d in subdirs if d not in _SKIPPED_DIRS)
            for name in sorted(names):
                if not name.endswith(_SKIPPED_SUFFIXES):
                    path = os.path.join(directory, name)
                    files.append((os.path.relpath(path, os.path.dirname(root)), path))
    return files


def compiler_hash() -> str:
    """A hash of every file of the compiler (`compiler_files`), computed once per process."""
    global _compiler_hash
    if _compiler_hash is None:
        h = hashlib.sha256()
        for name, path in compiler_files():
            h.update(name.encode())
            h.update(b"\0")
            with open(path, "rb") as f:
                h.update(f.read())
            h.update(b"\0")
        _compiler_hash = h.hexdigest()
    return _compiler_hash


MAPPED_PACKAGES = ("l0.dialects", "l0.passes", "l0.lowering")
"""The subpackages installed from folders of their own (pyproject.toml's `package-dir`;
`test/test_cache.py` checks the two agree)."""


def _package_dirs(package: Any) -> list[str]:
    """The directories of `package` and of the subpackages mapped outside it (an editable
    install maps `l0.passes` to passes/, ...)."""
    import importlib.util

    dirs = list(package.__path__)
    for name in MAPPED_PACKAGES:
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


def program_key(source: str, filename: str, options: Mapping[str, object]) -> str | None:
    """The key of native code compiled from `source` with `options`, and with the
    settings of the environment that are compiled into it; None when the cache is off."""
    if not enabled():
        return None
    from l0.lowering.runtime import alloc_stats, checked_memory
    from l0.lowering.runtime.llvm_level import llvm_level
    from l0.lowering.runtime.min_chunk import min_chunk

    return key(source, filename, {**options, "checked_memory": checked_memory.enabled(),
                                  "count_allocations": alloc_stats.enabled(),
                                  "min_chunk": min_chunk(), "llvm_level": llvm_level()})


# -- engines -------------------------------------------------------------------------


class SavedEngine(Protocol):
    def save(self) -> tuple[dict[str, Any], bytes]: ...


E = TypeVar("E")
A = TypeVar("A")


def load_engine(cache_key: str, make: Callable[[Any, bytes], E | None],
                read: Callable[[Any], A] = lambda about: about) -> tuple[E, A] | None:
    """The engine stored under `cache_key`, made by `make(its data, object code)` (None
    when it cannot run here), and what its user stored with it, read by `read(about)`;
    None on a miss, or for a well-formed entry of another shape (`read` or `make`
    raising KeyError, TypeError or ValueError)."""
    entry = load(cache_key)
    if entry is None:
        return None
    data, object_code = entry
    try:
        about = read(data["about"])
        engine = make(data["engine"], object_code)
    except (KeyError, TypeError, ValueError):
        return None
    return None if engine is None else (engine, about)


def store_engine(cache_key: str, engine: SavedEngine, about: Any = None) -> bool:
    """Keep `engine` (its `save()`) and `about` (JSON-able) under `cache_key`."""
    engine_data, object_code = engine.save()
    return store(cache_key, {"engine": engine_data, "about": about}, object_code)


# -- entries ---------------------------------------------------------------------------


def entry_path(cache_key: str) -> Path:
    return cache_dir() / _entry_name(cache_key)


def _entry_name(cache_key: str) -> str:
    if not _KEY.fullmatch(cache_key):
        raise ValueError(f"not a compile-cache key: {cache_key!r}")
    return f"{cache_key}.bin"


def load(cache_key: str) -> tuple[dict[str, Any], bytes] | None:
    """The data and object code stored under `cache_key`, or None (Note [Cache entries
    are checked, and written atomically], Note [Who the cache trusts]); a `cache_key`
    that is not a key (64 hex digits) is a ValueError, a caller's mistake."""
    name = _entry_name(cache_key)
    blob = _read_trusted(name) if _SUPPORTED else None
    if blob is None or len(blob) < _HEADER or not blob.startswith(MAGIC):
        return None
    digest, rest = blob[len(MAGIC):len(MAGIC) + _DIGEST], blob[len(MAGIC) + _DIGEST:]
    if hashlib.sha256(rest).digest() != digest or rest[:64] != cache_key.encode("ascii"):
        return None
    body = rest[64:]
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
    name = _entry_name(cache_key)
    text = json.dumps(data, sort_keys=True).encode("utf-8")
    rest = cache_key.encode("ascii") + len(text).to_bytes(8, "little") + text + object_code
    blob = MAGIC + hashlib.sha256(rest).digest() + rest
    import secrets  # here: a hit never writes

    directory = _open_directory(create=True) if _SUPPORTED else None
    if directory is None:
        return False
    try:
        tmp = f".{cache_key[:16]}-{secrets.token_hex(8)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600, dir_fd=directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.rename(tmp, name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=directory)
            except OSError:
                pass
            raise
    except OSError:
        return False
    finally:
        os.close(directory)
    return True


# -- trust -----------------------------------------------------------------------------

_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _read_trusted(name: str) -> bytes | None:
    """The bytes of entry `name`, if the directory and the entry pass Note [Who the
    cache trusts]; None (and one warning for a refused one) otherwise."""
    directory = _open_directory(create=False)
    if directory is None:
        return None
    path = cache_dir() / name
    try:
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                         dir_fd=directory)
        except OSError as err:
            if err.errno == errno.ELOOP:
                _refuse(path, "it is a symbolic link")
            return None
        with os.fdopen(fd, "rb") as f:
            why = _distrust(os.fstat(f.fileno()), stat.S_ISREG, "a regular file")
            if why is not None:
                _refuse(path, why)
                return None
            return f.read()
    except OSError:
        return None
    finally:
        os.close(directory)


def _open_directory(*, create: bool) -> int | None:
    """A descriptor of the cache directory, made (with the directories missing on the
    way to it) when `create`; None when it is missing, cannot be opened, or is refused
    (Note [Who the cache trusts]). The caller closes it."""
    path = cache_dir()
    base, below = path, []
    try:
        while not os.path.lexists(base):
            if base.parent == base:
                return None
            below.append(base.name)
            base = base.parent
    except OSError:
        return None
    if below and not create:
        return None
    if not below:  # the directory is there: its parent is opened, it without links
        base, below = path.parent, [path.name]
    below.reverse()
    try:
        fd = os.open(base, _DIRECTORY_FLAGS)
    except OSError:
        return None
    for depth, name in enumerate(below, 1):
        where = base.joinpath(*below[:depth])
        try:
            if create:
                try:
                    os.mkdir(name, 0o700, dir_fd=fd)
                except FileExistsError:
                    pass
            child = os.open(name, _DIRECTORY_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
        except OSError as err:
            if err.errno in (errno.ELOOP, errno.ENOTDIR):  # Linux says ENOTDIR for a link
                _refuse(where, "it is a symbolic link" if _is_link(name, fd)
                        else "it is not a directory")
            os.close(fd)
            return None
        os.close(fd)
        fd = child
        why = _distrust(os.fstat(fd), stat.S_ISDIR, "a directory")
        if why is not None:
            os.close(fd)
            _refuse(where, why)
            return None
    return fd


def _is_link(name: str, directory: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _distrust(st: os.stat_result, kind: Callable[[int], bool], kind_name: str) -> str | None:
    """Why a file with status `st` is not to be trusted, or None: it must be of the kind
    `kind` says, owned by this user and writable by no one else."""
    if not kind(st.st_mode):
        return f"it is not {kind_name}"
    me = os.geteuid()
    if st.st_uid != me:
        return f"it is owned by uid {st.st_uid}, not by this user (uid {me})"
    others = [who for who, bit in (("its group", stat.S_IWGRP), ("others", stat.S_IWOTH))
              if st.st_mode & bit]
    if others:
        return (f"it is writable by {' and '.join(others)} "
                f"(mode {stat.S_IMODE(st.st_mode):04o})")
    return None


def _refuse(path: Path, why: str) -> None:
    """Say once per process, in one line, that `path` is not used."""
    if str(path) in _warned:
        return
    _warned.add(str(path))
    print(f"l0: warning: not using the compile cache's {path}: {why}; compiling instead",
          file=sys.stderr, flush=True)
