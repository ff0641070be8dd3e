"""`l0 repl`: entries evaluated in the scope of a program, driven in this process through
text streams, and once as a command with piped input."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from l0.cli.repl import _completer, history_file
from l0.repl import Session, run, stream_reader

NORM = """\
fun real sq(real x) = x * x
fun [real] main([real] v) =
  let norm = sqrt(reduce(op +, 0.0, map(sq, v))) in
  map(fn real (real x) => x / norm, v)
"""


def session_of(entries: str, program: Path | None = None,
               backend: str = "interp") -> tuple[Session, str, str]:
    out, err = io.StringIO(), io.StringIO()
    session = Session(backend=backend, out=out, err=err)
    if program is not None:
        session.handle(f":load {program}")
    run(session, stream_reader(io.StringIO(entries)))
    return session, out.getvalue(), err.getvalue()


@pytest.fixture
def norm(tmp_path: Path) -> Path:
    path = tmp_path / "norm.l0"
    path.write_text(NORM)
    return path


def test_expressions_in_the_scope_of_the_program(norm: Path) -> None:
    _, out, err = session_of("main([3.0, 4.0])\nsq(1.5) + 1.0\n1 + 2 * 3\n\"hi\"\n", norm)
    assert err == ""
    assert out.splitlines() == [f"loaded {norm}: sq, main", "[0.600000, 0.800000]",
                                "3.250000", "7", "hi"]


def test_bindings_persist_and_keep_their_values(norm: Path) -> None:
    session, out, err = session_of(
        "let v = [3.0, 4.0]\nlet {n, b} = {size(0, v), True}\nmain(v)\n"
        "let w = let u = v with [0] <- 0.0 in u\nw\nv\n{n, b}\nlet n = n + 1\nn\n"
        "let _ = 7\n", norm)
    assert err == ""
    assert out.splitlines()[1:] == ["[0.600000, 0.800000]", "[0.000000, 4.000000]",
                                    "[3.000000, 4.000000]", "{2, True}", "3"]
    assert list(session.bindings) == ["v", "b", "w", "n"]  # a new binding comes last


def test_type_errors_are_located_in_the_command() -> None:
    _, out, err = session_of(":type t + True\n")
    assert out == ""
    assert err.splitlines()[:4] == ["[0]:1:7: error: unknown variable 't'", "  |",
                                    "1 | :type t + True", "  |       ^"]


def test_type_of_expressions_bindings_and_functions(norm: Path) -> None:
    _, out, err = session_of(":type main\n:type sq(2.0) < 1.0\nlet v = iota(3)\n"
                             ":type {v, 'c'}\n:t zip(v, v)\n", norm)
    assert err == ""
    assert out.splitlines()[1:] == ["fun [real] main([real] v)", "bool", "{*[int], char}",
                                    "[{int, int}]"]


def test_definitions_at_the_prompt_continue_over_lines() -> None:
    _, out, err = session_of("fun int f(int x) =\n  x +\n  1\nf(41)\n"
                             "[1,\n 2]\nfun int g(int x) = f(x) * 2 fun int h() = g(1)\nh()\n")
    assert err == ""
    assert out.splitlines() == ["42", "[1, 2]", "4"]


def test_errors_are_located_and_do_not_end_the_session() -> None:
    entries = ("fun int at(int i) =\n  let a = [1, 2] in a[i]\n"  # [0]
               "at(5)\n"  # [1]: fails in the function entered at [0]
               "1 + True\n"  # [2]
               "let {a, b} = 5\n"  # [3]
               "(1 +\n"  # [4], incomplete at the end of the input
               )
    session, out, err = session_of(entries)
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == "[0]:2:21: error: index 5 out of bounds for array of size 2"
    assert "[2]:1:5: error: right operand of '+' must be of type int or real, but is of " \
           "type bool" in lines
    assert "[3]:1:5: error: the pattern has 2 components, but the value is of type int" in lines
    assert lines[-4] == "[4]:1:5: error: unexpected end of file, expected an expression"
    assert session.count == 5 and session.bindings == {}


def test_an_error_in_a_definition_keeps_the_others() -> None:
    _, out, err = session_of("fun int f(int x) = x\nfun int g(int x) = y\nfun int f(int y) = y\n"
                             "f(1)\n")
    assert err.splitlines()[0] == "[1]:1:20: error: unknown variable 'y'"
    assert "[2]:1:1: error: function 'f' is already defined" in err
    assert out == "1\n"


def test_load_reload_help_quit(tmp_path: Path, norm: Path) -> None:
    bad = tmp_path / "bad.l0"
    bad.write_text("fun int main() = x\n")
    entries = (f"let k = 2\n:load {bad}\nsq(2.0)\nk\n:reload\nk\n:load {tmp_path / 'none.l0'}\n"
               ":help\n:frobnicate\n:type\n:quit\n1 + 1\n")
    session, out, err = session_of(entries, norm)
    assert out.splitlines()[:3] == [f"loaded {norm}: sq, main", "4.000000", "2"]
    assert out.splitlines()[3] == f"loaded {norm}: sq, main"  # :reload forgets k
    assert ":load FILE" in out and "1 + 1" not in out and "\n2\n" not in out.split("k\n")[-1]
    assert f"{bad}:1:18: error: unknown variable 'x'" in err
    assert "[3]:1:1: error: unknown variable 'k'" in err
    assert f"{tmp_path / 'none.l0'}:1:1: error: cannot read program: No such file" in err
    assert "unknown command :frobnicate (:help lists the commands)" in err
    assert ":type needs an expression" in err
    assert session.program == norm


def test_reload_reads_the_file_again(tmp_path: Path) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text("fun int main() = 1\n")
    out, err = io.StringIO(), io.StringIO()
    session = Session(out=out, err=err)
    session.handle(f":load {prog}")
    session.handle("main()")
    prog.write_text("fun int main() = 2\n")
    session.handle(":reload")
    session.handle("main()")
    assert err.getvalue() == ""
    assert out.getvalue().splitlines()[1::2] == ["1", "2"]


def test_compiled_back_end(norm: Path) -> None:
    _, out, err = session_of("let v = [3.0, 4.0]\nmain(v)\nlet i = 7\nv[i]\n", norm, "cpu")
    assert out.splitlines()[1:] == ["[0.600000, 0.800000]"]
    assert err.startswith("[3]:1:1: error: index 7 out of bounds for array of size 2")


def test_completion_and_history_file(norm: Path, monkeypatch, tmp_path: Path) -> None:
    session, _, _ = session_of("let squares = 1\n", norm)
    complete = _completer(session)
    found = [complete("sq", i) for i in range(4)]
    assert found == ["sq", "sqrt", "squares", None]
    assert complete(":re", 0) == ":reload"
    assert complete("redo", 0) == "redomap"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert history_file() == tmp_path / "l0" / "repl_history"


def test_as_a_command_with_piped_input(norm: Path) -> None:
    l0 = Path(sys.executable).with_name("l0")
    done = subprocess.run([str(l0), "repl", str(norm)], input="main([1.0, 0.0])\nsq(True)\n",
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0
    assert done.stdout == f"loaded {norm}: sq, main\n[1.000000, 0.000000]\n"
    assert done.stderr.startswith("[1]:1:4: error: argument 1 of function 'sq' must be of "
                                  "type real")
    assert "Traceback" not in done.stderr
    bad = subprocess.run([str(l0), "repl", "--backend", "tpu"], input="", capture_output=True,
                         text=True, check=False, timeout=120)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_ctrl_c_interrupts_an_entry_and_keeps_the_session() -> None:
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are handled in the main thread")
    out, err = io.StringIO(), io.StringIO()
    session = Session(out=out, err=err)
    # Ctrl-C during the loop, delivered to a thread other than the main one, where the
    # main thread's wait is not woken by it (Note [Ctrl-C while the work runs])
    timer = threading.Timer(1.5, lambda: signal.raise_signal(signal.SIGINT))
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)  # a test worker's may differ
    timer.start()
    try:
        session.handle("loop (x = 0) = for i < 100000000 do x + i % 3 in x")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, handler)
    assert err.getvalue() == "interrupted\n"
    assert [t.name for t in threading.enumerate()].count("l0-bigstack") == 0  # stopped
    session.handle("1 + 1")
    assert out.getvalue() == "2\n"


def test_at_a_terminal_lines_are_edited_and_kept_in_the_history(tmp_path: Path,
                                                                  norm: Path) -> None:
    """Through a pseudo-terminal, as a user types: the up arrow brings back the last
    entry, and the entries are in the history file when the session ends."""
    import os
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:  # the child: l0 repl on the terminal
        os.environ["XDG_STATE_HOME"] = str(tmp_path / "state")
        os.environ["TERM"] = "dumb"
        l0 = str(Path(sys.executable).with_name("l0"))
        os.execv(l0, [l0, "repl", str(norm)])
    typed = ["sq(3.0)\r", "\x1b[A\r", "sq(True)\r", ":quit\r"]  # \x1b[A: the up arrow
    seen = b""
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the session ended
                break
            if not chunk:
                break
            seen += chunk
            if typed and seen.rstrip().endswith(b">"):  # a prompt: type the next line
                os.write(fd, typed.pop(0).encode())
    finally:
        _, status = os.waitpid(pid, 0)
    text = seen.decode(errors="replace").replace("\r", "")
    assert os.WEXITSTATUS(status) == 0, text
    assert "l0 repl " in text and "[0]> " in text
    assert text.count("9.000000") == 2  # typed once, recalled once
    assert "[2]:1:4: error: argument 1 of function 'sq' must be of type real" in text
    history = (tmp_path / "state" / "l0" / "repl_history").read_text()
    # (readline keeps a line once when it is the last one again)
    assert history.splitlines() == ["sq(3.0)", "sq(True)", ":quit"]
