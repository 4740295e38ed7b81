"""Device-side tensor descriptors (tl.make_tensor_descriptor, the
experimental spelling, load_/store_tensor_descriptor, descriptor atomics)
on the host CPU, through the host lowering and the SIMT (GPU) lowering,
against NumPy with outputs poisoned first; Triton's errors for bad
descriptors."""

import os

import numpy as np
import pytest

import tegula

HERE = os.path.dirname(os.path.abspath(__file__))
K = tegula.import_triton_file(os.path.join(HERE, "kernels", "descriptor_kernels.py"))


@pytest.fixture
def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print("seed", seed)
    return np.random.default_rng(seed)


@pytest.mark.parametrize("m, n", [(64, 32), (70, 45), (5, 100)])
def test_copy_stores_only_inside(host, rng, m, n):
    bm, bn = 32, 16
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = np.full((m, n), np.nan, dtype=np.float32)
    grid = (tegula.cdiv(m, bm), tegula.cdiv(n, bn))
    K.copy_kernel[grid](x, y, m, n, BM=bm, BN=bn, PAD="zero", device=host)
    np.testing.assert_array_equal(y, x + np.float32(1))


@pytest.mark.parametrize("pad", ["zero", "nan"])
@pytest.mark.parametrize("off", [(0, 0), (24, 40), (-8, -16), (50, 3)])
def test_padding_outside_the_tensor(host, rng, pad, off):
    m, n, bm, bn = 40, 48, 16, 32
    x = rng.standard_normal((m, n)).astype(np.float32)
    out = np.full((bm, bn), -7.0, dtype=np.float32)
    K.padded_read_kernel[(1,)](x, out, m, n, off[0], off[1], BM=bm, BN=bn, PAD=pad, device=host)
    expected = np.full((bm, bn), 0.0 if pad == "zero" else np.nan, dtype=np.float32)
    rows = np.arange(bm) + off[0]
    cols = np.arange(bn) + off[1]
    r_ok = (rows >= 0) & (rows < m)
    c_ok = (cols >= 0) & (cols < n)
    expected[np.ix_(r_ok, c_ok)] = x[np.ix_(rows[r_ok], cols[c_ok])]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("m, n, k", [(64, 64, 64), (50, 70, 90)])
def test_matmul(host, rng, m, n, k):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, dtype=np.float32)
    bm = bn = 32
    bk = 16
    K.matmul_kernel[(tegula.cdiv(m, bm), tegula.cdiv(n, bn))](a, b, c, m, n, k, BM=bm, BN=bn,
                                                              BK=bk, device=host)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4,
                               atol=1e-4)


def test_atomic_add_masks_to_the_tensor(host):
    m, n, bm, bn, programs = 20, 24, 8, 32, 3  # the blocks overhang both dims
    acc = np.zeros((m, n), dtype=np.int32)
    K.atomic_add_kernel[(programs,)](acc, m, n, BM=bm, BN=bn, device=host)
    expected = np.zeros((m, n), dtype=np.int32)
    expected[:bm, :] += programs
    for p in range(programs):
        expected[p * bm:(p + 1) * bm, :] += 1
    np.testing.assert_array_equal(acc, expected)


@pytest.mark.parametrize("kernel, args, message", [
    ("last_stride_kernel", dict(BM=16, BN=16),
     r"descriptor_kernels\.py:\d+:\d+: .*Tensor descriptor last dim must be 1 but got "),
    ("narrow_block_kernel", dict(BM=16),
     r"descriptor_kernels\.py:\d+:\d+: .*Descriptor block shape must have at least 16 bytes in "
     r"the last dimension, but got 2 \* 4 = 8 bytes"),
])
def test_bad_descriptors(host, kernel, args, message):
    x = np.zeros((16, 16), dtype=np.float32)
    with pytest.raises(Exception, match=message):
        getattr(K, kernel)[(1,)](x, 16, 16, device=host, **args)


def test_host_built_descriptors_are_refused(host):
    x = np.zeros((16, 16), dtype=np.float32)
    with pytest.raises(Exception, match=r"descriptor_kernels\.py:\d+:\d+: .*"
                       r"tl\._experimental_descriptor_load reads a TMA descriptor built on "
                       r"the host"):
        K.host_descriptor_kernel[(1,)](x, BM=16, device=host)


from tegula.tools.tensor_descriptor import TensorDescriptor  # noqa: E402


@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_host_descriptors(host, rng, pad):
    m, n, bm, bn = 50, 40, 16, 32  # ragged in both dimensions
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = np.full((m, n), np.nan, dtype=np.float32)
    xd = TensorDescriptor.from_tensor(x, [bm, bn], padding=pad)
    yd = TensorDescriptor(y, list(y.shape), [n, 1], [bm, bn])
    assert xd.signature_entry() == ("tensordesc<fp32[16, 32], nan>" if pad == "nan"
                                    else "tensordesc<fp32[16, 32]>")
    K.host_copy_kernel[(tegula.cdiv(m, bm), tegula.cdiv(n, bn))](xd, yd, BM=bm, BN=bn,
                                                                 device=host)
    np.testing.assert_array_equal(y, x * np.float32(2))


