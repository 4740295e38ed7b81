// Every op, type and attribute of the tile dialect, round-tripped through
// the textual form, bytecode and the generic form. The CHECK lines pin the
// printed (custom) form of each op: inside a tile.func ops print without
// the `tile.` prefix.

// RUN: tegula-opt %s | tegula-opt | FileCheck %s
// RUN: tegula-opt %s --emit-bytecode | tegula-opt | FileCheck %s
// RUN: tegula-opt %s --mlir-print-op-generic | tegula-opt | FileCheck %s

// Every element type of the dialect, as scalars and as tensors.
// CHECK-LABEL: tile.func @element_types(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: i1,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: i8,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: i16,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: i32,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: i64,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: f8E4M3FN,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: f8E5M2,
// CHECK-SAME:  %[[ARG7:[^ :,)]+]]: f16,
// CHECK-SAME:  %[[ARG8:[^ :,)]+]]: bf16,
// CHECK-SAME:  %[[ARG9:[^ :,)]+]]: f32,
// CHECK-SAME:  %[[ARG10:[^ :,)]+]]: f64) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = splat %[[ARG0]] : i1 -> tensor<8xi1>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = splat %[[ARG1]] : i8 -> tensor<8xi8>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = splat %[[ARG2]] : i16 -> tensor<8xi16>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = splat %[[ARG3]] : i32 -> tensor<8xi32>
// CHECK-NEXT: %[[V4:[^ :,)]+]] = splat %[[ARG4]] : i64 -> tensor<8xi64>
// CHECK-NEXT: %[[V5:[^ :,)]+]] = splat %[[ARG5]] : f8E4M3FN -> tensor<8xf8E4M3FN>
// CHECK-NEXT: %[[V6:[^ :,)]+]] = splat %[[ARG6]] : f8E5M2 -> tensor<8xf8E5M2>
// CHECK-NEXT: %[[V7:[^ :,)]+]] = splat %[[ARG7]] : f16 -> tensor<8xf16>
// CHECK-NEXT: %[[V8:[^ :,)]+]] = splat %[[ARG8]] : bf16 -> tensor<8xbf16>
// CHECK-NEXT: %[[V9:[^ :,)]+]] = splat %[[ARG9]] : f32 -> tensor<8xf32>
// CHECK-NEXT: %[[V10:[^ :,)]+]] = splat %[[ARG10]] : f64 -> tensor<2x4xf64>
// CHECK-NEXT: {{^ *}}return
tile.func @element_types(%a: i1, %b: i8, %c: i16, %d: i32, %e: i64, %f: f8E4M3FN, %g: f8E5M2, %h: f16, %i: bf16, %j: f32, %k: f64) {
  %0 = tile.splat %a : i1 -> tensor<8xi1>
  %1 = tile.splat %b : i8 -> tensor<8xi8>
  %2 = tile.splat %c : i16 -> tensor<8xi16>
  %3 = tile.splat %d : i32 -> tensor<8xi32>
  %4 = tile.splat %e : i64 -> tensor<8xi64>
  %5 = tile.splat %f : f8E4M3FN -> tensor<8xf8E4M3FN>
  %6 = tile.splat %g : f8E5M2 -> tensor<8xf8E5M2>
  %7 = tile.splat %h : f16 -> tensor<8xf16>
  %8 = tile.splat %i : bf16 -> tensor<8xbf16>
  %9 = tile.splat %j : f32 -> tensor<8xf32>
  %10 = tile.splat %k : f64 -> tensor<2x4xf64>
  tile.return
}

// Pointers to every element type, address spaces (1, the default, is not
// printed), pointers to pointers, block pointers and tensor descriptors.
// CHECK-LABEL: tile.func @pointer_types(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: !tile.ptr<i1>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: !tile.ptr<i8>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: !tile.ptr<i16>,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: !tile.ptr<i32>,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: !tile.ptr<i64>,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: !tile.ptr<f8E4M3FN>,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: !tile.ptr<f8E5M2>,
// CHECK-SAME:  %[[ARG7:[^ :,)]+]]: !tile.ptr<f16>,
// CHECK-SAME:  %[[ARG8:[^ :,)]+]]: !tile.ptr<bf16>,
// CHECK-SAME:  %[[ARG9:[^ :,)]+]]: !tile.ptr<f32>,
// CHECK-SAME:  %[[ARG10:[^ :,)]+]]: !tile.ptr<f64>,
// CHECK-SAME:  %[[ARG11:[^ :,)]+]]: !tile.ptr<f16, 3>,
// CHECK-SAME:  %[[ARG12:[^ :,)]+]]: !tile.ptr<f32, 0>,
// CHECK-SAME:  %[[ARG13:[^ :,)]+]]: !tile.ptr<f32>,
// CHECK-SAME:  %[[ARG14:[^ :,)]+]]: !tile.ptr<!tile.ptr<f32>>,
// CHECK-SAME:  %[[ARG15:[^ :,)]+]]: !tile.ptr<tensor<64x32xf16>>,
// CHECK-SAME:  %[[ARG16:[^ :,)]+]]: !tile.ptr<tensor<16x16xi8>, 3>,
// CHECK-SAME:  %[[ARG17:[^ :,)]+]]: !tile.tensordesc<tensor<64x64xf16>>,
// CHECK-SAME:  %[[ARG18:[^ :,)]+]]: tensor<4x!tile.ptr<f16, 3>>) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = splat %[[ARG11]] : !tile.ptr<f16, 3> -> tensor<4x!tile.ptr<f16, 3>>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = splat %[[ARG14]] : !tile.ptr<!tile.ptr<f32>> -> tensor<4x!tile.ptr<!tile.ptr<f32>>>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = load %[[V1]] : tensor<4x!tile.ptr<!tile.ptr<f32>>>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = load %[[ARG18]] : tensor<4x!tile.ptr<f16, 3>>
// CHECK-NEXT: {{^ *}}return
tile.func @pointer_types(%p0: !tile.ptr<i1>, %p1: !tile.ptr<i8>, %p2: !tile.ptr<i16>, %p3: !tile.ptr<i32>, %p4: !tile.ptr<i64>,
                         %p5: !tile.ptr<f8E4M3FN>, %p6: !tile.ptr<f8E5M2>, %p7: !tile.ptr<f16>, %p8: !tile.ptr<bf16>, %p9: !tile.ptr<f32>, %p10: !tile.ptr<f64>,
                         %shared: !tile.ptr<f16, 3>, %generic: !tile.ptr<f32, 0>, %global: !tile.ptr<f32, 1>, %pp: !tile.ptr<!tile.ptr<f32>>,
                         %bp: !tile.ptr<tensor<64x32xf16>>, %bp3: !tile.ptr<tensor<16x16xi8>, 3>, %desc: !tile.tensordesc<tensor<64x64xf16>>,
                         %ptrs: tensor<4x!tile.ptr<f16, 3>>) {
  %0 = tile.splat %shared : !tile.ptr<f16, 3> -> tensor<4x!tile.ptr<f16, 3>>
  %1 = tile.splat %pp : !tile.ptr<!tile.ptr<f32>> -> tensor<4x!tile.ptr<!tile.ptr<f32>>>
  %2 = tile.load %1 : tensor<4x!tile.ptr<!tile.ptr<f32>>>
  %3 = tile.load %ptrs : tensor<4x!tile.ptr<f16, 3>>
  tile.return
}

