// What the lowering does not support fails with an error at the op (or at
// the module, for the kernel count) rather than crashing or producing
// invalid IR.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm --verify-diagnostics

tile.func @fp8_arith(%x: f8E4M3FN) {
  %a = tile.splat %x : f8E4M3FN -> tensor<16xf8E4M3FN>
  // expected-error @+1 {{cannot lower 'arith.addf': fp8 arithmetic (convert fp8 values with .to() first)}}
  %b = arith.addf %a, %a : tensor<16xf8E4M3FN>
  tile.print "b" {hex = false, is_signed = array<i32: 0>} : %b : tensor<16xf8E4M3FN>
  tile.return
}

// -----

tile.func @fp8_scalar_arith(%x: f8E5M2, %p: !tile.ptr<f8E5M2>) {
  // expected-error @+1 {{cannot lower 'arith.mulf': fp8 arithmetic (convert fp8 values with .to() first)}}
  %y = arith.mulf %x, %x : f8E5M2
  tile.store %p, %y : !tile.ptr<f8E5M2>
  tile.return
}

// -----

tile.func @tensor_descriptor(%base: !tile.ptr<f16>, %m: i32, %n: i32, %sm: i64, %one: i64, %i: i32, %j: i32) {
  // expected-error @+1 {{cannot lower 'tile.make_tensor_descriptor': tensor descriptors are not supported by this lowering yet}}
  %d = tile.make_tensor_descriptor %base, [%m, %n], [%sm, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x16xf16>>
  %t = tile.descriptor_load %d[%i, %j] : !tile.tensordesc<tensor<16x16xf16>> -> tensor<16x16xf16>
  tile.return
}

// -----

// Two public functions: which one is the kernel?
// expected-error @+1 {{expected one public tile.func (the kernel), found 2}}
module {
  tile.func @first() {
    tile.return
  }
  tile.func @second() {
    tile.return
  }
}

// -----

// expected-error @+1 {{expected one public tile.func (the kernel), found 0}}
module {
  tile.func private @helper() {
    tile.return
  }
}

// -----

// expected-error @+1 {{kernel argument #1 of type 'tensor<16xf32>' cannot be passed to a kernel}}
tile.func @tile_argument(%p: !tile.ptr<f32>, %x: tensor<16xf32>) {
  tile.return
}

// -----

tile.func @extern_elementwise(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  // expected-error @+1 {{cannot lower 'tile.extern_elementwise': no lowering for this operation}}
  %e = tile.extern_elementwise %a {libname = "libdevice", libpath = "", symbol = "__nv_erff", pure = true} : (tensor<16xf32>) -> tensor<16xf32>
  tile.print "e" {hex = false, is_signed = array<i32: 0>} : %e : tensor<16xf32>
  tile.return
}

// -----

tile.func @nan_padding_of_ints(%base: !tile.ptr<i32>, %n: i64, %s: i64, %o: i32) {
  %bp = tile.make_tensor_ptr %base, [%n], [%s], [%o] {order = array<i32: 0>} : !tile.ptr<tensor<16xi32>>
  // expected-error @+1 {{cannot lower 'tile.load': NaN padding of a non-float tile}}
  %v = tile.load %bp {boundary_check = array<i32: 0>, padding = #tile<padding nan>} : !tile.ptr<tensor<16xi32>>
  tile.print "v" {hex = false, is_signed = array<i32: 1>} : %v : tensor<16xi32>
  tile.return
}

// -----

// fp8 dot operands multiply (decoded to f32); an fp8 result has no
// accumulator type.
tile.func @fp8_dot(%x: f8E4M3FN) {
  %a = tile.splat %x : f8E4M3FN -> tensor<16x16xf8E4M3FN>
  // expected-error @+1 {{cannot lower 'tile.dot': a dot's result cannot be fp8: accumulate in fp32 or fp16 and convert}}
  %d = tile.dot %a, %a, %a : tensor<16x16xf8E4M3FN> * tensor<16x16xf8E4M3FN> -> tensor<16x16xf8E4M3FN>
  tile.print "d" {hex = false, is_signed = array<i32: 0>} : %d : tensor<16x16xf8E4M3FN>
  tile.return
}
