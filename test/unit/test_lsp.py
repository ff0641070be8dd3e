"""`l0 lsp` end to end: a real LSP client (pytest-lsp) drives one `l0 lsp` process over
stdio for the whole module: open, hover, go to definition, completion, outline, then
edits that break the program (type errors in two functions, a parse error) and fix it."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

in_session = pytest.mark.asyncio(loop_scope="module")  # the module's one server
pytestmark = pytest.mark.xdist_group("lsp")  # one worker, so one server, under -n 2

SERVER = [sys.executable, "-c", "from l0.cli.tool import main; main(['lsp'])"]

PROGRAM = """\
// squares in place, then shifts by the length
fun real sq(real x) = x * x

fun [real] main([real] xs) =
  let n = size(0, xs) in
  loop (acc = copy(xs)) = for i < n do
    let acc[i] = sq(acc[i]) in acc
  in map(fn real (real y) => y + toReal(n), acc)
"""


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    caps = client_capabilities("visual-studio-code")
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=caps))
    yield
    await lsp_client.shutdown_session()


def at(text: str, needle: str, nth: int = 0, offset: int = 0) -> lsp.Position:
    """The position of the `nth` occurrence of `needle` in `text`, plus `offset` chars."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += offset
    line = text.count("\n", 0, i)
    return lsp.Position(line=line, character=i - (text.rfind("\n", 0, i) + 1))


async def published(client: LanguageClient, uri: str) -> list[lsp.Diagnostic]:
    """The diagnostics the server publishes next for `uri`."""
    while uri not in client.diagnostics:
        await asyncio.wait_for(
            client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), timeout=60
        )
    return list(client.diagnostics.pop(uri))


async def open_doc(client: LanguageClient, name: str, text: str) -> tuple[str, list]:
    uri = f"file:///tmp/l0-lsp-test/{name}"
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="l0", version=1, text=text)
        )
    )
    return uri, await published(client, uri)


async def replace_all(client: LanguageClient, uri: str, text: str, version: int) -> list:
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    return await published(client, uri)


def doc(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


async def hover_text(client: LanguageClient, uri: str, pos: lsp.Position) -> str:
    h = await client.text_document_hover_async(lsp.HoverParams(doc(uri), pos))
    assert h is not None
    assert isinstance(h.contents, lsp.MarkupContent)
    return h.contents.value


async def definition(client: LanguageClient, uri: str, pos: lsp.Position) -> lsp.Range:
    found = await client.text_document_definition_async(lsp.DefinitionParams(doc(uri), pos))
    assert isinstance(found, lsp.Location) and found.uri == uri
    return found.range


def span(text: str, needle: str, nth: int = 0, length: int | None = None) -> lsp.Range:
    """The range of `needle` (of its first `length` characters) where `at` finds it."""
    start = at(text, needle, nth)
    end = start.character + (len(needle) if length is None else length)
    return lsp.Range(start, lsp.Position(start.line, end))


@in_session
async def test_a_correct_program_has_no_diagnostics(client: LanguageClient) -> None:
    _, diagnostics = await open_doc(client, "ok.l0", PROGRAM)
    assert diagnostics == []


@in_session
async def test_hover_shows_types(client: LanguageClient) -> None:
    uri, _ = await open_doc(client, "hover.l0", PROGRAM)
    xs = await hover_text(client, uri, at(PROGRAM, "xs) in"))
    assert "xs : [real]" in xs and "parameter" in xs
    n = await hover_text(client, uri, at(PROGRAM, "n = size"))
    assert "n : int" in n and "let-bound" in n
    y = await hover_text(client, uri, at(PROGRAM, "y + toReal"))
    assert "y : real" in y and "lambda parameter" in y
    assert "fun real sq(real x)" in await hover_text(client, uri, at(PROGRAM, "sq(acc"))
    assert "fun real toReal(int)" in await hover_text(client, uri, at(PROGRAM, "toReal(n)"))
    # Not on a name: the innermost expression, here `map(...)`, and a literal.
    assert ": *[real]" in await hover_text(client, uri, at(PROGRAM, "map(", offset=1))
    assert ": int" in await hover_text(client, uri, at(PROGRAM, "0, xs"))
    # A SOAC's functional argument: what the SOAC gives it and what it returns there.
    assert ": (real) -> real" in await hover_text(client, uri, at(PROGRAM, "fn real"))


@in_session
async def test_go_to_definition(client: LanguageClient) -> None:
    uri, _ = await open_doc(client, "definition.l0", PROGRAM)
    sq = span(PROGRAM, "sq(real", length=2)
    assert await definition(client, uri, at(PROGRAM, "sq(acc")) == sq
    assert await definition(client, uri, at(PROGRAM, "xs) in")) == span(PROGRAM, "xs)", length=2)
    assert await definition(client, uri, at(PROGRAM, "n do")) == span(PROGRAM, "n = size", length=1)
    # the loop variable, the merge variable inside the body and after the loop
    assert await definition(client, uri, at(PROGRAM, "i] =")) == span(PROGRAM, "i <", length=1)
    assert await definition(client, uri, at(PROGRAM, "acc[i])")) == span(PROGRAM, "acc =", length=3)
    assert await definition(client, uri, at(PROGRAM, "acc)\n")) == span(PROGRAM, "acc =", length=3)
    assert await definition(client, uri, at(PROGRAM, "y + ")) == span(PROGRAM, "y)", length=1)


@in_session
async def test_completion_offers_names_in_scope(client: LanguageClient) -> None:
    uri, _ = await open_doc(client, "complete.l0", PROGRAM)
    found = await client.text_document_completion_async(
        lsp.CompletionParams(doc(uri), at(PROGRAM, "y + toReal"))
    )
    assert isinstance(found, lsp.CompletionList)
    kinds = {item.label: item.kind for item in found.items}
    for name in ("y", "n", "xs", "acc"):
        assert kinds[name] == lsp.CompletionItemKind.Variable, name
    assert kinds["sq"] == kinds["toReal"] == lsp.CompletionItemKind.Function
    assert kinds["map"] == lsp.CompletionItemKind.Function
    assert kinds["let"] == lsp.CompletionItemKind.Keyword
    assert "x" not in kinds and "i" not in kinds  # sq's parameter; the loop's variable


@in_session
async def test_document_symbols(client: LanguageClient) -> None:
    uri, _ = await open_doc(client, "symbols.l0", PROGRAM)
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(doc(uri))
    )
    assert symbols is not None
    assert [(s.name, s.detail) for s in symbols] == [
        ("sq", "fun real sq(real x)"), ("main", "fun [real] main([real] xs)"),
    ]
    main = symbols[1]
    assert isinstance(main, lsp.DocumentSymbol) and main.children is not None
    assert [c.name for c in main.children] == ["xs", "n", "acc", "i", "acc", "y"]
    assert main.selection_range == span(PROGRAM, "main")


