"""The default pipeline (`l0.passes.pipeline`): its passes, its fixed point, its speed,
its error reports, and the `-O`/`-O0` switches of `l0-run`, `l0-opt` and the API."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass

from l0.api import BACKENDS, CompiledProgram, pipeline_target
from l0.bigstack import call_with_big_stack
from l0.cli.run import build_argparser
from l0.dialects import soac
from l0.dialects.context import l0_context
from l0.frontend import l0_to_module
from l0.passes import PASSES
from l0.passes.pipeline import (
    CHECKS,
    DEFAULT,
    TARGETS,
    PipelineError,
    check,
    default_pipeline,
    module_text,
    optimisation_passes,
    optimise,
    run_pass,
)

# ---------------------------------------------------------------------------------------
# A 350-line program: ten stages of maps, zips, reductions, stencils and in-place loops
# ---------------------------------------------------------------------------------------

_STAGE = """// Stage {k}: maps, zips, reductions, loops with in-place updates, stencils.
fun real abs_{k}(real x) = if x < 0.0 then -x else x

fun [real] matvec_{k}([[real]] a, [real] x) =
  map(fn real ([real] row) => reduce(op +, 0.0, map(op *, zip(row, x))), a)

fun [real] forward_{k}([[real]] l, [real] b) =
  let n = size(0, b) in
  let y = copy(b) in
  loop (y) = for i < n do
    let s = loop (s = 0.0) = for j < i do s + l[i, j] * y[j] in s in
    let y[i] = (y[i] - s) / 4.0 in
    y
  in y

fun [[real]] step_{k}([[real]] g) =
  let n = size(0, g) in
  let m = size(1, g) in
  map(fn [real] (int i) =>
        map(fn real (int j) =>
              g[i, j] * 0.25 + g[(i + 1) % n, j] * 0.5 + g[i, (j + 1) % m] * 0.25,
            iota(m)),
      iota(n))

fun real norm_{k}([real] x) =
  let y = map(fn real (real v) => v * v, x) in
  let m = reduce(op +, y[0], y) in
  m / toReal(size(0, y))

fun [real] stage_{k}([[real]] a, [real] b) =
  let g = step_{k}(a) in
  let x = forward_{k}(g, b) in
  let r = map(op -, zip(matvec_{k}(g, x), b)) in
  let s = norm_{k}(r) in
  let t = transpose(g) in
  let c = map(fn real ([real] col) => reduce(op +, 0.0, col), t) in
  map(fn real (real v, real w) => (abs_{k}(v) + w) / (1.0 + s + abs_{k}(w)), zip(x, c))
