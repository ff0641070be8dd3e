"""The language server `l0 lsp` (docs/tools.md): `document` answers about one program,
`server` speaks the protocol (pygls, imported only when the server starts)."""
