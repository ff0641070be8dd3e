// RUN: l0-opt --help | filecheck %s

// --help ends with every registered pass and the summary line of its docstring
// (test/unit/test_l0_opt.py checks the list against the registry).

// CHECK: usage: l0-opt
// CHECK: --pass-pipeline PIPELINE
// CHECK: passes (-p / --pass-pipeline):
// CHECK-DAG: {{^}}  canonicalize {{ *}}Apply the canonicalisation patterns
// CHECK-DAG: {{^}}  cse {{ *}}{{[A-Z].+}}
// CHECK-DAG: {{^}}  dce {{ *}}{{[A-Z].+}}

// The lowering passes follow, in a group of their own; the options that do nothing
// for l0 (--shrink, --print-debuginfo) are gone, and xDSL's llvm target is not offered.

// CHECK-NOT: --shrink
// CHECK-NOT: --print-debuginfo
// CHECK: lowering passes (-p; -t llvm-ir runs those the IR still needs):
// CHECK-NEXT: {{^}}  bufferise {{ *}}{{[A-Z].+}}
// CHECK-NEXT: {{^}}  chunk-parallel {{ *}}{{[A-Z].+}}
// CHECK-NEXT: {{^}}  convert-gpu-to-sim {{ *}}{{[A-Z].+}}
// CHECK-NEXT: {{^}}  convert-parallel-to-gpu {{ *}}{{[A-Z].+}}
// CHECK-NEXT: {{^}}  convert-parallel-to-omp {{ *}}{{[A-Z].+}}
// CHECK-NEXT: {{^}}  convert-soac-to-scf {{ *}}{{[A-Z].+}}
// CHECK-NEXT: {{^}}  dealloc {{ *}}{{[A-Z].+}}
