"""docs/tools.md says what the tools accept: the `--backend` lists of its synopses are
the choices the argument parsers take."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from l0.cli.tool import build_argparser

DOC = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


def _backend_choices(command: str) -> list[str]:
    commands = next(a for a in build_argparser()._actions
                    if isinstance(a, argparse._SubParsersAction))
    sub = commands.choices[command]
    option = next(a for a in sub._actions if "--backend" in a.option_strings)
    return list(option.choices or [])


@pytest.mark.parametrize("command", ["test", "bench", "autotune", "compile"])
def test_synopsis_lists_every_back_end(command: str) -> None:
    synopses = re.findall(rf"^    l0 {command} .*--backend ([\w|-]+)\]", DOC.read_text(),
                          re.MULTILINE)
    assert synopses, f"no synopsis of l0 {command} with --backend in docs/tools.md"
    for listed in synopses:
        assert listed.split("|") == _backend_choices(command)
