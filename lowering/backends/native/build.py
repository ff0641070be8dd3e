"""`l0 compile`: an L0 program as a native executable that runs `main` like `l0-run`.

    soac IR (from the driver, l0/cli/compile.py) --l0.lowering.pipeline.lower--> scf IR
           --l0.lowering.llvm--> LLVM IR --O3, host CPU--> object code (llvmlite)
    runtime.c + the program's tables (generated here) --cc--> + object --> executable

The object code is what the JIT would run (the same emitter, the same O3 pipeline,
`entries=["main"]`), compiled position-independent for the host CPU. `runtime.c`
does in C what `l0-run` does in Python around the call: it reads `main`'s arguments
from stdin, fills the 8-byte slots of `l0.entry.main` (`lowering/runtime/abi.py`), prints
the result byte for byte as `l0-run` does, and reports run-time errors with the same
text and exit status. What it must know of the program is generated as C tables
(`_tables`): the flattened argument types, the IR signature of `main`, the printed
components of its result, the error sites and the trace sites.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import llvmlite.binding as llvm
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute

from l0.diagnostics import L0Error, format_error
from l0.lowering.llvm import emit_module
from l0.lowering.runtime import abi
from l0.targets import DEFAULT, Target
from l0.targets import target as as_target
from l0.types import ArrayType, Basic, BasicType, TupleType, Type, flatten, needs_cert
from l0.values.arguments import consumed_arguments

KIND_CODES = {Basic.INT: 0, Basic.REAL: 1, Basic.BOOL: 2, Basic.CHAR: 3, Basic.CERT: 4}
_PLACE = "\x00"  # stands for the message in a rendered error, split off around it


class BuildError(Exception):
    """The executable could not be made (no C compiler, the C compiler failed)."""


@dataclass
class CompiledMain:
    """A program's `main` as object code, with what the C runtime needs to call it."""

    object_code: bytes
    tables: str  # the C tables of `_tables`
    params: list[Type]  # main's parameter types in the source
    ret: Type
    ir_inputs: list[Attribute]  # main's IR signature (memrefs and scalars)
    ir_outputs: list[Attribute]
    threads: bool = False  # calls libgomp (runtime.c's L0_MULTICORE part, -lgomp)


def compile_main(module: ModuleOp, params: Sequence[Type], ret: Type, *,
                 fast_math: bool = False, target: str | Target = DEFAULT) -> CompiledMain:
    """Compile `main` of the soac-level `module` (optimised or not, as the driver chose),
    whose source parameter and result types are `params` and `ret`, down to the object
    code of `l0.entry.main`, as the JIT compiles it for `l0-run --backend` `target` (a
    record of `l0.targets` whose `executable` is set, or its name). On a back end that
    takes threads, the thread count is chosen at run time (`runtime.c`)."""
    from l0.lowering.pipeline import lower

    backend = as_target(target)
    lowered = lower(module, entries=["main"], target=backend)
    main_op = next(f for f in lowered.ops
                   if isinstance(f, func.FuncOp) and f.sym_name.data == "main")
    tm = _target_machine()
    emitted = emit_module(lowered, fast_math=fast_math, entries=["main"],
                          triple=llvm.get_process_triple(), data_layout=str(tm.target_data),
                          target=backend)
    mod = llvm.parse_assembly(str(emitted.llvm))
    mod.verify()
    from l0.lowering.backends.jit import _optimise  # the JIT's O3 pipeline, the same code

    _optimise(mod, tm)
    ir_inputs = list(main_op.function_type.inputs.data)
    ir_outputs = list(main_op.function_type.outputs.data)
    tables = _tables(params, ret, ir_inputs, ir_outputs, emitted.errors)
    return CompiledMain(_object_code(tm, mod), tables, list(params), ret, ir_inputs,
                        ir_outputs, backend.threads)


def _object_code(tm: llvm.TargetMachine, mod: llvm.ModuleRef) -> bytes:
    """Machine code for `mod` as an ELF object (a stage of `l0 compile -v`)."""
    return bytes(tm.emit_object(mod))


def runtime_source() -> str:
    """The C runtime (`runtime.c`, shipped with the package)."""
    return resources.files("l0.lowering.backends.native").joinpath("runtime.c").read_text("utf-8")


