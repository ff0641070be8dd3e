// RUN: l0-opt %s -p fuse,verify-uniqueness --split-input-file | filecheck %s

// A consumer moves into both branches of the `if` computing its input
// (`l0.passes.fuse.into_branches`), where it meets the map producing it in one branch
// (ISWIM's `if` for no rows, whose first branch yields no rows, is the case of
// `SinkIntoIswim`, fuse-iswim.mlir; here the first branch yields an array of rows).
func.func @into_branches(%m: tensor<?x?xi64>, %c: i1, %k: i64) -> tensor<?x?xi64> {
  %s = scf.if %c -> (tensor<?x?xi64>) {
    scf.yield %m : tensor<?x?xi64>
  } else {
    %p = soac.map(%r = %m : tensor<?x?xi64>) -> tensor<?x?xi64> {
      %q = soac.map(%x = %r : tensor<?xi64>) -> tensor<?xi64> {
        %y = arith.addi %x, %k : i64
        soac.yield %y : i64
      }
      soac.yield %q : tensor<?xi64>
    }
    scf.yield %p : tensor<?x?xi64>
  }
  %t = soac.map(%r = %s : tensor<?x?xi64>) -> tensor<?x?xi64> {
    %q = soac.map(%x = %r : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.muli %x, %k : i64
      soac.yield %y : i64
    }
    soac.yield %q : tensor<?xi64>
  }
  func.return %t : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @into_branches
// CHECK-NEXT:    %[[T:.*]] = scf.if %c -> (tensor<?x?xi64>) {
// CHECK-NEXT:      %[[E:.*]] = soac.map(%r = %m : tensor<?x?xi64>)
// CHECK:           scf.yield %[[E]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[F:.*]] = soac.map(%{{.*}} = %m : tensor<?x?xi64>) -> tensor<?x?xi64> {
// CHECK-NEXT:        soac.map
// CHECK-NEXT:          arith.addi
// CHECK-NEXT:          arith.muli
// CHECK:           scf.yield %[[F]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[T]]

// -----

// Must not fire (Note [Moving a consumer into branches]): the if's result has
// another use (@used_twice); the consumer reads a value computed after the if
// (@later_value); it may fail and so may an op between (@both_fail); no branch
// builds the value with a map (@no_producer).
func.func @used_twice(%m: tensor<?xi64>, %c: i1, %k: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %s = scf.if %c -> (tensor<?xi64>) {
    scf.yield %m : tensor<?xi64>
  } else {
    %p = soac.map(%x = %m : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.addi %x, %k : i64
      soac.yield %y : i64
    }
    scf.yield %p : tensor<?xi64>
  }
  %t = soac.map(%x = %s : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %k : i64
    soac.yield %y : i64
  }
  func.return %s, %t : tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @used_twice
// CHECK:         %s = scf.if
// CHECK:         %t = soac.map(%x{{.*}} = %s

func.func @later_value(%m: tensor<?xi64>, %c: i1, %k: i64) -> tensor<?xi64> {
  %s = scf.if %c -> (tensor<?xi64>) {
    scf.yield %m : tensor<?xi64>
  } else {
    %p = soac.map(%x = %m : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.addi %x, %k : i64
      soac.yield %y : i64
    }
    scf.yield %p : tensor<?xi64>
  }
  %j = arith.muli %k, %k : i64
  %t = soac.map(%x = %s : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %j : i64
    soac.yield %y : i64
  }
  func.return %t : tensor<?xi64>
}
// CHECK-LABEL: func.func @later_value
// CHECK:         %s = scf.if
// CHECK:         %t = soac.map(%x{{.*}} = %s

func.func @both_fail(%m: tensor<?xi64>, %c: i1, %k: i64, %ok: i1) -> tensor<?xi64> {
  %s = scf.if %c -> (tensor<?xi64>) {
    scf.yield %m : tensor<?xi64>
  } else {
    %p = soac.map(%x = %m : tensor<?xi64>) -> tensor<?xi64> {
      %y = arith.addi %x, %k : i64
      soac.yield %y : i64
    }
    scf.yield %p : tensor<?xi64>
  }
  %chk = soac.assert %ok, "no" at "p.l0:1:1"
  %t = soac.map(%x = %s : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.divsi %x, %k : i64
    soac.yield %y : i64
  }
  func.return %t : tensor<?xi64>
}
// CHECK-LABEL: func.func @both_fail
// CHECK:         %s = scf.if
// CHECK:         %t = soac.map(%x{{.*}} = %s

func.func @no_producer(%m: tensor<?xi64>, %n: tensor<?xi64>, %c: i1, %k: i64) -> tensor<?xi64> {
  %s = scf.if %c -> (tensor<?xi64>) {
    scf.yield %m : tensor<?xi64>
  } else {
    scf.yield %n : tensor<?xi64>
  }
  %t = soac.map(%x = %s : tensor<?xi64>) -> tensor<?xi64> {
    %y = arith.muli %x, %k : i64
    soac.yield %y : i64
  }
  func.return %t : tensor<?xi64>
}
// CHECK-LABEL: func.func @no_producer
// CHECK:         %s = scf.if
// CHECK:         %t = soac.map(%x = %s