// Grid queries on all three axes and ranges.
// CHECK-LABEL: tile.func @program_ids(
// CHECK-SAME:  ) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = program_id 0 : i32
// CHECK-NEXT: %[[V1:[^ :,)]+]] = program_id 1 : i32
// CHECK-NEXT: %[[V2:[^ :,)]+]] = program_id 2 : i32
// CHECK-NEXT: %[[V3:[^ :,)]+]] = num_programs 0 : i32
// CHECK-NEXT: %[[V4:[^ :,)]+]] = num_programs 1 : i32
// CHECK-NEXT: %[[V5:[^ :,)]+]] = num_programs 2 : i32
// CHECK-NEXT: %[[V6:[^ :,)]+]] = make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
// CHECK-NEXT: %[[V7:[^ :,)]+]] = make_range {end = 48 : i32, start = 16 : i32} : tensor<32xi32>
// CHECK-NEXT: {{^ *}}return
tile.func @program_ids() {
  %0 = tile.program_id 0 : i32
  %1 = tile.program_id 1 : i32
  %2 = tile.program_id 2 : i32
  %3 = tile.num_programs 0 : i32
  %4 = tile.num_programs 1 : i32
  %5 = tile.num_programs 2 : i32
  %6 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %7 = tile.make_range {start = 16 : i32, end = 48 : i32} : tensor<32xi32>
  tile.return
}

