// RUN: l0-opt %s -p 'interchange{parallel-bodies=true versioned=true}' --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'distribute{versioned=true}' --split-input-file | filecheck %s --check-prefix=DIST
// RUN: l0-opt %s -p 'interchange{parallel-bodies=true versioned=true},distribute{versioned=true}' --split-input-file | filecheck %s --check-prefix=BOTH

// Multicore's flattening keeps each nest it flattens as it was beside the flattened
// copy, chosen at run time by the outer size against `SITE.flatten_below` (Note
// [Versions of a nest] in l0.passes.cores.versions).

// A time loop around parallel work: the map as it was runs when the outer size reaches
// the threshold, the interchanged copy otherwise.
func.func @time_loop(%n: i64, %xs: tensor<?xf64>, %ys: tensor<?xf64>, %c0: i64, %c1: i64) -> tensor<?xf64> {
  %r = soac.map(%x = %xs : tensor<?xf64>) at "p.l0:2:3" -> tensor<?xf64> {
    %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f64) : i64 {
      %z = arith.constant 0.0 : f64
      %s = soac.redomap(%e = %z : f64) over(%y = %ys : tensor<?xf64>) {
        %m = arith.mulf %y, %acc : f64
        %t = arith.addf %e, %m : f64
        soac.yield %t : f64
      } outer {
      ^bb0(%p: f64, %q: f64):
        %u = arith.addf %p, %q : f64
        soac.yield %u : f64
      }
      scf.yield %s : f64
    }
    soac.yield %a : f64
  }
  func.return %r : tensor<?xf64>
}
// CHECK-LABEL: func.func @time_loop
// CHECK:         %[[N:.*]] = soac.size(0) %xs : tensor<?xf64>
// CHECK-NEXT:    %[[T:.*]] = soac.threshold %[[N]], "flatten_below" default "threads*1" at "p.l0:2:3"
// CHECK-NEXT:    %{{.*}} = scf.if %[[T]] -> (tensor<?xf64>) {
// CHECK-NEXT:      %[[KEPT:.*]] = soac.map(%{{.*}} = %xs : tensor<?xf64>) at "p.l0:2:3" -> tensor<?xf64> {
// CHECK-NEXT:        scf.for
// CHECK:           scf.yield %[[KEPT]] : tensor<?xf64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[INIT:.*]] = soac.map(%{{.*}} = %xs : tensor<?xf64>) at "p.l0:2:3" -> tensor<?xf64> {
// CHECK:           %[[LOOP:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (tensor<?xf64>) : i64 {
// CHECK-NEXT:        soac.map
// CHECK:           scf.yield %[[LOOP]] : tensor<?xf64>
// CHECK-NEXT:    }
// The copy's interchanged loop is not versioned again.
// CHECK-NOT:     soac.threshold
// DIST-LABEL: func.func @time_loop
// DIST-NOT:     soac.threshold

// -----

