// RUN: l0-opt %s -p 'simd-map{width=4}' | filecheck %s
// RUN: not l0-opt %s -p 'simd-map{width=-1}' 2>&1 | filecheck %s --check-prefix=WIDTH
// RUN: l0-opt %s > %t.plain && l0-opt %s -p 'simd-map{width=1}' > %t.one && diff %t.plain %t.one

// simd-map (cpu and multicore, after tile-parallel): a one-dimensional scf.parallel whose
// body holds a sequential loop runs in strips of W lanes: a full strip runs each op of
// the body once per lane (side by side), once for all lanes where nothing it reads
// varies, and its loops carry W copies of each value; the last n mod W iterations run
// the body as it was, in an scf.for. The strips are ceil(n / W) and a strip is full
// when ub - base >= W: no n + W - 1 nor base + W, which could wrap near 2^63.

// WIDTH: error: simd-map: width must be 0 (the host's lanes) or positive, not -1
// With one lane (width=1) nothing changes.

// The n-body shape: a fold over all bodies per body. Each lane loads x[i + k] and keeps
// its own sum; x[j] and m[j] are loaded once for all lanes.
// CHECK-LABEL: func.func @pull(
// CHECK:         %[[LB:.*]] = arith.index_cast %c0 : index to i64
// CHECK-NEXT:    %[[UB:.*]] = arith.index_cast %n : index to i64
// CHECK-NEXT:    %[[W:.*]] = arith.constant 4 : i64
// CHECK:         %[[N:.*]] = arith.maxsi
// CHECK-NEXT:    %[[R:.*]] = arith.remsi %[[N]], %[[W]] : i64
// CHECK:         %[[Q:.*]] = arith.divsi %[[N]], %[[W]] : i64
// CHECK-NEXT:    %[[INEXACT:.*]] = arith.extui %{{.*}} : i1 to i64
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[Q]], %[[INEXACT]] : i64
// CHECK:         "scf.parallel"(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT:    ^bb0(%[[STRIP:.*]]: index):
// CHECK:           %[[BASE:.*]] = arith.addi %[[LB]], %{{.*}} : i64
// CHECK-NEXT:      %[[LEFT:.*]] = arith.subi %[[UB]], %[[BASE]] : i64
// CHECK-NEXT:      %[[FULL:.*]] = arith.cmpi sge, %[[LEFT]], %[[W]] : i64
// CHECK-NEXT:      scf.if %[[FULL]] {
// CHECK-COUNT-4:     memref.load %x[%{{.*}}] : memref<?xf64>
// CHECK:             %{{.*}} = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:.*]] = %zero, %[[A1:.*]] = %zero, %[[A2:.*]] = %zero, %[[A3:.*]] = %zero) -> (f64, f64, f64, f64) : i64 {
// CHECK-NEXT:          %[[JJ:.*]] = arith.index_cast %[[J]] : i64 to index
// CHECK-NEXT:          %[[XJ:.*]] = memref.load %x[%[[JJ]]] : memref<?xf64>
// CHECK-NEXT:          %[[MJ:.*]] = memref.load %m[%[[JJ]]] : memref<?xf64>
// CHECK-NEXT:          %[[D0:.*]] = arith.subf %[[XJ]], %{{.*}} : f64
// CHECK-NEXT:          %[[D1:.*]] = arith.subf %[[XJ]], %{{.*}} : f64
// CHECK-NEXT:          %[[D2:.*]] = arith.subf %[[XJ]], %{{.*}} : f64
// CHECK-NEXT:          %[[D3:.*]] = arith.subf %[[XJ]], %{{.*}} : f64
// CHECK-COUNT-4:       arith.mulf %[[MJ]], %{{.*}} : f64
// CHECK-NEXT:          %[[S0:.*]] = arith.addf %[[A0]], %{{.*}} : f64
// CHECK-NEXT:          %[[S1:.*]] = arith.addf %[[A1]], %{{.*}} : f64
// CHECK-NEXT:          %[[S2:.*]] = arith.addf %[[A2]], %{{.*}} : f64
// CHECK-NEXT:          %[[S3:.*]] = arith.addf %[[A3]], %{{.*}} : f64
// CHECK-NEXT:          scf.yield %[[S0]], %[[S1]], %[[S2]], %[[S3]] : f64, f64, f64, f64
// CHECK-NEXT:        }
// CHECK-COUNT-4:     memref.store %{{.*}}, %out[%{{.*}}] : memref<?xf64>
// CHECK-NEXT:      } else {
// CHECK:             scf.for %[[I:.*]] = %[[BASE]] to %[[UB]] step %{{.*}} : i64 {
// CHECK-NEXT:          %[[II:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK-NEXT:          %{{.*}} = memref.load %x[%[[II]]] : memref<?xf64>
// CHECK:               scf.for
// CHECK:               memref.store %{{.*}}, %out[%[[II]]] : memref<?xf64>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.reduce
// CHECK-NOT:     "scf.parallel"
// CHECK:         func.return
func.func @pull(%x: memref<?xf64>, %m: memref<?xf64>, %out: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %n : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %xi = memref.load %x[%i] : memref<?xf64>
    %acc = scf.for %j = %lo to %len step %one iter_args(%a = %zero) -> (f64) : i64 {
      %jj = arith.index_cast %j : i64 to index
      %xj = memref.load %x[%jj] : memref<?xf64>
      %mj = memref.load %m[%jj] : memref<?xf64>
      %d = arith.subf %xj, %xi : f64
      %p = arith.mulf %mj, %d : f64
      %s = arith.addf %a, %p : f64
      scf.yield %s : f64
    }
    memref.store %acc, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// A branch whose condition varies between lanes and whose arms are cheap arithmetic
// becomes both arms in every lane and a select per lane; a branch on a value that is
// the same in every lane stays one branch, each arm jammed.
// CHECK-LABEL: func.func @branches(
// CHECK:         scf.if %{{.*}} {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %zero, %{{.*}} = %zero, %{{.*}} = %zero, %{{.*}} = %zero) -> (f64, f64, f64, f64) : i64 {
// CHECK-NOT:         scf.if %{{.*}} -> (f64)
// CHECK-COUNT-4:     arith.select %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK:             %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = scf.if %flag -> (f64, f64, f64, f64) {
// CHECK-COUNT-4:       arith.mulf
// CHECK:               scf.yield
// CHECK:             } else {
// CHECK:               scf.yield
// CHECK:           }
// CHECK-COUNT-4:   memref.store
// CHECK:         } else {
func.func @branches(%x: memref<?xf64>, %out: memref<?xf64>, %n: index, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %n : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %xi = memref.load %x[%i] : memref<?xf64>
    %acc = scf.for %j = %lo to %len step %one iter_args(%a = %zero) -> (f64) : i64 {
      %jj = arith.index_cast %j : i64 to index
      %xj = memref.load %x[%jj] : memref<?xf64>
      %lt = arith.cmpf olt, %xj, %xi : f64
      %near = scf.if %lt -> (f64) {
        %d = arith.subf %xi, %xj : f64
        scf.yield %d : f64
      } else {
        %d = arith.subf %xj, %xi : f64
        scf.yield %d : f64
      }
      %scaled = scf.if %flag -> (f64) {
        %t = arith.mulf %near, %near : f64
        scf.yield %t : f64
      } else {
        scf.yield %near : f64
      }
      %s = arith.addf %a, %scaled : f64
      scf.yield %s : f64
    }
    memref.store %acc, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// The k-means shape: each lane reads its own row of a matrix along the column loop (a
// gather, stride p), against a column of a row shared by all lanes. The rows' size is
// the same in every lane (the subviews' sizes do not vary): one trip count.
// CHECK-LABEL: func.func @rows(
// CHECK:         scf.if
// CHECK-COUNT-4:   memref.subview %points[%{{.*}}, 0] [1, %p] [1, 1]
// CHECK:           %[[D:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?xf64, strided<[1], offset: ?>>
// CHECK-NOT:       memref.dim
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %zero, %{{.*}} = %zero, %{{.*}} = %zero, %{{.*}} = %zero) -> (f64, f64, f64, f64) : i64 {
// CHECK-COUNT-4:     memref.load %{{.*}}[%{{.*}}] : memref<?xf64, strided<[1], offset: ?>>
// CHECK-NEXT:        memref.load %c[%{{.*}}] : memref<?xf64>
func.func @rows(%points: memref<?x?xf64>, %c: memref<?xf64>, %out: memref<?xf64>, %n: index,
                %p: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %row = memref.subview %points[%i, 0] [1, %p] [1, 1] : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
    %d = memref.dim %row, %c0 : memref<?xf64, strided<[1], offset: ?>>
    %len = arith.index_cast %d : index to i64
    %acc = scf.for %f = %lo to %len step %one iter_args(%a = %zero) -> (f64) : i64 {
      %ff = arith.index_cast %f : i64 to index
      %pf = memref.load %row[%ff] : memref<?xf64, strided<[1], offset: ?>>
      %cf = memref.load %c[%ff] : memref<?xf64>
      %diff = arith.subf %pf, %cf : f64
      %sq = arith.mulf %diff, %diff : f64
      %s = arith.addf %a, %sq : f64
      scf.yield %s : f64
    }
    memref.store %acc, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: a body that may fail. Lanes side by side would not report the
// smallest failing index.
// CHECK-LABEL: func.func @may_fail(
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:     scf.if
// CHECK:         soac.assert
func.func @may_fail(%x: memref<?xf64>, %out: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %n : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %xi = memref.load %x[%i] : memref<?xf64>
    %acc = scf.for %j = %lo to %len step %one iter_args(%a = %zero) -> (f64) : i64 {
      %s = arith.addf %a, %xi : f64
      scf.yield %s : f64
    }
    %ok = arith.cmpf oge, %acc, %zero : f64
    %cert = soac.assert %ok, "negative" at "f.l0:1:1"
    memref.store %acc, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: an in-place update at another index than the iteration's own (a
// dependence between iterations: lane k + 1 would read what lane k has not stored yet).
// CHECK-LABEL: func.func @carried(
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:     scf.if
func.func @carried(%a: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %n : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %next = arith.addi %i, %c1 : index
    scf.for %j = %lo to %len step %one : i64 {
      %v = memref.load %a[%i] : memref<?xf64>
      %w = arith.addf %v, %v : f64
      memref.store %w, %a[%next] : memref<?xf64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: stores into a window at the iteration's index (a[i : i + 4]), which
// overlaps the next iterations' windows: not a place of its own.
// CHECK-LABEL: func.func @windows(
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:     scf.if
func.func @windows(%x: memref<?xf64>, %out: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %four = arith.constant 4 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %xi = memref.load %x[%i] : memref<?xf64>
    %w = memref.subview %out[%i] [4] [1] : memref<?xf64> to memref<4xf64, strided<[1], offset: ?>>
    scf.for %j = %lo to %four step %one : i64 {
      %jj = arith.index_cast %j : i64 to index
      memref.store %xi, %w[%jj] : memref<4xf64, strided<[1], offset: ?>>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: a read of a buffer the body writes, at another index than its own.
// CHECK-LABEL: func.func @reads_written(
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:     scf.if
func.func @reads_written(%a: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %n : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %acc = scf.for %j = %lo to %len step %one iter_args(%s = %zero) -> (f64) : i64 {
      %jj = arith.index_cast %j : i64 to index
      %v = memref.load %a[%jj] : memref<?xf64>
      %t = arith.addf %s, %v : f64
      scf.yield %t : f64
    }
    memref.store %acc, %a[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: a loop whose trip count differs between lanes (a triangle) and which
// reads memory: past a lane's own count it could read out of bounds.
// CHECK-LABEL: func.func @triangle(
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:     scf.if
func.func @triangle(%x: memref<?xf64>, %out: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %len = arith.index_cast %i : index to i64
    %acc = scf.for %j = %lo to %len step %one iter_args(%s = %zero) -> (f64) : i64 {
      %jj = arith.index_cast %j : i64 to index
      %v = memref.load %x[%jj] : memref<?xf64>
      %t = arith.addf %s, %v : f64
      scf.yield %t : f64
    }
    memref.store %acc, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: a branch whose condition varies and whose arm loads (the arm not
// taken could read out of bounds).
// CHECK-LABEL: func.func @guarded_load(
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:     arith.select
func.func @guarded_load(%x: memref<?xf64>, %out: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %n : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %ii = arith.index_cast %i : index to i64
    %acc = scf.for %j = %lo to %len step %one iter_args(%s = %zero) -> (f64) : i64 {
      %in = arith.cmpi slt, %j, %ii : i64
      %v = scf.if %in -> (f64) {
        %jj = arith.index_cast %j : i64 to index
        %l = memref.load %x[%jj] : memref<?xf64>
        scf.yield %l : f64
      } else {
        scf.yield %zero : f64
      }
      %t = arith.addf %s, %v : f64
      scf.yield %t : f64
    }
    memref.store %acc, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Must not fire: gathers that do not pay: lane i reads row i of a and b along the loop
// (two loads at the rows' stride for two additions) in an integer fold, which LLVM
// vectorises along the rows as it is.
// CHECK-LABEL: func.func @strided(
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:     scf.if
func.func @strided(%a: memref<?x?xi64>, %b: memref<?x?xi64>, %out: memref<?xi64>, %n: index,
                   %p: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %p : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %acc = scf.for %j = %lo to %len step %one iter_args(%s = %lo) -> (i64) : i64 {
      %jj = arith.index_cast %j : i64 to index
      %u = memref.load %a[%i, %jj] : memref<?x?xi64>
      %v = memref.load %b[%i, %jj] : memref<?x?xi64>
      %t = arith.addi %s, %u : i64
      %t2 = arith.addi %t, %v : i64
      scf.yield %t2 : i64
    }
    memref.store %acc, %out[%i] : memref<?xi64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// The same over reals goes SIMD: the fold is a chain in strict order, one lane without
// the strip; each lane streams its own row.
// CHECK-LABEL: func.func @strided_reals(
// CHECK:         scf.if
// CHECK:           scf.for %{{.*}} iter_args(%{{.*}} = %zero, %{{.*}} = %zero, %{{.*}} = %zero, %{{.*}} = %zero) -> (f64, f64, f64, f64) : i64 {
// CHECK-COUNT-4:     memref.load %a[%{{.*}}, %{{.*}}] : memref<?x?xf64>
func.func @strided_reals(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %out: memref<?xf64>,
                         %n: index, %p: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %p : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %acc = scf.for %j = %lo to %len step %one iter_args(%s = %zero) -> (f64) : i64 {
      %jj = arith.index_cast %j : i64 to index
      %u = memref.load %a[%i, %jj] : memref<?x?xf64>
      %v = memref.load %b[%i, %jj] : memref<?x?xf64>
      %t = arith.addf %s, %u : f64
      %t2 = arith.addf %t, %v : f64
      scf.yield %t2 : f64
    }
    memref.store %acc, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// A loop whose trip count differs between lanes and whose body only computes runs to
// the longest lane: each lane keeps its values once past its own count.
// CHECK-LABEL: func.func @powers(
// CHECK:         scf.if
// CHECK-COUNT-4:   memref.load %k[%{{.*}}] : memref<?xi64>
// CHECK:           %[[M1:.*]] = arith.maxsi %[[K0:.*]], %[[K1:.*]] : i64
// CHECK-NEXT:      %[[M2:.*]] = arith.maxsi %[[M1]], %[[K2:.*]] : i64
// CHECK-NEXT:      %[[M3:.*]] = arith.maxsi %[[M2]], %[[K3:.*]] : i64
// CHECK-NEXT:      %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = scf.for %[[J:.*]] = %lo to %[[M3]] step %one iter_args(%[[A0:.*]] = %x, %[[A1:.*]] = %x, %[[A2:.*]] = %x, %[[A3:.*]] = %x) -> (f64, f64, f64, f64) : i64 {
// CHECK-COUNT-4:     arith.mulf
// CHECK-NEXT:        %[[L0:.*]] = arith.cmpi slt, %[[J]], %[[K0]] : i64
// CHECK-NEXT:        %[[L1:.*]] = arith.cmpi slt, %[[J]], %[[K1]] : i64
// CHECK-NEXT:        %[[L2:.*]] = arith.cmpi slt, %[[J]], %[[K2]] : i64
// CHECK-NEXT:        %[[L3:.*]] = arith.cmpi slt, %[[J]], %[[K3]] : i64
// CHECK-NEXT:        %[[S0:.*]] = arith.select %[[L0]], %{{.*}}, %[[A0]] : f64
// CHECK-NEXT:        %[[S1:.*]] = arith.select %[[L1]], %{{.*}}, %[[A1]] : f64
// CHECK-NEXT:        %[[S2:.*]] = arith.select %[[L2]], %{{.*}}, %[[A2]] : f64
// CHECK-NEXT:        %[[S3:.*]] = arith.select %[[L3]], %{{.*}}, %[[A3]] : f64
// CHECK-NEXT:        scf.yield %[[S0]], %[[S1]], %[[S2]], %[[S3]] : f64, f64, f64, f64
func.func @powers(%k: memref<?xi64>, %out: memref<?xf64>, %n: index, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %ki = memref.load %k[%i] : memref<?xi64>
    %p = scf.for %j = %lo to %ki step %one iter_args(%a = %x) -> (f64) : i64 {
      %m = arith.mulf %a, %x : f64
      scf.yield %m : f64
    }
    memref.store %p, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// Left alone: a straight-line body (LLVM's loop vectoriser takes it), and loops whose
// iterations are threads, not rows: the chunk loop of a blocked reduction and a loop
// over threads' chunks of rows (their bodies could run in lanes otherwise).
// CHECK-LABEL: func.func @straight(
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:     scf.if
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:     scf.if
// CHECK:         "scf.parallel"(%c0, %n, %c1)
// CHECK-NOT:     scf.if
// CHECK:         func.return
func.func @straight(%x: memref<?xf64>, %out: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %n : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %xi = memref.load %x[%i] : memref<?xf64>
    %y = arith.mulf %xi, %xi : f64
    memref.store %y, %out[%i] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%c: index):
    %acc = scf.for %j = %lo to %len step %one iter_args(%s = %zero) -> (f64) : i64 {
      %t = arith.addf %s, %s : f64
      scf.yield %t : f64
    }
    memref.store %acc, %out[%c] : memref<?xf64>
    scf.reduce
  }) {l0.blocked_reduction} : (index, index, index) -> ()
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%c: index):
    %acc = scf.for %j = %lo to %len step %one iter_args(%s = %zero) -> (f64) : i64 {
      %t = arith.addf %s, %s : f64
      scf.yield %t : f64
    }
    memref.store %acc, %out[%c] : memref<?xf64>
    scf.reduce
  }) {l0.chunks} : (index, index, index) -> ()
  func.return
}

// Each iteration writes its own row of a matrix (a view at its index): its own place,
// so the stores of the lanes never meet.
// CHECK-LABEL: func.func @own_rows(
// CHECK:         scf.if
// CHECK-COUNT-4:   memref.subview %out[%{{.*}}, 0] [1, %p] [1, 1]
// CHECK:           scf.for
// CHECK-COUNT-4:     memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf64, strided<[1], offset: ?>>
// CHECK:         } else {
func.func @own_rows(%x: memref<?xf64>, %out: memref<?x?xf64>, %n: index, %p: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %len = arith.index_cast %p : index to i64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %xi = memref.load %x[%i] : memref<?xf64>
    %row = memref.subview %out[%i, 0] [1, %p] [1, 1] : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
    scf.for %j = %lo to %len step %one : i64 {
      %jj = arith.index_cast %j : i64 to index
      %xj = memref.load %x[%jj] : memref<?xf64>
      %d = arith.mulf %xi, %xj : f64
      memref.store %d, %row[%jj] : memref<?xf64, strided<[1], offset: ?>>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
