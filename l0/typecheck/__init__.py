"""The L0 type checker: types, aliasing and uniqueness (docs/reference.md §3 and 4, thesis 3).

    check_program(prog, *, inhibit_uniqueness=False) -> None
    check_expression(prog, params, exp) -> Type     (an entry of `l0 repl`)

annotate the AST in place: every `Exp.type`, every pattern node's `type`, and the
`param_types`/`ret_type`/`shim` of every functional argument of a SOAC (what they
mean precisely: Note [FunArg annotations] in `soacs.py`). Errors are `L0Error`s
whose kinds are listed in `errors.KINDS` and explained in `docs/errors.md`.

Modules: `checker` (the driver and scalar expressions), `arrays`, `soacs`,
`bindings` (let, let-with, loop), `calls` (calls, function bodies, returns),
`functions` (definitions, programs), `result` (what checking yields); the uniqueness
machinery is `aliases` (alias sets), `consumption` (occurrences and the sequence
discipline, 4.5) and `env` (scopes, alias keys, the uniqueness floor); `builtins`
and `errors` are the tables. Where we deliberately differ from the 2014 checker, the
module concerned says so (search for "original").
"""

from l0.typecheck.functions import check_expression, check_program, program_errors

__all__ = ["check_expression", "check_program", "program_errors"]
