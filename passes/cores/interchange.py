"""The interchange core of ISWIM (thesis 8.3, Figures 35 and 36): recognising a fold (a
scan, reduce, scanomap or redomap) of perfect map nests over rows (`lambda_groups`,
`why_not`) and building the nests of maps around one fold per innermost column
(`interchanged`).

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

Note [The fold's checks]
~~~~~~~~~~~~~~~~~~~~~~~~
The fold's own lambda (a scan's or reduce's lambda, a scanomap's or redomap's inner one)
runs once per row, and its zip checks compare the accumulator with the row:
`scan(fn (x, y) => map(op +, zip(x, y)), ne, a)` checks `size(0, x) == size(0, y)` at
every step. They always give the same answer: the accumulator starts as the neutral
element and each step yields a map over it and the row, of the same size when the check
passed; every row of a regular array has the same shape. So the checks are made once,
before the column nest, with the neutral element for the accumulator and the
transposed array for the row (`size(d, y)` is `size(d, transpose(0, depth, a))` for
every dimension `d` of the row: the scanned dimension went innermost), and only when
there are rows (the fold runs its lambda only then), under the new form's test for
rows. A check at an inner level of the nest is made at that level of the new nest, where
the same dimensions are mapped over, so it runs exactly when the original's did at the
first row. The checks may read the accumulators and rows only through their sizes
(`_checks_read_sizes`), and the first that fails is the original's first: the
original's row 0 makes the checks of the lambda in order, then those of the nest in
the order of its columns, as the new form does.

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
from l0.passes.analysis.effects import lambda_effects, local_effects
from l0.passes.analysis.scope import defined_inside, free_values

Fold = soac.ScanOp | soac.ScanomapOp | soac.ReduceOp | soac.RedomapOp
"""The folds ISWIM interchanges: the thesis's scans, and reduce and redomap, whose
interchange is a map over the columns of one reduction per column (no transposition
back: a reduction has no scanned dimension in its result)."""


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


def scan_lambdas(scan: Fold) -> tuple[Block, Block]:
    """The fold's lambda and the operator's (the same for a scan)."""
    if isinstance(scan, soac.ScanomapOp | soac.RedomapOp):
        return scan.inner.block, scan.outer.block
    return scan.body.block, scan.body.block


def scan_groups(scan: Fold) -> tuple[list[Group], list[Group]] | str:
    """The groups of the fold's lambda and of the operator's (the same for a scan), of
    one partition of the accumulators; else why not."""
    k = len(scan.neutral)
    fold, operator = scan_lambdas(scan)
    groups = lambda_groups(fold, k, checks_inside=True)  # Note [The fold's checks]
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


def nest_depth(scan: Fold) -> int | None:
    """The depth of the map nests of `scan` when they are all of one depth (the
    arrays' rank minus one, if `why_not` allows it), else None."""
    found = scan_groups(scan)
    if isinstance(found, str):
        return None
    depths = {len(g.nest) for g in found[0]}
    return depths.pop() if len(depths) == 1 else None


def why_not(scan: Fold, failing: frozenset[str]) -> str | None:
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
                defined_inside(v, scan) for v in free_values(combine, own_operands=False)):
            return "the operator's element lambda uses the scan's accumulators directly"
        if not _checks_read_sizes(scan, g, failing):
            return "its checks read more of the accumulators and rows than their sizes"
        if any(defined_inside(v, scan) for v in free_values(element, own_operands=False)):
            return "the inner lambda uses the scan's rows or accumulators directly"
        if lambda_effects(element, failing):
            return "the inner lambda may fail or print"
    return None


def transposed_by(v: SSAValue, k: int, n: int) -> bool:
    """Whether `v` is `transpose(k, n, ...)`, without certificates (for depth 1, the
    same permutation written either way)."""
    op = v.owner
    if not isinstance(op, soac.TransposeOp) or op.certs:
        return False
    found = (op.k.data, op.n.data)
    return found == (k, n) or {found, (k, n)} == {(0, 1), (1, -1)}


def _level_args(block: Block, k: int, group: Group) -> list[dict[SSAValue, int]]:
    """Per level of `group`'s nest (of the fold's lambda `block`, k accumulators), the
    arguments of the lambda the level's map is in (the fold's own at level 0), each with
    its place among the group's accumulators, then rows."""
    n = len(group.accs)
    position: dict[SSAValue, int] = {}
    for t, i in enumerate(group.accs):
        position[block.args[i]] = t
        position[block.args[k + i]] = n + t
    levels = [position]
    for m in group.nest[:-1]:
        position = {p: position[v] for p, v in zip(m.body.block.args, m.inputs, strict=True)}
        levels.append(position)
    return levels


def _level_checks(block: Block, m: soac.MapOp) -> list[Operation]:
    """The ops of `block` before `m` that are not maps: the checks made at `m`'s level
    (`lambda_groups` allows only checks there)."""
    return [op for op in block.ops if not isinstance(op, soac.MapOp | soac.YieldOp)
            and op.is_before_in_block(m)] if m.parent_block() is block else []


