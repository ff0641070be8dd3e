// RUN: l0-opt %s -p 'fuse{horizontal=false},verify-uniqueness' --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'fuse{horizontal=false duplicate=false}' --split-input-file | filecheck %s --check-prefix=OFF

// Splitting a map between its consumers (`l0.passes.fuse.duplicate`), with horizontal
// fusion off so that the rule shows alone.

// Cheap duplication (7.1.3): a map of two scalar operations read by two maps on one
// path is computed in each of them; its array is never built.
func.func @cheap_two_consumers(%a: tensor<?xi64>, %k: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %k : i64
    %z = arith.addi %y, %x : i64
    soac.yield %z : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %d = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.subi %x, %k : i64
    soac.yield %y : i64
  }
  func.return %c, %d : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @cheap_two_consumers
// CHECK-NEXT:    %c = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %y = arith.muli %x, %k : i64
// CHECK-NEXT:      %z = arith.addi %y, %x : i64
// CHECK-NEXT:      %y_1 = arith.addi %z, %z : i64
// CHECK-NEXT:      soac.yield %y_1 : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    %d = soac.map(%x_1 = %a : tensor<?xi64>) -> tensor<?xi64> {
// CHECK-NEXT:      %y_2 = arith.muli %x_1, %k : i64
// CHECK-NEXT:      %z_1 = arith.addi %y_2, %x_1 : i64
// CHECK-NEXT:      %y_3 = arith.subi %z_1, %k : i64
// CHECK-NEXT:      soac.yield %y_3 : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c, %d
// OFF-LABEL: func.func @cheap_two_consumers
// OFF-COUNT-3: soac.map

// -----

// SOAC splitting (thesis figure 44): the map computes two arrays for two folds,
// sharing one multiplication. Each fold gets the part of the map its array needs (the
// multiplication is duplicated, the rest is not) and fuses with it.
func.func @figure_44(%a: tensor<?xf64>, %m: f64, %zero: f64) -> (f64, f64) {
  %s, %t = soac.map(%x = %a : tensor<?xf64>) -> tensor<?xf64>, tensor<?xf64> {
    %baix = arith.mulf %x, %m : f64
    %u = math.exp %baix : f64
    %v = arith.subf %x, %baix : f64
    soac.yield %u, %v : f64, f64
  }
  %sum = soac.reduce(%p = %zero : f64) over(%e = %s : tensor<?xf64>) {
    %q = arith.addf %p, %e : f64
    soac.yield %q : f64
  }
  %max = soac.reduce(%p = %zero : f64) over(%e = %t : tensor<?xf64>) {
    %q = arith.maximumf %p, %e : f64
    soac.yield %q : f64
  }
  func.return %sum, %max : f64, f64
}
// CHECK-LABEL: func.func @figure_44
// CHECK-NEXT:    %sum = soac.redomap(%p = %zero : f64) over(%x = %a : tensor<?xf64>) {
// CHECK-NEXT:      %baix = arith.mulf %x, %m : f64
// CHECK-NEXT:      %u = math.exp %baix : f64
// CHECK-NEXT:      %q = arith.addf %p, %u : f64
// CHECK-NEXT:      soac.yield %q : f64
// CHECK:         %max = soac.redomap(%p_2 = %zero : f64) over(%x_1 = %a : tensor<?xf64>) {
// CHECK-NEXT:      %baix_1 = arith.mulf %x_1, %m : f64
// CHECK-NEXT:      %v = arith.subf %x_1, %baix_1 : f64
// CHECK-NEXT:      %q_2 = arith.maximumf %p_2, %v : f64
// CHECK-NEXT:      soac.yield %q_2 : f64
// CHECK-NOT:     soac.map
// CHECK:         func.return %sum, %max
// OFF-LABEL: func.func @figure_44
// OFF: %s, %t = soac.map

// -----

// An output that must exist (returned) stays in a map of its own, with only the ops
// it needs; the other output's part fuses into its fold. The parts share nothing, so
// the expensive inner reduce is not duplicated and the split is made.
func.func @kept_output(%a: tensor<?x?xi64>, %v: tensor<?xi64>, %zero: i64, %c: !soac.cert) -> (tensor<?xi64>, i64) {
  %s, %w = soac.map(%row = %a, %x = %v : tensor<?x?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64>, tensor<?xi64> {
    %r = soac.reduce(%p = %zero : i64) over(%e = %row : tensor<?xi64>) {
      %q = arith.addi %p, %e : i64
      soac.yield %q : i64
    }
    %y = arith.muli %x, %x : i64
    soac.yield %r, %y : i64, i64
  }
  %t = soac.reduce(%p = %zero : i64) over(%e = %w : tensor<?xi64>) {
    %q = arith.addi %p, %e : i64
    soac.yield %q : i64
  }
  func.return %s, %t : tensor<?xi64>, i64
}
// (Each part reads only the inputs it needs; the certificate stays on both.)
// CHECK-LABEL: func.func @kept_output
// CHECK-NEXT:    %s = soac.map(%row = %a : tensor<?x?xi64>) <%c> -> tensor<?xi64> {
// CHECK-NEXT:      %r = soac.reduce
// CHECK:           soac.yield %r : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    %t = soac.redomap(%p_1 = %zero : i64) over(%x = %v : tensor<?xi64>) <%c> {
// CHECK-NEXT:      %y = arith.muli %x, %x : i64
// CHECK-NEXT:      %q_1 = arith.addi %p_1, %y : i64
// CHECK-NEXT:      soac.yield %q_1 : i64
// OFF-LABEL: func.func @kept_output
// OFF: %s, %w = soac.map

// -----

// A chain of splits: %b (5 operations) has consumers %c and %d, and %c (5 more) has
// %e and %f. Splitting the last producer first, %c's work is duplicated into %e and
// %f, then %b's into all three; splitting %b first would put its work into %c, whose
// 10 operations would then be too many to duplicate, and %c would stay an array.
func.func @split_chain(%a: tensor<?xi64>, %k: i64) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y1 = arith.muli %x, %x : i64
    %y2 = arith.addi %y1, %k : i64
    %y3 = arith.muli %y2, %k : i64
    %y4 = arith.subi %y3, %x : i64
    %y5 = arith.addi %y4, %y1 : i64
    soac.yield %y5 : i64
  }
  %c = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %z1 = arith.muli %x, %k : i64
    %z2 = arith.addi %z1, %x : i64
    %z3 = arith.muli %z2, %z2 : i64
    %z4 = arith.subi %z3, %k : i64
    %z5 = arith.addi %z4, %z1 : i64
    soac.yield %z5 : i64
  }
  %d = soac.map(%x = %b : tensor<?xi64>) -> tensor<?xi64> {
    %w = arith.subi %x, %k : i64
    soac.yield %w : i64
  }
  %e = soac.map(%x = %c : tensor<?xi64>) -> tensor<?xi64> {
    %w = arith.addi %x, %x : i64
    soac.yield %w : i64
  }
  %f = soac.map(%x = %c : tensor<?xi64>) -> tensor<?xi64> {
    %w = arith.muli %x, %x : i64
    soac.yield %w : i64
  }
  func.return %d, %e, %f : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @split_chain
// CHECK-NOT:     %c = soac.map
// CHECK:         %d = soac.map(%x = %a : tensor<?xi64>)
// CHECK:         %e = soac.map(%{{.*}} = %a : tensor<?xi64>)
// CHECK:         %f = soac.map(%{{.*}} = %a : tensor<?xi64>)
// CHECK:         func.return %d, %e, %f
