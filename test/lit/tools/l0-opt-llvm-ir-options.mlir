// RUN: l0-opt %s -t llvm-ir | filecheck %s --check-prefix=LOWERED
// RUN: l0-opt %s -t 'llvm-ir{lower=false}' | filecheck %s --check-prefix=ASIS
// RUN: l0-opt %s -t 'llvm-ir{lower=false fast-math=true}' | filecheck %s --check-prefix=FAST
// RUN: l0-opt %s -t 'llvm-ir{lower=false optimize=true}' | filecheck %s --check-prefix=OPT
// RUN: not l0-opt %s -t 'llvm-ir{optimize=maybe}' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: l0-opt --help | filecheck %s --check-prefix=HELP

// The options of -t llvm-ir. IR with checks but no arrays reads as soac IR or as
// loop-level IR: by default it is soac IR and the lowerings run (bufferise checks
// `trunc` of reals out of the int range); lower=false emits it as it is (a saturating
// conversion). fast-math=true flags the float ops; optimize=true prints the module
// after LLVM's O3 pipeline.

func.func @f(%r: f64, %ok: i1) -> i64 {
  %c = soac.assert %ok, "not ok" at "f.l0:1:1"
  %s = arith.addf %r, %r : f64
  %i = arith.fptosi %s : f64 to i64
  func.return %i : i64
}

// LOWERED-LABEL: define internal {i32, i64} @"l0.fn.f"
// LOWERED:         fcmp oge double

// ASIS-LABEL: define internal {i32, i64} @"l0.fn.f"
// ASIS:         fadd double %"r", %"r"
// ASIS-NOT:     fast
// ASIS:         call i64 @"llvm.fptosi.sat.i64.f64"
// ASIS-NOT:     fcmp oge

// FAST:       fadd fast double

// OPT-NOT:    define internal
// OPT:        define {{.*}} @l0.entry.f(
// OPT-NOT:    call {{.*}}@l0.fn.f
// OPT:          tail call i64 @llvm.fptosi.sat.i64.f64

// BAD: l0-opt: error: bad options for target 'llvm-ir': Incompatible types: given ('maybe',), expected <class 'bool'>

// HELP: 'llvm-ir{lower=false}'
