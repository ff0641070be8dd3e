// RUN: l0-opt %s -p fuse,verify-uniqueness --split-input-file | filecheck %s
// RUN: l0-opt %s -p 'fuse{horizontal=false duplicate=false}' --split-input-file | filecheck %s --check-prefix=OFF

// Horizontal fusion (`l0.passes.fuse.horizontal`): sibling maps over one array become
// one map with the outputs of all of them; each lambda runs in turn on the row.
func.func @sibling_maps(%a: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %x : i64
    soac.yield %y : i64
  }
  %c = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %d = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.subi %x, %x : i64
    soac.yield %y : i64
  }
  func.return %b, %c, %d : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @sibling_maps
// CHECK-NEXT:    %b, %c, %d = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64>, tensor<?xi64>, tensor<?xi64> {
// CHECK-NEXT:      %y = arith.muli %x, %x : i64
// CHECK-NEXT:      %y_1 = arith.addi %x, %x : i64
// CHECK-NEXT:      %y_2 = arith.subi %x, %x : i64
// CHECK-NEXT:      soac.yield %y, %y_1, %y_2 : i64, i64, i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %b, %c, %d
// OFF-LABEL: func.func @sibling_maps
// OFF-COUNT-3: soac.map

// -----

// Thesis figure 44: a map computing two arrays, each folded by its own reduce. The
// reduces are siblings of one size (the outputs of one map): they become one redomap
// on the pair of accumulators, whose outer lambda applies each operator to its half;
// the map, now feeding one consumer, then fuses into it.
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
// CHECK-NEXT:    %sum, %max = soac.redomap(%p = %zero, %p_1 = %zero : f64, f64) over(%x = %a : tensor<?xf64>) {
// CHECK-NEXT:      %baix = arith.mulf %x, %m : f64
// CHECK-NEXT:      %u = math.exp %baix : f64
// CHECK-NEXT:      %v = arith.subf %x, %baix : f64
// CHECK-NEXT:      %q = arith.addf %p, %u : f64
// CHECK-NEXT:      %q_1 = arith.maximumf %p_1, %v : f64
// CHECK-NEXT:      soac.yield %q, %q_1 : f64, f64
// CHECK-NEXT:    } outer {
// CHECK-NEXT:    ^bb0(%p_2: f64, %p_3: f64, %e: f64, %e_1: f64):
// CHECK-NEXT:      %q_2 = arith.addf %p_2, %e : f64
// CHECK-NEXT:      %q_3 = arith.maximumf %p_3, %e_1 : f64
// CHECK-NEXT:      soac.yield %q_2, %q_3 : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %sum, %max
// OFF-LABEL: func.func @figure_44
// OFF: %s, %t = soac.map
// OFF: soac.reduce
// OFF: soac.reduce

// -----

// A reduce and a redomap over one array, and a map whose inputs include it: the folds
// become one redomap (the reduce's lambda is its own inner lambda), the map stays a map
// (maps and folds are different families). Certificates of all members guard the
// merged SOAC; an input read by both is read once.
func.func @folds(%a: tensor<?xi64>, %b: tensor<?xi64>, %zero: i64, %c1: !soac.cert, %c2: !soac.cert) -> (i64, i64, tensor<?xi64>) {
  %r = soac.reduce(%p = %zero : i64) over(%e = %a : tensor<?xi64>) <%c1> {
    %q = arith.addi %p, %e : i64
    soac.yield %q : i64
  }
  %w = soac.map(%x = %a, %y = %b : tensor<?xi64>, tensor<?xi64>) <%c2> -> tensor<?xi64> {
    %z = arith.addi %x, %y : i64
    soac.yield %z : i64
  }
  %s = soac.redomap(%p = %zero : i64) over(%x = %a, %y = %b : tensor<?xi64>, tensor<?xi64>) <%c2> {
    %z = arith.muli %x, %y : i64
    %q = arith.maxsi %p, %z : i64
    soac.yield %q : i64
  } outer {
  ^bb0(%l: i64, %m: i64):
    %q = arith.maxsi %l, %m : i64
    soac.yield %q : i64
  }
  func.return %r, %s, %w : i64, i64, tensor<?xi64>
}
// CHECK-LABEL: func.func @folds
// CHECK-NEXT:    %w = soac.map(%x = %a, %y = %b : tensor<?xi64>, tensor<?xi64>) <%c2>
// CHECK:         %r, %s = soac.redomap(%p = %zero, %p_1 = %zero : i64, i64) over(%e = %a, %y_1 = %b : tensor<?xi64>, tensor<?xi64>) <%c1, %c2> {
// CHECK-NEXT:      %q = arith.addi %p, %e : i64
// CHECK-NEXT:      %z_1 = arith.muli %e, %y_1 : i64
// CHECK-NEXT:      %q_1 = arith.maxsi %p_1, %z_1 : i64
// CHECK-NEXT:      soac.yield %q, %q_1 : i64, i64
// CHECK-NEXT:    } outer {
// CHECK-NEXT:    ^bb0(%p_2: i64, %l: i64, %e_1: i64, %m: i64):
// CHECK-NEXT:      %q_2 = arith.addi %p_2, %e_1 : i64
// CHECK-NEXT:      %q_3 = arith.maxsi %l, %m : i64
// CHECK-NEXT:      soac.yield %q_2, %q_3 : i64, i64
// CHECK-NEXT:    }

