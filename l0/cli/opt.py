"""`l0-opt`: read soac IR (`.mlir`) or an L0 program (`.l0`), run passes, print the IR.

    l0-opt [-p PIPELINE | --pass-pipeline=PIPELINE] [-O] [options] [FILE]

Built on xDSL's `xDSLOptMain` (so `--split-input-file`, `--verify-diagnostics`,
`--parsing-diagnostics`, `--print-op-generic`, `--print-between-passes`, `-o` work as in
`xdsl-opt`; the options that do nothing for l0 are dropped), restricted to l0's
dialects and to the passes of `l0.passes.PASSES` and `l0.lowering.LOWERINGS`. A `.l0`
file goes through the front end and internalisation (`l0.frontend.l0_to_module`).
The module is verified before the first pass and after every pass. `-O` runs the
default pipeline (`l0.passes.pipeline`, what `l0-run` does) after the passes of `-p`,
that of `--target`'s back end (`--target=gpu -O` recomputes transcendental functions
more readily: Note [One pipeline per target]).
`--time-passes` (`-v`, `--verbose`) reports on stderr, so that stdout stays the IR; `-V`
(`--version`) prints the version.

Output (`-t`): `mlir`, the IR, or `llvm-ir`, LLVM IR as the CPU back end emits it; for
`llvm-ir` the lowering passes the IR still needs (`bufferise`, `convert-soac-to-scf`,
`dealloc`, as `l0.lowering.pipeline` runs them) run after the requested ones, unless
`-t 'llvm-ir{lower=false}'`; `optimize=true` prints it after LLVM's O3 pipeline and
`fast-math=true` sets fast-math flags (`LlvmIrTarget`). `--target` picks the back end
the lowering is for (`cpu`, the default; `multicore`; `gpu`): with `--target=gpu`,
`-t llvm-ir` prints the kernels as NVPTX LLVM IR and `-t ptx` their PTX (`PtxTarget`;
`-t ptx` alone implies `--target=gpu`). xDSL's `--target`, a second name of `-t`, is
l0-opt's back-end option instead.

Errors never show a Python traceback: an error in an L0 program prints as
`FILE:LINE:COL: error: message`, malformed IR (parse or verify error), an unknown pass
or an unreadable file print a message (with a location where xDSL has one); all exit
with status 2. A crash inside l0 is an internal error, status 3 (`l0.cli.guard`).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from typing import IO, ClassVar, TypeVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.universe import Universe
from xdsl.utils.arg_spec import parse_pipeline, parse_spec
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
    VerifyException,
)
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from l0.cli.guard import EXIT_OK, EXIT_USER_ERROR, run_guarded
from l0.diagnostics import L0Error, Loc
from l0.dialects.context import dialect_loaders
from l0.passes import PASSES, describe_passes
from l0.targets import DEFAULT, at_own_level, names
from l0.targets import TARGETS as BACK_ENDS
from l0.targets import Target as BackEnd

PROG = "l0-opt"
T = TypeVar("T")

TARGETS = ("mlir",)
BACKEND_TARGETS = names(opt=True)
"""`--target`: the back ends l0-opt lowers for (`l0.targets`)."""
"""xDSL's output formats (`-t`) l0-opt offers: the IR itself. (xDSL's `llvm` translates
only the llvm dialect, which l0 never produces; `llvm-ir` is ours.)"""

DROPPED_OPTIONS = {"print_debuginfo": False, "shrink": False}
"""xdsl-opt options that do nothing here, removed from the command line, with the value
xDSL's driver reads: l0's ops carry no debug locations (they print `loc(unknown)`;
source locations are attributes), and no l0 pass raises xDSL's `ShrinkException`."""

HELP = {
    "frontend": "how to read the input (default: by its extension; stdin is mlir)",
    "disable_verify": "do not verify the IR before and after each pass",
    "target": "output: mlir (the IR, the default) or llvm-ir (LLVM IR, after running the "
    "lowering passes the IR still needs); options in braces: 'llvm-ir{lower=false}' emits "
    "loop-level IR as it is, optimize=true prints the module after LLVM's O3 pipeline, "
    "fast-math=true adds fast-math flags; ptx: the PTX of the kernels (the gpu back end), "
    "'ptx{arch=sm_90}' for another GPU architecture than sm_80",
    "passes": "passes to run, comma-separated, options in braces: 'a,b{opt=1},c' "
    "(listed below)",
    "time_passes": "print the time each pass took to stderr",
    "version": "print the version and exit",
}
"""Help of inherited options whose xDSL text is wrong or missing for l0-opt."""


