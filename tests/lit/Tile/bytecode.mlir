// The tile dialect in MLIR bytecode (TileBytecode.cpp).
//
// 1. Writing bytecode and reading it back gives the same IR: its generic
//    form (which shows every inherent attribute, including defaults the
//    custom form hides) equals that of the input, and is pinned below.
// RUN: tegula-opt %s --emit-bytecode | tegula-opt --mlir-print-op-generic | FileCheck %s
// RUN: tegula-opt %s --mlir-print-op-generic > %t.generic
// RUN: tegula-opt %s --emit-bytecode | tegula-opt --mlir-print-op-generic > %t.roundtrip
// RUN: diff %t.generic %t.roundtrip
//
// 2. The writer records tile dialect version 1.0. Inputs/tile_bytecode_version.py
//    reads the version from the bytecode and rewrites it; rewriting it to 1.0
//    again must leave a readable file (a check of the tool itself).
// RUN: tegula-opt %s --emit-bytecode -o %t.mlirbc
// RUN: %python %S/Inputs/tile_bytecode_version.py %t.mlirbc | FileCheck %s --check-prefix=VERSION
// VERSION: tile dialect version 1.0
// RUN: %python %S/Inputs/tile_bytecode_version.py %t.mlirbc --set 1.0 -o %t.same.mlirbc
// RUN: tegula-opt %t.same.mlirbc --mlir-print-op-generic | FileCheck %s
//
// 3. A reader refuses a later minor, another major and a truncated version.
// RUN: %python %S/Inputs/tile_bytecode_version.py %t.mlirbc --set 1.1 -o %t.minor.mlirbc
// RUN: not tegula-opt %t.minor.mlirbc 2>&1 | FileCheck %s --check-prefix=MINOR
// MINOR: error: tile dialect version 1.1 is not supported by this reader (it reads 1.0 to 1.0)
// RUN: %python %S/Inputs/tile_bytecode_version.py %t.mlirbc --set 2.0 -o %t.major.mlirbc
// RUN: not tegula-opt %t.major.mlirbc 2>&1 | FileCheck %s --check-prefix=MAJOR
// MAJOR: error: tile dialect version 2.0 is not supported by this reader (it reads 1.0 to 1.0)
// RUN: %python %S/Inputs/tile_bytecode_version.py %t.mlirbc --set 0.3 -o %t.old.mlirbc
// RUN: not tegula-opt %t.old.mlirbc 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: error: tile dialect version 0.3 is not supported by this reader (it reads 1.0 to 1.0)
// RUN: %python %S/Inputs/tile_bytecode_version.py %t.mlirbc --truncate -o %t.truncated.mlirbc
// RUN: not tegula-opt %t.truncated.mlirbc 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: error: tile dialect: truncated dialect version