// A map of two SOACs: `distribute` versions it; `interchange` has no loop to move.
func.func @two_soacs(%xss: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) at "p.l0:5:1" -> tensor<?x?xf64> {
    %ys = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xf64> {
      %d = arith.addf %x, %x : f64
      soac.yield %d : f64
    }
    %z = arith.constant 0.0 : f64
    %s = soac.reduce(%z : f64) over(%ys : tensor<?xf64>) {
    ^bb0(%p: f64, %q: f64):
      %u = arith.addf %p, %q : f64
      soac.yield %u : f64
    }
    %zs = soac.map(%y = %ys : tensor<?xf64>) -> tensor<?xf64> {
      %w = arith.mulf %y, %s : f64
      soac.yield %w : f64
    }
    soac.yield %zs : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @two_soacs
// CHECK-NEXT:    %r = soac.map
// DIST-LABEL: func.func @two_soacs
// DIST:          %[[N:.*]] = soac.size(0) %xss : tensor<?x?xf64>
// DIST-NEXT:     %[[T:.*]] = soac.threshold %[[N]], "flatten_below" default "threads*1" at "p.l0:5:1"
// DIST-NEXT:     scf.if %[[T]] -> (tensor<?x?xf64>) {
// The kept map, whole: its lambda's three SOACs in one map.
// DIST-NEXT:       soac.map(%{{.*}} = %xss : tensor<?x?xf64>) at "p.l0:5:1" -> tensor<?x?xf64> {
// DIST-NEXT:         soac.map
// DIST:              soac.reduce
// DIST:              soac.map
// DIST:            scf.yield
// DIST-NEXT:     } else {
// The copy: a map per piece, each yielding to the next.
// DIST-NEXT:       arith.constant
// DIST-NEXT:       %[[YS:.*]] = soac.map(%{{.*}} = %xss : tensor<?x?xf64>) at "p.l0:5:1" -> tensor<?x?xf64> {
// DIST:            %[[S:.*]] = soac.map(%{{.*}} = %[[YS]] : tensor<?x?xf64>) at "p.l0:5:1" -> tensor<?xf64> {
// DIST:            soac.map(%{{.*}} = %[[YS]], %{{.*}} = %[[S]] : tensor<?x?xf64>, tensor<?xf64>) at "p.l0:5:1"
// DIST-NOT:      soac.threshold

// -----

// Must not fire: a nest already versioned. The kept map is never flattened, and
// the copy is flattened without a version of its own (here: already flat).
func.func @versioned(%xss: tensor<?x?xf64>, %n: i64) -> tensor<?x?xf64> {
  %t = soac.threshold %n, "flatten_below" default "threads*1" at "p.l0:7:1"
  %r = scf.if %t -> (tensor<?x?xf64>) {
    %a = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
      %ys = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xf64> {
        %d = arith.addf %x, %x : f64
        soac.yield %d : f64
      }
      %zs = soac.map(%y = %ys : tensor<?xf64>) -> tensor<?xf64> {
        %w = arith.mulf %y, %y : f64
        soac.yield %w : f64
      }
      soac.yield %zs : tensor<?xf64>
    }
    scf.yield %a : tensor<?x?xf64>
  } else {
    scf.yield %xss : tensor<?x?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// DIST-LABEL: func.func @versioned
// DIST-NEXT:    %t = soac.threshold
// DIST-NEXT:    %r = scf.if %t -> (tensor<?x?xf64>) {
// DIST-NEXT:      %a = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// DIST-NOT:     soac.threshold
// BOTH-LABEL: func.func @versioned
// BOTH-NEXT:    %t = soac.threshold
// BOTH-NEXT:    %r = scf.if %t -> (tensor<?x?xf64>) {
// BOTH-NEXT:      %a = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
// BOTH-NEXT:        %ys = soac.map
// BOTH:             %zs = soac.map
// BOTH:             soac.yield %zs : tensor<?xf64>
// BOTH-NEXT:      }
// BOTH-NEXT:      scf.yield %a : tensor<?x?xf64>
// BOTH-NOT:     soac.threshold

// -----

// Must not fire: the loop's trip count depends on the element, so no version is made
// either (interchange would leave the copy as it was).
func.func @varying_trips(%xs: tensor<?xi64>, %ys: tensor<?xf64>, %c0: i64, %c1: i64) -> tensor<?xf64> {
  %r = soac.map(%k = %xs : tensor<?xi64>) -> tensor<?xf64> {
    %z = arith.constant 0.0 : f64
    %a = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %z) -> (f64) : i64 {
      %s = soac.reduce(%acc : f64) over(%ys : tensor<?xf64>) {
      ^bb0(%p: f64, %q: f64):
        %u = arith.addf %p, %q : f64
        soac.yield %u : f64
      }
      scf.yield %s : f64
    }
    soac.yield %a : f64
  }
  func.return %r : tensor<?xf64>
}
// CHECK-LABEL: func.func @varying_trips
// CHECK-NOT:     soac.threshold
// CHECK:         soac.map
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      scf.for

// -----

// Must not fire: a map inside another SOAC's lambda runs in a thread of the outer
// level whichever version runs; only the outer map is versioned.
func.func @nested(%xss: tensor<?x?xf64>, %ys: tensor<?xf64>, %n: i64, %c0: i64, %c1: i64) -> tensor<?x?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?x?xf64> {
    %i0 = arith.constant 0 : i64
    %zs = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xf64> {
      %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f64) : i64 {
        %s = soac.reduce(%acc : f64) over(%ys : tensor<?xf64>) {
        ^bb0(%p: f64, %q: f64):
          %u = arith.addf %p, %q : f64
          soac.yield %u : f64
        }
        scf.yield %s : f64
      }
      soac.yield %a : f64
    }
    soac.yield %zs : tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @nested
// CHECK-NOT:     soac.threshold
// CHECK:         soac.map
// CHECK:           soac.map
// CHECK-NEXT:        scf.for

// -----

// Must not fire: distributed, this map's pieces would be a map of folds and a map of
// scalar code, each running a thread per element as the map does: no nest of two maps,
// no parallelism the map lacks. `distribute{versioned=true}` leaves it whole (without
// `versioned` it splits it).
func.func @folds_only(%xss: tensor<?x?xf64>) -> tensor<?xf64> {
  %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?xf64> {
    %z = arith.constant 0.0 : f64
    %s = soac.reduce(%z : f64) over(%xs : tensor<?xf64>) {
    ^bb0(%p: f64, %q: f64):
      %u = arith.addf %p, %q : f64
      soac.yield %u : f64
    }
    %t = soac.reduce(%z : f64) over(%xs : tensor<?xf64>) {
    ^bb0(%p: f64, %q: f64):
      %u = arith.mulf %p, %q : f64
      soac.yield %u : f64
    }
    %w = arith.divf %s, %t : f64
    soac.yield %w : f64
  }
  func.return %r : tensor<?xf64>
}
// DIST-LABEL: func.func @folds_only
// DIST-NEXT:    %r = soac.map(%xs = %xss : tensor<?x?xf64>) -> tensor<?xf64> {
// DIST-NEXT:      %z = arith.constant
// DIST-NEXT:      %s = soac.reduce
// DIST-NOT:     soac.threshold
