"""The ops of the `soac` dialect that bind no lambda arguments: certificates, array
construction, access and shape, and tracing. Their syntax is declarative
(`assembly_format`); the common pieces are

* certificates, when there are any, follow the other operands in angle brackets:
  `soac.index %a[%i] <%c1, %c2> : ...`;
* a source location follows the operands as `at "file:line:col"`;
* a type that follows from another is not written (`soac.copy %a : T` has result
  type T; `types.Derived`).

Effects (what generic passes may do) are in the module docstring of `l0.dialects.soac`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.builtin import IntAttr, StringAttr, TensorType, i1, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.constraints import RangeOf, RangeVarConstraint
from xdsl.pattern_rewriter import RewritePattern
from xdsl.traits import Commutative, HasCanonicalizationPatternsTrait, NoMemoryEffect, Pure
from xdsl.utils.exceptions import VerifyException

from l0.dialects.soac.syntax import IndexedType, IntLiteral, tolerant_syntax
from l0.dialects.soac.types import (
    ARRAY,
    CERT,
    VALUE,
    Derived,
    SameRange,
    array_of,
    array_type,
    row_type,
    same,
)
from l0.dialects.soac.verify import (
    check_dim,
    check_index_count,
    expect_result_types,
    expect_type,
    plural,
    without_dims,
)

I64_ARRAY = array_type(i64)

CERTS = "(` ` `<` $certs^ `>`)?"
"""The certificates of an op, in its declarative syntax: ` <%c1, %c2>` when there are any."""

_PLACEHOLDER = re.compile(r"\{(\d+)\}")


class Canonicalization(HasCanonicalizationPatternsTrait):
    """The op's rewrites of itself, run by `canonicalize` (and by `simplify`): those
    `canonicalization.PATTERNS` lists for its class, imported when first asked for (the
    patterns build ops of this module)."""

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        from l0.dialects.soac.canonicalization import PATTERNS

        return PATTERNS.get(op, ())

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return ()  # they depend on the op: `get_patterns`


@tolerant_syntax
@irdl_op_definition
class CheckedOp(IRDLOperation):
    """The certificate constant `Checked`.

    Syntax: `%c = soac.checked`
    """

    name = "soac.checked"
    result = result_def(CERT)
    traits = traits_def(Pure())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(result_types=[CERT])


@tolerant_syntax
@irdl_op_definition
class AssertOp(IRDLOperation):
    """A run-time check: fails with `msg` at `loc` when `cond` is false, else yields a
    certificate. `{0}`, `{1}`, ... in `msg` stand for the i64 `values` (other braces are
    literal). It has effects (it may fail), so generic passes never erase or merge it.

    Syntax:
        %c = soac.assert %ok, "assertion failed" at "p.l0:3:7"
        %c = soac.assert %ok, "index {0} out of bounds, size {1}" (%i, %n : i64, i64) at "a.l0:3:7"
    """

    name = "soac.assert"
    cond = operand_def(i1)
    values = var_operand_def(i64)
    msg = prop_def(StringAttr)
    loc = prop_def(StringAttr)
    cert = result_def(CERT)
    traits = traits_def(Canonicalization())
    assembly_format = (
        "$cond `,` $msg (` ` `(` $values^ `:` type($values) `)`)? `at` $loc attr-dict"
    )

    def __init__(self, cond: SSAValue | Operation, msg: str, loc: str,
                 values: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(
            operands=[cond, values],
            result_types=[CERT],
            properties={"msg": StringAttr(msg), "loc": StringAttr(loc)},
        )

    def verify_(self) -> None:
        count = len(self.values)
        for m in _PLACEHOLDER.finditer(self.msg.data):
            if int(m.group(1)) < count:
                continue
            allowed = f"{{0}} to {{{count - 1}}}" if count else "none"
            raise VerifyException(
                f"expected the message's placeholders to refer to the "
                f"{plural(count, 'value')} given ({allowed}), found {m.group(0)}"
            )


@tolerant_syntax
@irdl_op_definition
class ConjoinOp(IRDLOperation):
    """The conjunction of certificates (`conjoin(c1, c2)`).

    Syntax: `%c = soac.conjoin(%c1, %c2)`
    """

    name = "soac.conjoin"
    certs = var_operand_def(CERT)
    result = result_def(CERT)
    traits = traits_def(Pure(), Commutative(), Canonicalization())
    assembly_format = "`(` $certs `)` attr-dict"

    def __init__(self, certs: Sequence[SSAValue | Operation]) -> None:
        super().__init__(operands=[certs], result_types=[CERT])


def is_checked(v: SSAValue) -> bool:
    """Whether `v` is the certificate constant `Checked`."""
    return isinstance(v.owner, CheckedOp)


def join_certs(*lists: Sequence[SSAValue]) -> list[SSAValue]:
    """The certificates of all `lists`, each once, in order, without `Checked` (which
    guards nothing)."""
    out: dict[SSAValue, None] = {}
    for certs in lists:
        for c in certs:
            if not is_checked(c):
                out[c] = None
    return list(out)


@tolerant_syntax
@irdl_op_definition
class IotaOp(IRDLOperation):
    """`iota(n)`: the array `[0, ..., n-1]` (a cert guards `n >= 0`).

    Syntax: `%r = soac.iota %n <%c>` (the result is `tensor<?xi64>`)
    """

    name = "soac.iota"
    n = operand_def(i64)
    certs = var_operand_def(CERT)
    result = result_def(I64_ARRAY)
    traits = traits_def(Pure())
    assembly_format = f"$n {CERTS} attr-dict"

    def __init__(self, n: SSAValue | Operation,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[n, certs], result_types=[I64_ARRAY])


@tolerant_syntax
@irdl_op_definition
class ReplicateOp(IRDLOperation):
    """`replicate(n, v)`: an array of `n` copies of `v` (a cert guards `n >= 0`).

    Syntax: `%r = soac.replicate %n, %v <%c> : f64` (the type of `%v`; the result is
    `tensor<?xf64>`)
    """

    name = "soac.replicate"
    n = operand_def(i64)
    value = operand_def(VarConstraint("V", VALUE))
    certs = var_operand_def(CERT)
    result = result_def(Derived("V", array_of, ARRAY))
    traits = traits_def(Pure())
    assembly_format = f"$n `,` $value {CERTS} attr-dict `:` type($value)"

    def __init__(self, n: SSAValue | Operation, value: SSAValue | Operation,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[n, value, certs],
                         result_types=[array_of(SSAValue.get(value).type)])

    def verify_(self) -> None:
        expect_type("the result", array_of(self.value.type), self.result.type,
                     "an array of the replicated value's type")


@tolerant_syntax
@irdl_op_definition
class ArrayOp(IRDLOperation):
    """An array literal `[e1, ..., en]`, n >= 1, all elements of one type. When the
    elements are arrays of different shapes the op fails at run time, reporting `loc`.

    Syntax: `%r = soac.array [%x, %y] at "p.l0:1:9" : tensor<?xf64>` (the result type)
    """

    name = "soac.array"
    elems = var_operand_def(Derived("R", row_type, VALUE))
    result = result_def(VarConstraint("R", ARRAY))
    loc = opt_prop_def(StringAttr)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "` ` `[` $elems `]` (`at` $loc^)? attr-dict `:` type($result)"

    def __init__(self, elems: Sequence[SSAValue | Operation], result_type: Attribute,
                 loc: str | None = None) -> None:
        super().__init__(operands=[elems], result_types=[result_type],
                         properties={} if loc is None else {"loc": StringAttr(loc)})

    def verify_(self) -> None:
        if not self.elems:
            raise VerifyException("expected at least one element, found 0 (use soac.empty)")
        first = self.elems[0].type
        for i, e in enumerate(self.elems):
            expect_type(f"element {i}", first, e.type, "the type of element 0")
        expect_type("the result", array_of(first), self.result.type,
                     "an array of the elements' type")


@tolerant_syntax
@irdl_op_definition
class EmptyOp(IRDLOperation):
    """`empty(T)`: an array with every dimension 0.

    Syntax: `%e = soac.empty : tensor<?xf64>`
    """

    name = "soac.empty"
    result = result_def(ARRAY)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: Attribute) -> None:
        super().__init__(result_types=[result_type])


@tolerant_syntax
@irdl_op_definition
class CopyOp(IRDLOperation):
    """`copy(a)`: a fresh (unique) copy of an array.

    Syntax: `%r = soac.copy %a : tensor<?xf64>`
    """

    name = "soac.copy"
    array = operand_def(VarConstraint("A", ARRAY))
    result = result_def(Derived("A", same, ARRAY))
    traits = traits_def(Pure())
    assembly_format = "$array attr-dict `:` type($array)"

    def __init__(self, array: SSAValue | Operation) -> None:
        super().__init__(operands=[array], result_types=[SSAValue.get(array).type])

    def verify_(self) -> None:
        expect_type("the result", self.array.type, self.result.type, "the type of the array")


@tolerant_syntax
@irdl_op_definition
class SizeOp(IRDLOperation):
    """`size(dim, a)`: the length of dimension `dim` of `a`.

    Syntax: `%s = soac.size(1) %a <%c> : tensor<?x?xf64>`
    """

    name = "soac.size"
    array = operand_def(ARRAY)
    certs = var_operand_def(CERT)
    dim = prop_def(IntAttr)
    result = result_def(i64)
    traits = traits_def(Pure())
    custom_directives = (IntLiteral,)
    assembly_format = f"`(` custom<IntLiteral>($dim) `)` $array {CERTS} attr-dict `:` type($array)"

    def __init__(self, array: SSAValue | Operation, dim: int,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[array, certs], result_types=[i64],
                         properties={"dim": IntAttr(dim)})

    def verify_(self) -> None:
        assert isinstance(self.array.type, TensorType)
        check_dim("dim", self.dim.data, self.array.type.get_num_dims())


@tolerant_syntax
@irdl_op_definition
class IndexOp(IRDLOperation):
    """`a[i, j]`: an element (all dimensions indexed) or a row of lower rank. It does no
    check of its own: a bounds `soac.assert` guards it through a cert.

    Syntax: `%e = soac.index %a[%i, %j] <%c> : tensor<?x?xf64> -> f64`
    """

    name = "soac.index"
    array = operand_def(ARRAY)
    indices = var_operand_def(i64)
    certs = var_operand_def(CERT)
    result = result_def(VALUE)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())
    assembly_format = (
        f"$array `[` $indices `]` {CERTS} attr-dict `:` type($array) `->` type($result)"
    )

    def __init__(self, array: SSAValue | Operation, indices: Sequence[SSAValue | Operation],
                 result_type: Attribute, certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[array, indices, certs], result_types=[result_type])

    def verify_(self) -> None:
        expected = check_index_count(self.array, len(self.indices))
        expect_type("the result", expected, self.result.type, without_dims(len(self.indices)))


@tolerant_syntax
@irdl_op_definition
class UpdateOp(IRDLOperation):
    """let-with (`a with [i] <- v`): `a` with the element or row at the indices replaced
    by `value`. It consumes `array`. A bounds `soac.assert` guards it through a cert.

    Syntax: `%b = soac.update %a[%i] = %v <%c> : tensor<?x?xf64>` (the array's type;
    here `%v` is a `tensor<?xf64>` row)
    """

    name = "soac.update"
    array = operand_def(VarConstraint("A", ARRAY))
    indices = var_operand_def(i64)
    value = operand_def(VALUE)
    certs = var_operand_def(CERT)
    result = result_def(Derived("A", same, ARRAY))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())
    custom_directives = (IndexedType,)
    assembly_format = (
        f"$array `[` $indices `]` `=` $value {CERTS} attr-dict `:` "
        "custom<IndexedType>(type($array), type($value), ref($indices))"
    )

    def __init__(self, array: SSAValue | Operation, indices: Sequence[SSAValue | Operation],
                 value: SSAValue | Operation,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[array, indices, value, certs],
                         result_types=[SSAValue.get(array).type])

    def verify_(self) -> None:
        expected = check_index_count(self.array, len(self.indices))
        expect_type("the value", expected, self.value.type, without_dims(len(self.indices)))
        expect_type("the result", self.array.type, self.result.type, "the type of the array")


@tolerant_syntax
@irdl_op_definition
class ReshapeOp(IRDLOperation):
    """`reshape((d1, ..., dm), a)`: the elements of `a` in row-major order, regrouped in
    an array of rank m. A cert guards the element count.

    Syntax: `%r = soac.reshape (%d0, %d1) %a <%c> : tensor<?xf64> -> tensor<?x?xf64>`
    """

    name = "soac.reshape"
    array = operand_def(ARRAY)
    shape = var_operand_def(i64)
    certs = var_operand_def(CERT)
    result = result_def(ARRAY)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())
    assembly_format = (
        f"` ` `(` $shape `)` $array {CERTS} attr-dict `:` type($array) `->` type($result)"
    )

    def __init__(self, array: SSAValue | Operation, shape: Sequence[SSAValue | Operation],
                 result_type: Attribute, certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[array, shape, certs], result_types=[result_type])

    def verify_(self) -> None:
        assert isinstance(self.array.type, TensorType)
        expect_type("the result", array_type(self.array.type.element_type, len(self.shape)),
                     self.result.type,
                     f"the array's element type, {plural(len(self.shape), 'dimension')}: "
                     "one per shape operand")


@tolerant_syntax
@irdl_op_definition
class TransposeOp(IRDLOperation):
    """`transpose(k, n, a)`: dimension k of `a` moves to position k+n (n may be
    negative); `transpose(a)` is `transpose(0, 1, a)`.

    Syntax: `%t = soac.transpose(0, 1) %a <%c> : tensor<?x?xf64>`
    """

    name = "soac.transpose"
    array = operand_def(VarConstraint("A", ARRAY))
    certs = var_operand_def(CERT)
    k = prop_def(IntAttr)
    n = prop_def(IntAttr)
    result = result_def(Derived("A", same, ARRAY))
    traits = traits_def(Pure(), Canonicalization())
    custom_directives = (IntLiteral,)
    assembly_format = (
        f"`(` custom<IntLiteral>($k) `,` custom<IntLiteral>($n) `)` $array {CERTS} attr-dict "
        "`:` type($array)"
    )

    def __init__(self, array: SSAValue | Operation, k: int, n: int,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[array, certs], result_types=[SSAValue.get(array).type],
                         properties={"k": IntAttr(k), "n": IntAttr(n)})

    def verify_(self) -> None:
        assert isinstance(self.array.type, TensorType)
        rank = self.array.type.get_num_dims()
        check_dim("k", self.k.data, rank)
        check_dim("k + n", self.k.data + self.n.data, rank)
        expect_type("the result", self.array.type, self.result.type, "the type of the array")


@tolerant_syntax
@irdl_op_definition
class SplitOp(IRDLOperation):
    """`split(i, a)`: the first `i` rows of `a` and the rest. A cert guards `i`.

    Syntax: `%x, %y = soac.split %i, %a <%c> : tensor<?xf64>`
    """

    name = "soac.split"
    at = operand_def(i64)
    array = operand_def(VarConstraint("A", ARRAY))
    certs = var_operand_def(CERT)
    first = result_def(Derived("A", same, ARRAY))
    second = result_def(Derived("A", same, ARRAY))
    traits = traits_def(Pure())
    assembly_format = f"$at `,` $array {CERTS} attr-dict `:` type($array)"

    def __init__(self, at: SSAValue | Operation, array: SSAValue | Operation,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        t = SSAValue.get(array).type
        super().__init__(operands=[at, array, certs], result_types=[t, t])

    def verify_(self) -> None:
        expect_result_types(self, [self.array.type] * 2, "the type of the array")


@tolerant_syntax
@irdl_op_definition
class ConcatOp(IRDLOperation):
    """`concat(a, b)`: the rows of `a`, then those of `b`. A cert guards the row shapes;
    `loc` reports a failure the certs do not cover.

    Syntax: `%r = soac.concat %a, %b <%c> at "p.l0:2:3" : tensor<?xf64>`
    """

    name = "soac.concat"
    a = operand_def(VarConstraint("A", ARRAY))
    b = operand_def(Derived("A", same, ARRAY))
    certs = var_operand_def(CERT)
    result = result_def(Derived("A", same, ARRAY))
    loc = opt_prop_def(StringAttr)
    traits = traits_def(NoMemoryEffect())
    assembly_format = f"$a `,` $b {CERTS} (`at` $loc^)? attr-dict `:` type($a)"

    def __init__(self, a: SSAValue | Operation, b: SSAValue | Operation,
                 certs: Sequence[SSAValue | Operation] = (), loc: str | None = None) -> None:
        super().__init__(operands=[a, b, certs], result_types=[SSAValue.get(a).type],
                         properties={} if loc is None else {"loc": StringAttr(loc)})

    def verify_(self) -> None:
        expect_type("the second array", self.a.type, self.b.type, "the type of the first")
        expect_type("the result", self.a.type, self.result.type, "the type of the arrays")


@tolerant_syntax
@irdl_op_definition
class TraceOp(IRDLOperation):
    """`trace(e)`: prints `loc: value` to stderr (as the 2014 compiler did) and returns
    its operands unchanged. It has effects, so generic passes never erase it.

    Syntax: `%r, %s = soac.trace(%a, %b : f64, tensor<?xi64>) at "p.l0:1:5-1:12"`
    """

    name = "soac.trace"
    inputs = var_operand_def(RangeVarConstraint("I", RangeOf(VALUE)))
    outputs = var_result_def(SameRange("I", VALUE))
    loc = prop_def(StringAttr)
    assembly_format = "`(` ($inputs^ `:` type($inputs))? `)` `at` $loc attr-dict"

    def __init__(self, inputs: Sequence[SSAValue | Operation], loc: str) -> None:
        super().__init__(operands=[inputs],
                         result_types=[[SSAValue.get(v).type for v in inputs]],
                         properties={"loc": StringAttr(loc)})

    def verify_(self) -> None:
        expect_result_types(self, [v.type for v in self.inputs], "the types of the operands")


_THRESHOLD_DEFAULT = re.compile(r"(threads\*)?[0-9]+")


@tolerant_syntax
@irdl_op_definition
class ThresholdOp(IRDLOperation):
    """Whether `size` reaches a run-time threshold: `size >= T`, T the value of the
    parameter named after the SOAC at `loc` and `param` (`SITE.PARAM`, listed by
    `l0-run --print-params`, set by `--param`). `default` says T's value when none is
    set: a number, or `threads*F`, F times the thread count. It chooses between
    versions of code that compute the same values (Note [Versions of a nest] in
    `l0.passes.cores.versions`); the interpreter, one thread, takes the default.

    Syntax: `%b = soac.threshold %n, "flatten_below" default "threads*1" at "p.l0:3:5"`
    """

    name = "soac.threshold"
    size = operand_def(i64)
    param = prop_def(StringAttr)
    default = prop_def(StringAttr)
    loc = prop_def(StringAttr)
    result = result_def(i1)
    traits = traits_def(Pure())
    assembly_format = "$size `,` $param `default` $default `at` $loc attr-dict"

    def __init__(self, size: SSAValue | Operation, param: str, default: str,
                 loc: str) -> None:
        super().__init__(operands=[size], result_types=[i1],
                         properties={"param": StringAttr(param),
                                     "default": StringAttr(default),
                                     "loc": StringAttr(loc)})

    def verify_(self) -> None:
        if not _THRESHOLD_DEFAULT.fullmatch(self.default.data):
            raise VerifyException(
                f"expected the default to be a number or 'threads*' and a number, "
                f"found {self.default.data!r}")
        if not self.param.data or not self.param.data.replace("_", "").isalnum():
            raise VerifyException(
                f"expected the parameter to be a word of letters, digits and '_', "
                f"found {self.param.data!r}")

    def default_for(self, threads: int) -> int:
        """The default threshold on `threads` threads."""
        unit, _, factor = self.default.data.rpartition("*")
        return int(factor) * (threads if unit else 1)