"""


def big_program(stages: int = 9) -> str:
    """About 40 lines per stage, plus `main` chaining the stages."""
    parts = [_STAGE.format(k=k) for k in range(stages)]
    body = "".join(f"  let x{k + 1} = stage_{k}(a, x{k}) in\n" for k in range(stages))
    main = f"fun [real] main([[real]] a, [real] b) =\n  let x0 = b in\n{body}  x{stages}\n"
    return "\n".join(parts) + "\n" + main


BIG_INPUT = "[[1.0, 2.0, 0.5], [3.0, 4.0, 1.5], [0.25, 1.0, 2.0]] [1.0, 2.0, 3.0]"


def test_big_program_has_350_lines() -> None:
    assert len(big_program().splitlines()) >= 350


def test_default_pipeline_on_350_lines_runs() -> None:
    # Its speed is measured by `python -m benchmarks.compile_time`, not asserted here.
    module = call_with_big_stack(lambda: l0_to_module(big_program(), "big.l0"))
    call_with_big_stack(lambda: optimise(module, verify=True))


def test_optimised_big_program_computes_the_same() -> None:
    plain = CompiledProgram(big_program(), "big.l0", "interp", optimise=False)
    optimised = CompiledProgram(big_program(), "big.l0", "interp")
    assert optimised.run_main(BIG_INPUT) == plain.run_main(BIG_INPUT)
    assert "nan" not in plain.run_main(BIG_INPUT).lower()


# ---------------------------------------------------------------------------------------
# The list of passes and the fixed point
# ---------------------------------------------------------------------------------------


def test_default_passes_are_registered() -> None:
    missing = [name for name in DEFAULT if name not in PASSES]
    assert not missing, f"passes of the default pipeline not in the registry: {missing}"
    assert [spec.split("{")[0] for spec in default_pipeline()] == list(DEFAULT)


def test_each_target_has_its_pipeline() -> None:
    # Note [One pipeline per target]: the passes and their order are the same on every
    # target; the gpu's recomputes transcendental functions as readily as arithmetic,
    # the cpu's interchanges only folds of one-hot rows (`iswim`), multicore's runs the
    # defaults.
    assert set(TARGETS) == {"cpu", "multicore", "gpu"}
    assert default_pipeline("multicore") == list(DEFAULT)
    for target, changed in (("gpu", ["inline-map-index{transcendental-weight=1}"]),
                            ("cpu", ["iswim{scalar-rows-only=true}"])):
        pipeline = default_pipeline(target)
        assert [spec.split("{")[0] for spec in pipeline] == list(DEFAULT)
        assert [spec for spec in pipeline if spec not in DEFAULT] == changed
    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        default_pipeline("tpu")
    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        optimise(ModuleOp([]), target="tpu")


_EXP_PROGRAM = """
fun {[[real]], [[real]]} main([real] xs, [real] ys) =
  let v = map(fn [real] (real x) => map(fn real (real y) => exp(log(x) + y), ys), xs) in
  let a = map(fn [real] (int i) =>
                map(fn real (int j) => v[i, j] * 2.0, iota(size(0, ys))),
              iota(size(0, xs))) in
  let b = map(fn [real] (int j) =>
                map(fn real (int i) => v[i, j] + 1.0, iota(size(0, xs))),
              iota(size(0, ys))) in
  {a, b}
"""
"""A map of maps costing an exp and a log per element, read at their positions by two
consumers of different shapes (never merged into one reader, which would recompute it
on every target: Note [The only reader]): recomputed in both by the gpu's `-O`, not by
the cpu's."""


def test_the_target_picks_the_cost_of_exp() -> None:
    def maps(**options: object) -> int:
        module = l0_to_module(_EXP_PROGRAM, "exp.l0")
        optimise(module, verify=True, **options)  # type: ignore[arg-type]
        return sum(isinstance(op, soac.MapOp) for op in module.walk())

    assert call_with_big_stack(lambda: maps(target="gpu")) == 4  # the consumers''s
    assert call_with_big_stack(maps) == call_with_big_stack(lambda: maps(target="cpu")) == 6
    # what the target adds is a pass spec with options, as `optimise` takes any
    names = [p for p in DEFAULT if p != "inline-map-index"]
    assert call_with_big_stack(lambda: maps(names=names)) == 6
    with_weight = [*names, "inline-map-index{transcendental-weight=1}"]
    assert call_with_big_stack(lambda: maps(names=with_weight)) == 4


def test_optimisation_passes_are_the_registered_ones_but_the_checks() -> None:
    assert set(optimisation_passes()) == set(PASSES) - CHECKS
    assert "verify-uniqueness" not in optimisation_passes()
    assert {"size-hindrance", "inline-map-index"} <= set(optimisation_passes())


@pytest.mark.parametrize("source", ["big", "zip"])
def test_default_pipeline_reaches_a_fixed_point(source: str) -> None:
    text = big_program(3) if source == "big" else _ZIP_PROGRAM

    def work() -> tuple[str, int, str]:
        module = l0_to_module(text, f"{source}.l0")
        optimise(module, verify=True)
        once = module_text(module)
        runs = optimise(module, verify=True)
        return once, runs, module_text(module)

    once, runs, twice = call_with_big_stack(work)
    assert twice == once
    assert runs == len(default_pipeline())  # one run of each pass, none changing anything