// CHECK:      "tile.func"() <{function_type = (tensor<64xf32>) -> (tensor<64xf32>, f32), noinline, sym_name = "helper", sym_visibility = "private"}> ({
// CHECK-NEXT: ^bb0(%[[ARG10:[^ :,)]+]]: tensor<64xf32>):
// CHECK-NEXT: %[[V18:[^ :,)]+]] = "tile.reduce"(%[[ARG10]]) <{axis = 0 : i32}> ({
// CHECK-NEXT: ^bb0(%[[ARG13:[^ :,)]+]]: f32, %[[ARG14:[^ :,)]+]]: f32):
// CHECK-NEXT: %[[V21:[^ :,)]+]] = "arith.maximumf"(%[[ARG13]], %[[ARG14]]) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-NEXT: "tile.reduce.return"(%[[V21]]) : (f32) -> ()
// CHECK-NEXT: }) : (tensor<64xf32>) -> f32
// CHECK-NEXT: %[[V19:[^ :,)]+]] = "tile.scan"(%[[ARG10]]) <{axis = 0 : i32, reverse = true}> ({
// CHECK-NEXT: ^bb0(%[[ARG11:[^ :,)]+]]: f32, %[[ARG12:[^ :,)]+]]: f32):
// CHECK-NEXT: %[[V20:[^ :,)]+]] = "arith.addf"(%[[ARG11]], %[[ARG12]]) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-NEXT: "tile.scan.return"(%[[V20]]) : (f32) -> ()
// CHECK-NEXT: }) : (tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: "tile.return"(%[[V19]], %[[V18]]) : (tensor<64xf32>, f32) -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: "tile.func"() <{arg_attrs = [{tile.divisibility = 16 : i64, tile.nonnull}, {}, {tile.contiguity = 64 : i64}, {}, {}, {}, {}, {}, {}, {}], function_type = (!tile.ptr<f32>, !tile.ptr<f16, 3>, tensor<64xi32>, tensor<64xi1>, !tile.ptr<f16>, i64, i32, tensor<32x32xf8E4M3FN>, tensor<32x32xf8E5M2>, tensor<32x32xf32>) -> (), sym_name = "kernel"}> ({
// CHECK-NEXT: ^bb0(%[[ARG0:[^ :,)]+]]: !tile.ptr<f32>, %[[ARG1:[^ :,)]+]]: !tile.ptr<f16, 3>, %[[ARG2:[^ :,)]+]]: tensor<64xi32>, %[[ARG3:[^ :,)]+]]: tensor<64xi1>, %[[ARG4:[^ :,)]+]]: !tile.ptr<f16>, %[[ARG5:[^ :,)]+]]: i64, %[[ARG6:[^ :,)]+]]: i32, %[[ARG7:[^ :,)]+]]: tensor<32x32xf8E4M3FN>, %[[ARG8:[^ :,)]+]]: tensor<32x32xf8E5M2>, %[[ARG9:[^ :,)]+]]: tensor<32x32xf32>):
// CHECK-NEXT: %[[V0:[^ :,)]+]] = "tile.program_id"() <{axis = 1 : i32}> : () -> i32
// CHECK-NEXT: %[[V1:[^ :,)]+]] = "tile.splat"(%[[ARG0]]) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[V2:[^ :,)]+]] = "tile.addptr"(%[[V1]], %[[ARG2]]) {tile.divisibility = 16 : i64} : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[V3:[^ :,)]+]] = "arith.constant"() <{value = dense<0.000000e+00> : tensor<64xf32>}> : () -> tensor<64xf32>
// CHECK-NEXT: %[[V4:[^ :,)]+]] = "tile.load"(%[[V2]], %[[ARG3]], %[[V3]]) <{cache = #tile<cache ca>, evict = #tile<evict evict_first>, is_volatile, operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<64x!tile.ptr<f32>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %[[V5:[^ :,)]+]]:2 = "tile.call"(%[[V4]]) <{callee = @helper}> : (tensor<64xf32>) -> (tensor<64xf32>, f32)
// CHECK-NEXT: %[[V6:[^ :,)]+]] = "tile.atomic_rmw"(%[[V2]], %[[V5]]#0, %[[ARG3]]) <{kind = #tile<rmw fadd>, scope = #tile<scope sys>, sem = #tile<sem acq_rel>}> : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
// CHECK-NEXT: %[[V7:[^ :,)]+]] = "tile.fp_to_fp"(%[[V6]]) <{rounding = #tile<rounding rtz>}> : (tensor<64xf32>) -> tensor<64xf16>
// CHECK-NEXT: %[[V8:[^ :,)]+]] = "tile.reshape"(%[[V7]]) <{allow_reorder}> : (tensor<64xf16>) -> tensor<8x8xf16>
// CHECK-NEXT: %[[V9:[^ :,)]+]] = "tile.trans"(%[[V8]]) <{order = array<i32: 1, 0>}> : (tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK-NEXT: %[[V10:[^ :,)]+]] = "arith.constant"() <{value = 1 : i64}> : () -> i64
// CHECK-NEXT: %[[V11:[^ :,)]+]] = "tile.make_tensor_ptr"(%[[ARG4]], %[[ARG5]], %[[ARG5]], %[[ARG5]], %[[V10]], %[[ARG6]], %[[ARG6]]) <{operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>}> : (!tile.ptr<f16>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<8x8xf16>>
// CHECK-NEXT: "tile.store"(%[[V11]], %[[V9]]) <{boundary_check = array<i32: 0, 1>, cache = #tile<cache none>, evict = #tile<evict normal>}> : (!tile.ptr<tensor<8x8xf16>>, tensor<8x8xf16>) -> ()
// CHECK-NEXT: %[[V12:[^ :,)]+]] = "tile.load"(%[[V11]]) <{boundary_check = array<i32: 1>, cache = #tile<cache none>, evict = #tile<evict normal>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = #tile<padding nan>}> : (!tile.ptr<tensor<8x8xf16>>) -> tensor<8x8xf16>
// CHECK-NEXT: %[[V13:[^ :,)]+]] = "tile.make_tensor_descriptor"(%[[ARG4]], %[[ARG6]], %[[ARG6]], %[[ARG5]], %[[V10]]) <{operandSegmentSizes = array<i32: 1, 2, 2>}> : (!tile.ptr<f16>, i32, i32, i64, i64) -> !tile.tensordesc<tensor<8x8xf16>>
// CHECK-NEXT: "tile.descriptor_store"(%[[V13]], %[[ARG6]], %[[V0]], %[[V12]]) : (!tile.tensordesc<tensor<8x8xf16>>, i32, i32, tensor<8x8xf16>) -> ()
// CHECK-NEXT: %[[V14:[^ :,)]+]] = "tile.dot"(%[[ARG7]], %[[ARG8]], %[[ARG9]]) <{input_precision = #tile<precision ieee>, max_num_imprecise_acc = 16 : i32}> : (tensor<32x32xf8E4M3FN>, tensor<32x32xf8E5M2>, tensor<32x32xf32>) -> tensor<32x32xf32>
// CHECK-NEXT: %[[V15:[^ :,)]+]] = "tile.clampf"(%[[V5]]#0, %[[V3]], %[[V4]]) <{propagate_nan = #tile<propagate_nan all>}> : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %[[V16:[^ :,)]+]] = "tile.extern_elementwise"(%[[V15]]) <{libname = "libdevice", libpath = "", pure = true, symbol = "__nv_expf"}> : (tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %[[V17:[^ :,)]+]] = "tile.load"(%[[ARG1]]) <{cache = #tile<cache none>, evict = #tile<evict normal>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tile.ptr<f16, 3>) -> f16
// CHECK-NEXT: "tile.print"(%[[V17]], %[[V0]]) <{hex = true, is_signed = array<i32: 0, 1>, prefix = "v="}> : (f16, i32) -> ()
// CHECK-NEXT: "tile.assert"(%[[ARG3]]) <{message = "mask"}> : (tensor<64xi1>) -> ()
// CHECK-NEXT: "tile.debug_barrier"() : () -> ()
// CHECK-NEXT: "tile.return"() : () -> ()
// CHECK-NEXT: }) : () -> ()