class UsageError(Exception):
    """A bad command line or pipeline: printed as `l0-opt: error: ...`, exit status 2."""


@dataclass(frozen=True)
class LlvmIrTarget(Target):
    """`-t llvm-ir`: LLVM IR as the CPU back end emits it. Options (`-t 'llvm-ir{...}'`):

    * `lower` (default true): first run the lowering passes the IR still needs
      (`apply_passes`); `lower=false` emits the IR as it is, which must then be at the
      loop level. It matters where the level is ambiguous: IR with checks
      (`soac.assert`) but no arrays is taken for soac IR, and then `bufferise` adds
      the checks of `trunc`;
    * `optimize` (default false): print the module after LLVM's O3 pipeline, as the
      JIT compiles it, instead of as emitted;
    * `fast-math` (default false): fast-math flags on the float operations.
    """

    name = "llvm-ir"
    lower: bool = True
    optimize: bool = False
    fast_math: bool = False
    gpu: ClassVar[bool] = False


    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if self.gpu and getattr(self, "host", False):
            from l0.lowering.backends.gpu import host_llvm_ir

            text = host_llvm_ir(module, fast_math=self.fast_math, optimize=self.optimize)
            output.write(text if text.endswith("\n") else text + "\n")
            return
        if self.gpu:
            from l0.lowering.llvm.ptx import nvptx_module

            mod, _, _ = _gpu_tool(lambda: nvptx_module(module, fast_math=self.fast_math,
                                                        optimize=self.optimize))
            text = str(mod)
            output.write(text if text.endswith("\n") else text + "\n")
            return
        # The IR's level, not the back end: omp regions, wherever they came from (`-p
        # convert-parallel-to-omp` on any --target), are emitted as multicore's code,
        # calling libgomp for its default thread count; loop-level IR without them, as
        # the sequential back end's, for one thread.
        emitted_as = _own_level(module) or DEFAULT
        if self.optimize:
            from l0.lowering.backends.jit import optimized_llvm_ir

            text = optimized_llvm_ir(module, fast_math=self.fast_math, target=emitted_as)
        else:
            from l0.lowering.llvm import print_llvm_ir

            text = print_llvm_ir(module, fast_math=self.fast_math, target=emitted_as)
        output.write(text if text.endswith("\n") else text + "\n")


@dataclass(frozen=True)
class GpuLlvmIrTarget(LlvmIrTarget):
    """`--target=gpu -t llvm-ir`: the kernels of a gpu-level module as NVPTX LLVM IR
    (`optimize=true`: with libdevice linked in, after O3, as PTX is made from it);
    `host=true`: the host functions instead, calling the CUDA driver."""

    gpu: ClassVar[bool] = True
    host: bool = False


@dataclass(frozen=True)
class PtxTarget(Target):
    """`-t ptx`: the PTX of the kernels of a gpu-level module, for `arch` (default
    `sm_80`); `fast-math=true` as for llvm-ir."""

    name = "ptx"
    lower: bool = True
    arch: str = "sm_80"
    fast_math: bool = False

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from l0.lowering.llvm.ptx import compile_ptx

        ptx = _gpu_tool(lambda: compile_ptx(module, arch=self.arch, fast_math=self.fast_math))
        output.write(ptx.text if ptx.text.endswith("\n") else ptx.text + "\n")


def _gpu_tool(make: Callable[[], T]) -> T:
    """Run `make`; a missing CUDA file (libdevice) or IR that is not gpu-level is a usage
    error, printed as one line."""
    from l0.lowering.llvm.ptx import GpuToolMissing

    try:
        return make()
    except GpuToolMissing as err:
        raise UsageError(str(err)) from None

