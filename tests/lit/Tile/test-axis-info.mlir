// RUN: tegula-opt %s -split-input-file -tile-test-axis-info -verify-diagnostics -o /dev/null

// The vector-add pattern: offsets contiguous over the block and aligned by
// the block size; the mask constant over runs of 16 because n is divisible
// by 16; pointers contiguous with the kernel argument's 16-byte alignment.
tile.func @vector_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32 {tile.divisibility = 16 : i64}) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1], constant = 1024}}
  %c1024 = arith.constant 1024 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = tile.program_id 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1]}}
  %start = arith.muli %pid, %c1024 : i32
  // expected-remark @+1 {{contiguity = [1024], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1024]}}
  %s = tile.splat %start : i32 -> tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1024], divisibility = [1024], constancy = [1]}}
  %offs = arith.addi %s, %r : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1024]}}
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [16]}}
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1024]}}
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  // expected-remark @+1 {{contiguity = [1024], divisibility = [16], constancy = [1]}}
  %p = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.return
}

// -----

// A 2-D block of a row-major matrix: contiguous along the columns only; the
// row stride (divisible by 16) makes the row starts aligned. A unit column
// stride (specialized to 1) keeps the columns contiguous.
tile.func @rows(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %stride: i32 {tile.divisibility = 16 : i64}) {
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64, 1], divisibility = [1073741824, 1], constancy = [1, 1]}}
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 1]}}
  %st = tile.splat %stride : i32 -> tensor<64x1xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1]}}
  %rowoff = arith.muli %rows, %st : tensor<64x1xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 32]}}
  %rowb = tile.broadcast %rowoff : tensor<64x1xi32> -> tensor<64x32xi32>
  // expected-remark @+1 {{contiguity = [32], divisibility = [1073741824], constancy = [1]}}
  %c = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 32], constant = 1}}
  %one = arith.constant dense<1> : tensor<1x32xi32>
  // expected-remark @+1 {{contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [1, 1]}}
  %cols = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  // expected-remark @+1 {{contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [1, 1]}}
  %colsx1 = arith.muli %cols, %one : tensor<1x32xi32>
  // expected-remark @+1 {{contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [64, 1]}}
  %colb = tile.broadcast %colsx1 : tensor<1x32xi32> -> tensor<64x32xi32>
  // Down the rows each element is i * stride + j: only the column runs
  // start aligned.
  // expected-remark @+1 {{contiguity = [1, 32], divisibility = [1, 16], constancy = [1, 1]}}
  %off = arith.addi %rowb, %colb : tensor<64x32xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 32]}}
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  // expected-remark @+1 {{contiguity = [1, 32], divisibility = [2, 16], constancy = [1, 1]}}
  %p = tile.addptr %as, %off : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  // expected-remark @+1 {{contiguity = [32, 1], divisibility = [16, 2], constancy = [1, 1]}}
  %t = tile.trans %p {order = array<i32: 1, 0>} : tensor<64x32x!tile.ptr<f16>> -> tensor<32x64x!tile.ptr<f16>>
  tile.return
}

// -----

// Hints from tl.multiple_of / tl.max_contiguous raise what is known; a
// remainder by a power of 2 restarts runs at its multiples; loads of equal
// addresses give equal values.
tile.func @hints(%p: !tile.ptr<i32>, %q: tensor<128xi32>, %n: i32 {tile.divisibility = 16 : i64}) {
  // expected-remark @+1 {{contiguity = [8], divisibility = [8], constancy = [1]}}
  %h = arith.addi %q, %q {tile.contiguity = array<i64: 8>, tile.divisibility = array<i64: 8>} : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [32], constancy = [128], constant = 32}}
  %c32 = arith.constant dense<32> : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [32], divisibility = [32], constancy = [1]}}
  %m = arith.remsi %r, %c32 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %v = tile.load %ps : tensor<128x!tile.ptr<i32>>
  // A remainder by a runtime value divisible by 16 cuts runs at 16.
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %n16 = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark @+1 {{contiguity = [16], divisibility = [16], constancy = [1]}}
  %mn = arith.remsi %r, %n16 : tensor<128xi32>
  tile.return
}

// -----

// The induction variable of a loop shares the divisibility of its lower
// bound and step; loop-carried values keep what holds on every iteration.
tile.func @loop(%n: i32) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [1], constant = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [64], constancy = [1]}}
  %out = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %r) -> (tensor<64xi32>) : i32 {
    // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [64]}}
    %s = tile.splat %i : i32 -> tensor<64xi32>
    // expected-remark @+1 {{contiguity = [64], divisibility = [64], constancy = [1]}}
    %next = arith.addi %r, %s : tensor<64xi32>
    scf.yield %next : tensor<64xi32>
  }
  tile.return
}

// -----

// The induction variable of a loop without iter_args (its body's only
// argument) is as divisible as the bounds and step too (regression: only
// loops with iter_args were analysed, so layer norm's last loop lost its
// 16-byte accesses).
tile.func @loop_without_iter_args(%n: i32) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [1], constant = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  scf.for %i = %c0 to %n step %c64 : i32 {
    // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [64]}}
    %s = tile.splat %i : i32 -> tensor<64xi32>
    // expected-remark @+1 {{contiguity = [64], divisibility = [64], constancy = [1]}}
    %next = arith.addi %r, %s : tensor<64xi32>
  }
  tile.return
}