tile.func private @helper(%x: tensor<64xf32>) -> (tensor<64xf32>, f32) attributes {noinline} {
  %s = "tile.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    tile.reduce.return %m : f32
  }) : (tensor<64xf32>) -> f32
  %c = "tile.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.addf %a, %b : f32
    tile.scan.return %m : f32
  }) : (tensor<64xf32>) -> tensor<64xf32>
  tile.return %c, %s : tensor<64xf32>, f32
}

tile.func @kernel(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64, tile.nonnull},
                  %q: !tile.ptr<f16, 3>,
                  %offs: tensor<64xi32> {tile.contiguity = 64 : i64},
                  %m: tensor<64xi1>,
                  %base: !tile.ptr<f16>, %n: i64, %i: i32,
                  %a8: tensor<32x32xf8E4M3FN>, %b8: tensor<32x32xf8E5M2>, %acc: tensor<32x32xf32>) {
  %pid = tile.program_id 1 : i32
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %pp = tile.addptr %ps, %offs {tile.divisibility = 16 : i64} : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %x = tile.load %pp, %m, %zero {cache = #tile<cache ca>, evict = #tile<evict evict_first>, is_volatile} : tensor<64x!tile.ptr<f32>>
  %y:2 = tile.call @helper(%x) : (tensor<64xf32>) -> (tensor<64xf32>, f32)
  %old = tile.atomic_rmw fadd, acq_rel, sys, %pp, %y#0, %m : tensor<64x!tile.ptr<f32>>
  %h = tile.fp_to_fp %old, rounding = rtz : tensor<64xf32> -> tensor<64xf16>
  %r = tile.reshape %h allow_reorder : tensor<64xf16> -> tensor<8x8xf16>
  %t = tile.trans %r {order = array<i32: 1, 0>} : tensor<8x8xf16> -> tensor<8x8xf16>
  %one = arith.constant 1 : i64
  %bp = tile.make_tensor_ptr %base, [%n, %n], [%n, %one], [%i, %i] {order = array<i32: 1, 0>} : !tile.ptr<tensor<8x8xf16>>
  tile.store %bp, %t {boundary_check = array<i32: 0, 1>} : !tile.ptr<tensor<8x8xf16>>
  %blk = tile.load %bp {boundary_check = array<i32: 1>, padding = #tile<padding nan>} : !tile.ptr<tensor<8x8xf16>>
  %d = tile.make_tensor_descriptor %base, [%i, %i], [%n, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<8x8xf16>>
  tile.descriptor_store %d[%i, %pid], %blk : !tile.tensordesc<tensor<8x8xf16>>, tensor<8x8xf16>
  %dot = tile.dot %a8, %b8, %acc {input_precision = #tile<precision ieee>, max_num_imprecise_acc = 16 : i32} : tensor<32x32xf8E4M3FN> * tensor<32x32xf8E5M2> -> tensor<32x32xf32>
  %cl = tile.clampf %y#0, %zero, %x, propagate_nan = all : tensor<64xf32>
  %e = tile.extern_elementwise %cl {libname = "libdevice", libpath = "", symbol = "__nv_expf", pure = true} : (tensor<64xf32>) -> tensor<64xf32>
  %v = tile.load %q : !tile.ptr<f16, 3>
  tile.print "v=" {hex = true, is_signed = array<i32: 0, 1>} : %v, %pid : f16, i32
  tile.assert %m, "mask" : tensor<64xi1>
  tile.debug_barrier
  tile.return
}
