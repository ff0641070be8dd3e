"""`l0 lsp`: the language server, on pygls, over stdin and stdout (docs/tools.md).

Each change of an open document re-checks it (`l0.editor.document.analyse`) and
publishes its errors; hover, definition, completion and document symbols answer from
the latest analysis. This module only translates between the protocol and
`l0.editor.document`: positions here are the protocol's (0-based, in the code units the
client negotiated), there the AST's (1-based, in characters, end columns inclusive).
"""

from __future__ import annotations

import json
import logging
import traceback
from importlib.metadata import version

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

from l0.diagnostics import L0Error, Loc
from l0.editor import document as D
from l0.syntax.symbols import DefKind

_log = logging.getLogger(__name__)


class L0LanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("l0", version("l0"))
        self.analyses: dict[str, D.Analysis] = {}


server = L0LanguageServer()

# -- positions ------------------------------------------------------------------------


def to_range(doc: TextDocument, loc: Loc) -> lsp.Range:
    start = ServerTextPosition(max(loc.line - 1, 0), max(loc.col - 1, 0))
    if (loc.end_line, loc.end_col) >= (loc.line, loc.col):
        end = ServerTextPosition(loc.end_line - 1, loc.end_col)  # inclusive -> exclusive
    else:  # a point (e.g. a missing `main`, at 1:1): one character wide
        end = ServerTextPosition(start.line, start.character + 1)
    return doc.range_to_client_units(ServerTextRange(start, end))


def from_position(doc: TextDocument, pos: lsp.Position) -> tuple[int, int]:
    p = doc.position_from_client_units(pos)
    return p.line + 1, p.character + 1


# -- diagnostics ----------------------------------------------------------------------


def _filename(uri: str) -> str:
    return to_fs_path(uri) or uri


def _diagnostic(doc: TextDocument, err: L0Error) -> lsp.Diagnostic:
    return lsp.Diagnostic(
        range=to_range(doc, err.loc),
        message=err.message,
        severity=lsp.DiagnosticSeverity.Error,
        code=err.kind,
        source="l0",
    )


def refresh(ls: L0LanguageServer, uri: str) -> None:
    """Check the document again and publish its errors."""
    doc = ls.workspace.get_text_document(uri)
    try:
        a = D.analyse(doc.source, _filename(uri), ls.analyses.get(uri))
        diagnostics = [_diagnostic(doc, e) for e in a.errors]
    except Exception as bug:  # a compiler bug must not take the editor's server down
        _log.error("internal error checking %s:\n%s", uri, traceback.format_exc())
        a = D.Analysis(doc.source, None, [], None, ls.analyses.get(uri))
        diagnostics = [
            lsp.Diagnostic(
                range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1)),
                message=f"internal compiler error: {type(bug).__name__}: {bug}",
                severity=lsp.DiagnosticSeverity.Error,
                source="l0",
            )
        ]
    ls.analyses[uri] = a
    ls.text_document_publish_diagnostics(
        lsp.PublishDiagnosticsParams(uri=uri, version=doc.version, diagnostics=diagnostics)
    )


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: L0LanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    refresh(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: L0LanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    refresh(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: L0LanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.analyses.pop(uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


# -- queries --------------------------------------------------------------------------


def _at(
    ls: L0LanguageServer, params: lsp.HoverParams | lsp.DefinitionParams | lsp.CompletionParams
) -> tuple[TextDocument, D.Analysis | None, int, int]:
    uri = params.text_document.uri
    doc = ls.workspace.get_text_document(uri)
    line, col = from_position(doc, params.position)
    return doc, ls.analyses.get(uri), line, col


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: L0LanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
    doc, a, line, col = _at(ls, params)
    h = D.hover(a, line, col) if a is not None else None
    if h is None:
        return None
    contents = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=h.markdown)
    return lsp.Hover(contents=contents, range=to_range(doc, h.loc))


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: L0LanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
    doc, a, line, col = _at(ls, params)
    loc = D.definition(a, line, col) if a is not None else None
    if loc is None:
        return None
    return lsp.Location(uri=params.text_document.uri, range=to_range(doc, loc))


_COMPLETION_KINDS = {
    D.CompletionKind.VARIABLE: lsp.CompletionItemKind.Variable,
    D.CompletionKind.FUNCTION: lsp.CompletionItemKind.Function,
    D.CompletionKind.BUILTIN: lsp.CompletionItemKind.Function,
    D.CompletionKind.KEYWORD: lsp.CompletionItemKind.Keyword,
}


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION)
def completion(ls: L0LanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList:
    _, a, line, col = _at(ls, params)
    items = [
        lsp.CompletionItem(label=c.label, kind=_COMPLETION_KINDS[c.kind], detail=c.detail)
        for c in (D.completions(a, line, col) if a is not None else [])
    ]
    return lsp.CompletionList(is_incomplete=False, items=items)


_SYMBOL_KINDS = {
    DefKind.FUNCTION: lsp.SymbolKind.Function,
    DefKind.PARAM: lsp.SymbolKind.Variable,
    DefKind.LAMBDA_PARAM: lsp.SymbolKind.Variable,
    DefKind.LET: lsp.SymbolKind.Variable,
    DefKind.LOOP_VAR: lsp.SymbolKind.Variable,
    DefKind.MERGE: lsp.SymbolKind.Variable,
}


def _symbol(doc: TextDocument, s: D.Symbol) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(
        name=s.name,
        detail=s.detail,
        kind=_SYMBOL_KINDS[s.kind],
        range=to_range(doc, s.loc),
        selection_range=to_range(doc, s.name_loc),
        children=[_symbol(doc, c) for c in s.children],
    )


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(
    ls: L0LanguageServer, params: lsp.DocumentSymbolParams
) -> list[lsp.DocumentSymbol]:
    uri = params.text_document.uri
    a = ls.analyses.get(uri)
    doc = ls.workspace.get_text_document(uri)
    return [_symbol(doc, s) for s in D.outline(a)] if a is not None else []


class _LogFormat(logging.Formatter):
    """Log lines for the editor's log pane: a message the client garbled is its fault,
    not ours, so it gets one line (pygls logs it with a traceback); bugs of ours keep
    theirs."""

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info and isinstance(err := record.exc_info[1], json.JSONDecodeError):
            record = logging.makeLogRecord(record.__dict__)
            record.msg = f"{record.getMessage()}: {err}"
            record.args, record.exc_info, record.exc_text = None, None, None
        return super().format(record)


def serve() -> None:
    """Serve one client on stdin and stdout until it says exit."""
    handler = logging.StreamHandler()  # stderr, which editors show as the server's log
    handler.setFormatter(_LogFormat("l0 lsp: %(levelname)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    server.start_io()