def _checks_read_sizes(scan: Fold, group: Group, failing: frozenset[str]) -> bool:
    """Whether the checks of the fold's lambda and of `group`'s nest may be made once
    (Note [The fold's checks]): each is an assert or has no effects, and reads the
    accumulators and rows of its level and the levels above only as `size(d, ...)`
    of one of their dimensions."""
    fold_block, _ = scan_lambdas(scan)
    blocks = [fold_block, *(m.body.block for m in group.nest[:-1])]
    args = {a for b in blocks for a in b.args}
    for block, m in zip(blocks, group.nest, strict=True):
        for op in _level_checks(block, m):
            if not isinstance(op, soac.AssertOp) and local_effects(op, failing):
                return False
            for v in op.operands:
                if v not in args:
                    continue
                if not isinstance(op, soac.SizeOp) or v is not op.array:
                    return False
    return True


def _fold_of_column(scan: Fold, fold: Group, operator: Group, accs: list[SSAValue],
                    columns: list[SSAValue]) -> Fold:
    """The fold of one column of a group, from its neutral elements, with the element
    lambdas (their regions are taken from `scan`'s innermost maps)."""
    k = len(scan.neutral)
    fold_block, operator_block = scan_lambdas(scan)
    body = _in_order(fold.nest[-1].body, element_order(fold_block, k, fold))
    if isinstance(scan, soac.ScanOp | soac.ReduceOp):
        return type(scan)(accs, columns, body, list(scan.certs))
    outer = _in_order(operator.nest[-1].body, element_order(operator_block, k, operator))
    return type(scan)(accs, columns, outer, body, list(scan.certs))


def _cloned(ops: list[Operation], mapping: dict[SSAValue, SSAValue]) -> list[Operation]:
    """Copies of `ops` reading `mapping`'s values (which learns their results)."""
    return [op.clone(value_mapper=mapping) for op in ops]


def _column_nest(scan: Fold, fold: Group, operator: Group, inputs: list[SSAValue],
                 level: int, mapping: dict[SSAValue, SSAValue]) -> soac.MapOp:
    """Level `level` of a group's map nest around its element folds: a map over rows of
    its neutral elements and of its (transposed) arrays, `inputs`, with the checks of
    the group's map at that level (and the scan's own, outermost). `mapping` takes the
    original's checks and the arguments of the levels above to their new values; the
    checks of the level below are copied into this level's lambda (Note [The fold's
    checks])."""
    n = len(fold.accs)
    lam = Block(arg_types=[soac.row_type(v.type) or v.type for v in inputs])
    args: list[SSAValue] = list(lam.args)
    if level == len(fold.nest) - 1:
        inner: Operation = _fold_of_column(scan, fold, operator, args[:n], args[n:])
    else:
        below = fold.nest[level]
        k = len(scan.neutral)
        positions = _level_args(scan_lambdas(scan)[0], k, fold)[level + 1]
        mapping = mapping | {old: args[t] for old, t in positions.items()}
        lam.add_ops(_cloned(_level_checks(below.body.block, fold.nest[level + 1]), mapping))
        inner = _column_nest(scan, fold, operator, args, level + 1, mapping)
    lam.add_ops([inner, soac.YieldOp(*inner.results)])
    result_types = [soac.array_of(r.type) for r in inner.results]
    certs = [*(scan.certs if level == 0 else ()),
             *(mapping.get(c, c) for c in fold.nest[level].certs)]
    loc = fold.nest[level].loc
    return soac.MapOp(inputs, result_types, Region(lam), certs,
                      loc=None if loc is None else loc.data)


def interchanged(scan: Fold, arrays: list[SSAValue]) -> tuple[list[Operation],
                                                                list[SSAValue]]:
    """The ops computing the nests of maps around the element folds of `scan` (`why_not`
    allows it), one per group, over `arrays`, the folded arrays with the folded
    dimension moved innermost, after the fold's own checks (Note [The fold's checks]);
    and, per result of `scan`, the value that holds it (of a scan: that dimension
    innermost too). Takes the element lambdas' regions from `scan`."""
    found = scan_groups(scan)
    assert not isinstance(found, str)
    k = len(scan.neutral)
    block = scan_lambdas(scan)[0]
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, [*scan.neutral, *arrays],
                                                 strict=True))
    maps = [op for op in block.ops if isinstance(op, soac.MapOp)]
    ops = _cloned([op for op in block.ops if op not in maps and op is not block.last_op],
                  mapping)
    values: dict[int, SSAValue] = {}
    for fold, operator in zip(*found, strict=True):
        inputs = [*(scan.neutral[i] for i in fold.accs), *(arrays[i] for i in fold.accs)]
        nest = _column_nest(scan, fold, operator, inputs, 0, mapping)
        ops.append(nest)
        values.update(zip(fold.accs, nest.results, strict=True))
    return ops, [values[i] for i in range(k)]
