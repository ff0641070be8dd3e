"""Horizontal fusion: sibling SOACs over arrays of one outer size become one SOAC.

Vertical fusion (producer into consumer) leaves SOACs that share no data flow but read
the same array, each a loop (on a GPU, a kernel) of its own: three maps over `a`, or a
sum and a maximum of the two outputs of one map (thesis figure 44, where the two folds
are what keeps the map from fusing). The LMS loop fusion algorithm fuses such loops
"horizontally" when they have the same size and neither depends on the other. Here,
within one block:

* sibling `map`s become one map with the outputs of all of them, whose lambda runs
  theirs one after the other on the same row;
* sibling `reduce`s and `redomap`s (scalar accumulators) become one `redomap` on the
  tuple of their accumulators: its inner lambda folds each member's accumulators with
  that member's inner lambda (a reduce's lambda is its own inner lambda), its outer
  lambda combines each member's partial results with that member's operator;
* sibling `scan`s and `scanomap`s (scalar accumulators) become one `scanomap` the same
  way (Note [Merging scans]).

Afterwards a map whose outputs fed several folds feeds one, and fuses vertically.

When siblings may merge (`_Sweep`, one pass over the block in order, a group per family
and size class, closed when something gets in the way): the merged SOAC runs where
the last member ran, so every earlier member's work moves down to it.

* size: the members' inputs must have one outer size, known before the merged SOAC
  runs: two inputs of one SOAC earlier in the block (its certificates checked their
  sizes), or a map's output and its input (`_Sizes`);
* dependence: nothing up to the last member (the later members included) uses an
  earlier member's results;
* errors and prints: once a member may fail or print (or build an irregular array),
  nothing after it up to the last member may, or the first error reported, or the
  order of the output, would change; a member that may fail or print after pure
  members is fine (their work is pure);
* consumption: no member's lambda may consume an array (an update, a call or a loop
  inside), and an op that may consume one ends every group (the reads that move down
  would see it consumed).

Note [Merging scans]
~~~~~~~~~~~~~~~~~~~~
A scan is a left fold that keeps every intermediate accumulator, so sibling scans over
one index space merge as folds do: the merged scanomap's inner lambda steps each
member's accumulators with that member's inner lambda, in the member's order, and its
i-th result for member j is member j's i-th accumulator, as before (each member's
accumulators depend on its own only, so a non-commutative or non-associative operator
folds exactly as it did). The outer lambda, which a parallel scan uses to combine the
totals of chunks, applies each member's operator to its part, which is associative
exactly when each member's is. Scans with array accumulators (rows) are left alone,
as such folds are: ISWIM (`iswim`, 8.3) rewrites a scan of rows on its own.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from typing import TextIO

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.dialects import soac
from l0.dialects.soac.types import row_type
from l0.passes.analysis.consumption import consumed_operands
from l0.passes.analysis.effects import local_effects
from l0.passes.analysis.walk import block_ops, walk_ops
from l0.passes.fuse.compose import as_redomap
from l0.passes.fuse.scanomap import as_scanomap

Sibling = soac.MapOp | soac.ReduceOp | soac.RedomapOp | soac.ScanOp | soac.ScanomapOp
Fold = soac.ReduceOp | soac.RedomapOp
Scan = soac.ScanOp | soac.ScanomapOp
_FAMILIES = ("map", "fold", "scan")


def _family(op: Operation) -> str | None:
    """"map", "fold" or "scan" for a SOAC horizontal fusion may merge, None otherwise."""
    if isinstance(op, soac.MapOp):
        return "map"
    if isinstance(op, Fold | Scan) and \
            not any(isinstance(n.type, TensorType) for n in op.neutral):
        return "fold" if isinstance(op, Fold) else "scan"
    return None


@dataclass
class _Sizes:
    """Arrays known to have one outer size, as a union-find over SSA values."""

    parent: dict[SSAValue, SSAValue] = field(default_factory=dict[SSAValue, SSAValue])

    def find(self, v: SSAValue) -> SSAValue:
        root = v
        while (up := self.parent.get(root)) is not None:
            root = up
        while v is not root:  # path compression
            self.parent[v], v = root, self.parent[v]
        return root

    def union(self, values: Sequence[SSAValue]) -> tuple[SSAValue, list[SSAValue]]:
        """Put `values` (at least one) in one class; returns its root and the roots of
        the classes it absorbed."""
        root = self.find(values[0])
        absorbed: list[SSAValue] = []
        for v in values[1:]:
            other = self.find(v)
            if other is not root:
                self.parent[other] = root
                absorbed.append(other)
        return root, absorbed


def _same_size(op: Operation) -> list[SSAValue]:
    """What `op`, having run, tells about sizes: these arrays have one outer size (its
    inputs, which its certificates checked, and a map's or scan's outputs)."""
    if isinstance(op, soac.MapOp | soac.ScanOp):
        return [*op.inputs, *op.results]
    if isinstance(op, soac.ReduceOp | soac.RedomapOp | soac.FilterOp):
        return list(op.inputs)
    return []


@dataclass(eq=False)
class _Group:
    """Siblings that may still merge, in program order."""

    key: tuple[str, SSAValue]
    """Where it is filed: its family and the root of its size class."""
    members: list[Sibling]
    effects: bool
    """Whether a member may fail or print: nothing later may then."""
    closed_by: str | None = None
    """Why no later sibling may join (for `fuse{explain=true}`)."""


@dataclass
class _Sweep:
    """Finds the groups of siblings to merge in one block (see the module docstring)."""

    failing: Set[str]
    sizes: _Sizes = field(default_factory=_Sizes)
    open: dict[tuple[str, SSAValue], _Group] = field(
        default_factory=dict[tuple[str, SSAValue], _Group])
    owner: dict[SSAValue, _Group] = field(default_factory=dict[SSAValue, _Group])
    """The open group of each result of a member."""
    done: list[_Group] = field(default_factory=list[_Group])
    closed: dict[tuple[str, SSAValue], _Group] = field(
        default_factory=dict[tuple[str, SSAValue], _Group])
    """The last group closed per family and size class."""
    remarks: dict[Operation, str] = field(default_factory=dict[Operation, str])
    """Siblings that could not join the group before them, and why."""

    def file(self, group: _Group, key: tuple[str, SSAValue]) -> None:
        group.key = key
        self.open[key] = group

    def close(self, group: _Group, why: str) -> None:
        group.closed_by = why
        if self.open.get(group.key) is group:
            del self.open[group.key]
        self.closed[group.key] = group
        for m in group.members:
            for r in m.results:
                self.owner.pop(r, None)
        if len(group.members) > 1:
            self.done.append(group)

    def close_all(self, why: str, effects_only: bool = False) -> None:
        for group in list(self.open.values()):
            if group.effects or not effects_only:
                self.close(group, why)

    def step(self, op: Operation) -> None:
        users: set[_Group] = set()
        effects = False
        owner = self.owner
        for inner in walk_ops(op):  # one walk: the uses of members' results, and effects
            if owner:
                users.update(owner[v] for v in inner._operands if v in owner)
            effects = effects or local_effects(inner, self.failing)
        for group in users:
            self.close(group, f"'{op.name}' uses an output of its sibling")
        if effects:
            self.close_all(f"its sibling and '{op.name}' may both fail or print",
                           effects_only=True)
        consumes = bool(consumed_operands(op))
        if consumes:
            self.close_all(f"'{op.name}' may consume an array")
        family = None if consumes else _family(op)
        if family is not None:
            self._join(op, family, effects)  # type: ignore[arg-type]  # ops with a family are SOACs
        self._unite(_same_size(op))

    def _unite(self, values: list[SSAValue]) -> SSAValue | None:
        """Learn that `values` have one size; the open groups of the classes this
        joins are filed under the new root (two of one family: the smaller closes)."""
        if not values:
            return None
        root, absorbed = self.sizes.union(values)
        for old in absorbed:
            for family in _FAMILIES:
                group = self.open.pop((family, old), None)
                if group is None:
                    continue
                there = self.open.get((family, root))
                if there is None:
                    self.file(group, (family, root))
                    continue
                small, large = sorted((group, there), key=lambda g: len(g.members))
                self.file(large, (family, root))
                small.key = (family, old)
                self.close(small, "a sibling of another size class took its place")
        return root

    def _join(self, op: Sibling, family: str, effects: bool) -> None:
        root = self._unite(list(op.inputs))
        assert root is not None
        group = self.open.get((family, root))
        if group is None:
            group = _Group((family, root), [], False)
            self.file(group, (family, root))
            last = self.closed.get((family, root))
            if last is not None and last.closed_by is not None:
                self.remarks[op] = last.closed_by
        group.members.append(op)
        group.effects = group.effects or effects
        for r in op.results:
            self.owner[r] = group

    def finish(self) -> list[_Group]:
        self.close_all("the block ends")
        return self.done


def sibling_groups(block: Block, failing: Set[str],
                   remarks: dict[Operation, str]) -> list[list[Sibling]]:
    """The groups of siblings in `block` to merge, each in program order; why a sibling
    could not join the one before it goes into `remarks`."""
    sweep = _Sweep(failing)
    for op in block.ops:
        sweep.step(op)
    groups = [g.members for g in sweep.finish()]
    remarks.update(sweep.remarks)
    return groups


# ---------------------------------------------------------------------------------------
# Merging
# ---------------------------------------------------------------------------------------


def _inline(lam: Block, into: Block, args: Sequence[SSAValue]) -> list[SSAValue]:
    """Move the ops of lambda `lam` to the end of `into`, its arguments bound to
    `args`; returns what it yielded (its yield is erased)."""
    for a, v in zip(lam.args, args, strict=True):
        a.replace_all_uses_with(v)
    done = lam.last_op
    assert isinstance(done, soac.YieldOp)
    values = list(done.values)
    for op in block_ops(lam):
        if op is not done:
            op.detach()
            into.add_op(op)
    return values


def _rows(into: Block, inputs: list[SSAValue], shared: dict[SSAValue, SSAValue],
          member_inputs: Sequence[SSAValue]) -> list[SSAValue]:
    """The row arguments of `into` for `member_inputs`: one argument per distinct input
    array, shared by every member reading it (added as needed)."""
    rows: list[SSAValue] = []
    for v in member_inputs:
        if v not in shared:
            row = row_type(v.type)
            assert row is not None
            shared[v] = into.insert_arg(row, len(into.args))
            inputs.append(v)
        rows.append(shared[v])
    return rows


def _certs(members: Sequence[Operation]) -> list[SSAValue]:
    certs: list[SSAValue] = []
    for m in members:
        certs += [c for c in m.certs if c not in certs]  # type: ignore[attr-defined]  # members are SOACs
    return certs


def merge_maps(members: Sequence[soac.MapOp]) -> soac.MapOp:
    """One map computing the outputs of all `members` (in order), placed where the last
    one was; the members are erased."""
    block = Block()
    inputs: list[SSAValue] = []
    shared: dict[SSAValue, SSAValue] = {}
    yielded: list[SSAValue] = []
    for m in members:
        rows = _rows(block, inputs, shared, list(m.inputs))
        yielded += _inline(m.body.block, block, rows)
    block.add_op(soac.YieldOp(*yielded))
    first = members[0]
    loc = None if first.loc is None else first.loc.data
    merged = soac.MapOp(inputs, [t for m in members for t in m.result_types], Region(block),
                        _certs(members), loc)
    _replace_members(merged, members)
    return merged


def merge_folds(members: Sequence[Fold]) -> soac.RedomapOp:
    """One redomap folding the accumulators of all `members` (in order), placed where
    the last one was; the members are erased."""
    folds = [as_redomap(m) if isinstance(m, soac.ReduceOp) else m for m in members]
    merged = _merge_widened(folds, members, soac.RedomapOp)
    assert isinstance(merged, soac.RedomapOp)
    return merged


def merge_scans(members: Sequence[Scan]) -> soac.ScanomapOp:
    """One scanomap scanning the accumulators of all `members` (in order), placed where
    the last one was (Note [Merging scans]); the members are erased."""
    scans = [as_scanomap(m) if isinstance(m, soac.ScanOp) else m for m in members]
    merged = _merge_widened(scans, members, soac.ScanomapOp)
    assert isinstance(merged, soac.ScanomapOp)
    return merged


def _merge_widened(widened: Sequence[soac.RedomapOp | soac.ScanomapOp],
                   members: Sequence[Operation],
                   kind: type[soac.RedomapOp] | type[soac.ScanomapOp]
                   ) -> soac.RedomapOp | soac.ScanomapOp:
    """One `kind` merging `widened` (the members, a reduce made a redomap and a scan a
    scanomap) where the last member was; the members and the widened copies are
    erased."""
    merged = _merge_accumulators(widened, kind)
    _replace_members(merged, members)
    for w, m in zip(widened, members, strict=True):
        if w is not m:
            w.erase()  # the widened copy, now without uses
    return merged


def _merge_accumulators(folds: Sequence[soac.RedomapOp | soac.ScanomapOp],
                        kind: type[soac.RedomapOp] | type[soac.ScanomapOp]
                        ) -> soac.RedomapOp | soac.ScanomapOp:
    """The op of `kind` whose accumulators are those of all `folds` in order: its
    inner and outer lambdas run each member's on its part. Not inserted; the members'
    lambdas are taken."""
    neutral = [n for f in folds for n in f.neutral]
    inner = Block(arg_types=[n.type for n in neutral])
    outer = Block(arg_types=[n.type for n in neutral] * 2)
    inputs: list[SSAValue] = []
    shared: dict[SSAValue, SSAValue] = {}
    inner_yield: list[SSAValue] = []
    outer_yield: list[SSAValue] = []
    at = 0
    for f in folds:
        k = len(f.neutral)
        rows = _rows(inner, inputs, shared, list(f.inputs))
        accs = list(inner.args[at:at + k])
        inner_yield += _inline(f.inner.block, inner, accs + rows)
        pair = list(outer.args[at:at + k]) + list(outer.args[len(neutral) + at:][:k])
        outer_yield += _inline(f.outer.block, outer, pair)
        at += k
    inner.add_op(soac.YieldOp(*inner_yield))
    outer.add_op(soac.YieldOp(*outer_yield))
    return kind(neutral, inputs, Region(outer), Region(inner), _certs(folds))


def _replace_members(merged: Operation, members: Sequence[Operation]) -> None:
    Rewriter.insert_op(merged, InsertPoint.before(members[-1]))
    at = 0
    for m in members:
        for r in m.results:
            r.replace_all_uses_with(merged.results[at])
            at += 1
    for m in reversed(members):
        Rewriter.erase_op(m)


_CANDIDATES = (soac.MapOp, soac.ReduceOp, soac.RedomapOp, soac.ScanOp, soac.ScanomapOp)


def _two_candidates(block: Block) -> bool:
    """Whether `block` holds two SOACs that might be siblings: most blocks, lambdas
    among them, hold fewer, and sweeping them would find nothing."""
    seen = 0
    op = block._first_op
    while op is not None:
        if type(op) in _CANDIDATES:  # exactly: op classes are ABCs, slow to test
            seen += 1
            if seen == 2:
                return True
        op = op._next_op
    return False


def fuse_siblings(root: Operation, failing: Set[str],
                  remarks: dict[Operation, str] | None = None) -> int:
    """Merge the groups of siblings in every block under `root` (innermost blocks
    first); returns the number of SOACs merged away. Why siblings were kept apart goes
    into `remarks`."""
    merged = 0
    remarks = {} if remarks is None else remarks
    blocks = [b for op in walk_ops(root) for r in op.regions for b in r.blocks]
    for block in reversed(blocks):
        if not _two_candidates(block):
            continue  # no group, and no remark (it needs a sibling before)
        for members in sibling_groups(block, failing, remarks):
            if members[0].parent is None:
                continue  # inside a SOAC merged away already
            if isinstance(members[0], soac.MapOp):
                merge_maps(members)  # type: ignore[arg-type]  # a family has one class
            elif isinstance(members[0], Fold):
                merge_folds(members)  # type: ignore[arg-type]  # a family has one class
            else:
                merge_scans(members)  # type: ignore[arg-type]  # a family has one class
            merged += len(members) - 1
    return merged


def explain_apart(module: Operation, apart: dict[Operation, str], out: TextIO) -> None:
    """Say, for each SOAC left in `module` that a sibling before it could not take in,
    why (`fuse{explain=true}`)."""
    for op in module.walk():
        why = apart.get(op)
        if why is None:
            continue
        loc = getattr(op, "loc", None)
        where = f"{loc.data}: " if loc is not None else ""
        name = op.results[0].name_hint if op.results else None
        what = f"'{op.name}'" + (f" %{name}" if name else "")
        print(f"{where}remark: {what} not merged with its sibling: {why}", file=out)
