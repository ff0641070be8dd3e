"""Seeded mutations of real programs never crash the front end.

Each mutation of a corpus program either compiles (parse, type check, internalise,
verify) or is rejected with an `L0Error`; nothing else may escape. The mutations work
on tokens, so most mutants get past the parser and exercise the type checker and the
internaliser, which character-level mutations rarely reach.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.frontend import l0_to_module

PROGRAMS = sorted((Path(__file__).resolve().parents[1] / "programs").rglob("*.l0"))
SOURCES = [p.read_text(encoding="utf-8") for p in PROGRAMS if p.with_suffix(".in").exists()]
TOKEN = re.compile(
    r"[A-Za-z][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|&&|\|\||<-|=>|<=|<<|>>|\S"
)
SPARE = ["let", "in", "(", ")", "{", "}", "[", "]", ",", "=", "*", "-", "0", "1", "2.0", "x",
         "a", "map", "reduce", "zip", "iota", "copy", "with", "<-", "op", "+", "fn", "int", "[int]",
         "loop", "for", "do", "if", "then", "else", "True", "_", "size", "split", "transpose"]


def compile_or_reject(text: str) -> None:
    try:
        call_with_big_stack(lambda: l0_to_module(text, "mutant.l0"))
    except L0Error:
        pass


@st.composite
def mutant(draw: st.DrawFn) -> str:
    tokens = TOKEN.findall(draw(st.sampled_from(SOURCES)))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(tokens) - 1))
        kind = draw(st.sampled_from(["delete", "duplicate", "replace", "swap", "copy"]))
        if kind == "delete":
            del tokens[i]
        elif kind == "duplicate":
            tokens.insert(i, tokens[i])
        elif kind == "replace":
            tokens[i] = draw(st.sampled_from(SPARE))
        elif kind == "swap" and i + 1 < len(tokens):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        else:  # another token of the same program in its place: keeps names in scope
            tokens[i] = tokens[draw(st.integers(0, len(tokens) - 1))]
    return " ".join(tokens)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutant())
def test_mutated_programs_compile_or_are_rejected(text: str) -> None:
    compile_or_reject(text)