def test_host_descriptor_matmul_on_a_strided_view(host, rng):
    # C is a column window of a wider array: its row stride is not its width.
    m, n, k, bm, bn, bk = 48, 40, 72, 16, 32, 16
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    wide = np.full((m, 64), np.nan, dtype=np.float32)
    c = wide[:, :n]
    descs = [TensorDescriptor.from_tensor(t, s) for t, s in
             ((a, [bm, bk]), (b, [bk, bn]), (c, [bm, bn]))]
    assert descs[2].strides == [64, 1]
    K.host_matmul_kernel[(tegula.cdiv(m, bm), tegula.cdiv(n, bn))](*descs, k, BM=bm, BN=bn,
                                                                   BK=bk, device=host)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    assert np.isnan(wide[:, n:]).all()


def test_host_descriptor_errors(host):
    x = np.zeros((32, 32), dtype=np.float32)
    with pytest.raises(ValueError, match="last dimension must be contiguous"):
        TensorDescriptor(x, [32, 32], [1, 32], [16, 16])
    with pytest.raises(ValueError, match="16-byte aligned"):
        TensorDescriptor(x, [32, 30], [30, 1], [16, 16])
    with pytest.raises(ValueError, match="powers of 2"):
        TensorDescriptor(x, [32, 32], [32, 1], [12, 16])
    unaligned = np.zeros(32 * 32 + 1, dtype=np.float32)[1:].reshape(32, 32)
    d = TensorDescriptor.from_tensor(unaligned, [16, 16])
    e = TensorDescriptor.from_tensor(x, [16, 16])
    with pytest.raises(ValueError, match="x_desc.*16-byte aligned"):
        K.host_copy_kernel[(1, 1)](d, e, BM=16, BN=16, device=host)
    # The block is checked when the descriptor is launched (Triton checks it
    # when it compiles), so that a placeholder block may be set later.
    narrow = TensorDescriptor(x, [32, 32], [32, 1], [16, 2])
    with pytest.raises(ValueError, match=r"x_desc.*at least 16 bytes, got 2 \* 4"):
        K.host_copy_kernel[(1, 1)](narrow, e, BM=16, BN=16, device=host)
    narrow.block_shape = [16, 12]
    with pytest.raises(ValueError, match=r"x_desc.*powers of 2, got \[16, 12\]"):
        K.host_copy_kernel[(1, 1)](narrow, e, BM=16, BN=16, device=host)


def test_host_descriptor_block_set_before_the_launch(host, rng):
    """Tutorial 06 builds its descriptors with block_shape=[1, 1] and its
    autotune configs' pre_hook sets each block before the launch."""
    m, n, bm, bn = 40, 48, 16, 16
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = np.full((m, n), np.nan, dtype=np.float32)
    xd = TensorDescriptor(x, [m, n], [n, 1], block_shape=[1, 1])
    yd = TensorDescriptor(y, [m, n], [n, 1], block_shape=[1, 1])

    def pre_hook(nargs):
        nargs["x_desc"].block_shape = [nargs["BM"], nargs["BN"]]
        nargs["y_desc"].block_shape = [nargs["BM"], nargs["BN"]]

    tuned = tegula.autotune([tegula.Config({"BM": bm, "BN": bn}, pre_hook=pre_hook)],
                            key=[])(K.host_copy_kernel)
    tuned[(tegula.cdiv(m, bm), tegula.cdiv(n, bn))](xd, yd, device=host)
    np.testing.assert_array_equal(y, x * np.float32(2))
    assert xd.block_shape == [bm, bn]


@pytest.mark.parametrize("host_x, host_y", [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("warp_specialize", [False, True])
def test_isinstance_picks_host_descriptor_or_pointer(host, rng, host_x, host_y,
                                                      warp_specialize):
    """The newest tutorial 06 passes host-built descriptors or pointers and
    asks `isinstance(arg, tl.tensor_descriptor)` in the kernel, looping with
    `tl.range(warp_specialize=)` (a hint the host takes and ignores)."""
    m, n, bm = 72, 16, 16
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = np.full((m, n), np.nan, dtype=np.float32)
    xa = TensorDescriptor.from_tensor(x, [bm, n]) if host_x else x
    ya = TensorDescriptor.from_tensor(y, [bm, n]) if host_y else y
    K.maybe_desc_copy_kernel[(2,)](xa, ya, m, n, BM=bm, BN=n,
                                   warp_specialize=warp_specialize, device=host)
    np.testing.assert_array_equal(y, x * np.float32(2))


def test_isinstance(host):
    x = np.zeros(16, dtype=np.float32)
    out = np.full(9, -1, dtype=np.int32)
    K.isinstance_kernel[(1,)](x, out, C=4, device=host)
    np.testing.assert_array_equal(out, [1, 0, 1, 1, 1, 0, 1, 1, 0])
    with pytest.raises(tegula.CompilationError,
                       match=r"descriptor_kernels\.py:\d+:\d+: .*isinstance\(\) takes "
                       r"tl\.tensor_descriptor, tl\.tensor, tl\.constexpr, tl\.dtype or a "
                       r"tuple of them as its second argument"):
        K.isinstance_bad_kernel[(1,)](out, device=host)