def build_executable(module: ModuleOp, params: Sequence[Type], ret: Type,
                     output: str | os.PathLike[str], *, fast_math: bool = False,
                     target: str | Target = DEFAULT) -> None:
    """Compile `main` of the soac-level `module` (source types `params` -> `ret`) to the
    executable `output` for back end `target` (as `compile_main`). Raises
    `BuildError` when there is no C compiler or linking fails."""
    cc = find_cc()
    compiled = compile_main(module, params, ret, fast_math=fast_math, target=target)
    link(cc, compiled, os.fspath(output), [])


def link(cc: str, compiled: CompiledMain, output: str, flags: Sequence[str]) -> None:
    """Link the runtime, the program's tables and its object code into `output` (with
    libgomp for code on threads, as the JIT loads it: `l0.lowering.runtime.openmp_runtime`)."""
    omp = (["-DL0_MULTICORE"], ["-lgomp"]) if compiled.threads else ([], [])
    with tempfile.TemporaryDirectory(prefix="l0-compile-") as tmp:
        obj = Path(tmp, "program.o")
        obj.write_bytes(compiled.object_code)
        c_file = Path(tmp, "main.c")
        c_file.write_text(runtime_source() + "\n" + compiled.tables, encoding="utf-8")
        command = [cc, "-O2", "-std=gnu11", *flags, *omp[0], "-o", _not_an_option(output),
                   str(c_file), str(obj), *omp[1], "-lm", "-lpthread"]
        _run_cc(command)


def _not_an_option(path: str) -> str:
    """`path` as the C compiler cannot read it as an option: gcc takes `-o -lead` as
    `-o` with the library `-lead` (writing `--library=ead`), so `./-lead`."""
    return os.path.join(".", path) if path.startswith("-") else path


def _run_cc(command: list[str]) -> None:
    """Run the C compiler (a stage of `l0 compile -v`); BuildError if it fails."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BuildError(f"the C compiler failed ({' '.join(command)}):\n"
                         f"{done.stderr.strip()}")


def find_cc() -> str:
    """The C compiler: `$CC`, or `cc`, found on PATH."""
    name = os.environ.get("CC", "cc")
    path = shutil.which(name)
    if path is None:
        raise BuildError(f"no C compiler found: `{name}` is not on PATH (install one, e.g. "
                         "gcc or clang, or name it with the CC environment variable)")
    return path


def _target_machine() -> llvm.TargetMachine:
    """The host CPU with all its features at opt level 3, position-independent code
    (the executable runs where it was compiled, as a `-march=native` build does)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
        opt=3, reloc="pic", codemodel="default",
    )


# --------------------------------------------------------------------------- C tables


