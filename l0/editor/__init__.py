"""Editor support (docs/tools.md): the language server `l0 lsp` (`document` answers
about one program, `server` speaks the protocol with pygls, imported only when the
server starts) and the Pygments lexer of L0 (`pygments_lexer`)."""