// -----

// Inside a lambda too: the two inner folds over one row become one.
func.func @nested(%a: tensor<?x?xi64>, %zero: i64) -> (tensor<?xi64>) {
  %r = soac.map(%row = %a : tensor<?x?xi64>) -> tensor<?xi64> {
    %s = soac.reduce(%p = %zero : i64) over(%e = %row : tensor<?xi64>) {
      %q = arith.addi %p, %e : i64
      soac.yield %q : i64
    }
    %t = soac.reduce(%p = %zero : i64) over(%e = %row : tensor<?xi64>) {
      %q = arith.maxsi %p, %e : i64
      soac.yield %q : i64
    }
    %u = arith.subi %t, %s : i64
    soac.yield %u : i64
  }
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @nested
// CHECK:         %s, %t = soac.redomap
// CHECK-NOT:     soac.reduce
// CHECK:         arith.subi %t, %s

// -----

// Sizes known equal: the first map's certificate checked that %x and %z have one size,
// so the maps over %x alone and over %z alone are siblings of it.
func.func @known_sizes(%x: tensor<?xi64>, %z: tensor<?xi64>, %c: !soac.cert) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %e = soac.map(%p = %x, %q = %z : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
    %y = arith.addi %p, %q : i64
    soac.yield %y : i64
  }
  %b = soac.map(%u = %x : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %u, %u : i64
    soac.yield %y : i64
  }
  %d = soac.map(%u = %z : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.subi %u, %u : i64
    soac.yield %y : i64
  }
  func.return %e, %b, %d : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @known_sizes
// CHECK-NEXT:    %e, %b, %d = soac.map(%p = %x, %q = %z : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64>, tensor<?xi64>, tensor<?xi64> {
// CHECK-NEXT:      %y = arith.addi %p, %q : i64
// CHECK-NEXT:      %y_1 = arith.muli %p, %p : i64
// CHECK-NEXT:      %y_2 = arith.subi %q, %q : i64
// CHECK-NEXT:      soac.yield %y, %y_1, %y_2 : i64, i64, i64

// -----

// A fold over %d, then one over %a: nothing said their inputs have one size when the
// first was seen; the map over both says it in between, and the open group of %d's class is
// refiled under the joined class, so the later fold still joins it.
func.func @sizes_learnt_later(%a: tensor<?xi64>, %d: tensor<?xi64>) -> (i64, tensor<?xi64>, i64) {
  %zero = arith.constant 0 : i64
  %s = soac.reduce(%p = %zero : i64) over(%e = %d : tensor<?xi64>) {
    %t = arith.addi %p, %e : i64
    soac.yield %t : i64
  }
  %m = soac.map(%x = %a, %y = %d : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> {
    %w = arith.subi %x, %y : i64
    soac.yield %w : i64
  }
  %q = soac.reduce(%p = %zero : i64) over(%e = %a : tensor<?xi64>) {
    %t = arith.muli %p, %e : i64
    soac.yield %t : i64
  }
  func.return %s, %m, %q : i64, tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @sizes_learnt_later
// CHECK:         %m = soac.map(%x = %a, %y = %d
// CHECK:         %s, %q = soac.redomap(%p = %zero, %p_1 = %zero : i64, i64) over(%e = %d, %e_1 = %a : tensor<?xi64>, tensor<?xi64>) {
// CHECK:         func.return %s, %m, %q

// -----

// Note [Merging scans]: a scan and a scanomap over one array (a running sum and a
// running maximum of squares) become one scanomap on the pair of accumulators; each
// member's inner lambda steps its own part, the outer lambda applies each operator to
// its part.
func.func @sibling_scans(%a: tensor<?xi64>, %zero: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %s = soac.scan(%p = %zero : i64) over(%e = %a : tensor<?xi64>) {
    %q = arith.addi %p, %e : i64
    soac.yield %q : i64
  }
  %m = soac.scanomap(%p = %zero : i64) over(%e = %a : tensor<?xi64>) {
    %sq = arith.muli %e, %e : i64
    %q = arith.maxsi %p, %sq : i64
    soac.yield %q : i64
  } outer {
  ^bb0(%u: i64, %v: i64):
    %w = arith.maxsi %u, %v : i64
    soac.yield %w : i64
  }
  func.return %s, %m : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @sibling_scans
// CHECK-NEXT:    %s, %m = soac.scanomap(%p = %zero, %p_1 = %zero : i64, i64) over(%e = %a : tensor<?xi64>) {
// CHECK-NEXT:      %q = arith.addi %p, %e : i64
// CHECK-NEXT:      %sq = arith.muli %e, %e : i64
// CHECK-NEXT:      %q_1 = arith.maxsi %p_1, %sq : i64
// CHECK-NEXT:      soac.yield %q, %q_1 : i64, i64
// CHECK-NEXT:    } outer {
// CHECK-NEXT:    ^bb0(%p_2: i64, %u: i64, %e_1: i64, %v: i64):
// CHECK-NEXT:      %q_2 = arith.addi %p_2, %e_1 : i64
// CHECK-NEXT:      %w = arith.maxsi %u, %v : i64
// CHECK-NEXT:      soac.yield %q_2, %w : i64, i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %m
// OFF-LABEL: func.func @sibling_scans
// OFF: soac.scan(
// OFF: soac.scanomap(
