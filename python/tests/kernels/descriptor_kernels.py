"""Kernels with device-side tensor descriptors (test_descriptor_host.py), as
Triton 3.x's tutorials write them."""

import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    # Each program copies one block (x + 1); blocks over the edge read the
    # padding and store only inside the tensor.
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN],
                                    padding_option=PAD)
    dst = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    block = src.load([pid_m * BM, pid_n * BN])
    dst.store([pid_m * BM, pid_n * BN], block + 1)


@triton.jit
def padded_read_kernel(x_ptr, out_ptr, M, N, off_m, off_n, BM: tl.constexpr, BN: tl.constexpr,
                       PAD: tl.constexpr):
    # The whole block, padding included, into a dense BM x BN output.
    src = tl._experimental_make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN],
                                                  padding_option=PAD)
    block = tl.load_tensor_descriptor(src, [off_m, off_n])
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    tl.store(out_ptr + rows * BN + cols, block)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([off_m, k * BK])
        b = b_desc.load([k * BK, off_n])
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@triton.jit
def atomic_add_kernel(acc_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # Every program adds 1 to the block at the origin and to its own block.
    desc = tl.make_tensor_descriptor(acc_ptr, [M, N], [N, 1], [BM, BN])
    ones = tl.full((BM, BN), 1, tl.int32)
    desc.atomic_add([0, 0], ones)
    desc.atomic_add([tl.program_id(0) * BM, 0], ones)


@triton.jit
def last_stride_kernel(x_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [1, M], [BM, BN])
    desc.store([0, 0], desc.load([0, 0]))


@triton.jit
def narrow_block_kernel(x_ptr, M, N, BM: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, 2])
    desc.store([0, 0], desc.load([0, 0]))


@triton.jit
def host_descriptor_kernel(desc_ptr, BM: tl.constexpr):
    x = tl._experimental_descriptor_load(desc_ptr, [0, 0], [BM, BM], tl.float32)
    tl._experimental_descriptor_store(desc_ptr, x, [0, 0])


@triton.jit
def host_copy_kernel(x_desc, y_desc, BM: tl.constexpr, BN: tl.constexpr):
    # x_desc and y_desc are TensorDescriptors built on the host.
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    y_desc.store([off_m, off_n], x_desc.load([off_m, off_n]) * 2)


@triton.jit
def host_matmul_kernel(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
    # Triton's tutorial spelling: block shapes from the descriptors.
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([off_m, k * BK]), b_desc.load([k * BK, off_n]), acc,
                     input_precision="ieee")
    c_desc.store([off_m, off_n], acc)


@triton.jit
def _maybe_make_tensor_desc(desc_or_ptr, shape, strides, block_shape):
    # The newest tutorial 06's helper: a host-built descriptor as it is, a
    # pointer made into one.
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


@triton.jit
def maybe_desc_copy_kernel(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr,
                           warp_specialize: tl.constexpr):
    # x and y: pointers or host-built descriptors, in any mix.
    x = _maybe_make_tensor_desc(x, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y = _maybe_make_tensor_desc(y, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    for m in tl.range(tl.program_id(0) * BM, M, tl.num_programs(0) * BM,
                      warp_specialize=warp_specialize):
        y.store([m, 0], x.load([m, 0]) * 2)


@triton.jit
def isinstance_kernel(x_ptr, out_ptr, C: tl.constexpr):
    # out[i] = 1 where the isinstance holds: each as a constexpr bool.
    d = tl.make_tensor_descriptor(x_ptr, [16], [1], [16])
    t = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(out_ptr + 0, isinstance(d, tl.tensor_descriptor))
    tl.store(out_ptr + 1, isinstance(x_ptr, tl.tensor_descriptor))
    tl.store(out_ptr + 2, isinstance(t, tl.tensor))
    tl.store(out_ptr + 3, isinstance(x_ptr, tl.tensor))
    tl.store(out_ptr + 4, isinstance(C, tl.constexpr))
    tl.store(out_ptr + 5, isinstance(t, tl.constexpr))
    tl.store(out_ptr + 6, isinstance(t.dtype, tl.dtype))
    tl.store(out_ptr + 7, isinstance(d, (tl.tensor, tl.tensor_descriptor)))
    tl.store(out_ptr + 8, isinstance(C, (tl.tensor, tl.dtype)))


@triton.jit
def isinstance_bad_kernel(x_ptr):
    tl.store(x_ptr, isinstance(x_ptr, int))
