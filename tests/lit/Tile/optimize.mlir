// The target-independent tile-optimize pipeline (Pipeline.cpp): inline,
// canonicalize, SCCP, CSE, tile-combine, canonicalize, LICM, CSE, symbol DCE.

// RUN: tegula-opt %s -tile-optimize | FileCheck %s

// Private helpers are inlined and then removed by symbol DCE, as is a helper
// no one calls; the noinline helper stays, with its call.
// CHECK-NOT:   @helper
// CHECK-NOT:   @choose
// CHECK-NOT:   @unused
// CHECK:       tile.func private @kept(%[[KX:[^:]+]]: tensor<64xf32>) -> tensor<64xf32> attributes {noinline} {
// CHECK-NEXT:    %[[KN:.+]] = arith.negf %[[KX]] : tensor<64xf32>
// CHECK-NEXT:    return %[[KN]] : tensor<64xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   @helper
// CHECK-NOT:   @choose
// CHECK-NOT:   @unused

tile.func private @helper(%x: tensor<64xf32>, %s: f32) -> tensor<64xf32> {
  %t = tile.splat %s : f32 -> tensor<64xf32>
  %r = arith.mulf %x, %t : tensor<64xf32>
  tile.return %r : tensor<64xf32>
}

tile.func private @kept(%x: tensor<64xf32>) -> tensor<64xf32> attributes {noinline} {
  %r = arith.negf %x : tensor<64xf32>
  tile.return %r : tensor<64xf32>
}

tile.func private @unused(%x: f32) -> f32 {
  tile.return %x : f32
}

// A helper of several blocks: its returns become branches to the code after
// the call.
tile.func private @choose(%c: i1, %a: f32, %b: f32) -> f32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  tile.return %a : f32
^bb2:
  %n = arith.negf %b : f32
  tile.return %n : f32
}

// CHECK-LABEL: tile.func @kernel(
// CHECK-SAME:    %[[P:[^:]+]]: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %[[S:[^:]+]]: f32, %[[N:[^:]+]]: i32, %[[A:[^:]+]]: tensor<16x16xf16>, %[[B:[^:]+]]: tensor<16x16xf16>, %[[D:[^:]+]]: tensor<16x16xf32>, %[[Q:[^:]+]]: tensor<16x16x!tile.ptr<f32>>)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : i32
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : i32
// CHECK-DAG:     %[[INIT:.+]] = arith.constant dense<0.000000e+00> : tensor<64xf32>
// CHECK:         %[[R:.+]] = make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
// The two splats of %p and the two addptrs are CSE'd into one each.
// CHECK-NEXT:    %[[PS:.+]] = splat %[[P]] : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
// CHECK-NEXT:    %[[PP:.+]] = addptr %[[PS]], %[[R]] : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
// CHECK-NEXT:    %[[X:.+]] = load %[[PP]] : tensor<64x!tile.ptr<f32>>
// The body of @helper, inlined.
// CHECK-NEXT:    %[[T:.+]] = splat %[[S]] : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[Y:.+]] = arith.mulf %[[X]], %[[T]] : tensor<64xf32>
// CHECK-NEXT:    %[[Z:.+]] = call @kept(%[[Y]]) : (tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT:    store %[[PP]], %[[Z]] : tensor<64x!tile.ptr<f32>>
// The loop-invariant product and its splat are hoisted out of the loop.
// CHECK-NEXT:    %[[K:.+]] = arith.mulf %[[S]], %[[S]] : f32
// CHECK-NEXT:    %[[KT:.+]] = splat %[[K]] : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[SUM:.+]] = scf.for %[[I:.+]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[ACC:.+]] = %[[INIT]]) -> (tensor<64xf32>) : i32 {
// CHECK-NEXT:      %[[NEXT:.+]] = arith.addf %[[ACC]], %[[KT]] : tensor<64xf32>
// CHECK-NEXT:      scf.yield %[[NEXT]] : tensor<64xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    store %[[PP]], %[[SUM]] : tensor<64x!tile.ptr<f32>>
// tile-combine: the add of the dot's result becomes its accumulator.
// CHECK-NEXT:    %[[DOT:.+]] = dot %[[A]], %[[B]], %[[D]] : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
// CHECK-NEXT:    store %[[Q]], %[[DOT]] : tensor<16x16x!tile.ptr<f32>>
// CHECK-NEXT:    return
// CHECK-NEXT:  }
tile.func @kernel(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %s: f32, %n: i32,
                  %a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %d: tensor<16x16xf32>,
                  %q: tensor<16x16x!tile.ptr<f32>>) {
  %offs = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %pp = tile.addptr %ps, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %x = tile.load %pp : tensor<64x!tile.ptr<f32>>
  %y = tile.call @helper(%x, %s) : (tensor<64xf32>, f32) -> tensor<64xf32>
  %z = tile.call @kept(%y) : (tensor<64xf32>) -> tensor<64xf32>
  %ps2 = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %pp2 = tile.addptr %ps2, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %pp2, %z : tensor<64x!tile.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %init = arith.constant dense<0.0> : tensor<64xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64xf32>) : i32 {
    %k = arith.mulf %s, %s : f32
    %kt = tile.splat %k : f32 -> tensor<64xf32>
    %next = arith.addf %acc, %kt : tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  tile.store %pp, %sum : tensor<64x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %dot = tile.dot %a, %b, %zero : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %res = arith.addf %dot, %d : tensor<16x16xf32>
  tile.store %q, %res : tensor<16x16x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func @branchy(
// CHECK-SAME:    %[[BP:[^:]+]]: !tile.ptr<f32>, %[[BC:[^:]+]]: i1, %[[BA:[^:]+]]: f32, %[[BB:[^:]+]]: f32)
// CHECK-NOT:     call
// CHECK-NEXT:    cf.cond_br %[[BC]], ^[[JOIN:bb[0-9]+]](%[[BA]] : f32), ^[[NEG:bb[0-9]+]]
// CHECK-NEXT:  ^[[NEG]]:
// CHECK-NEXT:    %[[NB:.+]] = arith.negf %[[BB]] : f32
// CHECK-NEXT:    cf.br ^[[JOIN]](%[[NB]] : f32)
// CHECK-NEXT:  ^[[JOIN]](%[[V:[^:]+]]: f32):
// CHECK-NEXT:    store %[[BP]], %[[V]] : !tile.ptr<f32>
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-NOT:   @helper
// CHECK-NOT:   @choose
// CHECK-NOT:   @unused
tile.func @branchy(%p: !tile.ptr<f32>, %c: i1, %a: f32, %b: f32) {
  %r = tile.call @choose(%c, %a, %b) : (i1, f32, f32) -> f32
  tile.store %p, %r : !tile.ptr<f32>
  tile.return
}
