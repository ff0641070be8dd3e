"""When a producer may be fused into its consumers (thesis 7.1.2, 7.1.3, 7.4.1).

The thesis's data-flow sets become questions about SSA use lists:

* *consumers* (ARRINPUTS): every use of every output of the producer must be an input
  array of a SOAC that can take it (a use anywhere else, as in an indexing, a size, a
  call or a return, is the UNFUSIBLE set: the array must exist, and computing it as
  well as fusing would duplicate work);
* *paths* (7.4.1, `if` and `loop` cases): each consumer is in the producer's block or
  in branches of `scf.if`s in it, never in a loop or a lambda (fusing there reruns the
  producer's work per iteration), and no two consumers are on one execution path (two
  consumers in sequence would each compute the producer's rows);
* *consumption* (7.1.2, CONSUMED): no array the producer reads (an input, or a value
  its lambda uses) may be consumed between the producer and a consumer, since fusion
  moves the reads to the consumer; and the consumer's lambda must not consume a row it
  gets from the producer (that row becomes the producer's yielded value, which may be
  a row of the producer's input);
* *errors and prints* (beyond the thesis, which ignored them): fusion interleaves the
  producer's lambda with everything up to and including the consumer. When the
  producer's lambda may fail or print, nothing on the way (ops between them, the
  consumer's lambda and its own checks) may fail or print, or a different error, or
  output in a different order, would be reported; nor may the consumer be in a branch
  (fused there, the producer would run only when the branch is taken). And the
  producer's rows must be of one shape known before it runs
  (`l0.passes.analysis.shapes`): fused, the map that would have reported an irregular
  array no longer exists.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from l0.dialects import soac
from l0.passes.analysis.consumption import SOACS, Consumption, consumed_operands
from l0.passes.analysis.effects import has_effects, lambda_effects
from l0.passes.analysis.scope import free_values
from l0.passes.analysis.shapes import row_shape

FOLDS = (soac.ReduceOp, soac.RedomapOp, soac.ScanomapOp)


def regular(producer: soac.MapOp | soac.FilterOp) -> bool:
    """Whether every array the producer's lambda yields has one shape, known before it
    runs (a filter yields a predicate)."""
    if isinstance(producer, soac.FilterOp):
        return True
    last = producer.body.block.last_op
    assert isinstance(last, soac.YieldOp)
    return all(not isinstance(v.type, TensorType) or row_shape(v, producer) is not None
               for v in last.values)


def _home_chain(op: Operation, home: Block) -> list[Operation] | None:
    """The ancestors of `op` (itself first) up to the one in block `home`, if all but
    `op` are `scf.if`s; None otherwise (a loop or lambda in between, or not below)."""
    chain = [op]
    while chain[-1].parent_block() is not home:
        parent = chain[-1].parent_op()
        if not isinstance(parent, scf.IfOp):
            return None
        chain.append(parent)
    return chain


def _on_one_path(a: list[Operation], b: list[Operation]) -> bool:
    """Whether the ops with home chains `a` and `b` may both run in one execution."""
    for x, y in zip(reversed(a), reversed(b), strict=False):
        if x is not y:
            # the same block (sequence), unless x and y sit in different regions of the
            # `if` just above them
            return x.parent_region() is y.parent_region()
    return True  # one contains the other


@dataclass
class Fusibility:
    """The legality checks for one module (`failing`: functions whose calls may fail,
    print or not terminate, from `l0.passes.analysis.speculation`)."""

    failing: Set[str]
    consumption: Consumption

    def consumers(self, producer: Operation,
                  accepts: type[Operation] | tuple[type[Operation], ...],
                  outputs: Sequence[SSAValue] | None = None) -> list[Operation] | str:
        """The consumers of every output of `producer` (or of `outputs`, which stand for
        them: their transposes), in program order, or why they are used otherwise."""
        found: list[Operation] = []
        for r in producer.results if outputs is None else outputs:
            for use in r.uses:
                user = use.operation
                what = "an output" if r.name_hint is None else f"output %{r.name_hint}"
                if isinstance(user, SOACS) and not isinstance(user, accepts):
                    return (f"{what} is an input of '{user.name}', which no rule fuses "
                            f"with '{producer.name}'")
                if not isinstance(user, accepts) or use.index >= _inputs_end(user):
                    return f"{what} is used by '{user.name}', not as an input array"
                if use.index < _inputs_start(user):
                    return f"{what} is the neutral element of '{user.name}'"
                if user not in found:
                    found.append(user)
        if not found:
            return "no consumer"
        home = producer.parent_block()
        assert home is not None
        chains: list[list[Operation]] = []
        for c in found:
            chain = _home_chain(c, home)
            if chain is None:
                return f"the consumer '{c.name}' runs inside a loop or lambda"
            for other in chains:
                if _on_one_path(chain, other):
                    return "two consumers may run in one execution (work would be duplicated)"
            chains.append(chain)
        if len(found) > 1:
            found.sort(key=self.consumption.position)
        return found

    def consumes_argument(self, lam: Operation, arg: BlockArgument) -> bool:
        """Whether an op in `lam`'s regions may consume `arg` or an alias of it (not
        without `may_be_consumed`, which saves walking `lam`)."""
        return self.consumption.may_be_consumed(arg) and any(arg in self.consumption.closure(v)
                   for r in lam.regions for b in r.blocks for top in b.ops
                   for inner in top.walk() for v in consumed_operands(inner))

    def problem(self, producer: Operation, consumer: Operation,
                outputs: Sequence[SSAValue] | None = None, *,
                on_the_way: bool = True) -> str | None:
        """Why `producer` may not be fused into `consumer` (None: it may); `outputs` as
        for `consumers`; `on_the_way=False` leaves out what may fail or print between
        them (`repeated_checks.py` may move it)."""
        read = [v for v in free_values(producer) if isinstance(v.type, TensorType)
                and self.consumption.may_be_consumed(v)]
        if self.consumption.consumed_between(read, producer, consumer) is not None:
            return "an array the producer reads may be consumed before the consumer"
        consumed = consumed_operands(consumer) if read else []
        if any(self.consumption.closure(c) & frozenset(read) for c in consumed):
            return "the consumer may consume an array the producer reads"
        produced = set(producer.results if outputs is None else outputs)
        for arg, v in soac.row_arguments(consumer):
            if v in produced and self.consumes_argument(consumer, arg):
                return "the consumer's lambda consumes a row of the producer's output"
        if lambda_effects(producer, self.failing):
            if consumer.parent_block() is not producer.parent_block():
                return ("the producer may fail or print, and the consumer runs only when "
                        "a branch is taken")
            between = self._effect_on_the_way(producer, consumer) if on_the_way else None
            if between is not None:
                return (f"the producer may fail or print, and so may '{between.name}' "
                        "before the consumer's rows are done")
        return None

    def _effect_on_the_way(self, producer: Operation, consumer: Operation) -> Operation | None:
        """An op that may fail or print and runs after `producer` and before `consumer`
        finishes (the consumer itself included)."""
        home = producer.parent_block()
        assert home is not None
        chain = _home_chain(consumer, home)
        assert chain is not None
        after: Operation | None = producer
        for anchor in reversed(chain):
            block = anchor.parent_block()
            assert block is not None
            op = block.first_op if after is None else after.next_op
            while op is not None and op is not anchor:
                if has_effects(op, self.failing):
                    return op
                op = op.next_op
            after = None
        return consumer if has_effects(consumer, self.failing) else None


def _inputs_start(op: Operation) -> int:
    return len(op.neutral) if isinstance(op, FOLDS + (soac.ScanOp,)) else 0


def _inputs_end(op: Operation) -> int:
    return _inputs_start(op) + len(op.inputs) if isinstance(op, SOACS) else 0