// Shape manipulation.
// CHECK-LABEL: tile.func @shapes(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: f32,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: tensor<1x128xf32>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: tensor<128xf32>,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: tensor<16x8xf32>,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: tensor<2x4x8xf16>,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: tensor<64x2xf32>,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: tensor<32x4xi32>,
// CHECK-SAME:  %[[ARG7:[^ :,)]+]]: tensor<16x4xi32>,
// CHECK-SAME:  %[[ARG8:[^ :,)]+]]: tensor<32xi32>,
// CHECK-SAME:  %[[ARG9:[^ :,)]+]]: tensor<64xf32>,
// CHECK-SAME:  %[[ARG10:[^ :,)]+]]: tensor<8x16xi64>,
// CHECK-SAME:  %[[ARG11:[^ :,)]+]]: tensor<8x4xbf16>) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = splat %[[ARG0]] : f32 -> tensor<16x8xf32>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = broadcast %[[ARG1]] : tensor<1x128xf32> -> tensor<64x128xf32>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = expand_dims %[[ARG2]] {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = expand_dims %[[ARG2]] {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
// CHECK-NEXT: %[[V4:[^ :,)]+]] = reshape %[[ARG3]] : tensor<16x8xf32> -> tensor<128xf32>
// CHECK-NEXT: %[[V5:[^ :,)]+]] = reshape %[[ARG3]] allow_reorder : tensor<16x8xf32> -> tensor<4x32xf32>
// CHECK-NEXT: %[[V6:[^ :,)]+]] = trans %[[ARG3]] {order = array<i32: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[V7:[^ :,)]+]] = trans %[[ARG4]] {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf16> -> tensor<8x2x4xf16>
// CHECK-NEXT: %[[V8:[^ :,)]+]] = join %[[ARG2]], %[[ARG2]] : tensor<128xf32> -> tensor<128x2xf32>
// CHECK-NEXT: %[[OUTLHS:[^ :,)]+]], %[[OUTRHS:[^ :,)]+]] = split %[[ARG5]] : tensor<64x2xf32>
// CHECK-NEXT: %[[V9:[^ :,)]+]] = cat %[[ARG6]], %[[ARG7]] : tensor<32x4xi32>, tensor<16x4xi32> -> tensor<48x4xi32>
// CHECK-NEXT: %[[V10:[^ :,)]+]] = gather %[[ARG9]][%[[ARG8]]] {axis = 0 : i32} : (tensor<64xf32>, tensor<32xi32>) -> tensor<32xf32>
// CHECK-NEXT: %[[V11:[^ :,)]+]] = gather %[[ARG11]][%[[ARG10]]] {axis = 1 : i32} : (tensor<8x4xbf16>, tensor<8x16xi64>) -> tensor<8x16xbf16>
// CHECK-NEXT: {{^ *}}return
tile.func @shapes(%x: f32, %row: tensor<1x128xf32>, %v: tensor<128xf32>, %m: tensor<16x8xf32>, %t3: tensor<2x4x8xf16>, %pair: tensor<64x2xf32>, %a: tensor<32x4xi32>, %b: tensor<16x4xi32>, %idx: tensor<32xi32>, %src: tensor<64xf32>, %idx2: tensor<8x16xi64>, %src2: tensor<8x4xbf16>) {
  %0 = tile.splat %x : f32 -> tensor<16x8xf32>
  %1 = tile.broadcast %row : tensor<1x128xf32> -> tensor<64x128xf32>
  %2 = tile.expand_dims %v {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
  %3 = tile.expand_dims %v {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  %4 = tile.reshape %m : tensor<16x8xf32> -> tensor<128xf32>
  %5 = tile.reshape %m allow_reorder : tensor<16x8xf32> -> tensor<4x32xf32>
  %6 = tile.trans %m {order = array<i32: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %7 = tile.trans %t3 {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf16> -> tensor<8x2x4xf16>
  %8 = tile.join %v, %v : tensor<128xf32> -> tensor<128x2xf32>
  %9, %10 = tile.split %pair : tensor<64x2xf32>
  %11 = tile.cat %a, %b : tensor<32x4xi32>, tensor<16x4xi32> -> tensor<48x4xi32>
  %12 = tile.gather %src[%idx] {axis = 0 : i32} : (tensor<64xf32>, tensor<32xi32>) -> tensor<32xf32>
  %13 = tile.gather %src2[%idx2] {axis = 1 : i32} : (tensor<8x4xbf16>, tensor<8x16xi64>) -> tensor<8x16xbf16>
  tile.return
}

// Pointer arithmetic (scalar and tensor, i32 and i64 offsets) and
// pointer/integer conversions.
// CHECK-LABEL: tile.func @pointers(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: !tile.ptr<f32>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: !tile.ptr<f16, 3>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: i32,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: i64,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: tensor<128xi32>,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: tensor<128xi64>,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: tensor<128xi64>) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = addptr %[[ARG0]], %[[ARG2]] : !tile.ptr<f32>, i32
// CHECK-NEXT: %[[V1:[^ :,)]+]] = addptr %[[ARG1]], %[[ARG3]] : !tile.ptr<f16, 3>, i64
// CHECK-NEXT: %[[V2:[^ :,)]+]] = splat %[[ARG0]] : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = addptr %[[V2]], %[[ARG4]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
// CHECK-NEXT: %[[V4:[^ :,)]+]] = addptr %[[V3]], %[[ARG5]] : tensor<128x!tile.ptr<f32>>, tensor<128xi64>
// CHECK-NEXT: %[[V5:[^ :,)]+]] = ptr_to_int %[[ARG0]] : !tile.ptr<f32> -> i64
// CHECK-NEXT: %[[V6:[^ :,)]+]] = int_to_ptr %[[V5]] : i64 -> !tile.ptr<f32>
// CHECK-NEXT: %[[V7:[^ :,)]+]] = ptr_to_int %[[V4]] : tensor<128x!tile.ptr<f32>> -> tensor<128xi64>
// CHECK-NEXT: %[[V8:[^ :,)]+]] = int_to_ptr %[[ARG6]] : tensor<128xi64> -> tensor<128x!tile.ptr<i8>>
// CHECK-NEXT: {{^ *}}return
tile.func @pointers(%p: !tile.ptr<f32>, %q: !tile.ptr<f16, 3>, %off: i32, %off64: i64, %offs: tensor<128xi32>, %offs64: tensor<128xi64>, %ints: tensor<128xi64>) {
  %0 = tile.addptr %p, %off : !tile.ptr<f32>, i32
  %1 = tile.addptr %q, %off64 : !tile.ptr<f16, 3>, i64
  %2 = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %3 = tile.addptr %2, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %4 = tile.addptr %3, %offs64 : tensor<128x!tile.ptr<f32>>, tensor<128xi64>
  %5 = tile.ptr_to_int %p : !tile.ptr<f32> -> i64
  %6 = tile.int_to_ptr %5 : i64 -> !tile.ptr<f32>
  %7 = tile.ptr_to_int %4 : tensor<128x!tile.ptr<f32>> -> tensor<128xi64>
  %8 = tile.int_to_ptr %ints : tensor<128xi64> -> tensor<128x!tile.ptr<i8>>
  tile.return
}

// Every form of tile.load. Default cache/evict values are not printed.
// CHECK-LABEL: tile.func @loads(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: !tile.ptr<f32>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: tensor<128x!tile.ptr<f32>>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: tensor<128xi1>,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: tensor<128xf32>,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: i1,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: f32,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: !tile.ptr<tensor<64x32xf16>>) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = load %[[ARG1]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = load %[[ARG1]], %[[ARG2]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = load %[[ARG1]], %[[ARG2]], %[[ARG3]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = load %[[ARG0]] : !tile.ptr<f32>
// CHECK-NEXT: %[[V4:[^ :,)]+]] = load %[[ARG0]], %[[ARG4]], %[[ARG5]] : !tile.ptr<f32>
// CHECK-NEXT: %[[V5:[^ :,)]+]] = load %[[ARG6]] : !tile.ptr<tensor<64x32xf16>>
// CHECK-NEXT: %[[V6:[^ :,)]+]] = load %[[ARG6]] {boundary_check = array<i32: 0, 1>, padding = #tile<padding zero>} : !tile.ptr<tensor<64x32xf16>>
// CHECK-NEXT: %[[V7:[^ :,)]+]] = load %[[ARG6]] {boundary_check = array<i32: 1>, padding = #tile<padding nan>} : !tile.ptr<tensor<64x32xf16>>
// CHECK-NEXT: %[[V8:[^ :,)]+]] = load %[[ARG1]], %[[ARG2]] {cache = #tile<cache ca>, evict = #tile<evict evict_last>, is_volatile} : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[V9:[^ :,)]+]] = load %[[ARG1]] {cache = #tile<cache cg>, evict = #tile<evict evict_first>} : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[V10:[^ :,)]+]] = load %[[ARG1]] {cache = #tile<cache cv>} : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[V11:[^ :,)]+]] = load %[[ARG1]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: {{^ *}}return
tile.func @loads(%p: !tile.ptr<f32>, %ps: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>, %sm: i1, %so: f32, %bp: !tile.ptr<tensor<64x32xf16>>) {
  %0 = tile.load %ps : tensor<128x!tile.ptr<f32>>
  %1 = tile.load %ps, %m : tensor<128x!tile.ptr<f32>>
  %2 = tile.load %ps, %m, %o : tensor<128x!tile.ptr<f32>>
  %3 = tile.load %p : !tile.ptr<f32>
  %4 = tile.load %p, %sm, %so : !tile.ptr<f32>
  %5 = tile.load %bp : !tile.ptr<tensor<64x32xf16>>
  %6 = tile.load %bp {boundary_check = array<i32: 0, 1>, padding = #tile<padding zero>} : !tile.ptr<tensor<64x32xf16>>
  %7 = tile.load %bp {boundary_check = array<i32: 1>, padding = #tile<padding nan>} : !tile.ptr<tensor<64x32xf16>>
  %8 = tile.load %ps, %m {cache = #tile<cache ca>, evict = #tile<evict evict_last>, is_volatile} : tensor<128x!tile.ptr<f32>>
  %9 = tile.load %ps {cache = #tile<cache cg>, evict = #tile<evict evict_first>} : tensor<128x!tile.ptr<f32>>
  %10 = tile.load %ps {cache = #tile<cache cv>} : tensor<128x!tile.ptr<f32>>
  %11 = tile.load %ps {cache = #tile<cache none>, evict = #tile<evict normal>} : tensor<128x!tile.ptr<f32>>
  tile.return
}

// Every form of tile.store.
// CHECK-LABEL: tile.func @stores(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: !tile.ptr<f32>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: tensor<128x!tile.ptr<f32>>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: tensor<128xf32>,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: tensor<128xi1>,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: f32,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: i1,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: !tile.ptr<tensor<64x32xf16>>,
// CHECK-SAME:  %[[ARG7:[^ :,)]+]]: tensor<64x32xf16>) {
// CHECK-NEXT: {{^ *}}store %[[ARG1]], %[[ARG2]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: {{^ *}}store %[[ARG1]], %[[ARG2]], %[[ARG3]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: {{^ *}}store %[[ARG0]], %[[ARG4]] : !tile.ptr<f32>
// CHECK-NEXT: {{^ *}}store %[[ARG0]], %[[ARG4]], %[[ARG5]] : !tile.ptr<f32>
// CHECK-NEXT: {{^ *}}store %[[ARG6]], %[[ARG7]] : !tile.ptr<tensor<64x32xf16>>
// CHECK-NEXT: {{^ *}}store %[[ARG6]], %[[ARG7]] {boundary_check = array<i32: 0, 1>} : !tile.ptr<tensor<64x32xf16>>
// CHECK-NEXT: {{^ *}}store %[[ARG1]], %[[ARG2]], %[[ARG3]] {cache = #tile<cache wb>, evict = #tile<evict evict_first>} : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: {{^ *}}store %[[ARG1]], %[[ARG2]] {cache = #tile<cache cs>} : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: {{^ *}}store %[[ARG1]], %[[ARG2]] {cache = #tile<cache wt>} : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: {{^ *}}return
tile.func @stores(%p: !tile.ptr<f32>, %ps: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128xi1>, %s: f32, %sm: i1, %bp: !tile.ptr<tensor<64x32xf16>>, %blk: tensor<64x32xf16>) {
  tile.store %ps, %v : tensor<128x!tile.ptr<f32>>
  tile.store %ps, %v, %m : tensor<128x!tile.ptr<f32>>
  tile.store %p, %s : !tile.ptr<f32>
  tile.store %p, %s, %sm : !tile.ptr<f32>
  tile.store %bp, %blk : !tile.ptr<tensor<64x32xf16>>
  tile.store %bp, %blk {boundary_check = array<i32: 0, 1>} : !tile.ptr<tensor<64x32xf16>>
  tile.store %ps, %v, %m {cache = #tile<cache wb>, evict = #tile<evict evict_first>} : tensor<128x!tile.ptr<f32>>
  tile.store %ps, %v {cache = #tile<cache cs>} : tensor<128x!tile.ptr<f32>>
  tile.store %ps, %v {cache = #tile<cache wt>} : tensor<128x!tile.ptr<f32>>
  tile.return
}

// Each read-modify-write kind, every memory semantic and scope, with and
// without a mask, and compare-and-swap.
// CHECK-LABEL: tile.func @atomics(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: tensor<64x!tile.ptr<i32>>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: tensor<64xi32>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: tensor<64x!tile.ptr<f32>>,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: tensor<64xf32>,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: tensor<64xi1>,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: !tile.ptr<i64>,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: i64,
// CHECK-SAME:  %[[ARG7:[^ :,)]+]]: i1,
// CHECK-SAME:  %[[ARG8:[^ :,)]+]]: !tile.ptr<f16>,
// CHECK-SAME:  %[[ARG9:[^ :,)]+]]: f16,
// CHECK-SAME:  %[[ARG10:[^ :,)]+]]: !tile.ptr<!tile.ptr<f32>>,
// CHECK-SAME:  %[[ARG11:[^ :,)]+]]: !tile.ptr<f32>,
// CHECK-SAME:  %[[ARG12:[^ :,)]+]]: !tile.ptr<i8>,
// CHECK-SAME:  %[[ARG13:[^ :,)]+]]: i8) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = atomic_rmw  add,  relaxed,  gpu, %[[ARG0]], %[[ARG1]], %[[ARG4]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = atomic_rmw  fadd,  acq_rel,  gpu, %[[ARG2]], %[[ARG3]], %[[ARG4]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = atomic_rmw  and,  acquire,  cta, %[[ARG0]], %[[ARG1]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = atomic_rmw  or,  release,  sys, %[[ARG0]], %[[ARG1]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %[[V4:[^ :,)]+]] = atomic_rmw  xor,  acq_rel,  gpu, %[[ARG5]], %[[ARG6]], %[[ARG7]] : !tile.ptr<i64>
// CHECK-NEXT: %[[V5:[^ :,)]+]] = atomic_rmw  max,  acq_rel,  gpu, %[[ARG0]], %[[ARG1]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %[[V6:[^ :,)]+]] = atomic_rmw  max,  acq_rel,  gpu, %[[ARG2]], %[[ARG3]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[V7:[^ :,)]+]] = atomic_rmw  min,  acq_rel,  gpu, %[[ARG0]], %[[ARG1]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %[[V8:[^ :,)]+]] = atomic_rmw  min,  acq_rel,  gpu, %[[ARG8]], %[[ARG9]] : !tile.ptr<f16>
// CHECK-NEXT: %[[V9:[^ :,)]+]] = atomic_rmw  umax,  acq_rel,  gpu, %[[ARG0]], %[[ARG1]], %[[ARG4]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %[[V10:[^ :,)]+]] = atomic_rmw  umin,  relaxed,  cta, %[[ARG12]], %[[ARG13]] : !tile.ptr<i8>
// CHECK-NEXT: %[[V11:[^ :,)]+]] = atomic_rmw  xchg,  acq_rel,  sys, %[[ARG2]], %[[ARG3]], %[[ARG4]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[V12:[^ :,)]+]] = atomic_rmw  xchg,  relaxed,  gpu, %[[ARG10]], %[[ARG11]] : !tile.ptr<!tile.ptr<f32>>
// CHECK-NEXT: %[[V13:[^ :,)]+]] = atomic_rmw  fadd,  relaxed,  gpu, %[[ARG8]], %[[ARG9]] : !tile.ptr<f16>
// CHECK-NEXT: %[[V14:[^ :,)]+]] = atomic_cas  acq_rel,  gpu, %[[ARG5]], %[[ARG6]], %[[ARG6]] : !tile.ptr<i64>
// CHECK-NEXT: %[[V15:[^ :,)]+]] = atomic_cas  relaxed,  cta, %[[ARG2]], %[[ARG3]], %[[ARG3]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[V16:[^ :,)]+]] = atomic_cas  acquire,  sys, %[[ARG8]], %[[ARG9]], %[[ARG9]] : !tile.ptr<f16>
// CHECK-NEXT: {{^ *}}return
tile.func @atomics(%pi: tensor<64x!tile.ptr<i32>>, %vi: tensor<64xi32>, %pf: tensor<64x!tile.ptr<f32>>, %vf: tensor<64xf32>, %m: tensor<64xi1>, %ps: !tile.ptr<i64>, %s: i64, %sm: i1, %ph: !tile.ptr<f16>, %h: f16, %pp: !tile.ptr<!tile.ptr<f32>>, %ptr: !tile.ptr<f32>, %p8: !tile.ptr<i8>, %b: i8) {
  %0 = tile.atomic_rmw add, relaxed, gpu, %pi, %vi, %m : tensor<64x!tile.ptr<i32>>
  %1 = tile.atomic_rmw fadd, acq_rel, gpu, %pf, %vf, %m : tensor<64x!tile.ptr<f32>>
  %2 = tile.atomic_rmw and, acquire, cta, %pi, %vi : tensor<64x!tile.ptr<i32>>
  %3 = tile.atomic_rmw or, release, sys, %pi, %vi : tensor<64x!tile.ptr<i32>>
  %4 = tile.atomic_rmw xor, acq_rel, gpu, %ps, %s, %sm : !tile.ptr<i64>
  %5 = tile.atomic_rmw max, acq_rel, gpu, %pi, %vi : tensor<64x!tile.ptr<i32>>
  %6 = tile.atomic_rmw max, acq_rel, gpu, %pf, %vf : tensor<64x!tile.ptr<f32>>
  %7 = tile.atomic_rmw min, acq_rel, gpu, %pi, %vi : tensor<64x!tile.ptr<i32>>
  %8 = tile.atomic_rmw min, acq_rel, gpu, %ph, %h : !tile.ptr<f16>
  %9 = tile.atomic_rmw umax, acq_rel, gpu, %pi, %vi, %m : tensor<64x!tile.ptr<i32>>
  %10 = tile.atomic_rmw umin, relaxed, cta, %p8, %b : !tile.ptr<i8>
  %11 = tile.atomic_rmw xchg, acq_rel, sys, %pf, %vf, %m : tensor<64x!tile.ptr<f32>>
  %12 = tile.atomic_rmw xchg, relaxed, gpu, %pp, %ptr : !tile.ptr<!tile.ptr<f32>>
  %13 = tile.atomic_rmw fadd, relaxed, gpu, %ph, %h : !tile.ptr<f16>
  %14 = tile.atomic_cas acq_rel, gpu, %ps, %s, %s : !tile.ptr<i64>
  %15 = tile.atomic_cas relaxed, cta, %pf, %vf, %vf : tensor<64x!tile.ptr<f32>>
  %16 = tile.atomic_cas acquire, sys, %ph, %h, %h : !tile.ptr<f16>
  tile.return
}

// Block pointers: make_tensor_ptr, advance, load and store through them.
// CHECK-LABEL: tile.func @block_pointers(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: !tile.ptr<f16>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: i64,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: i64,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: i64,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: i64,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: i32,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: i32,
// CHECK-SAME:  %[[ARG7:[^ :,)]+]]: !tile.ptr<f32, 3>) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = make_tensor_ptr %[[ARG0]], [%[[ARG1]], %[[ARG2]]], [%[[ARG3]], %[[ARG4]]], [%[[ARG5]], %[[ARG6]]] {order = array<i32: 1, 0>} : !tile.ptr<tensor<64x32xf16>>
// CHECK-NEXT: %[[C0_I32:[^ :,)]+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[C32_I32:[^ :,)]+]] = arith.constant 32 : i32
// CHECK-NEXT: %[[V1:[^ :,)]+]] = advance %[[V0]], [%[[C0_I32]], %[[C32_I32]]] : !tile.ptr<tensor<64x32xf16>>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = load %[[V1]] {boundary_check = array<i32: 1>, padding = #tile<padding zero>} : !tile.ptr<tensor<64x32xf16>>
// CHECK-NEXT: {{^ *}}store %[[V0]], %[[V2]] {boundary_check = array<i32: 0, 1>} : !tile.ptr<tensor<64x32xf16>>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = make_tensor_ptr %[[ARG7]], [%[[ARG1]]], [%[[ARG4]]], [%[[ARG5]]] {order = array<i32: 0>} : !tile.ptr<tensor<128xf32>, 3>
// CHECK-NEXT: %[[V4:[^ :,)]+]] = advance %[[V3]], [%[[ARG6]]] : !tile.ptr<tensor<128xf32>, 3>
// CHECK-NEXT: {{^ *}}return
tile.func @block_pointers(%base: !tile.ptr<f16>, %m: i64, %k: i64, %sm: i64, %one: i64, %o0: i32, %o1: i32, %base3: !tile.ptr<f32, 3>) {
  %bp = tile.make_tensor_ptr %base, [%m, %k], [%sm, %one], [%o0, %o1] {order = array<i32: 1, 0>} : !tile.ptr<tensor<64x32xf16>>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %next = tile.advance %bp, [%c0, %c32] : !tile.ptr<tensor<64x32xf16>>
  %blk = tile.load %next {boundary_check = array<i32: 1>, padding = #tile<padding zero>} : !tile.ptr<tensor<64x32xf16>>
  tile.store %bp, %blk {boundary_check = array<i32: 0, 1>} : !tile.ptr<tensor<64x32xf16>>
  %bp1 = tile.make_tensor_ptr %base3, [%m], [%one], [%o0] {order = array<i32: 0>} : !tile.ptr<tensor<128xf32>, 3>
  %adv1 = tile.advance %bp1, [%o1] : !tile.ptr<tensor<128xf32>, 3>
  tile.return
}

// Tensor descriptors.
// CHECK-LABEL: tile.func @descriptors(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: !tile.ptr<f16>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: i32,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: i32,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: i64,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: i64,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: i32,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: i32) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = make_tensor_descriptor %[[ARG0]], [%[[ARG1]], %[[ARG2]]], [%[[ARG3]], %[[ARG4]]] : !tile.ptr<f16> -> <tensor<64x64xf16>>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = descriptor_load %[[V0]][%[[ARG5]], %[[ARG6]]] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = descriptor_load %[[V0]][%[[ARG5]], %[[ARG6]]] {cache = #tile<cache cg>, evict = #tile<evict evict_last>} : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
// CHECK-NEXT: {{^ *}}descriptor_store %[[V0]][%[[ARG6]], %[[ARG5]]], %[[V1]] : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
// CHECK-NEXT: {{^ *}}return
tile.func @descriptors(%base: !tile.ptr<f16>, %m: i32, %n: i32, %sm: i64, %one: i64, %i: i32, %j: i32) {
  %d = tile.make_tensor_descriptor %base, [%m, %n], [%sm, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  %b = tile.descriptor_load %d[%i, %j] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %c = tile.descriptor_load %d[%i, %j] {cache = #tile<cache cg>, evict = #tile<evict evict_last>} : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tile.descriptor_store %d[%j, %i], %b : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
  tile.return
}

// tile.dot: f16, bf16, f32 (ieee, tf32, tf32x3), i8 -> i32, mixed fp8,
// batched 3-D, max_num_imprecise_acc and f64.
// CHECK-LABEL: tile.func @dots(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: tensor<64x32xf16>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: tensor<32x64xf16>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: tensor<64x32xbf16>,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: tensor<32x64xbf16>,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: tensor<64x32xf32>,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: tensor<32x64xf32>,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: tensor<64x64xf32>,
// CHECK-SAME:  %[[ARG7:[^ :,)]+]]: tensor<64x64xf16>,
// CHECK-SAME:  %[[ARG8:[^ :,)]+]]: tensor<64x32xi8>,
// CHECK-SAME:  %[[ARG9:[^ :,)]+]]: tensor<32x64xi8>,
// CHECK-SAME:  %[[ARG10:[^ :,)]+]]: tensor<64x64xi32>,
// CHECK-SAME:  %[[ARG11:[^ :,)]+]]: tensor<64x32xf8E4M3FN>,
// CHECK-SAME:  %[[ARG12:[^ :,)]+]]: tensor<32x64xf8E5M2>,
// CHECK-SAME:  %[[ARG13:[^ :,)]+]]: tensor<4x16x8xf16>,
// CHECK-SAME:  %[[ARG14:[^ :,)]+]]: tensor<4x8x32xf16>,
// CHECK-SAME:  %[[ARG15:[^ :,)]+]]: tensor<4x16x32xf32>,
// CHECK-SAME:  %[[ARG16:[^ :,)]+]]: tensor<16x16xf64>,
// CHECK-SAME:  %[[ARG17:[^ :,)]+]]: tensor<16x16xf64>) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = dot %[[ARG0]], %[[ARG1]], %[[ARG6]] : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = dot %[[ARG0]], %[[ARG1]], %[[ARG7]] : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf16>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = dot %[[ARG2]], %[[ARG3]], %[[ARG6]] : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = dot %[[ARG4]], %[[ARG5]], %[[ARG6]] : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
// CHECK-NEXT: %[[V4:[^ :,)]+]] = dot %[[ARG4]], %[[ARG5]], %[[ARG6]] {input_precision = #tile<precision tf32>} : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
// CHECK-NEXT: %[[V5:[^ :,)]+]] = dot %[[ARG4]], %[[ARG5]], %[[ARG6]] {input_precision = #tile<precision tf32x3>} : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
// CHECK-NEXT: %[[V6:[^ :,)]+]] = dot %[[ARG8]], %[[ARG9]], %[[ARG10]] : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi32>
// CHECK-NEXT: %[[V7:[^ :,)]+]] = dot %[[ARG11]], %[[ARG12]], %[[ARG6]] : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
// CHECK-NEXT: %[[V8:[^ :,)]+]] = dot %[[ARG11]], %[[ARG12]], %[[ARG6]] {max_num_imprecise_acc = 32 : i32} : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
// CHECK-NEXT: %[[V9:[^ :,)]+]] = dot %[[ARG13]], %[[ARG14]], %[[ARG15]] : tensor<4x16x8xf16> * tensor<4x8x32xf16> -> tensor<4x16x32xf32>
// CHECK-NEXT: %[[V10:[^ :,)]+]] = dot %[[ARG16]], %[[ARG16]], %[[ARG17]] : tensor<16x16xf64> * tensor<16x16xf64> -> tensor<16x16xf64>
// CHECK-NEXT: {{^ *}}return
tile.func @dots(%a16: tensor<64x32xf16>, %b16: tensor<32x64xf16>, %abf: tensor<64x32xbf16>, %bbf: tensor<32x64xbf16>,
                %a32: tensor<64x32xf32>, %b32: tensor<32x64xf32>, %c32: tensor<64x64xf32>, %c16: tensor<64x64xf16>,
                %ai8: tensor<64x32xi8>, %bi8: tensor<32x64xi8>, %ci32: tensor<64x64xi32>,
                %ae4: tensor<64x32xf8E4M3FN>, %be5: tensor<32x64xf8E5M2>,
                %a3: tensor<4x16x8xf16>, %b3: tensor<4x8x32xf16>, %c3: tensor<4x16x32xf32>,
                %a64: tensor<16x16xf64>, %c64: tensor<16x16xf64>) {
  %0 = tile.dot %a16, %b16, %c32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %1 = tile.dot %a16, %b16, %c16 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf16>
  %2 = tile.dot %abf, %bbf, %c32 : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
  %3 = tile.dot %a32, %b32, %c32 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  %4 = tile.dot %a32, %b32, %c32 {input_precision = #tile<precision tf32>} : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  %5 = tile.dot %a32, %b32, %c32 {input_precision = #tile<precision tf32x3>} : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  %6 = tile.dot %ai8, %bi8, %ci32 : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi32>
  %7 = tile.dot %ae4, %be5, %c32 : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
  %8 = tile.dot %ae4, %be5, %c32 {max_num_imprecise_acc = 32 : i32} : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
  %9 = tile.dot %a3, %b3, %c3 : tensor<4x16x8xf16> * tensor<4x8x32xf16> -> tensor<4x16x32xf32>
  %10 = tile.dot %a64, %a64, %c64 : tensor<16x16xf64> * tensor<16x16xf64> -> tensor<16x16xf64>
  tile.return
}

// tile.reduce with one and two operands (argmax) and on a 2-D tensor;
// tile.scan forward and reverse. These ops print in generic form.
// CHECK-LABEL: tile.func @reductions(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: tensor<128xf32>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: tensor<128xi32>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: tensor<16x32xf16>,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: tensor<64xi32>) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = "tile.reduce"(%[[ARG0]]) <{axis = 0 : i32}> ({
// CHECK-NEXT: {{^ *}}^bb0(%[[ARG4:[^ :,)]+]]: f32, %[[ARG5:[^ :,)]+]]: f32):
// CHECK-NEXT: %[[V5:[^ :,)]+]] = arith.addf %[[ARG4]], %[[ARG5]] : f32
// CHECK-NEXT: {{^ *}}tile.reduce.return %[[V5]] : f32
// CHECK-NEXT: {{^ *}}}) : (tensor<128xf32>) -> f32
// CHECK-NEXT: %[[V1:[^ :,)]+]]:2 = "tile.reduce"(%[[ARG0]], %[[ARG1]]) <{axis = 0 : i32}> ({
// CHECK-NEXT: {{^ *}}^bb0(%[[ARG4:[^ :,)]+]]: f32, %[[ARG5:[^ :,)]+]]: i32, %[[ARG6:[^ :,)]+]]: f32, %[[ARG7:[^ :,)]+]]: i32):
// CHECK-NEXT: %[[V5:[^ :,)]+]] = arith.cmpf ogt, %[[ARG4]], %[[ARG6]] : f32
// CHECK-NEXT: %[[V6:[^ :,)]+]] = arith.select %[[V5]], %[[ARG4]], %[[ARG6]] : f32
// CHECK-NEXT: %[[V7:[^ :,)]+]] = arith.select %[[V5]], %[[ARG5]], %[[ARG7]] : i32
// CHECK-NEXT: {{^ *}}tile.reduce.return %[[V6]], %[[V7]] : f32, i32
// CHECK-NEXT: {{^ *}}}) : (tensor<128xf32>, tensor<128xi32>) -> (f32, i32)
// CHECK-NEXT: %[[V2:[^ :,)]+]] = "tile.reduce"(%[[ARG2]]) <{axis = 1 : i32}> ({
// CHECK-NEXT: {{^ *}}^bb0(%[[ARG4:[^ :,)]+]]: f16, %[[ARG5:[^ :,)]+]]: f16):
// CHECK-NEXT: %[[V5:[^ :,)]+]] = arith.maximumf %[[ARG4]], %[[ARG5]] : f16
// CHECK-NEXT: {{^ *}}tile.reduce.return %[[V5]] : f16
// CHECK-NEXT: {{^ *}}}) : (tensor<16x32xf16>) -> tensor<16xf16>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = "tile.scan"(%[[ARG3]]) <{axis = 0 : i32, reverse = true}> ({
// CHECK-NEXT: {{^ *}}^bb0(%[[ARG4:[^ :,)]+]]: i32, %[[ARG5:[^ :,)]+]]: i32):
// CHECK-NEXT: %[[V5:[^ :,)]+]] = arith.addi %[[ARG4]], %[[ARG5]] : i32
// CHECK-NEXT: {{^ *}}tile.scan.return %[[V5]] : i32
// CHECK-NEXT: {{^ *}}}) : (tensor<64xi32>) -> tensor<64xi32>
// CHECK-NEXT: %[[V4:[^ :,)]+]]:2 = "tile.scan"(%[[ARG2]], %[[ARG2]]) <{axis = 1 : i32, reverse = false}> ({
// CHECK-NEXT: {{^ *}}^bb0(%[[ARG4:[^ :,)]+]]: f16, %[[ARG5:[^ :,)]+]]: f16, %[[ARG6:[^ :,)]+]]: f16, %[[ARG7:[^ :,)]+]]: f16):
// CHECK-NEXT: %[[V5:[^ :,)]+]] = arith.mulf %[[ARG4]], %[[ARG6]] : f16
// CHECK-NEXT: %[[V6:[^ :,)]+]] = arith.addf %[[ARG5]], %[[ARG7]] : f16
// CHECK-NEXT: {{^ *}}tile.scan.return %[[V5]], %[[V6]] : f16, f16
// CHECK-NEXT: {{^ *}}}) : (tensor<16x32xf16>, tensor<16x32xf16>) -> (tensor<16x32xf16>, tensor<16x32xf16>)
// CHECK-NEXT: {{^ *}}return
tile.func @reductions(%x: tensor<128xf32>, %idx: tensor<128xi32>, %m: tensor<16x32xf16>, %n: tensor<64xi32>) {
  %sum = "tile.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.reduce.return %r : f32
  }) : (tensor<128xf32>) -> f32
  %max:2 = "tile.reduce"(%x, %idx) <{axis = 0 : i32}> ({
  ^bb0(%va: f32, %ia: i32, %vb: f32, %ib: i32):
    %gt = arith.cmpf ogt, %va, %vb : f32
    %v = arith.select %gt, %va, %vb : f32
    %i = arith.select %gt, %ia, %ib : i32
    tile.reduce.return %v, %i : f32, i32
  }) : (tensor<128xf32>, tensor<128xi32>) -> (f32, i32)
  %rows = "tile.reduce"(%m) <{axis = 1 : i32}> ({
  ^bb0(%a: f16, %b: f16):
    %r = arith.maximumf %a, %b : f16
    tile.reduce.return %r : f16
  }) : (tensor<16x32xf16>) -> tensor<16xf16>
  %cum = "tile.scan"(%n) <{axis = 0 : i32, reverse = true}> ({
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.scan.return %r : i32
  }) : (tensor<64xi32>) -> tensor<64xi32>
  %cum2:2 = "tile.scan"(%m, %m) <{axis = 1 : i32, reverse = false}> ({
  ^bb0(%a: f16, %b: f16, %c: f16, %d: f16):
    %r = arith.mulf %a, %c : f16
    %s = arith.addf %b, %d : f16
    tile.scan.return %r, %s : f16, f16
  }) : (tensor<16x32xf16>, tensor<16x32xf16>) -> (tensor<16x32xf16>, tensor<16x32xf16>)
  tile.return
}

// tile.histogram with and without a mask.
// CHECK-LABEL: tile.func @histograms(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: tensor<1024xi32>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: tensor<1024xi1>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: tensor<256xi8>) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = histogram %[[ARG0]] : tensor<1024xi32> -> tensor<64xi32>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = histogram %[[ARG0]], %[[ARG1]] : tensor<1024xi1> : tensor<1024xi32> -> tensor<64xi32>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = histogram %[[ARG2]] : tensor<256xi8> -> tensor<16xi32>
// CHECK-NEXT: {{^ *}}return
tile.func @histograms(%x: tensor<1024xi32>, %m: tensor<1024xi1>, %y: tensor<256xi8>) {
  %0 = tile.histogram %x : tensor<1024xi32> -> tensor<64xi32>
  %1 = tile.histogram %x, %m : tensor<1024xi1> : tensor<1024xi32> -> tensor<64xi32>
  %2 = tile.histogram %y : tensor<256xi8> -> tensor<16xi32>
  tile.return
}

// fp_to_fp widening (no rounding) and narrowing (rtne, rtz); bitcasts,
// including of pointers (64 bits).
// CHECK-LABEL: tile.func @conversions(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: tensor<64xf16>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: tensor<64xf32>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: tensor<64xf8E4M3FN>,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: f32,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: !tile.ptr<f32>,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: f64,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: bf16) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = fp_to_fp %[[ARG0]] : tensor<64xf16> -> tensor<64xf32>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = fp_to_fp %[[ARG2]] : tensor<64xf8E4M3FN> -> tensor<64xf16>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = fp_to_fp %[[ARG1]], rounding =  rtne : tensor<64xf32> -> tensor<64xf8E5M2>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = fp_to_fp %[[ARG1]], rounding =  rtz : tensor<64xf32> -> tensor<64xf16>
// CHECK-NEXT: %[[V4:[^ :,)]+]] = fp_to_fp %[[ARG3]], rounding =  rtne : f32 -> bf16
// CHECK-NEXT: %[[V5:[^ :,)]+]] = fp_to_fp %[[ARG0]], rounding =  rtz : tensor<64xf16> -> tensor<64xbf16>
// CHECK-NEXT: %[[V6:[^ :,)]+]] = fp_to_fp %[[ARG6]] : bf16 -> f64
// CHECK-NEXT: %[[V7:[^ :,)]+]] = bitcast %[[ARG1]] : tensor<64xf32> -> tensor<64xi32>
// CHECK-NEXT: %[[V8:[^ :,)]+]] = bitcast %[[ARG3]] : f32 -> i32
// CHECK-NEXT: %[[V9:[^ :,)]+]] = bitcast %[[ARG4]] : !tile.ptr<f32> -> i64
// CHECK-NEXT: %[[V10:[^ :,)]+]] = bitcast %[[ARG5]] : f64 -> !tile.ptr<i8>
// CHECK-NEXT: %[[V11:[^ :,)]+]] = bitcast %[[ARG2]] : tensor<64xf8E4M3FN> -> tensor<64xi8>
// CHECK-NEXT: {{^ *}}return
tile.func @conversions(%h: tensor<64xf16>, %f: tensor<64xf32>, %e4: tensor<64xf8E4M3FN>, %s: f32, %p: !tile.ptr<f32>, %d: f64, %bf: bf16) {
  %0 = tile.fp_to_fp %h : tensor<64xf16> -> tensor<64xf32>
  %1 = tile.fp_to_fp %e4 : tensor<64xf8E4M3FN> -> tensor<64xf16>
  %2 = tile.fp_to_fp %f, rounding = rtne : tensor<64xf32> -> tensor<64xf8E5M2>
  %3 = tile.fp_to_fp %f, rounding = rtz : tensor<64xf32> -> tensor<64xf16>
  %4 = tile.fp_to_fp %s, rounding = rtne : f32 -> bf16
  %5 = tile.fp_to_fp %h, rounding = rtz : tensor<64xf16> -> tensor<64xbf16>
  %6 = tile.fp_to_fp %bf : bf16 -> f64
  %7 = tile.bitcast %f : tensor<64xf32> -> tensor<64xi32>
  %8 = tile.bitcast %s : f32 -> i32
  %9 = tile.bitcast %p : !tile.ptr<f32> -> i64
  %10 = tile.bitcast %d : f64 -> !tile.ptr<i8>
  %11 = tile.bitcast %e4 : tensor<64xf8E4M3FN> -> tensor<64xi8>
  tile.return
}

// Precise math, umulhi, clampf, external functions and inline assembly.
// CHECK-LABEL: tile.func @math(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: tensor<64xf32>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: tensor<64xf32>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: f64,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: tensor<64xi32>,
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: tensor<64xi32>,
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: i64,
// CHECK-SAME:  %[[ARG6:[^ :,)]+]]: tensor<64xf32>,
// CHECK-SAME:  %[[ARG7:[^ :,)]+]]: tensor<64xf32>) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = precise_sqrt %[[ARG0]] : tensor<64xf32>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = precise_sqrt %[[ARG2]] : f64
// CHECK-NEXT: %[[V2:[^ :,)]+]] = precise_divf %[[ARG0]], %[[ARG1]] : tensor<64xf32>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = umulhi %[[ARG3]], %[[ARG4]] : tensor<64xi32>
// CHECK-NEXT: %[[V4:[^ :,)]+]] = umulhi %[[ARG5]], %[[ARG5]] : i64
// CHECK-NEXT: %[[V5:[^ :,)]+]] = clampf %[[ARG0]], %[[ARG6]], %[[ARG7]], propagate_nan =  all : tensor<64xf32>
// CHECK-NEXT: %[[V6:[^ :,)]+]] = clampf %[[ARG0]], %[[ARG6]], %[[ARG7]], propagate_nan =  none : tensor<64xf32>
// CHECK-NEXT: %[[V7:[^ :,)]+]] = extern_elementwise %[[ARG0]] {libname = "libdevice", libpath = "", pure = true, symbol = "__nv_erff"} : (tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %[[V8:[^ :,)]+]] = extern_elementwise %[[ARG0]], %[[ARG1]] {libname = "libm", libpath = "/lib/libm.so", pure = false, symbol = "powf"} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %[[V9:[^ :,)]+]] = elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, $3;" {constraints = "=r,r,r,r", packed_element = 1 : i32, pure = true} %[[ARG3]], %[[ARG4]], %[[ARG3]] : tensor<64xi32>, tensor<64xi32>, tensor<64xi32> -> tensor<64xi32>
// CHECK-NEXT: %[[V10:[^ :,)]+]]:2 = elementwise_inline_asm "mov.b32 $0, $2; mov.b32 $1, $2;" {constraints = "=r,=r,r", packed_element = 2 : i32, pure = false} %[[ARG3]] : tensor<64xi32> -> tensor<64xi32>, tensor<64xi32>
// CHECK-NEXT: {{^ *}}return
tile.func @math(%x: tensor<64xf32>, %y: tensor<64xf32>, %s: f64, %a: tensor<64xi32>, %b: tensor<64xi32>, %c: i64, %lo: tensor<64xf32>, %hi: tensor<64xf32>) {
  %0 = tile.precise_sqrt %x : tensor<64xf32>
  %1 = tile.precise_sqrt %s : f64
  %2 = tile.precise_divf %x, %y : tensor<64xf32>
  %3 = tile.umulhi %a, %b : tensor<64xi32>
  %4 = tile.umulhi %c, %c : i64
  %5 = tile.clampf %x, %lo, %hi, propagate_nan = all : tensor<64xf32>
  %6 = tile.clampf %x, %lo, %hi, propagate_nan = none : tensor<64xf32>
  %7 = tile.extern_elementwise %x {libname = "libdevice", libpath = "", symbol = "__nv_erff", pure = true} : (tensor<64xf32>) -> tensor<64xf32>
  %8 = tile.extern_elementwise %x, %y {libname = "libm", libpath = "/lib/libm.so", symbol = "powf", pure = false} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %9 = tile.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, $3;" {constraints = "=r,r,r,r", packed_element = 1 : i32, pure = true} %a, %b, %a : tensor<64xi32>, tensor<64xi32>, tensor<64xi32> -> tensor<64xi32>
  %10:2 = tile.elementwise_inline_asm "mov.b32 $0, $2; mov.b32 $1, $2;" {constraints = "=r,=r,r", packed_element = 2 : i32, pure = false} %a : tensor<64xi32> -> tensor<64xi32>, tensor<64xi32>
  tile.return
}

// Debugging ops.
// CHECK-LABEL: tile.func @debug(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: tensor<64xi32>,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: tensor<64xf32>,
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: tensor<64xi1>,
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: i1) {
// CHECK-NEXT: {{^ *}}print " x: " {hex = false, is_signed = array<i32: 1>} : %[[ARG0]] : tensor<64xi32>
// CHECK-NEXT: {{^ *}}print "xy" {hex = true, is_signed = array<i32: 0, 1>} : %[[ARG0]], %[[ARG1]] : tensor<64xi32>, tensor<64xf32>
// CHECK-NEXT: {{^ *}}print "hello" {hex = false, is_signed = array<i32>}
// CHECK-NEXT: {{^ *}}assert %[[ARG2]], "index out of range" : tensor<64xi1>
// CHECK-NEXT: {{^ *}}assert %[[ARG3]], "scalar" : i1
// CHECK-NEXT: {{^ *}}debug_barrier
// CHECK-NEXT: {{^ *}}return
tile.func @debug(%x: tensor<64xi32>, %y: tensor<64xf32>, %ok: tensor<64xi1>, %sok: i1) {
  tile.print " x: " {hex = false, is_signed = array<i32: 1>} : %x : tensor<64xi32>
  tile.print "xy" {hex = true, is_signed = array<i32: 0, 1>} : %x, %y : tensor<64xi32>, tensor<64xf32>
  tile.print "hello" {hex = false, is_signed = array<i32>}
  tile.assert %ok, "index out of range" : tensor<64xi1>
  tile.assert %sok, "scalar" : i1
  tile.debug_barrier
  tile.return
}

// A private helper (inlinable).
// CHECK-LABEL: tile.func private @helper(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: f32,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: f32) -> f32 {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = arith.addf %[[ARG0]], %[[ARG1]] : f32
// CHECK-NEXT: {{^ *}}return %[[V0]] : f32
tile.func private @helper(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  tile.return %0 : f32
}

// A noinline helper with two results.
// CHECK-LABEL: tile.func private @pair(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: tensor<8xi32>) -> (tensor<8xi32>, i32) attributes {noinline} {
// CHECK-NEXT: %[[C1_I32:[^ :,)]+]] = arith.constant 1 : i32
// CHECK-NEXT: {{^ *}}return %[[ARG0]], %[[C1_I32]] : tensor<8xi32>, i32
tile.func private @pair(%a: tensor<8xi32>) -> (tensor<8xi32>, i32) attributes {noinline} {
  %c = arith.constant 1 : i32
  tile.return %a, %c : tensor<8xi32>, i32
}

// A helper without arguments or results.
// CHECK-LABEL: tile.func private @nothing(
// CHECK-SAME:  ) {
// CHECK-NEXT: {{^ *}}return
tile.func private @nothing() {
  tile.return
}

// An external declaration.
// CHECK-LABEL: tile.func private @declared(
// CHECK-SAME:  f32) -> f32
tile.func private @declared(f32) -> f32

// A kernel with every argument attribute (scalar and per-dimension array
// forms), calls of each helper and value-info attributes on op results.
// CHECK-LABEL: tile.func @kernel(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: !tile.ptr<f32> {tile.divisibility = 16 : i64, tile.nonnull},
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: i32 {tile.divisibility = 8 : i64},
// CHECK-SAME:  %[[ARG2:[^ :,)]+]]: i64 {tile.divisibility = 1 : i64},
// CHECK-SAME:  %[[ARG3:[^ :,)]+]]: tensor<8xi32> {tile.constancy = 1 : i64, tile.contiguity = 8 : i64},
// CHECK-SAME:  %[[ARG4:[^ :,)]+]]: tensor<8x8x!tile.ptr<f32>> {tile.constancy = array<i64: 8, 1>, tile.contiguity = array<i64: 1, 8>, tile.divisibility = array<i64: 16, 16>, tile.nonnull},
// CHECK-SAME:  %[[ARG5:[^ :,)]+]]: f32) {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = call @helper(%[[ARG5]], %[[ARG5]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[V1:[^ :,)]+]]:2 = call @pair(%[[ARG3]]) : (tensor<8xi32>) -> (tensor<8xi32>, i32)
// CHECK-NEXT: {{^ *}}call @nothing() : () -> ()
// CHECK-NEXT: %[[V2:[^ :,)]+]] = call @declared(%[[V0]]) : (f32) -> f32
// CHECK-NEXT: %[[V3:[^ :,)]+]] = arith.muli %[[ARG1]], %[[ARG1]] {tile.divisibility = 64 : i64} : i32
// CHECK-NEXT: %[[V4:[^ :,)]+]] = addptr %[[ARG0]], %[[ARG1]] {tile.nonnull} : !tile.ptr<f32>, i32
// CHECK-NEXT: {{^ *}}return
tile.func @kernel(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64, tile.nonnull},
                  %n: i32 {tile.divisibility = 8 : i64},
                  %k: i64 {tile.divisibility = 1 : i64},
                  %offs: tensor<8xi32> {tile.contiguity = 8 : i64, tile.constancy = 1 : i64},
                  %ptrs: tensor<8x8x!tile.ptr<f32>> {tile.contiguity = array<i64: 1, 8>, tile.constancy = array<i64: 8, 1>, tile.divisibility = array<i64: 16, 16>, tile.nonnull},
                  %x: f32) {
  %0 = tile.call @helper(%x, %x) : (f32, f32) -> f32
  %1:2 = tile.call @pair(%offs) : (tensor<8xi32>) -> (tensor<8xi32>, i32)
  tile.call @nothing() : () -> ()
  %2 = tile.call @declared(%0) : (f32) -> f32
  %3 = arith.muli %n, %n {tile.divisibility = 64 : i64} : i32
  %4 = tile.addptr %p, %n {tile.nonnull} : !tile.ptr<f32>, i32
  tile.return
}

// Outside a tile.func the ops print with the tile. prefix.
// CHECK-LABEL: func.func @outside_tile_func(
// CHECK-SAME:  %[[ARG0:[^ :,)]+]]: f32,
// CHECK-SAME:  %[[ARG1:[^ :,)]+]]: !tile.ptr<f32>) -> tensor<4xf32> {
// CHECK-NEXT: %[[V0:[^ :,)]+]] = tile.splat %[[ARG0]] : f32 -> tensor<4xf32>
// CHECK-NEXT: %[[V1:[^ :,)]+]] = tile.load %[[ARG1]] : !tile.ptr<f32>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = tile.program_id 1 : i32
// CHECK-NEXT: {{^ *}}return %[[V0]] : tensor<4xf32>
func.func @outside_tile_func(%x: f32, %p: !tile.ptr<f32>) -> tensor<4xf32> {
  %0 = tile.splat %x : f32 -> tensor<4xf32>
  %1 = tile.load %p : !tile.ptr<f32>
  %2 = tile.program_id 1 : i32
  return %0 : tensor<4xf32>
}
