"""A fork server for the command-line tools that lit's RUN lines start.

Each RUN line of `test/lit/` starts `l0-opt`, `l0-run`, `l0` or `filecheck`, and a fresh
interpreter spends about 2.5 s importing xDSL, the compiler and llvmlite before the tool
does anything (`l0-opt --help` takes that long). `test/test_lit.py` therefore starts one
server per test process (`ToolServer`) that imports all of that once, and puts a
directory of stand-ins for the tools first on lit's PATH (`lit.cfg` reads
`L0_LIT_TOOLS`). A stand-in is a Python started with `-S` (no site, about 50 ms) that
sends its arguments, working directory, environment and its standard input, output and
error (the descriptors themselves, `socket.send_fds`) to the server, and exits as the
tool did.

Note [A forked tool is a fresh process]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
What lit sees must not change, so each request runs in a process of its own, forked from
the server after the imports: the tool gets the stand-in's descriptors as 0, 1 and 2
(lit's pipes and redirections, unchanged), its argv (argv[0] the real script, as a
console script sees it, and the script's directory first on `sys.path`), working
directory and environment (replaced wholly), fresh standard streams, Python's exit
handlers run at its end, and no state of any earlier run. The server forks a
supervisor, which forks the tool and waits for it, so the stand-in learns the tool's
exact wait status: an exit code, or the signal that killed it (a crash of compiled
code), which the stand-in then raises on itself; lit's `not` and `not --crash` see what
they would see of the real tool. The tool runs the console script's function as its
script does (`sys.exit(main())`); an uncaught exception prints its traceback and exits
1, as Python does. What a fork cannot give: a fresh hash seed (every forked tool shares
the server's) and settings Python reads from the environment at start-up
(`PYTHONIOENCODING`, ...; lit passes none). If the server is not there, the stand-in
runs the real tool (`os.execv`), so a stand-in never fails a test by itself.

The stand-in's half (`run_client`) imports only the standard library: it runs without
`site` and without the project's packages.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys

_LENGTH = struct.Struct("!Q")
_STATUS = struct.Struct("!i")


# -- the stand-in --------------------------------------------------------------------


def run_client(address: str, tool: str, real: str) -> None:
    """Run `tool` (whose script is `real`) in the server at `address`, with this
    process's arguments, directory, environment and standard streams; exit as it did."""
    request = json.dumps({"tool": tool, "argv": [real, *sys.argv[1:]], "cwd": os.getcwd(),
                          "env": dict(os.environ)}).encode()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(address)
            socket.send_fds(conn, [_LENGTH.pack(len(request))], [0, 1, 2])
            conn.sendall(request)
            reply = _receive(conn, _STATUS.size)
    except OSError:
        reply = b""
    if len(reply) != _STATUS.size:  # no server, or it went away: the real tool
        os.execv(real, [real, *sys.argv[1:]])
    status = _STATUS.unpack(reply)[0]
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _receive(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def write_stand_ins(directory: str, address: str, tools: dict[str, str]) -> None:
    """Write a stand-in for each tool (name -> its real script) into `directory`."""
    here = os.path.dirname(os.path.abspath(__file__))
    for tool, real in tools.items():
        path = os.path.join(directory, tool)
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"#!{sys.executable} -S\n"
                    f"import sys\nsys.path.insert(0, {here!r})\n"
                    "from toolserver import run_client\n"
                    f"run_client({address!r}, {tool!r}, {real!r})\n")
        os.chmod(path, 0o755)


# -- the server ----------------------------------------------------------------------

TOOLS = ("l0-opt", "l0-run", "l0", "filecheck")
"""The console scripts served: the project's tools and FileCheck."""

PRELOADED = ("numpy", "lark", "llvmlite.binding", "xdsl.ir", "filecheck.main",
             "l0", "l0.dialects", "l0.passes", "l0.lowering")
"""What the server imports before it forks (the tools import them lazily, each time), with
every module of the project's packages among them (`_preload`: `l0.passes`, ... are
installed from folders of their own)."""

SKIPPED = ("l0.distributed",)
"""Packages not preloaded: no tool imports them (Dask's import is large)."""


def _preload() -> None:
    import importlib
    import pkgutil

    for name in PRELOADED:
        try:
            package = importlib.import_module(name)
        except ImportError:  # a part this build lacks: its tool imports it (and fails) itself
            continue
        if name.startswith("l0"):
            for info in pkgutil.walk_packages(package.__path__, f"{name}.",
                                              onerror=lambda _name: None):
                if not info.name.startswith(SKIPPED):
                    try:
                        importlib.import_module(info.name)
                    except Exception:  # an optional part (the gpu's driver): left to the tool
                        pass


def _entry_points() -> dict[str, str]:
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group="console_scripts")
            if ep.name in TOOLS}