class L0OptMain(xDSLOptMain):
    """xDSL's opt driver with l0's dialects, front end, passes and error reporting."""

    version_format = f"{PROG} {version('l0')} (xdsl {{xdsl_version}})"

    # -- registration ----------------------------------------------------------------

    def register_all_dialects(self) -> None:
        # each loaded only when the IR uses it
        for name, load in dialect_loaders().items():
            self.ctx.register_dialect(name, load)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        self.available_frontends["l0"] = self._parse_l0

    def register_all_passes(self) -> None:
        from l0.lowering import LOWERINGS

        for name, factory in (PASSES | LOWERINGS).items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        targets = Universe.get_multiverse().all_targets
        for name in TARGETS:
            if name in targets:
                self.available_targets[name] = targets[name]
        self.available_targets[LlvmIrTarget.name] = lambda: (
            GpuLlvmIrTarget if self._backend().device else LlvmIrTarget)
        self.available_targets[PtxTarget.name] = lambda: PtxTarget

    def _backend(self) -> BackEnd:
        """The back end of `--target` (`-t ptx` implies the one with a device)."""
        if parse_spec(self.args.target).name == PtxTarget.name:
            return next(t for t in BACK_ENDS.values() if t.opt and t.device)
        return BACK_ENDS[self.args.backend]

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.prog = PROG
        _drop_options(arg_parser, DROPPED_OPTIONS)
        _rename_option(arg_parser, "--target")
        # -v is verbose, -V the version, as in l0-run and l0 (xDSL's -v is --version)
        _rename_option(arg_parser, "-v")
        _add_option_strings(arg_parser, "--version", "-V")
        _add_option_strings(arg_parser, "--time-passes", "-v", "--verbose")
        arg_parser.add_argument(
            "--target",
            dest="backend",
            choices=BACKEND_TARGETS,
            default=DEFAULT.name,
            help="the back end to optimise (-O) and lower for: "
            + ", ".join(f"{t.name} = {t.help}" for t in BACK_ENDS.values() if t.opt)
            + f" (default: {DEFAULT.name}); for one with a GPU, -t llvm-ir prints the "
            "kernels' NVPTX IR, -t ptx their PTX",
        )
        for action in arg_parser._actions:
            if action.dest in HELP:
                action.help = HELP[action.dest]
        arg_parser.add_argument(
            "--pass-pipeline",
            dest="passes",
            default=argparse.SUPPRESS,
            metavar="PIPELINE",
            help="same as -p: comma-separated passes, options in braces: 'a,b{opt=1},c'",
        )
        arg_parser.add_argument(
            "-O",
            dest="optimise",
            action="store_true",
            help="after the passes of -p, run the default pipeline of --target's back "
            "end to a fixed point (what l0-run does; l0.passes.pipeline)",
        )
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        _list_passes_in_help(arg_parser)

    # -- input -------------------------------------------------------------------------

    def _parse_l0(self, io: IO[bytes]) -> ModuleOp:
        from l0.frontend import l0_to_module  # the front end only when a .l0 is read

        name = self.get_input_name()
        try:
            text = io.read().decode("utf-8")
        except UnicodeDecodeError as err:
            raise L0Error(Loc(name, 1, 1), f"expected UTF-8 text, found byte "
                          f"{err.object[err.start]:#04x} at offset {err.start}",
                          "lexical-error") from None
        return l0_to_module(text, name)

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        try:
            return super().prepare_input()
        except ValueError:  # xDSL's "Unrecognized file extension"
            ext = os.path.splitext(self.args.input_file or "")[1] or "(none)"
            known = " or ".join(f".{e}" for e in self.available_frontends)
            raise UsageError(f"expected an input file ending in {known} (or -f l0|mlir), "
                             f"found extension {ext}") from None
        except OSError as err:
            raise UsageError(f"cannot read '{err.filename}': {err.strerror}") from None

    def parse_chunk(self, chunk: IO[bytes], file_extension: str,
                    start_offset: int = 0) -> ModuleOp | None:
        try:
            return super().parse_chunk(chunk, file_extension, start_offset)
        except L0Error as err:
            err = _shift_lines(err, start_offset)  # a chunk of --split-input-file
            if self.args.parsing_diagnostics or self.args.verify_diagnostics:
                print(err.render())
                return None
            raise err from None

    # -- passes ------------------------------------------------------------------------

    def setup_pipeline(self) -> None:
        """Parse `-p` into passes; unknown names and bad options (of passes or of the
        target) are usage errors."""
        try:
            specs = list(parse_pipeline(self.args.passes))
        except ArgSpecParseError as err:
            raise UsageError(str(err)) from None
        unknown = [s.name for s in specs if s.name not in self.available_passes]
        if unknown:
            raise UsageError(
                f"unknown pass '{unknown[0]}'; expected one of: "
                f"{', '.join(sorted(self.available_passes))}"
            )
        passes: list[ModulePass] = []
        for spec in specs:
            try:
                passes.append(self.available_passes[spec.name]().from_pass_spec(spec))
            except Exception as err:  # xDSL reports bad options with assorted exceptions
                raise UsageError(f"bad options for pass '{spec.name}': {err}") from None
        self._target()  # so that bad options fail before any work
        if self.args.optimise:
            from l0.passes.pipeline import OptimisePass

            passes.append(OptimisePass(target=self._backend().pipeline))
        self.pipeline = PassPipeline(tuple(passes))

    def _target(self) -> Target:
        """The output target with its options, as `output_resulting_program` builds it."""
        spec = parse_spec(self.args.target)
        try:
            factory = self.available_targets[spec.name]
            return factory().from_spec(spec)  # type: ignore[call-arg,union-attr]  # all `() -> type[Target]` here
        except Exception as err:
            raise UsageError(f"bad options for target '{spec.name}': {err}") from None

    def apply_passes(self, prog: ModuleOp) -> None:
        """Run the pipeline, then the lowerings `-t llvm-ir` needs, verifying the input
        and the IR after every pass."""
        self._verify(prog, None)
        previous: ModulePass | None = None
        for p in self.pipeline.passes:
            self._apply(prog, p, previous)
            previous = p
        target = self._target()
        if isinstance(target, LlvmIrTarget | PtxTarget) and target.lower:
            for p in _lowerings_needed(prog, self.pipeline.passes, self._backend()):
                self._apply(prog, p, previous)
                previous = p
        if self._backend().device and isinstance(target, LlvmIrTarget | PtxTarget):
            from l0.lowering.llvm.nvptx import is_container

            if not is_container(prog):
                raise UsageError("expected a gpu-level module (a gpu.module of kernels) "
                                 f"for --target={self._backend().name}; kernel extraction "
                                 "(convert-parallel-to-gpu) did not make one")

    def _apply(self, prog: ModuleOp, p: ModulePass, previous: ModulePass | None) -> None:
        if self.args.print_between_passes and previous is not None:
            print(f"IR after {previous.name}:")
            Printer(stream=sys.stdout).print_op(prog)
            print("\n\n\n")
        start = time.perf_counter()
        p.apply(self.ctx, prog)
        if self.args.time_passes:  # on stderr: stdout is the IR
            print(f"Pass {p.name} took {time.perf_counter() - start} seconds",
                  file=sys.stderr)
        self._verify(prog, p)

    def _verify(self, prog: ModuleOp, after: ModulePass | None) -> None:
        if self.args.disable_verify:
            return
        try:
            prog.verify()
        except VerifyException as err:
            if after is None:
                raise
            # the input verified, so the pass broke it: say which one
            blamed = VerifyException(f"the IR does not verify after pass '{after.name}' "
                                     f"(a bug in that pass): {err}")
            for note in getattr(err, "__notes__", []):
                blamed.add_note(note)
            raise blamed from None


