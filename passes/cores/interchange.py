"""The interchange core of ISWIM (thesis 8.3, Figures 35 and 36): recognising a scan of
perfect map nests over rows (`lambda_groups`, `why_not`) and building the nests of maps
around one scan per innermost column (`interchanged`).

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

Note [Independent parts of a scan]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A scan of tuples may combine each part on its own: `scan(fn ((x1, x2), (y1, y2)) =>
(map(f, x1, y1), map(g, x2, y2)), ...)`, two maps that cannot become one when `x1`
and `x2` may differ in size. Each such map, with the accumulators and rows it takes (the
same positions: a *group*), is its own perfect nest, and the interchange builds one
nest of maps per group around its own element scans, all under the one test for rows.
Running the groups one after the other instead of step by step together changes
nothing: each reads only its own accumulators and rows, and none can fail or print
(the checks of their maps are made before the scan, their element lambdas may neither
fail nor print).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

from l0.dialects import soac
from l0.passes.analysis.effects import lambda_effects
from l0.passes.analysis.scope import defined_inside, free_values

Scan = soac.ScanOp | soac.ScanomapOp


@dataclass(frozen=True)
class Group:
    """One independent part of a scan's lambda (Note [Independent parts of a scan]):
    the perfect map nest `nest` (outermost first) over the accumulators at positions
    `accs` (ascending) and the rows at the same positions, yielding the accumulators'
    new values in that order."""

    accs: tuple[int, ...]
    nest: tuple[soac.MapOp, ...]


def _nest_below(top: soac.MapOp, checks_inside: bool) -> list[soac.MapOp] | str:
    """`top` and the perfect map nest below it, down to the element lambda."""
    nest = [top]
    while any(isinstance(a.type, TensorType) for a in nest[-1].body.block.args):
        block = nest[-1].body.block
        ops = list(block.ops)
        head = ops[:-2] if checks_inside else []
        ops = ops[len(head):]
        if len(ops) != 2 or not isinstance(ops[0], soac.MapOp) \
                or not isinstance(ops[1], soac.YieldOp):
            return "its lambda is not a perfect nest of maps down to the elements"
        inner, done = ops
        assert isinstance(inner, soac.MapOp) and isinstance(done, soac.YieldOp)
        inputs = list(inner.inputs)
        if len(inputs) != len(block.args) or set(inputs) != set(block.args) \
                or list(done.values) != list(inner.results):
            return "an inner map does not take every row of its lambda once"
        if not _only_checks(head, [inner]):
            return "its lambda computes more than the map and its checks"
        nest.append(inner)
    return nest


def lambda_groups(block: Block, k: int, checks_inside: bool = False) -> list[Group] | str:
    """The groups a scan's lambda `block` (k accumulators, then k rows) is made of: maps
    over its arguments, in any order (`zip(y, x)` as well as `zip(x, y)`), each taking
    the accumulators and rows of some positions and yielding their new values, and each
    a perfect map nest down to an element lambda; in the order of their first position.
    Else why not. With `checks_inside`, the lambda and each level of a nest may also
    compute certificates of the nest's maps (ops without regions used only there: Note
    [The operator's checks])."""
    ops = list(block.ops)
    done = ops[-1] if ops else None
    if not isinstance(done, soac.YieldOp):
        return "its lambda does not end with a yield"
    maps = [op for op in ops[:-1] if isinstance(op, soac.MapOp)
            and all(v in block.args for v in op.inputs)]
    head = [op for op in ops[:-1] if op not in maps]
    if not maps or (head and not checks_inside) or not _only_checks(head, maps):
        return "its lambda is not maps over its accumulators and rows"
    position: dict[SSAValue, int] = {a: i for i, a in enumerate(block.args)}
    taken = [position[v] for m in maps for v in m.inputs]
    if sorted(taken) != list(range(2 * k)):
        return "the maps do not take every accumulator and row once"
    groups: list[Group] = []
    for m in maps:
        accs = tuple(sorted(position[v] for v in m.inputs if position[v] < k))
        rows = tuple(sorted(position[v] - k for v in m.inputs if position[v] >= k))
        if accs != rows or [done.values[i] for i in accs] != list(m.results):
            return "a map does not combine accumulators with the rows of their positions"
        nest = _nest_below(m, checks_inside)
        if isinstance(nest, str):
            return nest
        groups.append(Group(accs, tuple(nest)))
    return sorted(groups, key=lambda g: g.accs)


def element_order(block: Block, k: int, group: Group) -> list[int]:
    """For each parameter of the element lambda of `group` (of the scan's lambda
    `block`, k accumulators), its place among the group's accumulators, then rows."""
    n = len(group.accs)
    position: dict[SSAValue, int] = {}
    for t, i in enumerate(group.accs):
        position[block.args[i]] = t
        position[block.args[k + i]] = n + t
    for m in group.nest:
        position = {p: position[v] for p, v in zip(m.body.block.args, m.inputs, strict=True)}
    return [position[p] for p in group.nest[-1].body.block.args]


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


def _only_checks(head: list[Operation], maps: list[soac.MapOp]) -> bool:
    """Whether the ops `head`, before `maps`, only compute certificates of the maps of
    their nests (the element lambda's use of them is refused apart, by `why_not`)."""
    mine = set(head)
    return all(not op.regions and all(u.operation in mine or any(m.is_ancestor(u.operation)
                                                                 for m in maps)
                                      for r in op.results for u in r.uses)
               for op in head)


def scan_lambdas(scan: Scan) -> tuple[Block, Block]:
    """The fold's lambda and the operator's (the same for a scan)."""
    if isinstance(scan, soac.ScanomapOp):
        return scan.inner.block, scan.outer.block
    return scan.body.block, scan.body.block


def scan_groups(scan: Scan) -> tuple[list[Group], list[Group]] | str:
    """The groups of the fold's lambda and of the operator's (the same for a scan), of
    one partition of the accumulators; else why not."""
    k = len(scan.neutral)
    fold, operator = scan_lambdas(scan)
    groups = lambda_groups(fold, k)
    if isinstance(groups, str):
        return groups
    if fold is operator:
        return groups, groups
    ops = lambda_groups(operator, k, checks_inside=True)
    if isinstance(ops, str):
        return f"the operator: {ops}"
    if [g.accs for g in ops] != [g.accs for g in groups] or \
            any(len(g.nest) != len(o.nest) for g, o in zip(groups, ops, strict=True)):
        return "the operator and the fold are not map nests of the same groups and depths"
    return groups, ops


def nest_depth(scan: Scan) -> int | None:
    """The depth of the map nests of `scan` when they are all of one depth (the
    arrays' rank minus one, if `why_not` allows it), else None."""
    found = scan_groups(scan)
    if isinstance(found, str):
        return None
    depths = {len(g.nest) for g in found[0]}
    return depths.pop() if len(depths) == 1 else None


def why_not(scan: Scan, failing: frozenset[str]) -> str | None:
    """Why `scan` may not be interchanged with its inner maps (None: it may)."""
    found = scan_groups(scan)
    if isinstance(found, str):
        return found
    groups, ops = found
    depth = nest_depth(scan)
    if depth is None:
        return "its groups are map nests of different depths"
    if any(isinstance(v.type, TensorType) and v.type.get_num_dims() != depth + 1
           for v in scan.inputs):
        return "the scanned arrays are not of the rank of the map nest plus one"
    for g, o in zip(groups, ops, strict=True):
        element, combine = g.nest[-1], o.nest[-1]
        if combine is not element and any(
                defined_inside(v, scan) for v in free_values(combine)
                if v not in combine.inputs and v not in combine.certs):
            return "the operator's element lambda uses the scan's accumulators directly"
        if any(defined_inside(c, scan) for m in g.nest for c in m.certs):
            return "the inner map's checks are made inside the scan"
        if any(defined_inside(v, scan) for v in free_values(element)
               if v not in element.inputs):
            return "the inner lambda uses the scan's rows or accumulators directly"
        if lambda_effects(element, failing):
            return "the inner lambda may fail or print"
    return None


def _element_scan(scan: Scan, fold: Group, operator: Group, accs: list[SSAValue],
                  columns: list[SSAValue]) -> Scan:
    """The scan of one column of a group, from its neutral elements, with the element
    lambdas (their regions are taken from `scan`'s innermost maps)."""
    k = len(scan.neutral)
    fold_block, operator_block = scan_lambdas(scan)
    body = _in_order(fold.nest[-1].body, element_order(fold_block, k, fold))
    if isinstance(scan, soac.ScanOp):
        return soac.ScanOp(accs, columns, body, list(scan.certs))
    outer = _in_order(operator.nest[-1].body, element_order(operator_block, k, operator))
    return soac.ScanomapOp(accs, columns, outer, body, list(scan.certs))


def _column_nest(scan: Scan, fold: Group, operator: Group, inputs: list[SSAValue],
                 level: int) -> soac.MapOp:
    """Level `level` of a group's map nest around its element scans: a map over rows of
    its neutral elements and of its (transposed) arrays, `inputs`, with the checks of
    the group's map at that level (and the scan's own, outermost)."""
    n = len(fold.accs)
    lam = Block(arg_types=[soac.row_type(v.type) or v.type for v in inputs])
    args: list[SSAValue] = list(lam.args)
    if level == len(fold.nest) - 1:
        inner: Operation = _element_scan(scan, fold, operator, args[:n], args[n:])
    else:
        inner = _column_nest(scan, fold, operator, args, level + 1)
    lam.add_ops([inner, soac.YieldOp(*inner.results)])
    result_types = [soac.array_of(r.type) for r in inner.results]
    certs = [*(scan.certs if level == 0 else ()), *fold.nest[level].certs]
    return soac.MapOp(inputs, result_types, Region(lam), certs)


def interchanged(scan: Scan, arrays: list[SSAValue]) -> tuple[list[soac.MapOp],
                                                                list[SSAValue]]:
    """The nests of maps around the element scans of `scan` (`why_not` allows it), one
    per group, over `arrays`, the scanned arrays with the scanned dimension moved
    innermost; and, per result of `scan`, the value that holds it, that dimension
    innermost too. Takes the element lambdas' regions from `scan`."""
    found = scan_groups(scan)
    assert not isinstance(found, str)
    nests: list[soac.MapOp] = []
    values: dict[int, SSAValue] = {}
    for fold, operator in zip(*found, strict=True):
        inputs = [*(scan.neutral[i] for i in fold.accs), *(arrays[i] for i in fold.accs)]
        nest = _column_nest(scan, fold, operator, inputs, 0)
        nests.append(nest)
        values.update(zip(fold.accs, nest.results, strict=True))
    return nests, [values[i] for i in range(len(scan.neutral))]
