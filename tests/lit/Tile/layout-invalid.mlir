// The layout passes' errors: a policy whose layouts the dialect rejects
// (here warps of 48 threads) and a matrix unit no family registered with
// the passes answers to (tegula-opt registers the NVIDIA plugin's).

// RUN: not tegula-opt %s -tile-coalesce=warp-size=48 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: not tegula-opt %s -tile-assign-layouts=warp-size=48 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: not tegula-opt %s -tile-assign-layouts=matrix-unit=tpu 2>&1 | FileCheck %s --check-prefix=UNIT

// WARP: :[[@LINE+7]]:10: error: the layout policy chose an invalid layout for 'tensor<128x!tile.ptr<f32>>': 'threadsPerWarp' entries must be positive powers of 2, got 48
// UNIT: error: unknown matrix-unit 'tpu': no matrix unit of that kind is registered (registered: nvidia.mma, nvidia.wgmma)
module {
  tile.func @copy(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
    %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
    %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    %v = tile.load %p : tensor<128x!tile.ptr<f32>>
    tile.store %p, %v : tensor<128x!tile.ptr<f32>>
    tile.return
  }
}
