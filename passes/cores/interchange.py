"""The interchange core of ISWIM (thesis 8.3, Figures 35 and 36): recognising a scan of a
perfect map nest over rows (`map_nest`, `why_not`) and building the nest of maps around
one scan per innermost column (`column_nest`).

Two users: the `iswim` pass (`l0.passes.iswim`, which states the legality conditions and
the meaning in full) and the ISWIM rule of `fuse` (`l0.passes.fuse.iswim_rule`, where
the interchange's transpositions cancel those of its inputs).

Note [The operator's checks]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A scanomap's operator (its outer lambda) is a copy of the scan's lambda, zip checks
included, and they cannot leave it: the operator may never run (the hoisting core's
combining regions). But no semantics needs them: the reference semantics of a
scanomap is the left fold of its inner lambda, which never runs the operator, and the
new form's operator combines scalars, with no zip left to guard. So the operator's nest
may compute its maps' certificates at each level, and the interchange drops them with
the nest; the fold's checks, which do run, must have been made before the scan.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from l0.dialects import soac
from l0.passes.analysis.effects import lambda_effects
from l0.passes.analysis.scope import defined_inside, free_values


def _element_type(v: SSAValue) -> Attribute:
    t = v.type
    assert isinstance(t, TensorType)
    return t.element_type


def map_nest(block: Block, checks_inside: bool = False) -> list[soac.MapOp] | str:
    """The perfect map nest a lambda is: `block` is one map over all its arguments, in
    any order (`zip(y, x)` as well as `zip(x, y)`: `element_order`), yielding that
    map's results, and so on down to a map whose lambda takes scalars (the element
    lambda); outermost first. Else why not. With `checks_inside`,
    each level may also compute certificates of the nest's maps before its map (ops
    without regions used only there: Note [The operator's checks])."""
    nest: list[soac.MapOp] = []
    while True:
        ops = list(block.ops)
        head = ops[:-2] if checks_inside else []
        ops = ops[len(head):]
        if len(ops) != 2 or not isinstance(ops[0], soac.MapOp) \
                or not isinstance(ops[1], soac.YieldOp):
            return "its lambda is not a single map" if not nest else \
                "its lambda is not a perfect nest of maps down to the elements"
        inner, done = ops
        assert isinstance(inner, soac.MapOp) and isinstance(done, soac.YieldOp)
        inputs = list(inner.inputs)
        if len(inputs) != len(block.args) or set(inputs) != set(block.args) \
                or list(done.values) != list(inner.results):
            return "the inner map does not take every accumulator and row once"
        if not _only_checks(head, inner):
            return "its lambda computes more than the map and its checks"
        nest.append(inner)
        block = inner.body.block
        if not any(isinstance(a.type, TensorType) for a in block.args):
            return nest


def element_order(block: Block, nest: list[soac.MapOp]) -> list[int]:
    """For each parameter of the element lambda of `nest` (the map nest `block` is),
    the position of the argument of `block` whose elements it takes."""
    position: dict[SSAValue, int] = {a: i for i, a in enumerate(block.args)}
    for m in nest:
        position = {p: position[v] for p, v in zip(m.body.block.args, m.inputs, strict=True)}
    return [position[p] for p in nest[-1].body.block.args]


def _in_order(region: Region, order: list[int]) -> Region:
    """`region`, whose parameter j takes argument `order[j]`, with its parameters in the
    arguments' order."""
    old = region.block
    new = Block(arg_types=[old.args[order.index(i)].type for i in range(len(order))])
    for j, arg in enumerate(old.args):
        arg.replace_all_uses_with(new.args[order[j]])
    for op in list(old.ops):
        op.detach()
        new.add_op(op)
    return Region(new)


def _only_checks(head: list[Operation], inner: soac.MapOp) -> bool:
    """Whether the ops `head`, before `inner`, only compute certificates of the maps
    of the nest (the element lambda's use of them is refused apart, by `why_not`)."""
    mine = set(head)
    return all(not op.regions and all(u.operation in mine or inner.is_ancestor(u.operation)
                                      for r in op.results for u in r.uses)
               for op in head)


def scan_lambdas(scan: soac.ScanOp | soac.ScanomapOp) -> tuple[Block, Block]:
    """The fold's lambda and the operator's (the same for a scan)."""
    if isinstance(scan, soac.ScanomapOp):
        return scan.inner.block, scan.outer.block
    return scan.body.block, scan.body.block


def why_not(scan: soac.ScanOp | soac.ScanomapOp, failing: frozenset[str]) -> str | None:
    """Why `scan` may not be interchanged with its inner maps (None: it may)."""
    fold, operator = scan_lambdas(scan)
    nest = map_nest(fold)
    if isinstance(nest, str):
        return nest
    if fold is not operator:
        ops = map_nest(operator, checks_inside=True)
        if isinstance(ops, str):
            return f"the operator: {ops}"
        if len(ops) != len(nest):
            return "the operator and the fold are map nests of different depths"
        if any(defined_inside(v, scan) for v in free_values(ops[-1])
               if v not in ops[-1].inputs and v not in ops[-1].certs):
            return "the operator's element lambda uses the scan's accumulators directly"
    depth = len(nest)
    if any(isinstance(v.type, TensorType) and v.type.get_num_dims() != depth + 1
           for v in scan.inputs):
        return "the scanned arrays are not of the rank of the map nest plus one"
    if any(defined_inside(c, scan) for m in nest for c in m.certs):
        return "the inner map's checks are made inside the scan"
    if any(defined_inside(v, scan) for v in free_values(nest[-1]) if v not in nest[-1].inputs):
        return "the inner lambda uses the scan's rows or accumulators directly"
    if lambda_effects(nest[-1], failing):
        return "the inner lambda may fail or print"
    return None


def _element_scan(scan: soac.ScanOp | soac.ScanomapOp, accs: list[SSAValue],
                  columns: list[SSAValue]) -> soac.ScanOp | soac.ScanomapOp:
    """The scan of one column, from its neutral elements, with the element lambdas
    (their regions are taken from `scan`'s innermost maps)."""
    fold, operator = scan_lambdas(scan)
    fold_nest, operator_nest = map_nest(fold), map_nest(operator, checks_inside=True)
    assert not isinstance(fold_nest, str) and not isinstance(operator_nest, str)
    body = _in_order(fold_nest[-1].body, element_order(fold, fold_nest))
    if isinstance(scan, soac.ScanOp):
        return soac.ScanOp(accs, columns, body, list(scan.certs))
    outer = _in_order(operator_nest[-1].body, element_order(operator, operator_nest))
    return soac.ScanomapOp(accs, columns, outer, body, list(scan.certs))


def column_nest(scan: soac.ScanOp | soac.ScanomapOp, inputs: list[SSAValue],
                 nest: list[soac.MapOp], level: int) -> soac.MapOp:
    """Level `level` of the map nest around the element scans: a map over rows of the
    neutral elements and of the transposed inputs (`inputs`), with the checks of the
    scan's map at that level (and the scan's own, outermost)."""
    k = len(scan.neutral)
    lam = Block(arg_types=[soac.row_type(v.type) or v.type for v in inputs])
    args = list(lam.args)
    if level == len(nest) - 1:
        inner: Operation = _element_scan(scan, args[:k], args[k:])
    else:
        inner = column_nest(scan, args, nest, level + 1)
    lam.add_ops([inner, soac.YieldOp(*inner.results)])
    result_types = [soac.array_of(r.type) for r in inner.results]
    certs = [*(scan.certs if level == 0 else ()), *nest[level].certs]
    return soac.MapOp(inputs, result_types, Region(lam), certs)
