"""The SOACs' faster accessors and constructors (`l0.dialects.fast_ops`) give what xDSL's do."""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, IntegerType, StringAttr, i32
from xdsl.ir import SSAValue, SSAValues
from xdsl.irdl.operations import VarIRConstruct, get_accessors_from_op_def

from l0.dialects import soac
from l0.frontend import l0_to_module
from l0.passes.analysis.walk import walk_ops

# Maps over one and two arrays (with a zip check's certificate), a reduce and a
# redomap (neutral elements), a scan and a filter: segments of every size, 0 included.
_PROGRAM = """
fun int main([int] a, [int] b) =
  let c = map(fn int ({int, int} p) => let {x, y} = p in x * y, zip(a, b)) in
  let s = reduce(op +, 0, map(fn int (int x) => x + 1, c)) in
  let t = scan(op +, 0, c) in
  let f = filter(fn bool (int x) => x < 3, t) in
  s + size(0, f)
"""


def _xdsl_accessors(op_class: type) -> dict[str, object]:
    """xDSL's own accessors of `op_class`, as `irdl_op_definition` made them."""
    made = get_accessors_from_op_def(op_class.get_irdl_definition(), None)
    kinds = (VarIRConstruct.OPERAND, VarIRConstruct.RESULT, VarIRConstruct.REGION)
    return {name: a for name, a in made.items()
            if getattr(a, "construct", None) in kinds}


def test_accessors_return_what_xdsl_returns() -> None:
    module = l0_to_module(_PROGRAM, "accessors.l0")
    soacs = [op for op in walk_ops(module) if op.name in
             {"soac.map", "soac.reduce", "soac.redomap", "soac.scan", "soac.filter"}]
    checked = 0
    for op in soacs:
        for name, theirs in _xdsl_accessors(type(op)).items():
            ours = getattr(op, name)
            expected = theirs.__get__(op, type(op))  # type: ignore[attr-defined]
            assert type(ours) is type(expected), (op.name, name)
            if isinstance(expected, SSAValues):
                assert len(ours) == len(expected)
                assert all(a is b for a, b in zip(ours, expected, strict=True))
            else:
                assert ours is expected
            checked += 1
    assert checked >= 20


def test_segments_of_another_element_type_are_decoded_afresh() -> None:
    """The same bytes as an i32 array's, read as i16, give other sizes: the remembered
    decoding is not reused for them (Note [Segment sizes decoded once])."""
    from l0.dialects.fast_ops import _segments

    as_i32 = DenseArrayBase.from_list(i32, [1, 0, 2])
    as_i16 = DenseArrayBase(IntegerType(16), as_i32.data)
    assert [(s.start, s.stop) for s in _segments(as_i32)] == [(0, 1), (1, 1), (1, 3)]
    assert [s.stop - s.start for s in _segments(as_i16)] == list(as_i16.get_values())
    assert [(s.start, s.stop) for s in _segments(as_i32)] == [(0, 1), (1, 1), (1, 3)]


def test_accessors_are_read_only() -> None:
    module = l0_to_module(_PROGRAM, "accessors.l0")
    op = next(op for op in walk_ops(module) if isinstance(op, soac.MapOp))
    try:
        op.inputs = ()  # type: ignore[misc]
    except NotImplementedError:
        return
    raise AssertionError("writing `inputs` did not fail")


def _built_both_ways(cls: type, segments: list[list[SSAValue]], result_types: list,
                     regions: list, props: dict, ours: object) -> None:
    from xdsl.irdl import IRDLOperation

    theirs = cls.__new__(cls)
    IRDLOperation.__init__(theirs, operands=segments, result_types=[result_types],
                           properties=props, regions=[r.clone() for r in regions])
    assert list(ours.operands) == list(theirs.operands)  # type: ignore[attr-defined]
    assert ours.result_types == theirs.result_types  # type: ignore[attr-defined]
    assert list(ours.properties.items()) == list(theirs.properties.items())  # type: ignore[attr-defined]
    assert ours.attributes == theirs.attributes == {}  # type: ignore[attr-defined]
    assert len(ours.regions) == len(theirs.regions)  # type: ignore[attr-defined]


def test_soacs_are_built_as_xdsls_constructor_builds_them() -> None:
    """Every SOAC built by its constructor (`init_with_segments`) and by
    `IRDLOperation.__init__` from the same pieces has the same operands, result types,
    properties (in the same order) and regions (Note [Building a SOAC])."""
    module = l0_to_module(_PROGRAM, "accessors.l0")
    built = 0
    for op in list(walk_ops(module)):
        body = op.regions[0] if op.regions else None
        if isinstance(op, soac.MapOp):
            for loc in (None, "f.l0:1:2"):
                ours = soac.MapOp(op.inputs, op.result_types, body.clone(), op.certs, loc)
                props = {} if loc is None else {"loc": StringAttr(loc)}
                _built_both_ways(soac.MapOp, [list(op.inputs), list(op.certs)],
                                 list(op.result_types), [body], props, ours)
                built += 1
        elif isinstance(op, soac.FilterOp):
            ours = soac.FilterOp(op.inputs, body.clone(), op.certs)
            _built_both_ways(soac.FilterOp, [list(op.inputs), list(op.certs)],
                             list(op.result_types), [body], {}, ours)
            built += 1
        elif isinstance(op, soac.ReduceOp | soac.ScanOp):
            segments = [list(op.neutral), list(op.inputs), list(op.certs)]
            ours = type(op)(op.neutral, op.inputs, body.clone(), op.certs)
            _built_both_ways(type(op), segments, list(op.result_types), [body], {}, ours)
            for fused in (soac.RedomapOp, soac.ScanomapOp):
                types = [fused.result_type(n.type) for n in op.neutral]
                ours = fused(op.neutral, op.inputs, body.clone(), body.clone(), op.certs)
                _built_both_ways(fused, segments, types, [body, body], {}, ours)
            built += 3
    assert built >= 8
