// RUN: l0-opt %s -p inline-map-index,verify-uniqueness --split-input-file | filecheck %s
// RUN: l0-opt %s -p inline-map-index,dce --split-input-file | filecheck %s --check-prefix=DEAD
// RUN: l0-opt %s -p 'inline-map-index{transcendental-weight=1}' --split-input-file | filecheck %s --check-prefix=CHEAPEXP

// Index inlining through maps of maps and into maps over iota (Note [The work of one
// element], Note [Where an element may be recomputed]).

// b[i, j] of a map of maps: the outer lambda runs on a[i], the inner one on c[j]; the
// new indexings carry the certificates of the indexing, of the map and of the inner map.
func.func @map_of_maps(%a: tensor<?xi64>, %c: tensor<?xi64>, %z: !soac.cert, %w: !soac.cert,
                       %i: i64, %j: i64, %k: !soac.cert) -> i64 {
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) <%z> -> tensor<?x?xi64> {
    %x1 = arith.addi %x, %one : i64
    %row = soac.map(%y = %c : tensor<?xi64>) <%w> -> tensor<?xi64> {
      %p = arith.muli %x1, %y : i64
      soac.yield %p : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  %e = soac.index %b[%i, %j] <%k> : tensor<?x?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @map_of_maps
// CHECK: [[X:%.*]] = soac.index %a[%i] <%k, %z> : tensor<?xi64> -> i64
// CHECK-NEXT: [[X1:%.*]] = arith.addi [[X]], %one : i64
// CHECK-NEXT: [[Y:%.*]] = soac.index %c[%j] <%k, %z, %w> : tensor<?xi64> -> i64
// CHECK-NEXT: [[E:%.*]] = arith.muli [[X1]], [[Y]] : i64
// CHECK-NEXT: func.return [[E]] : i64
// DEAD-LABEL: func.func @map_of_maps
// DEAD-NOT: soac.map
// DEAD: func.return

// -----

// The inner map over the outer lambda's row: b[i, j] is a[i][j], mapped.
func.func @map_of_rows(%a: tensor<?x?xi64>, %i: i64, %j: i64) -> i64 {
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %row = soac.map(%y = %r : tensor<?xi64>) -> tensor<?xi64> {
      %p = arith.muli %y, %y : i64
      soac.yield %p : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  %e = soac.index %b[%i, %j] : tensor<?x?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @map_of_rows
// CHECK: [[R:%.*]] = soac.index %a[%i] : tensor<?x?xi64> -> tensor<?xi64>
// CHECK-NEXT: [[Y:%.*]] = soac.index [[R]][%j] : tensor<?xi64> -> i64
// CHECK-NEXT: [[E:%.*]] = arith.muli [[Y]], [[Y]] : i64
// CHECK-NEXT: func.return [[E]] : i64

// -----

// R1's volatility (figure 42), read by a consumer over iota(m) x iota(n) at its own
// position: each element is recomputed once per consumer element, as fusion would, and
// the map of maps is dead. Its exp and log weigh `transcendental-weight` each inside
// the consumer (8 by default: 2 x 8 + 4 > 16), 1 with the option: then all of it is
// recomputed there, the log per point. By default it is recomputed too, as this
// indexing is the map's only reader (Note [The only reader]), but the row part, the
// log, stays per row in a map over `%xs` of its own.
func.func @volatility(%xs: tensor<?xf64>, %ys: tensor<?xf64>, %beta: f64, %t: f64,
                      %m: i64, %n: i64) -> tensor<?x?xf64> {
  %two = arith.constant 2.0 : f64
  %var = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?x?xf64> {
    %l = math.log %x : f64
    %bl = arith.mulf %beta, %l : f64
    %row = soac.map(%y = %ys : tensor<?xf64>) -> tensor<?xf64> {
      %s = arith.addf %bl, %y : f64
      %d = arith.subf %s, %t : f64
      %e2 = arith.mulf %two, %d : f64
      %v = math.exp %e2 : f64
      soac.yield %v : f64
    }
    soac.yield %row : tensor<?xf64>
  }
  %jm = soac.iota %m
  %in = soac.iota %n
  %u = soac.map(%j = %jm : tensor<?xi64>) -> tensor<?x?xf64> {
    %col = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xf64> {
      %e = soac.index %var[%i, %j] : tensor<?x?xf64> -> f64
      %h = arith.mulf %e, %e : f64
      soac.yield %h : f64
    }
    soac.yield %col : tensor<?xf64>
  }
  func.return %u : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @volatility
// CHECK:      [[ROWS:%.*]] = soac.map(%{{.*}} = %xs : tensor<?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:   [[L:%.*]] = math.log %{{.*}} : f64
// CHECK-NEXT:   [[BL:%.*]] = arith.mulf %beta, [[L]] : f64
// CHECK-NEXT:   soac.yield [[BL]] : f64
// CHECK-NEXT: }
// CHECK:      soac.map(%i = %in : tensor<?xi64>)
// CHECK-NEXT:   [[R:%.*]] = soac.index [[ROWS]][%i] : tensor<?xf64> -> f64
// CHECK-NEXT:   [[Y:%.*]] = soac.index %ys[%j] : tensor<?xf64> -> f64
// CHECK-NEXT:   arith.addf [[R]], [[Y]] : f64
// CHECK-NOT:    math.log
// CHECK:        math.exp
// CHECK-NOT:  soac.index %var
// CHEAPEXP-LABEL: func.func @volatility
// CHEAPEXP: soac.map(%i = %in : tensor<?xi64>)
// CHEAPEXP-NEXT: [[X:%.*]] = soac.index %xs[%i] : tensor<?xf64> -> f64
// CHEAPEXP-NEXT: [[L:%.*]] = math.log [[X]] : f64
// CHEAPEXP-NEXT: [[BL:%.*]] = arith.mulf %beta, [[L]] : f64
// CHEAPEXP-NEXT: [[Y:%.*]] = soac.index %ys[%j] : tensor<?xf64> -> f64
// CHEAPEXP-NEXT: [[S:%.*]] = arith.addf [[BL]], [[Y]] : f64
// CHEAPEXP: [[V:%.*]] = math.exp %{{.*}} : f64
// CHEAPEXP-NEXT: arith.mulf [[V]], [[V]] : f64
// CHEAPEXP-NOT: soac.index %var

// -----

// Must not fire (Note [The only reader]): the volatility read by two consumers, each
// at its own position, weighs too much to be recomputed in both (8 per transcendental
// function by default); the map of maps stays and both indexings with it.
func.func @volatility_two_readers(%xs: tensor<?xf64>, %ys: tensor<?xf64>, %beta: f64,
                                  %t: f64, %m: i64, %n: i64)
    -> (tensor<?x?xf64>, tensor<?x?xf64>) {
  %two = arith.constant 2.0 : f64
  %var = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?x?xf64> {
    %l = math.log %x : f64
    %bl = arith.mulf %beta, %l : f64
    %row = soac.map(%y = %ys : tensor<?xf64>) -> tensor<?xf64> {
      %s = arith.addf %bl, %y : f64
      %v = math.exp %s : f64
      soac.yield %v : f64
    }
    soac.yield %row : tensor<?xf64>
  }
  %jm = soac.iota %m
  %in = soac.iota %n
  %u = soac.map(%j = %jm : tensor<?xi64>) -> tensor<?x?xf64> {
    %col = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xf64> {
      %e = soac.index %var[%i, %j] : tensor<?x?xf64> -> f64
      %h = arith.mulf %e, %e : f64
      soac.yield %h : f64
    }
    soac.yield %col : tensor<?xf64>
  }
  %w = soac.map(%j = %jm : tensor<?xi64>) -> tensor<?x?xf64> {
    %col = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xf64> {
      %e = soac.index %var[%i, %j] : tensor<?x?xf64> -> f64
      %h = arith.addf %e, %two : f64
      soac.yield %h : f64
    }
    soac.yield %col : tensor<?xf64>
  }
  func.return %u, %w : tensor<?x?xf64>, tensor<?x?xf64>
}
// CHECK-LABEL: func.func @volatility_two_readers
// CHEAPEXP-LABEL: func.func @volatility_two_readers
// CHECK:         %var = soac.map
// CHECK:         soac.index %var[%i, %j]
// CHECK:         soac.index %var[%i_1, %j_1]

// -----

// Must not fire: the only reader runs inside a map whose position is not an index
// (each element would be recomputed once per row of `%ks`), so the map stays.
func.func @only_reader_repeated(%xs: tensor<?xf64>, %ys: tensor<?xf64>, %ks: tensor<?xi64>,
                                %i: i64, %j: i64) -> tensor<?xf64> {
  %var = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?x?xf64> {
    %l = math.log %x : f64
    %row = soac.map(%y = %ys : tensor<?xf64>) -> tensor<?xf64> {
      %s = arith.addf %l, %y : f64
      %v = math.exp %s : f64
      %v2 = math.exp %v : f64
      soac.yield %v2 : f64
    }
    soac.yield %row : tensor<?xf64>
  }
  %u = soac.map(%k = %ks : tensor<?xi64>) -> tensor<?xf64> {
    %e = soac.index %var[%i, %j] : tensor<?x?xf64> -> f64
    soac.yield %e : f64
  }
  func.return %u : tensor<?xf64>
}
// CHECK-LABEL: func.func @only_reader_repeated
// CHECK:         %var = soac.map
// CHECK:         soac.index %var[%i, %j]

// -----

// Cheap arithmetic is recomputed inside the consumer under the default weights, and the
// producer dies: the consumer reads b at its positions in iota(m) x iota(n).
func.func @into_iota_maps(%xs: tensor<?xi64>, %ys: tensor<?xi64>, %m: i64, %n: i64)
    -> tensor<?x?xi64> {
  %b = soac.map(%x = %xs : tensor<?xi64>) -> tensor<?x?xi64> {
    %row = soac.map(%y = %ys : tensor<?xi64>) -> tensor<?xi64> {
      %s = arith.addi %x, %y : i64
      soac.yield %s : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  %jm = soac.iota %m
  %in = soac.iota %n
  %u = soac.map(%j = %jm : tensor<?xi64>) -> tensor<?x?xi64> {
    %col = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
      %e = soac.index %b[%i, %j] : tensor<?x?xi64> -> i64
      soac.yield %e : i64
    }
    soac.yield %col : tensor<?xi64>
  }
  func.return %u : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @into_iota_maps
// CHECK: soac.map(%i = %in : tensor<?xi64>)
// CHECK-NEXT: [[X:%.*]] = soac.index %xs[%i] : tensor<?xi64> -> i64
// CHECK-NEXT: [[Y:%.*]] = soac.index %ys[%j] : tensor<?xi64> -> i64
// CHECK-NEXT: [[S:%.*]] = arith.addi [[X]], [[Y]] : i64
// CHECK-NEXT: soac.yield [[S]] : i64
// DEAD-LABEL: func.func @into_iota_maps
// DEAD: soac.map(%j = %jm
// DEAD-NEXT: soac.map(%i = %in
// DEAD-NOT: soac.map
// DEAD: func.return

// -----

// A transcendental function where the map's block runs the indexing once weighs 1: one
// element is recomputed, once.
func.func @exp_once(%a: tensor<?xf64>, %i: i64) -> f64 {
  %b = soac.map(%x = %a : tensor<?xf64>) -> tensor<?xf64> {
    %l = math.log %x : f64
    %e = math.exp %l : f64
    %s = math.sin %e : f64
    soac.yield %s : f64
  }
  %r = soac.index %b[%i] : tensor<?xf64> -> f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @exp_once
// CHECK: soac.index %a[%i]
// CHECK-NOT: soac.index %b

// -----

// One index is the consumer's position, the other does not vary inside it (defined
// before it, or a constant): still at most one recomputation per element.
func.func @invariant_index(%a: tensor<?x?xi64>, %n: i64, %k: i64) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %row = soac.map(%y = %r : tensor<?xi64>) -> tensor<?xi64> {
      %p = arith.addi %y, %y : i64
      soac.yield %p : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  %in = soac.iota %n
  %u = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %e = soac.index %b[%i, %k] : tensor<?x?xi64> -> i64
    %f = soac.index %b[%zero, %i] : tensor<?x?xi64> -> i64
    %s = arith.addi %e, %f : i64
    soac.yield %s : i64
  }
  func.return %u : tensor<?xi64>
}
// CHECK-LABEL: func.func @invariant_index
// CHECK-NOT: soac.index %b
// CHECK: func.return

// -----

// A branch of the consumer runs at most once per element.
func.func @inside_if_in_map(%a: tensor<?xi64>, %n: i64) -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %in = soac.iota %n
  %u = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %p = arith.cmpi slt, %one, %i : i64
    %r = scf.if %p -> (i64) {
      %e = soac.index %b[%i] : tensor<?xi64> -> i64
      scf.yield %e : i64
    } else {
      scf.yield %one : i64
    }
    soac.yield %r : i64
  }
  func.return %u : tensor<?xi64>
}
// CHECK-LABEL: func.func @inside_if_in_map
// CHECK: scf.if
// CHECK-NEXT: soac.index %a[%i]
// CHECK-NOT: soac.index %b

// -----

// Must not fire: inside a loop inside the consumer, once per iteration.
func.func @no_loop_in_map(%a: tensor<?xi64>, %n: i64) -> tensor<?xi64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %in = soac.iota %n
  %u = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %s = scf.for %t = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
      %e = soac.index %b[%i] : tensor<?xi64> -> i64
      %v = arith.addi %acc, %e : i64
      scf.yield %v : i64
    }
    soac.yield %s : i64
  }
  func.return %u : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_loop_in_map
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// Must not fire: a loop around the consumer runs the recomputation every iteration.
func.func @no_map_in_loop(%a: tensor<?xi64>, %n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %in = soac.iota %n
  %s = scf.for %t = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %u = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
      %e = soac.index %b[%i] : tensor<?xi64> -> i64
      soac.yield %e : i64
    }
    %f = soac.index %u[%t] : tensor<?xi64> -> i64
    scf.yield %f : i64
  }
  func.return %s : i64
}
// CHECK-LABEL: func.func @no_map_in_loop
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// Must not fire: a data-dependent index (read from an array) may repeat elements.
func.func @no_data_dependent_index(%a: tensor<?xi64>, %idx: tensor<?xi64>, %n: i64)
    -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %in = soac.iota %n
  %u = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %k = soac.index %idx[%i] : tensor<?xi64> -> i64
    %e = soac.index %b[%k] : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %u : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_data_dependent_index
// CHECK: soac.index %b[%k] : tensor<?xi64> -> i64

// -----

// Must not fire: the position is an index, but the other index is computed inside.
func.func @no_computed_second_index(%a: tensor<?x?xi64>, %n: i64) -> tensor<?xi64> {
  %one = arith.constant 1 : i64
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %row = soac.map(%y = %r : tensor<?xi64>) -> tensor<?xi64> {
      %p = arith.addi %y, %one : i64
      soac.yield %p : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  %in = soac.iota %n
  %u = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %k = arith.addi %i, %one : i64
    %e = soac.index %b[%i, %k] : tensor<?x?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %u : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_computed_second_index
// CHECK: soac.index %b[%i, %k] : tensor<?x?xi64> -> i64

// -----

// Must not fire: the outer map's position is no index (every row of the consumer would
// recompute the same elements again).
func.func @no_unused_position(%a: tensor<?xi64>, %m: i64, %n: i64) -> tensor<?x?xi64> {
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %jm = soac.iota %m
  %in = soac.iota %n
  %u = soac.map(%j = %jm : tensor<?xi64>) -> tensor<?x?xi64> {
    %col = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
      %e = soac.index %b[%i] : tensor<?xi64> -> i64
      soac.yield %e : i64
    }
    soac.yield %col : tensor<?xi64>
  }
  func.return %u : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @no_unused_position
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// Must not fire: inside a reduction's lambda (its operator runs on pairs, not once per
// position).
func.func @no_inside_reduce(%a: tensor<?xi64>, %n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %in = soac.iota %n
  %s = soac.reduce(%acc = %zero : i64) over(%i = %in : tensor<?xi64>) {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    %t = arith.addi %acc, %e : i64
    soac.yield %t : i64
  }
  func.return %s : i64
}
// CHECK-LABEL: func.func @no_inside_reduce
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// Must not fire: the element part holds a SOAC (not constant time).
func.func @no_expensive_inner(%a: tensor<?xi64>, %c: tensor<?x?xi64>, %i: i64, %j: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?x?xi64> {
    %row = soac.map(%r = %c : tensor<?x?xi64>) -> tensor<?xi64> {
      %s = soac.reduce(%acc = %x : i64) over(%y = %r : tensor<?xi64>) {
        %t = arith.addi %acc, %y : i64
        soac.yield %t : i64
      }
      soac.yield %s : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  %e = soac.index %b[%i, %j] : tensor<?x?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @no_expensive_inner
// CHECK: soac.index %b[%i, %j] : tensor<?x?xi64> -> i64

// -----

// Must not fire: the row part and the element part together weigh more than max-ops
// (16): 9 ops per level; and the map has two readers (with one, recomputing one
// element costs less than the map whatever it weighs: Note [The only reader]).
func.func @no_heavy_levels(%a: tensor<?xi64>, %c: tensor<?xi64>, %i: i64, %j: i64)
    -> (i64, i64) {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?x?xi64> {
    %x1 = arith.muli %x, %x : i64
    %x2 = arith.muli %x1, %x : i64
    %x3 = arith.muli %x2, %x : i64
    %x4 = arith.muli %x3, %x : i64
    %x5 = arith.muli %x4, %x : i64
    %x6 = arith.muli %x5, %x : i64
    %x7 = arith.muli %x6, %x : i64
    %x8 = arith.muli %x7, %x : i64
    %row = soac.map(%y = %c : tensor<?xi64>) -> tensor<?xi64> {
      %y1 = arith.muli %x8, %y : i64
      %y2 = arith.muli %y1, %y : i64
      %y3 = arith.muli %y2, %y : i64
      %y4 = arith.muli %y3, %y : i64
      %y5 = arith.muli %y4, %y : i64
      %y6 = arith.muli %y5, %y : i64
      %y7 = arith.muli %y6, %y : i64
      %y8 = arith.muli %y7, %y : i64
      %y9 = arith.muli %y8, %y : i64
      soac.yield %y9 : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  %e = soac.index %b[%i, %j] : tensor<?x?xi64> -> i64
  %f = soac.index %b[%j, %i] : tensor<?x?xi64> -> i64
  func.return %e, %f : i64, i64
}
// CHECK-LABEL: func.func @no_heavy_levels
// CHECK: soac.index %b[%i, %j] : tensor<?x?xi64> -> i64
// CHECK: soac.index %b[%j, %i] : tensor<?x?xi64> -> i64

// -----

// The same map with one reader, which runs once: recomputing its one element costs
// less than building the map, whatever it weighs (Note [The only reader]).
func.func @heavy_only_reader(%a: tensor<?xi64>, %c: tensor<?xi64>, %i: i64, %j: i64) -> i64 {
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?x?xi64> {
    %x1 = arith.muli %x, %x : i64
    %x2 = arith.muli %x1, %x : i64
    %x3 = arith.muli %x2, %x : i64
    %x4 = arith.muli %x3, %x : i64
    %x5 = arith.muli %x4, %x : i64
    %x6 = arith.muli %x5, %x : i64
    %x7 = arith.muli %x6, %x : i64
    %x8 = arith.muli %x7, %x : i64
    %row = soac.map(%y = %c : tensor<?xi64>) -> tensor<?xi64> {
      %y1 = arith.muli %x8, %y : i64
      %y2 = arith.muli %y1, %y : i64
      %y3 = arith.muli %y2, %y : i64
      %y4 = arith.muli %y3, %y : i64
      %y5 = arith.muli %y4, %y : i64
      %y6 = arith.muli %y5, %y : i64
      %y7 = arith.muli %y6, %y : i64
      %y8 = arith.muli %y7, %y : i64
      %y9 = arith.muli %y8, %y : i64
      soac.yield %y9 : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  %e = soac.index %b[%i, %j] : tensor<?x?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @heavy_only_reader
// CHECK:         soac.index %a[%i]
// CHECK:         soac.index %c[%j]
// CHECK-NOT:     soac.index %b
// CHECK:         func.return

// -----

// Must not fire: the row part holds a SOAC besides the inner map that builds the row.
func.func @no_other_soac_in_row(%a: tensor<?x?xi64>, %i: i64, %j: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %b = soac.map(%r = %a : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %s = soac.reduce(%acc = %zero : i64) over(%y = %r : tensor<?xi64>) {
      %t = arith.addi %acc, %y : i64
      soac.yield %t : i64
    }
    %row = soac.map(%y = %r : tensor<?xi64>) -> tensor<?xi64> {
      %p = arith.addi %y, %s : i64
      soac.yield %p : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  %e = soac.index %b[%i, %j] : tensor<?x?xi64> -> i64
  func.return %e : i64
}
// CHECK-LABEL: func.func @no_other_soac_in_row
// CHECK: soac.index %b[%i, %j] : tensor<?x?xi64> -> i64

// -----

// Must not fire: an update consumes an array the lambda indexes (not an input) before
// the indexing; recomputed, `c[x]` would read the updated array.
func.func @no_consumed_free_array(%a: tensor<?xi64>, %c: tensor<?xi64> {soac.unique},
                                  %i: i64) -> (tensor<?xi64> {soac.unique}, i64) {
  %zero = arith.constant 0 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = soac.index %c[%x] : tensor<?xi64> -> i64
    soac.yield %y : i64
  }
  %u = soac.update %c[%zero] = %zero : tensor<?xi64>
  %e = soac.index %b[%i] : tensor<?xi64> -> i64
  func.return %u, %e : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @no_consumed_free_array
// CHECK: soac.update
// CHECK-NEXT: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// Must not fire: an input of the map is consumed between it and the consumer that
// indexes it.
func.func @no_consumed_before_consumer(%p: tensor<?xi64> {soac.unique}, %n: i64)
    -> (tensor<?xi64> {soac.unique}, tensor<?xi64>) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %p : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %q = soac.update %p[%zero] = %one : tensor<?xi64>
  %in = soac.iota %n
  %u = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %q, %u : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @no_consumed_before_consumer
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// Must not fire: the consumer itself consumes the map's input, row by row (its lambda
// updates its row of %p): a later row would recompute from an updated array.
func.func @no_consumed_by_consumer(%p: tensor<?x?xi64> {soac.unique}, %n: i64)
    -> tensor<?x?xi64> {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%r = %p : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %row = soac.map(%y = %r : tensor<?xi64>) -> tensor<?xi64> {
      %s = arith.addi %y, %one : i64
      soac.yield %s : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  %in = soac.iota %n
  %u = soac.map(%i = %in, %q = %p : tensor<?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> {
    %e = soac.index %b[%zero, %i] : tensor<?x?xi64> -> i64
    %w = soac.update %q[%zero] = %e : tensor<?xi64>
    soac.yield %w : tensor<?xi64>
  }
  func.return %u : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @no_consumed_by_consumer
// CHECK: soac.index %b[%zero, %i] : tensor<?x?xi64> -> i64

// -----

// The map's other use is an input of a SOAC: recomputing the indexing lets the map fuse
// into the reduction (Note [Recomputing where it pays]).
func.func @other_use_soac_input(%a: tensor<?xi64>, %n: i64) -> (tensor<?xi64>, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %s = soac.reduce(%acc = %zero : i64) over(%x = %b : tensor<?xi64>) {
    %t = arith.addi %acc, %x : i64
    soac.yield %t : i64
  }
  %in = soac.iota %n
  %u = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    %f = arith.muli %e, %s : i64
    soac.yield %f : i64
  }
  func.return %u, %s : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @other_use_soac_input
// CHECK: soac.map(%i = %in : tensor<?xi64>)
// CHECK-NEXT: soac.index %a[%i]
// CHECK-NOT: soac.index %b

// -----

// Must not fire: the map is returned too, so it is built anyway; recomputing its
// elements in the consumer would only add work (Note [Recomputing where it pays]).
func.func @no_map_built_anyway(%a: tensor<?xi64>, %n: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %in = soac.iota %n
  %u = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %u, %b : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @no_map_built_anyway
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64

// -----

// Must not fire: one indexing could be recomputed, the other (inside a loop) cannot, so
// the map stays and the first recomputation would only add work.
func.func @no_other_index_stays(%a: tensor<?xi64>, %n: i64) -> (tensor<?xi64>, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.addi %x, %one : i64
    soac.yield %y : i64
  }
  %in = soac.iota %n
  %u = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xi64> {
    %e = soac.index %b[%i] : tensor<?xi64> -> i64
    soac.yield %e : i64
  }
  %s = scf.for %t = %zero to %n step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %e = soac.index %b[%t] : tensor<?xi64> -> i64
    %v = arith.addi %acc, %e : i64
    scf.yield %v : i64
  }
  func.return %u, %s : tensor<?xi64>, i64
}
// CHECK-LABEL: func.func @no_other_index_stays
// CHECK: soac.index %b[%i] : tensor<?xi64> -> i64
// CHECK: soac.index %b[%t] : tensor<?xi64> -> i64

// -----

// Must not fire (Note [The only reader]): one reader, but the map's lambda may fail (a
// check of its own), so the map stays whatever happens to the indexing, and
// recomputing its heavy element there would only add work.
func.func @only_reader_map_may_fail(%xs: tensor<?xf64>, %ys: tensor<?xf64>, %ok: i1,
                                    %m: i64, %n: i64) -> tensor<?x?xf64> {
  %var = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?x?xf64> {
    %c = soac.assert %ok, "bad row" at "t.l0:1:1"
    %l = math.log %x : f64
    %row = soac.map(%y = %ys : tensor<?xf64>) -> tensor<?xf64> {
      %s = arith.addf %l, %y : f64
      %v = math.exp %s : f64
      soac.yield %v : f64
    }
    soac.yield %row : tensor<?xf64>
  }
  %jm = soac.iota %m
  %in = soac.iota %n
  %u = soac.map(%j = %jm : tensor<?xi64>) -> tensor<?x?xf64> {
    %col = soac.map(%i = %in : tensor<?xi64>) -> tensor<?xf64> {
      %e = soac.index %var[%i, %j] : tensor<?x?xf64> -> f64
      soac.yield %e : f64
    }
    soac.yield %col : tensor<?xf64>
  }
  func.return %u : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @only_reader_map_may_fail
// CHECK:         %var = soac.map
// CHECK:         soac.index %var[%i, %j]
