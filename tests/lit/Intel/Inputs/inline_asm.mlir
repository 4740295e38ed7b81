// A kernel with PTX inline assembly (tl.inline_asm_elementwise), which no
// Intel target can run: the intel plugin must refuse it at its location.
module attributes {tile.num_warps = 4 : i32} {
  tile.func @asm_kernel(%out: !tile.ptr<i32> {tile.divisibility = 16 : i64}) {
    %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %s = tile.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, $3;" {constraints = "=r,r,r,r", packed_element = 1 : i32, pure = true} %r, %r, %r : tensor<64xi32>, tensor<64xi32>, tensor<64xi32> -> tensor<64xi32>
    %p = tile.splat %out : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
    %q = tile.addptr %p, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
    tile.store %q, %s : tensor<64x!tile.ptr<i32>>
    tile.return
  }
}
