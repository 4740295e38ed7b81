// The vector-add kernel in tile IR, as the front end will produce it from
//   @triton.jit
//   def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
//       pid = tl.program_id(0)
//       offs = pid * BLOCK + tl.arange(0, BLOCK)
//       mask = offs < n
//       x = tl.load(x_ptr + offs, mask=mask)
//       y = tl.load(y_ptr + offs, mask=mask)
//       tl.store(out_ptr + offs, x + y, mask=mask)
// before the target-independent pipeline. `tegula-opt --tile-optimize`
// folds the splatted constants and combines pointer arithmetic.
module {
  tile.func private @offsets(%pid: i32) -> tensor<1024xi32> {
    %block = arith.constant 1024 : i32
    %start = arith.muli %pid, %block : i32
    %splat = tile.splat %start : i32 -> tensor<1024xi32>
    %range = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
    %offs = arith.addi %splat, %range : tensor<1024xi32>
    tile.return %offs : tensor<1024xi32>
  }

  tile.func @add_kernel(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                        %y: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                        %out: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                        %n: i32) {
    %pid = tile.program_id 0 : i32
    %offs = tile.call @offsets(%pid) : (i32) -> tensor<1024xi32>
    %nsplat = tile.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %nsplat : tensor<1024xi32>
    %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %xv = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
    %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %yv = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>>
    %sum = arith.addf %xv, %yv : tensor<1024xf32>
    %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %op, %sum, %mask : tensor<1024x!tile.ptr<f32>>
    tile.return
  }
}
