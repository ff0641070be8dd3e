"""The compile cache (`l0.compile_cache`): hits, misses, the key, damaged entries, writers.

Every test uses its own cache directory (`XDG_CACHE_HOME` under `tmp_path`) and turns
the cache on, which the rest of the suite keeps off (test/conftest.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from l0 import compile_cache
from l0.api import CompiledProgram

PROG = """\
fun int twice(int x) = 2 * x
fun [int] main([int] a, int n) =
  let b = trace(map(fn int (int x) => twice(x) + n, a)) in
  let i = n - 10 in
  map(fn int (int x) => x + b[i], b)
"""
"""`main` traces, calls another function and fails (index out of bounds) for n < 10."""

PROBE = """\
import sys
from l0.cli.run import main
try:
    main()
finally:
    loaded = sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("xdsl", "lark")}
                    | {m for m in sys.modules if m.startswith(("l0.passes.", "l0.frontend",
                                                               "l0.syntax.parser"))}
                    | {m for m in sys.modules  # of lowering/, only what runs compiled code
                       if m.startswith("l0.lowering.") and not m.startswith("l0.lowering.runtime")})
    print("LOADED", loaded, file=sys.stderr)
"""
"""Runs l0-run, then reports on stderr whether any compiler module was imported (of
`l0.lowering`, any module outside `runtime/`)."""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache on, in a directory of this test; returns its directory."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("L0_NO_CACHE", raising=False)
    assert compile_cache.enabled()
    return tmp_path / "xdg" / "l0"


def l0_run(prog: Path, stdin: str, *args: str) -> tuple[int, str, str, list[str]]:
    """(status, stdout, stderr less the probe's line, compiler modules it imported) of
    `l0-run ARGS PROG < stdin` in a fresh process."""
    r = subprocess.run([sys.executable, "-c", PROBE, *args, str(prog)], input=stdin,
                       capture_output=True, text=True, timeout=300, env=dict(os.environ))
    lines = r.stderr.splitlines()
    probe = [line for line in lines if line.startswith("LOADED ")]
    assert probe, r.stderr
    loaded = eval(probe[-1][len("LOADED "):])  # a list literal the probe printed
    stderr = "".join(line + "\n" for line in lines if not line.startswith("LOADED "))
    return r.returncode, r.stdout, stderr, loaded


def entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.bin")) if directory.exists() else []


def test_second_run_loads_the_code_and_imports_no_compiler(cache: Path,
                                                           tmp_path: Path) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text(PROG)
    first = l0_run(prog, "[1, 2, 3] 10")
    assert first[:2] == (0, "[24, 26, 28]\n") and "xdsl" in first[3]
    assert len(entries(cache)) == 1
    second = l0_run(prog, "[1, 2, 3] 10")
    assert second[3] == [], "a cache hit imported the compiler"
    assert second[:3] == first[:3]  # the result and the trace (p.l0:3:11-...: [12, 14, 16])
    assert "[12, 14, 16]" in second[2]
    # a run-time error from cached code: the same message, location and status
    err_first = l0_run(prog, "[1, 2, 3] 2", "--no-cache")
    err_cached = l0_run(prog, "[1, 2, 3] 2")
    assert err_cached[3] == [] and err_cached[0] == err_first[0] == 2
    assert err_cached[2] == err_first[2] and "p.l0:5:" in err_cached[2]


def compiled(source: str = PROG, name: str = "p.l0", backend: str = "cpu",
             **options: object) -> CompiledProgram:
    return CompiledProgram(source, name, backend, cache=True, **options)  # type: ignore[arg-type]


def test_the_key_covers_source_options_and_environment(cache: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    a = np.array([1, 2, 3])
    variants = [{}, {"optimise": False}, {"fast_math": True}, {"main_only": True},
                {"backend": "multicore", "threads": 2}, {"backend": "multicore", "threads": 3}]
    for n, options in enumerate(variants, 1):
        prog = compiled(**options)  # type: ignore[arg-type]
        assert not prog.from_cache and list(prog.main(a, 10)) == [24, 26, 28], options
        assert len(entries(cache)) == n
        assert compiled(**options).from_cache  # type: ignore[arg-type]
    changed = compiled(PROG.replace("2 * x", "3 * x"))
    assert not changed.from_cache and list(changed.main(a, 10)) == [26, 29, 32]
    assert not compiled(name="q.l0").from_cache  # the file name is in error messages
    monkeypatch.setenv("L0_COUNT_ALLOCATIONS", "1")  # counting is compiled in (l0-run -v)
    assert not compiled().from_cache
    monkeypatch.setenv("L0_CHECK_MEMORY", "1")  # so is the checking heap
    checked = compiled()
    assert not checked.from_cache and list(checked.main(a, 10)) == [24, 26, 28]
    loaded = compiled()  # linked to the checking heap and the counter as it is loaded
    assert loaded.from_cache and list(loaded.main(a, 10)) == [24, 26, 28]
    monkeypatch.setenv("L0_MIN_CHUNK", "1")  # the tests' chunk size changes the code
    assert not compiled().from_cache


def test_the_key_names_the_pipelines_target(cache: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`-O` differs per target (Note [One pipeline per target] in `l0.passes.pipeline`):
    the key names the pipeline's target, so a build for one back end is never taken
    for another's, whatever else the options say."""
    from l0.api import BackendUnavailable
    from l0.lowering.backends import gpu as gpu_backend

    options: list[dict[str, object]] = []
    key = compile_cache.key

    def recording(source: str, filename: str, opts: dict[str, object]) -> str:
        options.append(dict(opts))
        return key(source, filename, opts)

    monkeypatch.setattr(compile_cache, "key", recording)
    monkeypatch.setattr(gpu_backend, "target_arch", lambda: "sm_90")  # a GPU's key
    compiled()
    compiled(optimise=False)
    compiled(backend="multicore")
    try:
        compiled(backend="gpu")
    except BackendUnavailable:
        pass  # no GPU here: the key was made before compiling
    assert [(o["backend"], o["pipeline"]) for o in options] == [
        ("cpu", "cpu"), ("cpu", None), ("multicore", "multicore"), ("gpu", "gpu")]
    without_backend = [{k: v for k, v in o.items() if k not in ("backend", "arch")}
                       for o in options]
    assert without_backend[0] != without_backend[3]  # the pipeline alone tells them apart


def test_key_depends_on_compiler_and_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    base = compile_cache.key("src", "p.l0", {"o": 1})
    assert base == compile_cache.key("src", "p.l0", {"o": 1})
    assert base != compile_cache.key("src", "p.l0", {"o": 2})
    monkeypatch.setattr(compile_cache, "_compiler_hash", "another compiler")
    assert compile_cache.key("src", "p.l0", {"o": 1}) != base
    monkeypatch.undo()
    monkeypatch.setattr(compile_cache, "_host", "another cpu")
    assert compile_cache.key("src", "p.l0", {"o": 1}) != base


def test_compiler_hash_sees_every_source_file() -> None:
    import l0.lowering.runtime.jit_call as jit_call
    import l0.passes.fuse as fuse

    dirs = [Path(d).resolve() for d in compile_cache._package_dirs(__import__("l0"))]
    for module in (compile_cache, jit_call, fuse):
        path = Path(module.__file__ or "").resolve()
        assert any(path.is_relative_to(d) for d in dirs), path
    assert len(compile_cache.compiler_hash()) == 64


def test_no_cache_and_the_environment_turn_it_off(cache: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text(PROG)
    assert l0_run(prog, "[1] 10", "--no-cache")[:2] == (0, "[24]\n")
    assert entries(cache) == []
    monkeypatch.setenv("L0_NO_CACHE", "1")
    assert not compile_cache.enabled()
    assert l0_run(prog, "[1] 10")[:2] == (0, "[24]\n")
    assert entries(cache) == []
    monkeypatch.setenv("L0_NO_CACHE", "0")
    assert compile_cache.enabled() and not compile_cache.enabled(False)


def test_default_directory_is_under_home(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert compile_cache.cache_dir() == tmp_path / ".cache" / "l0"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # ignored, as XDG says
    assert compile_cache.cache_dir() == tmp_path / ".cache" / "l0"


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "magic", "json"])
def test_damaged_entries_are_compiled_again(cache: Path, damage: str) -> None:
    compiled()
    [entry] = entries(cache)
    blob = bytearray(entry.read_bytes())
    if damage == "flip":  # a bit of the object code
        blob[-100] ^= 0x10
    elif damage == "truncate":
        blob = blob[: len(blob) // 2]
    elif damage == "empty":
        blob = bytearray()
    elif damage == "magic":  # another format version
        blob[: len(compile_cache.MAGIC)] = b"L0CACHE0\n"
    else:  # a well-formed entry whose contents do not fit (checksum right)
        data, code = compile_cache.load(entry.stem) or ({}, b"")
        data["engine"]["entries"]["main"]["inputs"] = "nonsense"
        compile_cache.store(entry.stem, data, code)
        blob = bytearray(entry.read_bytes())
    entry.write_bytes(bytes(blob))
    again = compiled()
    assert not again.from_cache and list(again.main(np.array([1, 2]), 10)) == [24, 26]
    assert compiled().from_cache  # the entry was written again, and is good


def test_load_never_raises(cache: Path) -> None:
    assert compile_cache.load("0" * 64) is None
    cache.mkdir(parents=True)
    compile_cache.entry_path("1" * 64).mkdir()  # a directory where the file would be
    assert compile_cache.load("1" * 64) is None
    assert compile_cache.store("2" * 64, {"a": [1]}, b"\x00code")
    assert compile_cache.load("2" * 64) == ({"a": [1]}, b"\x00code")


def test_unwritable_cache_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.delenv("L0_NO_CACHE", raising=False)
    assert not compile_cache.store("3" * 64, {}, b"")
    prog = CompiledProgram("fun int main(int n) = n + 1", "p.l0", "cpu", cache=True)
    assert prog.main(1) == 2 and not prog.from_cache


def test_concurrent_writers_leave_one_whole_entry(cache: Path) -> None:
    payload = {"n": list(range(1000))}
    code = bytes(range(256)) * 512

    def write_then_read(k: int) -> bool:
        assert compile_cache.store("4" * 64, payload, code)
        got = compile_cache.load("4" * 64)
        return got == (payload, code)

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(write_then_read, range(32)))
    assert [p.name for p in cache.iterdir()] == ["4" * 64 + ".bin"]  # no temporary files


def test_concurrent_l0_runs(cache: Path, tmp_path: Path) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text(PROG)
    command = [sys.executable, "-c", "from l0.cli.run import main; main()", str(prog)]
    procs = [subprocess.Popen(command, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
             for _ in range(3)]
    outs = [p.communicate("[4] 10", timeout=300)[0] for p in procs]
    assert outs == ["[36]\n"] * 3
    assert len(entries(cache)) == 1 and len(list(cache.iterdir())) == 1
    assert l0_run(prog, "[4] 10")[3] == []


def test_api_hit_calls_every_function(cache: Path) -> None:
    miss = CompiledProgram(PROG, "p.l0", "cpu", cache=True)
    assert not miss.from_cache
    hit = CompiledProgram(PROG, "p.l0", "cpu", cache=True)
    assert hit.from_cache and hit._module is None  # nothing compiled
    a = np.array([1, 2, 3])
    assert list(hit.main(a, 10)) == list(miss.main(a, 10)) == [24, 26, 28]
    assert list(a) == [1, 2, 3]  # value semantics, as without the cache
    assert hit.twice(21) == 42  # inlined into main by -O: compiled when first called
    assert hit.run_main("[1] 10") == "[24]"
    assert "soac" in str(hit.module)  # the IR, made when asked for
    help_text = hit.main.__doc__ or ""
    assert "fun [int] main([int] a, int n)" in help_text


def test_api_cache_option_and_interpreter(cache: Path) -> None:
    CompiledProgram(PROG, "p.l0", "cpu", cache=False)
    assert entries(cache) == []
    CompiledProgram(PROG, "p.l0", "interp", cache=True)  # nothing native to keep
    assert entries(cache) == []


def test_trace_sites_numbered_otherwise_compile_again(cache: Path) -> None:
    from l0.lowering.runtime import trace_runtime

    miss = CompiledProgram(PROG, "t.l0", "cpu", cache=True)
    [entry] = entries(cache)
    data, code = compile_cache.load(entry.stem) or ({}, b"")
    [[sid, loc, t]] = data["engine"]["traces"]
    # This process knows the site; pretend the entry was made where it had another id.
    data["engine"]["traces"] = [[sid + 1000, loc, t]]
    compile_cache.store(entry.stem, data, code)
    other = CompiledProgram(PROG, "t.l0", "cpu", cache=True)
    assert not other.from_cache  # the ids disagree: not loaded, compiled
    assert list(other.main(np.array([1]), 10)) == list(miss.main(np.array([1]), 10))
    assert sid + 1000 not in trace_runtime.SITES
    assert json.loads(json.dumps(data))  # the entry is JSON throughout


def test_verbose_run_reports_the_cache_stages(cache: Path, tmp_path: Path) -> None:
    from l0.cli.stages import CACHE_STAGES

    prog = tmp_path / "p.l0"
    prog.write_text(PROG)
    first = l0_run(prog, "[1] 10", "-v")
    second = l0_run(prog, "[1] 10", "-v")
    assert first[1] == second[1] == "[24]\n"
    assert "compile cache (key, look-up, store)" in first[2]
    assert "load cached code" not in first[2] and "optimise (passes)" in first[2]
    assert all(stage in second[2] for stage in CACHE_STAGES)
    assert "parse  " not in second[2] and "optimise (passes)" not in second[2]
    counts = [[line for line in run[2].splitlines() if "allocations per run" in line]
              for run in (first, second)]
    assert counts[0] == counts[1] and len(counts[0]) == 1  # the counter linked in again


# -- Note [Who the cache trusts]: the attacks of issue 27 -------------------------------

A_SRC, B_SRC = "fun int main(int n) = n + 1", "fun int main(int n) = n * 100"


def program(source: str, name: str) -> CompiledProgram:
    return CompiledProgram(source, name, "cpu", optimise=False, cache=True)


def entry_of(source: str, name: str) -> Path:
    """The entry that `program(source, name)` reads and writes."""
    key = compile_cache.program_key(source, name, {
        "backend": "cpu", "threads": None, "optimise": False, "fast_math": False,
        "pipeline": None, "entries": None, "profile": False})
    assert key is not None
    return compile_cache.entry_path(key)


def warnings_in(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if "warning" in line]


def as_another_user(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `path` someone else's: given to another uid when the tests run as root,
    else (no chown without root) this process told it runs as another uid, which the
    cache reads from `os.geteuid` when it checks an owner."""
    if os.geteuid() == 0:
        os.chown(path, 4321, 4321)
    else:
        real = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: real + 1)


@pytest.mark.parametrize("how", ["copy", "hard link"])
def test_an_entry_under_another_key_is_not_run(cache: Path, how: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Another program's valid entry put under this program's key: its key inside
    differs, so it is compiled again (silently: damage, not an attack from outside)."""
    assert program(A_SRC, "a.l0").main(3) == 4 and program(B_SRC, "b.l0").main(3) == 300
    a_entry, b_entry = entry_of(A_SRC, "a.l0"), entry_of(B_SRC, "b.l0")
    b_entry.unlink()
    if how == "copy":
        b_entry.write_bytes(a_entry.read_bytes())
        b_entry.chmod(0o600)
    else:
        os.link(a_entry, b_entry)
    assert compile_cache.load(b_entry.stem) is None
    b = program(B_SRC, "b.l0")
    assert not b.from_cache and b.main(3) == 300
    assert program(B_SRC, "b.l0").from_cache  # written again, its own
    assert warnings_in(capsys) == []


def test_a_symlinked_entry_is_not_followed(cache: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    program(A_SRC, "a.l0")
    b_entry = entry_of(B_SRC, "b.l0")
    b_entry.symlink_to(entry_of(A_SRC, "a.l0"))
    b = program(B_SRC, "b.l0")
    assert not b.from_cache and b.main(3) == 300
    [warning] = warnings_in(capsys)
    assert str(b_entry) in warning and "symbolic link" in warning
    assert not b_entry.is_symlink()  # the store replaced the link, not its target
    assert program(A_SRC, "a.l0").from_cache and program(B_SRC, "b.l0").from_cache


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702])
def test_a_directory_others_can_write_is_not_used(cache: Path, mode: int,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert not program(A_SRC, "a.l0").from_cache
    cache.chmod(mode)
    a = program(A_SRC, "a.l0")  # the entry is there, and good, but anyone could have put it
    assert not a.from_cache and a.main(3) == 4
    assert not program(B_SRC, "b.l0").from_cache
    [warning] = warnings_in(capsys)  # one line, whatever was refused after it
    assert str(cache) in warning and f"mode {mode:04o}" in warning and "writable by" in warning
    assert len(entries(cache)) == 1  # nothing stored there either


def test_a_directory_of_another_user_is_not_used(cache: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert not program(A_SRC, "a.l0").from_cache
    as_another_user(cache, monkeypatch)
    a = program(A_SRC, "a.l0")
    assert not a.from_cache and a.main(3) == 4
    assert not program(B_SRC, "b.l0").from_cache
    [warning] = warnings_in(capsys)
    assert str(cache) in warning and "owned by uid" in warning
    assert len(entries(cache)) == 1


@pytest.mark.parametrize("attack", ["another user", "writable"])
def test_an_entry_of_another_user_or_writable_is_not_run(cache: Path, attack: str,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    program(A_SRC, "a.l0")
    entry = entry_of(A_SRC, "a.l0")
    if attack == "writable":
        entry.chmod(0o622)
    elif os.geteuid() == 0:
        os.chown(entry, 4321, 4321)
    else:  # no chown without root: the entry's status says another uid
        inode, real_fstat = entry.stat().st_ino, os.fstat

        def fstat(fd: int) -> os.stat_result:
            st = real_fstat(fd)
            if st.st_ino != inode:
                return st
            fields = list(st[:10])
            fields[4] = os.geteuid() + 1  # st_uid
            return os.stat_result(fields)

        monkeypatch.setattr(os, "fstat", fstat)
    a = program(A_SRC, "a.l0")
    assert not a.from_cache and a.main(3) == 4
    [warning] = warnings_in(capsys)
    assert str(entry) in warning
    assert ("owned by uid" if attack == "another user" else "writable by") in warning


def test_a_symlinked_directory_is_not_followed(cache: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The user's own directory, full of good entries, linked in as the cache: refused,
    since a link there could as well lead to anyone's directory."""
    assert not program(A_SRC, "a.l0").from_cache
    cache.rename(tmp_path / "elsewhere")
    cache.symlink_to(tmp_path / "elsewhere")
    a = program(A_SRC, "a.l0")
    assert not a.from_cache and a.main(3) == 4
    [warning] = warnings_in(capsys)
    assert str(cache) in warning and "symbolic link" in warning


def test_what_the_cache_makes_only_its_user_can_use(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Every directory made on the way is 0700, an entry 0600, whatever the umask."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a" / "b"))
    monkeypatch.delenv("L0_NO_CACHE", raising=False)
    old = os.umask(0)
    try:
        assert compile_cache.store("5" * 64, {"x": 1}, b"code")
    finally:
        os.umask(old)
    for made in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "l0"):
        assert made.stat().st_mode & 0o777 == 0o700, made
    entry = compile_cache.entry_path("5" * 64)
    assert entry.stat().st_mode & 0o777 == 0o600
    assert compile_cache.load("5" * 64) == ({"x": 1}, b"code")
    with pytest.raises(ValueError):  # a key is a SHA-256, never a path
        compile_cache.load("../" + "5" * 61)


def test_the_mapped_packages_are_pyprojects() -> None:
    """`compile_cache.MAPPED_PACKAGES` names every package installed from a folder of
    its own, so that the compiler hash reads them all."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text())
    mapped = set(config["tool"]["setuptools"]["package-dir"]) - {"l0"}
    assert set(compile_cache.MAPPED_PACKAGES) == mapped
    hashed = {path for _, path in compile_cache.compiler_files()}
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        for path in (root / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                assert os.path.realpath(path) in hashed, (package, path)
    for package, patterns in config["tool"]["setuptools"]["package-data"].items():
        folder = root / package.replace(".", "/")
        if not folder.exists():  # a mapped package (l0.lowering.backends.native)
            top = next(p for p in compile_cache.MAPPED_PACKAGES if package.startswith(p))
            rest = package[len(top) + 1:].replace(".", "/")
            folder = root / config["tool"]["setuptools"]["package-dir"][top] / rest
        found = [p for pattern in patterns for p in folder.glob(pattern)]
        assert found and all(os.path.realpath(p) in hashed for p in found), package


def test_a_changed_grammar_or_runtime_changes_the_key(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiler hash reads the files as they are: a copy of the package whose
    grammar (or C runtime) differs gives other keys."""
    import shutil

    import l0

    real_dirs = compile_cache._package_dirs(l0)
    copy = tmp_path / "l0"
    shutil.copytree(l0.__path__[0], copy, ignore=shutil.ignore_patterns("__pycache__"))
    others = [d for d in real_dirs if os.path.realpath(d) != os.path.realpath(l0.__path__[0])]
    monkeypatch.setattr(compile_cache, "_package_dirs", lambda _package: [str(copy), *others])
    keys = []
    for edit in (None, copy / "syntax" / "grammar.lark"):
        if edit is not None:
            edit.write_text(edit.read_text() + "\n// another grammar\n")
        monkeypatch.setattr(compile_cache, "_compiler_hash", None)
        keys.append(compile_cache.key("src", "p.l0", {}))
    assert keys[0] != keys[1]
    names = [name for name, _ in compile_cache.compiler_files()]
    assert "l0/syntax/grammar.lark" in names and "lowering/backends/native/runtime.c" in names