def _passes_run(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the passes `optimise` runs from now on, in order."""
    import l0.passes.pipeline as pipeline

    ran: list[str] = []
    real = pipeline.run_pass

    def spy(p: ModulePass, module: ModuleOp, ctx: Context, *, verify: bool) -> None:
        ran.append(p.name)
        real(p, module, ctx, verify=verify)

    monkeypatch.setattr(pipeline, "run_pass", spy)
    return ran


def test_passes_known_to_change_nothing_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    # Note [Passes known to change nothing]: no checks, sizes or indexing here, so
    # bounds, size-hindrance and inline-map-index never run; the second simplify of a
    # round in which nothing changed after the first is skipped; run again on the
    # result, each pass runs once.
    text = "fun int main([int] a) = reduce(op +, 0, map(fn int (int x) => x * 2 + 1, a))"
    module = l0_to_module(text, "skip.l0")
    ran = _passes_run(monkeypatch)
    runs = optimise(module, verify=True)
    assert not {"bounds", "size-hindrance", "inline-map-index"} & set(ran)
    assert len(ran) < runs  # the skipped ones are counted as run
    once = module_text(module)
    ran.clear()
    assert optimise(module, verify=True) == len(DEFAULT)
    assert ran == ["inline", "simplify", "rebind", "dce", "iswim", "fuse"]  # once each
    assert module_text(module) == once


def test_unknown_pass_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown pass 'no-such-pass'"):
        optimise(ModuleOp([]), ["size-hindrance", "no-such-pass"])


def test_empty_list_runs_nothing() -> None:
    assert optimise(ModuleOp([]), []) == 0


# ---------------------------------------------------------------------------------------
# Errors: the pass is named and the IR shown
# ---------------------------------------------------------------------------------------


_CONSUMING = """
func.func @f(%p: tensor<?xi64> {soac.unique}, %i: i64) -> (tensor<?xi64> {soac.unique}) {
  %u = soac.update %p[%i] = %i : tensor<?xi64>
  func.return %u : tensor<?xi64>
}
"""


def _parse(text: str) -> ModuleOp:
    return Parser(l0_context(), text).parse_module()


@dataclass(frozen=True)
class _DropReturn(ModulePass):
    """Erase the terminator of every function: the IR no longer verifies."""

    name = "drop-return"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for ret in [o for o in op.walk() if isinstance(o, func.ReturnOp)]:
            ret.detach()
            ret.erase()


@dataclass(frozen=True)
class _UseAfterConsume(ModulePass):
    """Index the array an update consumed, after the update: breaks uniqueness."""

    name = "use-after-consume"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for update in [o for o in op.walk() if isinstance(o, soac.UpdateOp)]:
            use = soac.IndexOp(update.array, list(update.indices), update.value.type)
            assert update.parent is not None
            update.parent.insert_op_after(use, update)


@dataclass(frozen=True)
class _Crash(ModulePass):
    """Raise: a bug inside a pass."""

    name = "crash"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (_DropReturn(), "left IR that does not verify"),
        (_UseAfterConsume(), "broke uniqueness: verify-uniqueness:"),
        (_Crash(), "failed: RuntimeError: boom"),
    ],
)
def test_failing_pass_is_named_with_its_ir(bad: ModulePass, problem: str) -> None:
    module = _parse(_CONSUMING)
    with pytest.raises(PipelineError) as info:
        run_pass(bad, module, l0_context(), verify=True)
    err = info.value
    assert err.pass_name == bad.name
    assert str(err).startswith(f"pass '{bad.name}' {problem}")
    assert f"--- IR after '{bad.name}' ---" in str(err)
    assert "func.func @f" in err.ir


def test_without_verify_a_broken_result_is_not_checked() -> None:
    module = _parse(_CONSUMING)
    run_pass(_UseAfterConsume(), module, l0_context(), verify=False)  # no error


def test_wrong_input_is_blamed_on_the_input() -> None:
    module = _parse(_CONSUMING)
    _UseAfterConsume().apply(l0_context(), module)
    with pytest.raises(PipelineError) as info:
        check(module, l0_context(), None)
    assert info.value.pass_name is None
    assert str(info.value).startswith("the input of the pipeline breaks uniqueness")
    with pytest.raises(PipelineError):
        optimise(module, ["size-hindrance"], verify=True)


# ---------------------------------------------------------------------------------------
# -O and -O0
# ---------------------------------------------------------------------------------------


_ZIP_PROGRAM = """
fun [int] main([int] a, [int] b) =
    let a2 = map(op+(1), a) in
    let b2 = map(op+(2), b) in
    map(op+, zip(a2, b2))
"""


def test_l0_run_optimises_unless_told_not_to() -> None:
    ap = build_argparser()
    assert ap.parse_args(["p.l0"]).optimise is True
    assert ap.parse_args(["-O", "p.l0"]).optimise is True
    assert ap.parse_args(["-O0", "p.l0"]).optimise is False


def test_api_optimises_by_default() -> None:
    plain = CompiledProgram(_ZIP_PROGRAM, "zip.l0", "interp", optimise=False)
    optimised = CompiledProgram(_ZIP_PROGRAM, "zip.l0", "interp")

    def zip_check_sizes(module: ModuleOp) -> list[str]:
        sizes = [o for o in module.walk() if isinstance(o, soac.SizeOp)]
        return sorted(s.array.name_hint or "" for s in sizes)

    assert zip_check_sizes(plain.module) == ["a2", "b2"]
    assert zip_check_sizes(optimised.module) == ["a", "b"]
    assert optimised.run_main("[1, 2] [3, 4]") == plain.run_main("[1, 2] [3, 4]") == "[7, 9]"


def test_api_optimises_for_the_back_ends_target() -> None:
    # gpu-sim runs the gpu back end's kernels: it gets the gpu's -O, the interpreter the
    # cpu's; the results are the same.
    assert [pipeline_target(b) for b in BACKENDS] == ["cpu", "multicore", "cpu", "gpu", "gpu"]
    interp = CompiledProgram(_EXP_PROGRAM, "exp.l0", "interp")
    gpu_sim = CompiledProgram(_EXP_PROGRAM, "exp.l0", "gpu-sim")

    def maps(module: ModuleOp) -> int:
        return sum(isinstance(op, soac.MapOp) for op in module.walk())

    assert (maps(interp.module), maps(gpu_sim.module)) == (6, 4)
    args = "[1.0, 2.0, 3.0] [0.5, -1.0]"
    assert gpu_sim.run_main(args) == interp.run_main(args)


def test_l0_opt_dash_o_runs_the_default_pipeline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from l0.cli.opt import main

    path = tmp_path / "zip.l0"
    path.write_text(_ZIP_PROGRAM, encoding="utf-8")
    for argv, sizes in (([str(path)], "soac.size(0) %a2"), ([str(path), "-O"], "soac.size(0) %a ")):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 0
        assert sizes in capsys.readouterr().out
    exp = tmp_path / "exp.l0"
    exp.write_text(_EXP_PROGRAM, encoding="utf-8")
    for target, maps in (("cpu", 6), ("gpu", 4)):  # `-O` is that of `--target`
        with pytest.raises(SystemExit) as info:
            main([str(exp), "-O", f"--target={target}"])
        assert info.value.code == 0
        assert capsys.readouterr().out.count("soac.map(") == maps


def test_passes_are_immutable() -> None:
    # The pipeline makes each pass of a spec once and reuses it in every run
    # (`l0.passes.pipeline._made`): sound only while no pass instance can change.
    import dataclasses

    for name, load in PASSES.items():
        pass_class = load()
        assert pass_class.__dataclass_params__.frozen, name  # type: ignore[attr-defined]  # dataclasses' own attribute
        for f in dataclasses.fields(pass_class):
            assert f.default_factory is dataclasses.MISSING and f.init, (name, f.name)


def test_a_bad_pass_option_is_reported_on_every_run() -> None:
    # The made passes are cached, failures are not.
    from l0.passes.pipeline import _instantiate

    for _ in range(2):
        with pytest.raises(Exception, match="no_such_option"):
            _instantiate(["inline{no-such-option=1}"])