def _c_string(s: str) -> str:
    out = []
    for byte in s.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\' or not 0x20 <= byte < 0x7F or ch == "?":
            out.append(f"\\{byte:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _kind_rank(t: BasicType | ArrayType) -> tuple[int, int]:
    if isinstance(t, BasicType):
        return KIND_CODES[t.kind], 0
    elem = t.elem
    assert isinstance(elem, BasicType), f"a flattened type was expected, got {t}"
    return KIND_CODES[elem.kind], t.rank


def _elem_size(t: Attribute) -> int:
    if not isinstance(t, MemRefType):
        return 8
    elem = t.get_element_type()
    if isinstance(elem, IntegerType):
        return max(1, elem.bitwidth // 8)
    if isinstance(elem, Float32Type):
        return 4
    if isinstance(elem, Float64Type | IndexType):
        return 8
    return 1


def static_offset(t: Attribute) -> int:
    if not isinstance(t, MemRefType):
        return 0
    from l0.lowering.llvm.types import layout_of

    return layout_of(t).offset or 0


def _row(*fields: object) -> str:
    """One initialiser of a C struct: `{a, b, c}`."""
    return "{" + ", ".join(map(str, fields)) + "}"


def _table(ctype: str, name: str, rows: list[str]) -> str:
    body = ",\n    ".join(rows) if rows else "{0}"
    return (f"const {ctype} {name}[] = {{\n    {body}\n}};\n"
            f"const int {name.replace('L0_', 'L0_N', 1)} = {len(rows)};\n")


def printed_components(t: Type) -> list[BasicType | ArrayType | None]:
    """The printed items of a result of type `t` (`l0.values.printer`): its flattened
    components, `None` for the `Checked` an array of tuples prints first."""
    if isinstance(t, BasicType):
        return [t]
    if isinstance(t, TupleType):
        return [c for e in t.elems for c in printed_components(e)]
    comps = flatten(t)
    if isinstance(t, ArrayType) and isinstance(t.elem, TupleType) and len(comps) != 1:
        return [None, *comps]
    return list(comps)


def _tables(params: Sequence[Type], ret: Type, ir_inputs: Sequence[Attribute],
            ir_outputs: Sequence[Attribute], errors: abi.ErrorTable) -> str:
    from l0.lowering.loop_ir import trace

    inputs = [c for t in params for c in flatten(t)]
    rows_in = [_row(*_kind_rank(c)) for c in inputs]

    # IR parameters: a certificate before every parameter that needs one, then its values.
    sources: list[int] = []
    groups: list[str] = []
    pos = 0
    for number, t in enumerate(params, 1):
        n = len(flatten(t))
        if needs_cert(t):
            sources.append(-1)
        sources.extend(range(pos, pos + n))
        groups.extend(_groups(t, number, pos))
        pos += n
    assert len(sources) == len(ir_inputs), "main's IR signature does not match its type"
    rows_param = []
    # Only what main may update in place is copied again before each `-r` run.
    consumed = consumed_arguments(params)
    for src, ir_t, unique in zip(sources, ir_inputs, consumed, strict=True):
        kind, rank = (_kind_rank(inputs[src]) if src >= 0 else (KIND_CODES[Basic.CERT], 0))
        rows_param.append(_row(src, kind, rank, _elem_size(ir_t), int(unique),
                               static_offset(ir_t)))

    first = 1 if needs_cert(ret) else 0
    printed = printed_components(ret)
    components = [c for c in printed if c is not None]
    assert len(components) == len(ir_outputs) - first, "main's IR results do not match"
    rows_res = []
    for k, ir_t in enumerate(ir_outputs):
        kind, rank = (_kind_rank(components[k - first]) if k >= first
                      else (KIND_CODES[Basic.CERT], 0))
        rows_res.append(_row(kind, rank, _elem_size(ir_t)))
    order: list[str] = []
    next_result = first
    for c in printed:
        if c is None:
            order.append("-1")
        else:
            order.append(str(next_result))
            next_result += 1

    rows_err = []
    for error_id, site in sorted(errors.sites.items()):
        from l0.lowering.backends.jit import parse_loc

        rendered = format_error(L0Error(parse_loc(site.loc), _PLACE, "runtime-error"))
        prefix, suffix = rendered.split(_PLACE, 1)
        rows_err.append(_row(error_id, _c_string(prefix), _c_string(site.message),
                             _c_string(suffix)))
    rows_trace = []
    for site_id, (loc, t) in sorted(trace.SITES.items()):
        rows_trace.append(_row(site_id, _c_string(loc), *_kind_rank(t)))

    return "".join([
        "/* The program's tables, generated by lowering/backends/native/build.py. */\n",
        _table("l0_type", "L0_INPUTS", rows_in),
        _table("l0_param", "L0_PARAMS", rows_param),
        _table("l0_result", "L0_RESULTS", rows_res),
        _table("int", "L0_PRINTED", order),
        _table("l0_group", "L0_GROUPS", groups),
        _table("l0_error_site", "L0_ERRORS", rows_err),
        _table("l0_trace_site", "L0_TRACES", rows_trace),
        f"const int L0_CTX_SIZE = {errors.ctx_size};\n",
        # the messages of allocations of {0} bytes, at whichever site (`abi.SIZE_MESSAGES`)
        f"const char *const L0_OUT_OF_MEMORY = {_c_string(abi.OUT_OF_MEMORY)};\n",
        f"const char *const L0_NO_STACK_ROOM = {_c_string(abi.NO_STACK_ROOM)};\n",
    ])


def _groups(t: Type, number: int, first: int) -> list[str]:
    """The arrays of tuples within parameter `number` whose components must agree in
    outer shape (`l0.values.arguments.check_arguments`), as C table rows."""
    if isinstance(t, TupleType):
        rows: list[str] = []
        pos = first
        for e in t.elems:
            rows.extend(_groups(e, number, pos))
            pos += len(flatten(e))
        return rows
    n = len(flatten(t))
    if not isinstance(t, ArrayType) or not isinstance(t.elem, TupleType) or n < 2:
        return []
    return [_row(number, first, n, t.rank, _c_string(str(t)))]
