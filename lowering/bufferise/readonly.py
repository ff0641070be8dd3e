"""Arrays that are only ever read: `replicate` of them can be a view.

`replicate(n, v)` is a fresh array in L0 (its result is unique), so in general it must
be materialised: whoever gets it may update it in place. When nothing ever consumes it
(no let-with, no unique parameter, no loop merge or branch result that could be
updated later) and nothing consumes `v` while it lives, its rows can all be `v` itself:
a view with stride 0 in the outer dimension, O(1) instead of n copies. That is the
`replicate(N, transpose(b))` of the thesis's functional matrix multiplication (P1) and
shortest paths (P2), whose n^3 elements would otherwise all be written.

Likewise `map(fn row => replicate(k, row), a)` (k from outside the map), the other
half of those programs, is a view of `a` with a stride-0 second dimension.

`read_only(v)` is conservative: every use of `v` (and of its views: rows, transpose,
split, reshape) must be a read that cannot lead to a consumption: an input of a SOAC
whose lambda only reads the corresponding argument, an element read, a size, a copy,
a call argument of a non-unique parameter (the callee cannot consume it).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, TensorType
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from l0.dialects import soac

_VIEWS = (soac.IndexOp, soac.TransposeOp, soac.SplitOp, soac.ReshapeOp)
_READS = (soac.SizeOp, soac.CopyOp, soac.ConcatOp, soac.ArrayOp, soac.ReplicateOp,
          soac.AssertOp)
_SOACS = (soac.MapOp, soac.ReduceOp, soac.ScanOp, soac.FilterOp, soac.RedomapOp,
          soac.ScanomapOp)


def unique_params(module: ModuleOp) -> dict[str, list[bool]]:
    """For each function, which parameters are unique (may be consumed)."""
    out: dict[str, list[bool]] = {}
    for f in module.ops:
        if isinstance(f, func.FuncOp):
            n = len(f.function_type.inputs.data)
            attrs = f.arg_attrs
            out[f.sym_name.data] = (
                [isinstance(d, DictionaryAttr) and soac.UNIQUE_ATTR in d.data
                 for d in attrs.data] if isinstance(attrs, ArrayAttr) else [False] * n)
    return out


def _lambda_arg(op: Operation, operand_index: int) -> BlockArgument | None:
    """The lambda argument bound to the rows of operand `operand_index` of a SOAC, or
    None if that operand is not one of its input arrays."""
    if isinstance(op, soac.RedomapOp | soac.ScanomapOp):
        block, skip = op.inner.block, len(op.neutral)
    elif isinstance(op, soac.ReduceOp | soac.ScanOp):
        block, skip = op.body.block, len(op.neutral)
    else:
        assert isinstance(op, soac.MapOp | soac.FilterOp)
        block, skip = op.body.block, 0
    k = operand_index - skip  # the inputs follow the neutral elements
    if not 0 <= k < len(op.inputs):
        return None
    return block.args[skip + k]


def read_only(v: SSAValue, unique: dict[str, list[bool]]) -> bool:
    """Whether `v` and its views are only read (module docstring)."""
    work = [v]
    seen: set[SSAValue] = set()
    while work:
        cur = work.pop()
        if cur in seen:
            continue
        seen.add(cur)
        for use in cur.uses:
            op, index = use.operation, use.index
            if isinstance(op, _VIEWS) and index == _array_operand(op):
                work.extend(r for r in op.results if isinstance(r.type, TensorType))
            elif isinstance(op, (soac.IndexOp, *_READS)):
                continue
            elif isinstance(op, _SOACS):
                arg = _lambda_arg(op, index)
                if arg is None:
                    return False  # a neutral element: the fold may consume it
                if isinstance(arg.type, TensorType):  # an element is a copy
                    work.append(arg)
            elif isinstance(op, func.CallOp):
                params = unique.get(op.callee.root_reference.data)
                if params is None or params[index]:
                    return False
            else:
                return False
    return True


def root_array(v: SSAValue) -> SSAValue:
    """The array `v` is a view of (through rows, transpose, split, reshape), or `v`."""
    while isinstance(v, OpResult) and isinstance(v.op, _VIEWS):
        v = v.op.operands[_array_operand(v.op)]
    return v


def _array_operand(op: Operation) -> int:
    """The operand index of the array a view op takes (split's first operand is the
    split point)."""
    return 1 if isinstance(op, soac.SplitOp) else 0


def replicate_is_view(op: soac.ReplicateOp, unique: dict[str, list[bool]]) -> bool:
    """Whether `replicate` may be a stride-0 view of its value (module docstring)."""
    if not read_only(op.result, unique):
        return False
    if not isinstance(op.value.type, TensorType):
        return True
    return read_only(root_array(op.value), unique) or _non_unique_param(root_array(op.value))


def _non_unique_param(v: SSAValue) -> bool:
    """A parameter of its function that is not unique: this function cannot consume it."""
    if not isinstance(v, BlockArgument):
        return False
    f = v.block.parent_op()
    if not isinstance(f, func.FuncOp):
        return False
    attrs = f.arg_attrs
    if not isinstance(attrs, ArrayAttr):
        return True
    d = attrs.data[v.index]
    return not (isinstance(d, DictionaryAttr) and soac.UNIQUE_ATTR in d.data)


def replicated_rows(op: soac.MapOp) -> tuple[SSAValue, int] | None:
    """(k, j) when `op` is `map(fn row => replicate(k, row), ...)` over input j, with k
    from outside the map; else None."""
    block = op.body.block
    ops = list(block.ops)
    if len(op.results) != 1 or len(ops) != 2:
        return None
    rep, term = ops
    if not isinstance(rep, soac.ReplicateOp) or term.operands[0] is not rep.result:
        return None
    v = rep.value
    if not (isinstance(v, BlockArgument) and v.block is block and isinstance(v.type, TensorType)):
        return None
    k = rep.n
    inside = isinstance(k, BlockArgument) and k.block is block
    if inside or (isinstance(k, OpResult) and k.op.parent_block() is block):
        return None
    return k, v.index


def map_is_view(op: soac.MapOp, unique: dict[str, list[bool]]) -> bool:
    """Whether `op` may be a view of its input (`replicated_rows`, module docstring)."""
    found = replicated_rows(op)
    if found is None or not read_only(op.results[0], unique):
        return False
    src = root_array(op.inputs[found[1]])
    return read_only(src, unique) or _non_unique_param(src)