def _lowerings_needed(prog: ModuleOp, ran: Sequence[ModulePass],
                      backend: BackEnd = DEFAULT) -> list[ModulePass]:
    """The lowering passes to run before emitting LLVM IR: those of `backend` (its
    record's `lowerings`, `l0.targets`) after the last one the pipeline ran, or, if it
    ran none, those the level of `prog` still needs (for loop-level IR, which may come
    without `dealloc`, only the back end's `own_lowerings`). Lowerings no back end runs
    (`l0.lowering.OFF_PIPELINE`) run only when asked for. Gpu-level and omp-level IR
    need nothing more."""
    from l0.lowering import LOWERINGS, OFF_PIPELINE
    from l0.lowering.llvm.nvptx import is_container

    if is_container(prog) or _own_level(prog) is not None:
        return []
    order = [name for name in backend.lowerings if name not in OFF_PIPELINE]
    done = [order.index(p.name) for p in ran if p.name in order]
    stage = _lowering_stage(prog)
    if done:
        start = max(done) + 1
    elif stage < LOOP_LEVEL:
        start = stage
    else:  # loop-level IR: only the back end's own lowerings
        start = min([order.index(name) for name in backend.own_lowerings if name in order],
                    default=len(order))
    from l0.lowering.pipeline import segmenting, target_options

    passes: list[ModulePass] = []
    for name in order[start:]:
        segment = segmenting(backend) if name == "convert-soac-to-scf" else None
        if segment is not None:  # as `lower` runs it
            passes.append(segment)
        passes.append(LOWERINGS[name]()(**target_options(backend, name)))
    return passes


def _own_level(prog: ModuleOp) -> BackEnd | None:
    """The back end at whose own level `prog` is (its record's `own_ops`: omp regions),
    or None."""
    return at_own_level(op.name for op in prog.walk())


LOOP_LEVEL = 3
"""`_lowering_stage` of loop-level IR."""


def _lowering_stage(prog: ModuleOp) -> int:
    """How many lowering passes `prog` has been through: 0 for soac IR (tensors), 1 for
    bufferised IR (msoac ops), 3 for loop-level IR."""
    stage = LOOP_LEVEL
    for op in prog.walk():
        if op.name.startswith("msoac."):
            stage = 1
        types = [*op.result_types, *(a.type for r in op.regions for b in r.blocks
                                     for a in b.args)]
        if isinstance(op, func.FuncOp):  # declarations have no block arguments
            types += [*op.function_type.inputs.data, *op.function_type.outputs.data]
        if op.name.startswith("soac.") or any(isinstance(t, TensorType) for t in types):
            return 0
    return stage


