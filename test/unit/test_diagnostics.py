"""Tests of `l0.diagnostics`: the source snippet under an error's first line."""

from __future__ import annotations

from l0.diagnostics import L0Error, Loc, format_error, register_source, snippet

TEXT = "fun int main() =\n  let x = f(1,\n            2) in\n\tx\n"


def test_snippet_marks_the_span() -> None:
    assert snippet(Loc("p", 2, 11, 2, 12), TEXT) == "  |\n2 |   let x = f(1,\n  |           ^^"


def test_snippet_of_a_multi_line_span_marks_to_the_end_of_its_first_line() -> None:
    assert snippet(Loc("p", 2, 11, 3, 14), TEXT).endswith("\n  |           ^^^^")


def test_snippet_of_a_point_copies_tabs() -> None:
    assert snippet(Loc("p", 4, 2), TEXT) == "  |\n4 | \tx\n  | \t^"


def test_snippet_outside_the_text_is_empty() -> None:
    assert snippet(Loc("p", 9, 1), TEXT) == ""
    assert snippet(Loc("<unknown>", 0, 0), TEXT) == ""


def test_format_error_keeps_the_first_line_and_finds_registered_sources() -> None:
    register_source("<test-diagnostics>", TEXT)
    err = L0Error(Loc("<test-diagnostics>", 4, 2, 4, 2), "bad")
    assert format_error(err).splitlines()[0] == err.render() == "<test-diagnostics>:4:2: error: bad"
    assert len(format_error(err).splitlines()) == 4
    assert format_error(L0Error(Loc("<nowhere>", 1, 1), "bad")) == "<nowhere>:1:1: error: bad"
    assert err.render().count("\n") == 0  # l0-opt --verify-diagnostics reads it as one line