def serve(address: str) -> None:
    """Import the tools, then run each request in a forked process (Note [A forked
    tool is a fresh process]) until the parent process goes away."""
    _preload()
    from l0 import collector

    # the forked tools' collections leave the preloaded objects (and their pages) alone;
    # their compiler stages leave the freeze (Note [Who froze the collector])
    collector.hold()
    targets = _entry_points()
    parent = os.getppid()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(address)
        listener.listen(64)
        listener.settimeout(1.0)
        print("ready", flush=True)
        while os.getppid() == parent:
            _reap()
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(None)
            try:
                fds, request = _read_request(conn)
            except (OSError, ValueError):
                conn.close()
                continue
            sys.stdout.flush()
            sys.stderr.flush()
            record_tool_run(request.get("tool", "?"))
            if os.fork() == 0:
                listener.close()
                _supervise(conn, fds, request, targets)
            conn.close()
            for fd in fds:
                os.close(fd)


def _reap() -> None:
    """Wait for the supervisors that are done (so that their time counts as the server's)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] != 0:
            pass
    except ChildProcessError:
        pass


def _read_request(conn: socket.socket) -> tuple[list[int], dict]:
    header, fds, _flags, _addr = socket.recv_fds(conn, _LENGTH.size, 3)
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ValueError("a request carries three descriptors")
    header += _receive(conn, _LENGTH.size - len(header))
    size = _LENGTH.unpack(header)[0]
    request = json.loads(_receive(conn, size))
    return fds, request


def _supervise(conn: socket.socket, fds: list[int], request: dict,
               targets: dict[str, str]) -> None:
    """In the supervisor: run the tool in a child, send its wait status, exit."""
    try:
        pid = os.fork()
        if pid == 0:
            conn.close()
            _run_tool(fds, request, targets)
        for fd in fds:
            os.close(fd)
        _, status = os.waitpid(pid, 0)
        conn.sendall(_STATUS.pack(status))
    finally:
        os._exit(0)


def record_tool_run(tool: str) -> None:
    """Count one run of `tool` for lit, when the suite counts its work (`workcount.py`)."""
    path = os.environ.get("L0_TEST_COUNTS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"file": "test/test_lit.py",
                                "counts": {f"lit tool runs: {tool}": 1}}) + "\n")


def _fresh_streams() -> None:
    """`sys.stdin`, `sys.stdout` and `sys.stderr` made anew over descriptors 0, 1 and 2,
    as Python makes them at start-up: the server's were made for other files (whether
    a stream is seekable or a terminal is fixed when it is made)."""
    import io

    def stream(fd: int, mode: str, errors: str, line_buffering: bool) -> io.TextIOWrapper:
        return io.TextIOWrapper(open(fd, mode, closefd=False), encoding=sys.stdout.encoding,
                                errors=errors, newline="\n", line_buffering=line_buffering)

    sys.stdin = sys.__stdin__ = stream(0, "rb", sys.stdin.errors or "strict", False)
    sys.stdout = sys.__stdout__ = stream(1, "wb", sys.stdout.errors or "strict", os.isatty(1))
    sys.stderr = sys.__stderr__ = stream(2, "wb", "backslashreplace", True)


def _run_tool(fds: list[int], request: dict, targets: dict[str, str]) -> None:
    """In the tool's process: become the tool as its console script starts it."""
    code = 1
    try:
        for fd, std in zip(fds, (0, 1, 2), strict=True):
            os.dup2(fd, std)
            os.close(fd)
        _fresh_streams()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = list(request["argv"])
        sys.path[0] = os.path.dirname(sys.argv[0])  # a script's directory, not the server's
        module, _, function = targets[request["tool"]].partition(":")
        import importlib

        main = getattr(importlib.import_module(module), function)
        try:
            result = main()
            code = 0 if result is None else result
        except SystemExit as done:
            code = done.code
        if not isinstance(code, int):  # sys.exit("message"), as Python reports it
            if code is not None:
                print(code, file=sys.stderr)
            code = 0 if code is None else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        import atexit

        atexit._run_exitfuncs()  # what Python runs at exit (os._exit below does not)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                code = 120 if code == 0 else code  # as Python does at exit
        os._exit(code & 0xFF)


# -- starting it ---------------------------------------------------------------------


class ToolServer:
    """A server in a child process, and its stand-ins in `directory`; a context manager.
    `tools`: the tools served (default `TOOLS`), those of them in this Python's bin
    directory."""

    def __init__(self, tools: tuple[str, ...] = TOOLS) -> None:
        self.tools = tools

    def __enter__(self) -> ToolServer:
        import subprocess
        import tempfile

        self._scratch = tempfile.TemporaryDirectory(prefix="l0-tools-")
        self.directory = os.path.join(self._scratch.name, "bin")
        os.mkdir(self.directory)
        address = os.path.join(self._scratch.name, "socket")
        self._process = subprocess.Popen([sys.executable, os.path.abspath(__file__), address],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        assert self._process.stdout is not None
        if self._process.stdout.readline() != b"ready\n":
            self.__exit__()
            raise RuntimeError("the tool server did not start")
        bin_dir = os.path.dirname(sys.executable)
        write_stand_ins(self.directory, address,
                        {t: os.path.join(bin_dir, t) for t in self.tools
                         if os.path.exists(os.path.join(bin_dir, t))})
        return self

    def __exit__(self, *_exc: object) -> None:
        self._process.kill()
        self._process.wait()
        self._scratch.cleanup()


if __name__ == "__main__":
    serve(sys.argv[1])
