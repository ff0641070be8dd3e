// RUN: l0-opt %s --verify-diagnostics --split-input-file | filecheck %s

// One case per verifier error of the soac dialect. Cases the custom syntax cannot
// even express, or rejects when it parses (types outside L0's), are written in the
// generic form.

// assert: placeholder without a value
func.func @assert_placeholder_without_a_value(%ok: i1, %i: i64) {
  %c = soac.assert %ok, "index {0} out of bounds for size {1}" (%i : i64) at "p.l0:1:1"
  func.return
}
// CHECK-LABEL: sym_name = "assert_placeholder_without_a_value"
// CHECK:       Operation does not verify: expected the message's placeholders to refer to the 1 value given ({0} to {0}), found {1}

// -----

// assert: placeholder, no values
func.func @assert_placeholder_no_values(%ok: i1) {
  %c = soac.assert %ok, "bad {0}" at "p.l0:1:1"
  func.return
}
// CHECK-LABEL: sym_name = "assert_placeholder_no_values"
// CHECK:       Operation does not verify: expected the message's placeholders to refer to the 0 values given (none), found {0}

// -----

// assert: condition not i1
func.func @assert_condition_not_i1(%i: i64) {
  %c = "soac.assert"(%i) <{msg = "m", loc = "p.l0:1:1"}> : (i64) -> !soac.cert
  func.return
}
// CHECK-LABEL: sym_name = "assert_condition_not_i1"
// CHECK:       Operation does not verify: operand 'cond' at position 0 does not verify:
// CHECK-NEXT:  Expected attribute i1 but got i64

// -----

// assert: values not i64
func.func @assert_values_not_i64(%ok: i1, %x: f64) {
  %c = "soac.assert"(%ok, %x) <{msg = "m {0}", loc = "p.l0:1:1"}> : (i1, f64) -> !soac.cert
  func.return
}
// CHECK-LABEL: sym_name = "assert_values_not_i64"
// CHECK:       Operation does not verify: operand 'values' at position 1 does not verify:
// CHECK-NEXT:  Expected attribute i64 but got f64

// -----

// certs of the wrong type
func.func @certs_of_the_wrong_type(%n: i64, %x: f64) {
  %r = "soac.iota"(%n, %x) : (i64, f64) -> tensor<?xi64>
  func.return
}
// CHECK-LABEL: sym_name = "certs_of_the_wrong_type"
// CHECK:       Operation does not verify: operand 'certs' at position 1 does not verify:
// CHECK-NEXT:  Expected attribute !soac.cert but got f64

// -----

