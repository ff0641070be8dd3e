// RUN: l0-opt %s --disable-verify | filecheck %s
// RUN: not l0-opt %s 2>&1 | filecheck %s --check-prefix=VERIFIED

// Printing never fails: an op without the properties its syntax shows (unverified IR)
// prints its operands, properties and types in the generic form; with them, the
// declared syntax. Verified, the same input is an error.

func.func @f(%a: tensor<?x?xf64>, %b: i1) {
  %s = "soac.size"(%a) : (tensor<?x?xf64>) -> i64
  %t = "soac.transpose"(%a) <{k = 1 : i64, n = #builtin.int<0>}> : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %c = "soac.assert"(%b) <{msg = "m"}> : (i1) -> !soac.cert
  func.return
}

// CHECK:      %s = soac.size(%a) : (tensor<?x?xf64>) -> i64
// CHECK-NEXT: %t = soac.transpose(%a) <{k = 1 : i64, n = #builtin.int<0>}> : (tensor<?x?xf64>) -> tensor<?x?xf64>
// CHECK-NEXT: %c = soac.assert(%b) <{msg = "m"}> : (i1) -> !soac.cert

// VERIFIED: l0-opt: error: property 'dim' expected in operation 'soac.size'