def _rename_option(arg_parser: argparse.ArgumentParser, option: str) -> None:
    """Take the name `option` away from the option that has it (which keeps its others)."""
    action = arg_parser._option_string_actions.pop(option)
    action.option_strings = [o for o in action.option_strings if o != option]


def _add_option_strings(arg_parser: argparse.ArgumentParser, option: str,
                        *more: str) -> None:
    """Give the option named `option` the further names `more`, first."""
    action = arg_parser._option_string_actions[option]
    action.option_strings = [*more, *action.option_strings]
    for name in more:
        arg_parser._option_string_actions[name] = action


def _drop_options(arg_parser: argparse.ArgumentParser, defaults: Mapping[str, object]) -> None:
    """Remove the options whose `dest` is in `defaults`, which then give their values."""
    for action in list(arg_parser._actions):
        if action.dest in defaults:
            arg_parser._remove_action(action)
            for group in arg_parser._action_groups:
                if action in group._group_actions:
                    group._group_actions.remove(action)
            for option in action.option_strings:
                del arg_parser._option_string_actions[option]
    arg_parser.set_defaults(**defaults)


def _list_passes_in_help(arg_parser: argparse.ArgumentParser) -> None:
    """Make `--help` end with the passes and their summaries, imported only then."""
    format_help = arg_parser.format_help

    def format_help_with_passes() -> str:
        from l0.lowering import LOWERINGS

        groups = [("passes (-p / --pass-pipeline)", describe_passes()),
                  ("lowering passes (-p; -t llvm-ir runs those the IR still needs)",
                   describe_passes(LOWERINGS))]
        width = max(len(name) for _, rows in groups for name, _ in rows)
        arg_parser.epilog = "\n\n".join(
            f"{title}:\n" + "\n".join(f"  {name.ljust(width)}  {summary}"
                                      for name, summary in rows)
            for title, rows in groups)
        return format_help()

    setattr(arg_parser, "format_help", format_help_with_passes)  # noqa: B010 (an instance override)


def _shift_lines(err: L0Error, offset: int) -> L0Error:
    if offset == 0:
        return err
    loc = err.loc
    moved = dataclasses.replace(loc, line=loc.line + offset,
                                end_line=loc.end_line + offset if loc.end_line else 0)
    return L0Error(moved, err.message, err.kind)


def _render_parse_error(err: ParseError) -> str:
    """`FILE:LINE:COL: error: message` and the offending line with carets."""
    context = err.span.print_with_context().split("\n", 1)[1].rstrip("\n")
    text = f"{err.span.get_location()}: error: {err.msg}\n{context}"
    if isinstance(err, MultipleSpansParseError):
        if err.ref_text is not None:
            text += "\n" + err.ref_text.rstrip("\n")
        for span, msg in err.refs:
            text += "\n" + span.print_with_context(msg).rstrip("\n")
    return text


def _render_diagnostic(err: DiagnosticException) -> str:
    """`l0-opt: error: message`, then xDSL's notes (the IR with the culprit marked)."""
    notes = "".join("\n" + note.rstrip("\n") for note in getattr(err, "__notes__", []))
    return f"{PROG}: error: {err}{notes}"


def _opt(argv: Sequence[str] | None) -> int:
    if list(sys.argv[1:] if argv is None else argv) == ["-v"]:
        # `l0-opt -v` alone printed the version before -v meant verbose: it still does
        print(L0OptMain.version_format.format(xdsl_version=version("xdsl")))
        print(f"{PROG}: note: -v is --verbose (the time of each pass); -V or --version "
              "prints the version", file=sys.stderr)
        return EXIT_OK
    try:
        L0OptMain(description="Run l0 passes on soac IR (.mlir) or an L0 program (.l0) "
                  "and print the resulting IR.", args=argv).run()
    except UsageError as err:
        message = f"{PROG}: error: {err}"
    except ArgSpecParseError as err:  # a malformed -t (xDSL parses it before setup_pipeline)
        message = f"{PROG}: error: {err}"
    except ParseError as err:
        message = _render_parse_error(err)
    except DiagnosticException as err:
        message = _render_diagnostic(err)
    else:
        return EXIT_OK
    sys.stdout.flush()
    print(message, file=sys.stderr)
    return EXIT_USER_ERROR


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `l0-opt` console script."""
    sys.exit(run_guarded(lambda: _opt(argv), what=PROG))


if __name__ == "__main__":
    main()