// iota result
func.func @iota_result(%n: i64) {
  %r = "soac.iota"(%n) : (i64) -> tensor<?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "iota_result"
// CHECK:       Operation does not verify: result 'result' at position 0 does not verify:
// CHECK-NEXT:  Expected attribute tensor<?xi64> but got tensor<?xf64>

// -----

// static dimension
func.func @static_dimension(%a: tensor<3xf64>) {
  %r = "soac.copy"(%a) : (tensor<3xf64>) -> tensor<3xf64>
  func.return
}
// CHECK-LABEL: sym_name = "static_dimension"
// CHECK:       Operation does not verify: operand 'array' at position 0 does not verify:
// CHECK-NEXT:  expected an array type tensor<?x...xT> with T one of i64, f64, i1, i32, !soac.cert, found tensor<3xf64>

// -----

// element type
func.func @element_type(%a: tensor<?xf32>) {
  %r = "soac.copy"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  func.return
}
// CHECK-LABEL: sym_name = "element_type"
// CHECK:       Operation does not verify: operand 'array' at position 0 does not verify:
// CHECK-NEXT:  expected an array type tensor<?x...xT> with T one of i64, f64, i1, i32, !soac.cert, found tensor<?xf32>

// -----

// rank 0
func.func @rank_0(%a: tensor<f64>) {
  %r = "soac.copy"(%a) : (tensor<f64>) -> tensor<f64>
  func.return
}
// CHECK-LABEL: sym_name = "rank_0"
// CHECK:       Operation does not verify: operand 'array' at position 0 does not verify:
// CHECK-NEXT:  expected an array type tensor<?x...xT> with T one of i64, f64, i1, i32, !soac.cert, found tensor<f64>

// -----

// scalar value type
func.func @scalar_value_type(%n: i64, %x: f32) {
  %r = "soac.replicate"(%n, %x) : (i64, f32) -> tensor<?xf32>
  func.return
}
// CHECK-LABEL: sym_name = "scalar_value_type"
// CHECK:       Operation does not verify: operand 'value' at position 1 does not verify:
// CHECK-NEXT:  expected i64, f64, i1, i32, !soac.cert or an array type tensor<?x...xT> with T one of i64, f64, i1, i32, !soac.cert, found f32

// -----

// replicate result
func.func @replicate_result(%n: i64, %x: f64) {
  %r = "soac.replicate"(%n, %x) : (i64, f64) -> tensor<?x?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "replicate_result"
// CHECK:       Operation does not verify: expected the result to have type tensor<?xf64> (an array of the replicated value's type), found tensor<?x?xf64>

// -----

// array: no elements
func.func @array_no_elements() {
  %r = "soac.array"() : () -> tensor<?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "array_no_elements"
// CHECK:       Operation does not verify: expected at least one element, found 0 (use soac.empty)

// -----

// array: mixed elements
func.func @array_mixed_elements(%x: f64, %y: i64) {
  %r = "soac.array"(%x, %y) : (f64, i64) -> tensor<?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "array_mixed_elements"
// CHECK:       Operation does not verify: expected element 1 to have type f64 (the type of element 0), found i64

// -----

// array: result
func.func @array_result(%x: f64) {
  %r = "soac.array"(%x) : (f64) -> tensor<?x?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "array_result"
// CHECK:       Operation does not verify: expected the result to have type tensor<?xf64> (an array of the elements' type), found tensor<?x?xf64>

// -----

// copy: result
func.func @copy_result(%a: tensor<?xf64>) {
  %r = "soac.copy"(%a) : (tensor<?xf64>) -> tensor<?xi64>
  func.return
}
// CHECK-LABEL: sym_name = "copy_result"
// CHECK:       Operation does not verify: expected the result to have type tensor<?xf64> (the type of the array), found tensor<?xi64>

// -----

// size: dim
func.func @size_dim(%a: tensor<?x?xf64>) {
  %s = soac.size(2) %a : tensor<?x?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "size_dim"
// CHECK:       Operation does not verify: expected dim in [0, 2) for an array of rank 2, found 2

// -----

// size: negative dim
func.func @size_negative_dim(%a: tensor<?xf64>) {
  %s = soac.size(-1) %a : tensor<?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "size_negative_dim"
// CHECK:       Operation does not verify: expected dim in [0, 1) for an array of rank 1, found -1

// -----

// index: too many indices
func.func @index_too_many_indices(%a: tensor<?xf64>, %i: i64) {
  %e = soac.index %a[%i, %i] : tensor<?xf64> -> f64
  func.return
}
// CHECK-LABEL: sym_name = "index_too_many_indices"
// CHECK:       Operation does not verify: expected at most 1 index for an array of rank 1, found 2

// -----

// index: result
func.func @index_result(%a: tensor<?x?xf64>, %i: i64) {
  %e = soac.index %a[%i] : tensor<?x?xf64> -> f64
  func.return
}
// CHECK-LABEL: sym_name = "index_result"
// CHECK:       Operation does not verify: expected the result to have type tensor<?xf64> (the array's type without its 1 outer dimension), found f64

// -----

// index: index type
func.func @index_index_type(%a: tensor<?xf64>, %i: i32) {
  %e = "soac.index"(%a, %i) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<?xf64>, i32) -> f64
  func.return
}
// CHECK-LABEL: sym_name = "index_index_type"
// CHECK:       Operation does not verify: operand 'indices' at position 1 does not verify:
// CHECK-NEXT:  Expected attribute i64 but got i32

// -----

// update: too many indices
func.func @update_too_many_indices(%a: tensor<?xf64>, %i: i64, %x: f64) {
  %r = "soac.update"(%a, %i, %i, %x) <{operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (tensor<?xf64>, i64, i64, f64) -> tensor<?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "update_too_many_indices"
// CHECK:       Operation does not verify: expected at most 1 index for an array of rank 1, found 2

// -----

// update: value
func.func @update_value(%a: tensor<?x?xf64>, %i: i64, %x: f64) {
  %r = "soac.update"(%a, %i, %x) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<?x?xf64>, i64, f64) -> tensor<?x?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "update_value"
// CHECK:       Operation does not verify: expected the value to have type tensor<?xf64> (the array's type without its 1 outer dimension), found f64

// -----

// update: result
func.func @update_result(%a: tensor<?xf64>, %i: i64, %x: f64) {
  %r = "soac.update"(%a, %i, %x) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<?xf64>, i64, f64) -> tensor<?x?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "update_result"
// CHECK:       Operation does not verify: expected the result to have type tensor<?xf64> (the type of the array), found tensor<?x?xf64>

// -----

// reshape: rank
func.func @reshape_rank(%a: tensor<?xf64>, %n: i64) {
  %r = soac.reshape (%n, %n) %a : tensor<?xf64> -> tensor<?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "reshape_rank"
// CHECK:       Operation does not verify: expected the result to have type tensor<?x?xf64> (the array's element type, 2 dimensions: one per shape operand), found tensor<?xf64>

// -----

// reshape: element type
func.func @reshape_element_type(%a: tensor<?xf64>, %n: i64) {
  %r = soac.reshape (%n) %a : tensor<?xf64> -> tensor<?xi64>
  func.return
}
// CHECK-LABEL: sym_name = "reshape_element_type"
// CHECK:       Operation does not verify: expected the result to have type tensor<?xf64> (the array's element type, 1 dimension: one per shape operand), found tensor<?xi64>

// -----

// transpose: k
func.func @transpose_k(%a: tensor<?x?xf64>) {
  %r = soac.transpose(2, -1) %a : tensor<?x?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "transpose_k"
// CHECK:       Operation does not verify: expected k in [0, 2) for an array of rank 2, found 2

// -----

// transpose: k + n
func.func @transpose_k_n(%a: tensor<?x?xf64>) {
  %r = soac.transpose(1, 1) %a : tensor<?x?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "transpose_k_n"
// CHECK:       Operation does not verify: expected k + n in [0, 2) for an array of rank 2, found 2

// -----

// transpose: result
func.func @transpose_result(%a: tensor<?x?xf64>) {
  %r = "soac.transpose"(%a) <{k = #builtin.int<0>, n = #builtin.int<1>}> : (tensor<?x?xf64>) -> tensor<?x?xi64>
  func.return
}
// CHECK-LABEL: sym_name = "transpose_result"
// CHECK:       Operation does not verify: expected the result to have type tensor<?x?xf64> (the type of the array), found tensor<?x?xi64>

// -----

// split: results
func.func @split_results(%a: tensor<?xf64>, %i: i64) {
  %x, %y = "soac.split"(%i, %a) : (i64, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xi64>)
  func.return
}
// CHECK-LABEL: sym_name = "split_results"
// CHECK:       Operation does not verify: expected result 1 to have type tensor<?xf64> (the type of the array), found tensor<?xi64>

// -----

// concat: operands
func.func @concat_operands(%a: tensor<?xf64>, %b: tensor<?x?xf64>) {
  %r = "soac.concat"(%a, %b) : (tensor<?xf64>, tensor<?x?xf64>) -> tensor<?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "concat_operands"
// CHECK:       Operation does not verify: expected the second array to have type tensor<?xf64> (the type of the first), found tensor<?x?xf64>

// -----

// concat: result
func.func @concat_result(%a: tensor<?xf64>) {
  %r = "soac.concat"(%a, %a) : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xi64>
  func.return
}
// CHECK-LABEL: sym_name = "concat_result"
// CHECK:       Operation does not verify: expected the result to have type tensor<?xf64> (the type of the arrays), found tensor<?xi64>

// -----

// map: no inputs
func.func @map_no_inputs() {
  %r = "soac.map"() <{operandSegmentSizes = array<i32: 0, 0>}> ({
  ^bb0:
    %x = arith.constant 1.0 : f64
    soac.yield %x : f64
  }) : () -> tensor<?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "map_no_inputs"
// CHECK:       Operation does not verify: expected at least one input array, found 0

// -----

// map: lambda arity
func.func @map_lambda_arity(%a: tensor<?xf64>) {
  %r = soac.map(%a : tensor<?xf64>) -> tensor<?xf64> {
  ^bb0(%x: f64, %y: f64):
    soac.yield %x : f64
  }
  func.return
}
// CHECK-LABEL: sym_name = "map_lambda_arity"
// CHECK:       Operation does not verify: expected the lambda to take 1 argument, found 2

// -----

// map: lambda argument type
func.func @map_lambda_argument_type(%a: tensor<?x?xf64>) {
  %r = soac.map(%a : tensor<?x?xf64>) -> tensor<?xf64> {
  ^bb0(%x: f64):
    soac.yield %x : f64
  }
  func.return
}
// CHECK-LABEL: sym_name = "map_lambda_argument_type"
// CHECK:       Operation does not verify: expected the lambda argument 0 to have type tensor<?xf64> (a row of input 0), found f64

// -----

// map: yield count
func.func @map_yield_count(%a: tensor<?xf64>) {
  %r = soac.map(%x = %a : tensor<?xf64>) -> tensor<?xf64> {
    soac.yield %x, %x : f64, f64
  }
  func.return
}
// CHECK-LABEL: sym_name = "map_yield_count"
// CHECK:       Operation does not verify: expected the lambda to yield 1 value (one per result), found 2

// -----

// map: result type
func.func @map_result_type(%a: tensor<?xf64>) {
  %r = soac.map(%x = %a : tensor<?xf64>) -> tensor<?x?xf64> {
    soac.yield %x : f64
  }
  func.return
}
// CHECK-LABEL: sym_name = "map_result_type"
// CHECK:       Operation does not verify: expected result 0 to have type tensor<?xf64> (arrays of the lambda's result types), found tensor<?x?xf64>

// -----

// map: terminator
func.func @map_terminator(%a: tensor<?xf64>) {
  %r = soac.map(%x = %a : tensor<?xf64>) -> tensor<?xf64> {
    llvm.unreachable
  }
  func.return
}
// CHECK-LABEL: sym_name = "map_terminator"
// CHECK:       Operation does not verify: expected the lambda to end in soac.yield, found llvm.unreachable

// -----

// map: input not an array
func.func @map_input_not_an_array(%x: f64) {
  %r = "soac.map"(%x) <{operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%y: f64):
    soac.yield %y : f64
  }) : (f64) -> tensor<?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "map_input_not_an_array"
// CHECK:       Operation does not verify: operand 'inputs' at position 0 does not verify:
// CHECK-NEXT:  expected an array type tensor<?x...xT> with T one of i64, f64, i1, i32, !soac.cert, found f64

// -----

// reduce: neutral count
func.func @reduce_neutral_count(%a: tensor<?xf64>, %z: f64) {
  %r, %s = soac.reduce(%z, %z : f64, f64) over(%a : tensor<?xf64>) {
  ^bb0(%p: f64, %q: f64, %x: f64):
    soac.yield %p, %q : f64, f64
  }
  func.return
}
// CHECK-LABEL: sym_name = "reduce_neutral_count"
// CHECK:       Operation does not verify: expected one neutral element per input array, found 2 neutral elements and 1 input array

// -----

// reduce: no inputs
func.func @reduce_no_inputs() {
  "soac.reduce"() <{operandSegmentSizes = array<i32: 0, 0, 0>}> ({
  ^bb0:
    soac.yield
  }) : () -> ()
  func.return
}
// CHECK-LABEL: sym_name = "reduce_no_inputs"
// CHECK:       Operation does not verify: expected at least one input array, found 0

// -----

// reduce: row type vs neutral
func.func @reduce_row_type_vs_neutral(%a: tensor<?xf64>, %z: i64) {
  %r = soac.reduce(%z : i64) over(%a : tensor<?xf64>) {
  ^bb0(%p: i64, %x: f64):
    soac.yield %p : i64
  }
  func.return
}
// CHECK-LABEL: sym_name = "reduce_row_type_vs_neutral"
// CHECK:       Operation does not verify: expected the rows of input 0 to have type i64 (the type of neutral element 0), found f64

// -----

// reduce: lambda arity
func.func @reduce_lambda_arity(%a: tensor<?xf64>, %z: f64) {
  %r = soac.reduce(%z : f64) over(%a : tensor<?xf64>) {
  ^bb0(%p: f64):
    soac.yield %p : f64
  }
  func.return
}
// CHECK-LABEL: sym_name = "reduce_lambda_arity"
// CHECK:       Operation does not verify: expected the lambda to take 2 arguments, found 1

// -----

// reduce: accumulator type
func.func @reduce_accumulator_type(%a: tensor<?x?xf64>, %z: tensor<?xf64>) {
  %r = soac.reduce(%z : tensor<?xf64>) over(%a : tensor<?x?xf64>) {
  ^bb0(%p: tensor<?x?xf64>, %x: tensor<?xf64>):
    soac.yield %x : tensor<?xf64>
  }
  func.return
}
// CHECK-LABEL: sym_name = "reduce_accumulator_type"
// CHECK:       Operation does not verify: expected the lambda argument 0 to have type tensor<?xf64> (accumulator 0: the type of neutral element 0), found tensor<?x?xf64>

// -----

// reduce: yield type
func.func @reduce_yield_type(%a: tensor<?xi64>, %z: i64) {
  %r = soac.reduce(%p = %z : i64) over(%x = %a : tensor<?xi64>) {
    %b = arith.cmpi slt, %p, %x : i64
    soac.yield %b : i1
  }
  func.return
}
// CHECK-LABEL: sym_name = "reduce_yield_type"
// CHECK:       Operation does not verify: expected the lambda result 0 to have type i64 (the type of neutral element 0), found i1

// -----

// reduce: result type
func.func @reduce_result_type(%a: tensor<?xi64>, %z: i64) {
  %r = "soac.reduce"(%z, %a) <{operandSegmentSizes = array<i32: 1, 1, 0>}> ({
  ^bb0(%p: i64, %x: i64):
    soac.yield %p : i64
  }) : (i64, tensor<?xi64>) -> f64
  func.return
}
// CHECK-LABEL: sym_name = "reduce_result_type"
// CHECK:       Operation does not verify: expected result 0 to have type i64 (the types of the neutral elements), found f64

// -----

// scan: result type
func.func @scan_result_type(%a: tensor<?xi64>, %z: i64) {
  %r = "soac.scan"(%z, %a) <{operandSegmentSizes = array<i32: 1, 1, 0>}> ({
  ^bb0(%p: i64, %x: i64):
    soac.yield %p : i64
  }) : (i64, tensor<?xi64>) -> tensor<?x?xi64>
  func.return
}
// CHECK-LABEL: sym_name = "scan_result_type"
// CHECK:       Operation does not verify: expected result 0 to have type tensor<?xi64> (arrays of the neutral elements' types), found tensor<?x?xi64>

// -----

// scan: yield count
func.func @scan_yield_count(%a: tensor<?xi64>, %z: i64) {
  %r = soac.scan(%p = %z : i64) over(%x = %a : tensor<?xi64>) {
    soac.yield
  }
  func.return
}
// CHECK-LABEL: sym_name = "scan_yield_count"
// CHECK:       Operation does not verify: expected the lambda to yield 1 value, found 0

// -----

// filter: yield count
func.func @filter_yield_count(%a: tensor<?xi64>, %b: i1) {
  %r = soac.filter(%x = %a : tensor<?xi64>) {
    soac.yield %b, %b : i1, i1
  }
  func.return
}
// CHECK-LABEL: sym_name = "filter_yield_count"
// CHECK:       Operation does not verify: expected the lambda to yield 1 value, found 2

// -----

// filter: yield type
func.func @filter_yield_type(%a: tensor<?xi64>) {
  %r = soac.filter(%x = %a : tensor<?xi64>) {
    soac.yield %x : i64
  }
  func.return
}
// CHECK-LABEL: sym_name = "filter_yield_type"
// CHECK:       Operation does not verify: expected the lambda result 0 to have type i1 (the predicate), found i64

// -----

// filter: results
func.func @filter_results(%a: tensor<?xi64>, %b: i1) {
  %r = "soac.filter"(%a) <{operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%x: i64):
    soac.yield %b : i1
  }) : (tensor<?xi64>) -> tensor<?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "filter_results"
// CHECK:       Operation does not verify: expected result 0 to have type tensor<?xi64> (the types of the inputs), found tensor<?xf64>

// -----

// filter: no inputs
func.func @filter_no_inputs(%b: i1) {
  "soac.filter"() <{operandSegmentSizes = array<i32: 0, 0>}> ({
  ^bb0:
    soac.yield %b : i1
  }) : () -> ()
  func.return
}
// CHECK-LABEL: sym_name = "filter_no_inputs"
// CHECK:       Operation does not verify: expected at least one input array, found 0

// -----

// redomap: outer arity
func.func @redomap_outer_arity(%a: tensor<?xf64>, %z: f64) {
  %r = soac.redomap(%acc = %z : f64) over(%x = %a : tensor<?xf64>) {
    soac.yield %acc : f64
  } outer {
  ^bb0(%p: f64):
    soac.yield %p : f64
  }
  func.return
}
// CHECK-LABEL: sym_name = "redomap_outer_arity"
// CHECK:       Operation does not verify: expected the outer lambda to take 2 arguments, found 1

// -----

// redomap: inner argument type
func.func @redomap_inner_argument_type(%a: tensor<?xf64>, %z: f64) {
  %r = soac.redomap(%z : f64) over(%a : tensor<?xf64>) {
  ^bb0(%acc: f64, %x: i64):
    soac.yield %acc : f64
  } outer {
  ^bb0(%p: f64, %q: f64):
    soac.yield %p : f64
  }
  func.return
}
// CHECK-LABEL: sym_name = "redomap_inner_argument_type"
// CHECK:       Operation does not verify: expected the inner lambda argument 1 to have type f64 (a row of input 0), found i64

// -----

// redomap: inner yield type
func.func @redomap_inner_yield_type(%a: tensor<?xf64>, %z: f64, %k: i64) {
  %r = soac.redomap(%acc = %z : f64) over(%x = %a : tensor<?xf64>) {
    soac.yield %k : i64
  } outer {
  ^bb0(%p: f64, %q: f64):
    soac.yield %p : f64
  }
  func.return
}
// CHECK-LABEL: sym_name = "redomap_inner_yield_type"
// CHECK:       Operation does not verify: expected the inner lambda result 0 to have type f64 (the type of neutral element 0), found i64

// -----

// redomap: no neutral
func.func @redomap_no_neutral(%a: tensor<?xf64>) {
  "soac.redomap"(%a) <{operandSegmentSizes = array<i32: 0, 1, 0>}> ({
  ^bb0:
    soac.yield
  }, {
  ^bb0(%x: f64):
    soac.yield
  }) : (tensor<?xf64>) -> ()
  func.return
}
// CHECK-LABEL: sym_name = "redomap_no_neutral"
// CHECK:       Operation does not verify: expected at least one neutral element, found 0

// -----

// redomap: result type
func.func @redomap_result_type(%a: tensor<?xf64>, %z: f64) {
  %r = "soac.redomap"(%z, %a) <{operandSegmentSizes = array<i32: 1, 1, 0>}> ({
  ^bb0(%p: f64, %q: f64):
    soac.yield %p : f64
  }, {
  ^bb0(%acc: f64, %x: f64):
    soac.yield %acc : f64
  }) : (f64, tensor<?xf64>) -> i64
  func.return
}
// CHECK-LABEL: sym_name = "redomap_result_type"
// CHECK:       Operation does not verify: expected result 0 to have type f64 (the types of the neutral elements), found i64

// -----

// yield outside a lambda
func.func @yield_outside_a_lambda(%x: f64) {
  soac.yield %x : f64
}
// CHECK-LABEL: sym_name = "yield_outside_a_lambda"
// CHECK:       Operation does not verify: 'soac.yield' expects parent op to be one of 'soac.map', 'soac.reduce', 'soac.scan', 'soac.filter', 'soac.redomap'

// -----

// trace results
func.func @trace_results(%x: f64) {
  %r = "soac.trace"(%x) <{loc = "p.l0:1:1"}> : (f64) -> i64
  func.return
}
// CHECK-LABEL: sym_name = "trace_results"
// CHECK:       Operation does not verify: expected result 0 to have type f64 (the types of the operands), found i64

// -----

// missing property
func.func @missing_property(%x: f64) {
  %r = "soac.trace"(%x) : (f64) -> f64
  func.return
}
// CHECK-LABEL: sym_name = "missing_property"
// CHECK:       Operation does not verify: property 'loc' expected in operation 'soac.trace'

// -----

// scanomap: results are arrays of the accumulators
func.func @scanomap_result_type(%a: tensor<?xf64>, %z: f64) {
  %r = "soac.scanomap"(%z, %a) <{operandSegmentSizes = array<i32: 1, 1, 0>}> ({
  ^bb0(%p: f64, %q: f64):
    soac.yield %p : f64
  }, {
  ^bb0(%acc: f64, %x: f64):
    soac.yield %acc : f64
  }) : (f64, tensor<?xf64>) -> tensor<?x?xf64>
  func.return
}
// CHECK-LABEL: sym_name = "scanomap_result_type"
// CHECK:       Operation does not verify: expected result 0 to have type tensor<?xf64> (arrays of the neutral elements' types), found tensor<?x?xf64>

// -----

// scanomap: outer arity
func.func @scanomap_outer_arity(%a: tensor<?xf64>, %z: f64) {
  %r = soac.scanomap(%acc = %z : f64) over(%x = %a : tensor<?xf64>) {
    soac.yield %acc : f64
  } outer {
  ^bb0(%p: f64):
    soac.yield %p : f64
  }
  func.return
}
// CHECK-LABEL: sym_name = "scanomap_outer_arity"
// CHECK:       Operation does not verify: expected the outer lambda to take 2 arguments, found 1

// -----

// threshold: a default that is neither a number nor threads*N
func.func @threshold_bad_default(%n: i64) -> i1 {
  %t = soac.threshold %n, "flatten_below" default "cores*2" at "p.l0:1:1"
  func.return %t : i1
}
// CHECK-LABEL: sym_name = "threshold_bad_default"
// CHECK:       Operation does not verify: expected the default to be a number or 'threads*' and a number, found 'cores*2'

// -----

// threshold: a parameter name that is not a word
func.func @threshold_bad_param(%n: i64) -> i1 {
  %t = soac.threshold %n, "flatten below" default "threads*1" at "p.l0:1:1"
  func.return %t : i1
}
// CHECK-LABEL: sym_name = "threshold_bad_param"
// CHECK:       Operation does not verify: expected the parameter to be a word of letters, digits and '_', found 'flatten below'
