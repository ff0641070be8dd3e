// RUN: l0-opt --help | filecheck %s

// --help ends with every registered pass and the summary line of its docstring
// (test/unit/test_l0_opt.py checks the list against the registry).

// CHECK: usage: l0-opt
// CHECK: --pass-pipeline PIPELINE
// CHECK: passes (-p / --pass-pipeline):
// CHECK-DAG: {{^}}  canonicalize {{ *}}Apply the canonicalisation patterns
// CHECK-DAG: {{^}}  cse {{ *}}{{[A-Z].+}}
// CHECK-DAG: {{^}}  dce {{ *}}{{[A-Z].+}}