@in_session
async def test_edits_report_errors_as_the_user_types(client: LanguageClient) -> None:
    uri, diagnostics = await open_doc(client, "edit.l0", PROGRAM)
    assert diagnostics == []
    # A type error in each function: both are reported, each with its span.
    broken = PROGRAM.replace("x * x", "x * 2").replace("toReal(n)", "n")
    diagnostics = await replace_all(client, uri, broken, 2)
    assert [d.code for d in diagnostics] == ["unify-error", "unify-error"]
    assert diagnostics[0].range == span(broken, "x * 2")
    assert "operands of '*'" in diagnostics[0].message
    assert diagnostics[1].range == span(broken, "y + n")
    assert all(d.severity == lsp.DiagnosticSeverity.Error for d in diagnostics)
    # Hover still answers where checking got, and completion too.
    assert "n : int" in await hover_text(client, uri, at(broken, "n = size"))
    # Typing a `let` that is not finished yet: a parse error at the end...
    unfinished = broken.replace("  in map(", "  in let z = ac\n  map(")
    diagnostics = await replace_all(client, uri, unfinished, 3)
    assert [d.code for d in diagnostics] == ["parse-error"]
    assert diagnostics[0].range == span(unfinished, "map(", length=1)
    assert diagnostics[0].message.startswith("unexpected token 'map'")
    # ... and completion there still offers the names in scope.
    found = await client.text_document_completion_async(
        lsp.CompletionParams(doc(uri), at(unfinished, "ac\n", offset=2))
    )
    assert isinstance(found, lsp.CompletionList)
    assert {"acc", "n", "xs"} <= {item.label for item in found.items}
    # Fixed again: the diagnostics are cleared.
    assert await replace_all(client, uri, PROGRAM, 4) == []


def test_other_tools_do_not_import_the_server() -> None:
    code = (
        "import sys; from l0.cli.tool import build_argparser; build_argparser(); "
        "print(sorted(m for m in ('pygls', 'lsprotocol', 'pygments') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr


def test_without_pygls_l0_lsp_says_what_to_install() -> None:
    code = "import sys; sys.modules['pygls'] = None; from l0.cli.tool import main; main(['lsp'])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 2
    assert "pip install 'l0[lsp]'" in out.stderr and "Traceback" not in out.stderr


@in_session
async def test_incremental_edits_and_utf16_positions(client: LanguageClient) -> None:
    # The string holds an astral character: two UTF-16 code units, one character.
    text = 'fun int main() = let s = "😀" in 1 + True\n'
    uri, diagnostics = await open_doc(client, "utf16.l0", text)
    (d,) = diagnostics
    start = text.index("True") + 1  # UTF-16 columns: one more after the emoji
    assert d.range == lsp.Range(lsp.Position(0, start), lsp.Position(0, start + 4))
    # An editor sends only what changed: replace `True` by `2`, in UTF-16 units too.
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [lsp.TextDocumentContentChangePartial(
                range=lsp.Range(lsp.Position(0, start), lsp.Position(0, start + 4)),
                text="2",
            )],
        )
    )
    assert await published(client, uri) == []
    assert "s : [char]" in await hover_text(client, uri, lsp.Position(0, 21))


def test_a_garbled_message_is_one_line_in_the_log() -> None:
    garbage = b"Content-Length: 5\r\n\r\n{bad}"
    out = subprocess.run(SERVER, input=garbage, capture_output=True, timeout=60)
    assert out.returncode == 0
    log = out.stderr.decode()
    assert "l0 lsp: ERROR: Unable to handle message" in log and "Traceback" not in log
