"""
Scans, arg-reductions and histograms
====================================

Row-wise cumulative sums (built-in and through associative_scan with a
user combine function), argmax with its value, and a histogram of
integer values, with the host code that checks them against PyTorch.
"""

import torch

import triton
import triton.language as tl
from triton import language as tlang

DEVICE = triton.runtime.driver.active.get_active_torch_device()

NUM_BINS: tl.constexpr = 64
ROWS_PER_PROGRAM = tl.constexpr(4)
LOG2_E = 1.4426950408889634


@triton.jit
def _add_combine(a, b):
    return a + b


@triton.jit
def _max_with_index(a_value, a_index, b_value, b_index):
    # Keep the first index among equal maxima, as torch.argmax does.
    take_a = (a_value > b_value) | ((a_value == b_value) & (a_index < b_index))
    return tl.where(take_a, a_value, b_value), tl.where(take_a, a_index, b_index)


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr, REVERSE: tl.constexpr = False):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0)
    y = tl.cumsum(x, axis=0, reverse=REVERSE)
    tl.store(y_ptr + row * stride + cols, y, mask=mask)


@triton.jit
def scan_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    """The same scan through associative_scan and a jit combine function."""
    row = tl.program_id(0)
    offs = row * n_cols + tl.arange(0, BLOCK)
    mask = tl.arange(0, BLOCK) < n_cols
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.associative_scan(x, 0, _add_combine)
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def argmax_kernel(x_ptr, value_ptr, index_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    for i in tl.static_range(ROWS_PER_PROGRAM):
        row = pid * ROWS_PER_PROGRAM + i
        if row < n_rows:
            cols = tl.arange(0, BLOCK_N)
            x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
            # Built-in argmax, then the same through a two-value reduction.
            idx = tl.argmax(x, axis=0, tie_break_left=True)
            value, index = tl.reduce((x, cols), 0, _max_with_index)
            tl.device_assert(idx == index, "argmax disagrees with the reduction")
            tl.store(value_ptr + row, value)
            tl.store(index_ptr + row, idx)


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    # Out-of-range elements go to a bin of their own that is never stored.
    x = tl.load(x_ptr + offs, mask=mask, other=NUM_BINS)
    x = tl.minimum(tl.maximum(x, 0), NUM_BINS - 1)
    h = tl.histogram(x, NUM_BINS)
    bins = tl.arange(0, NUM_BINS)
    tl.atomic_add(hist_ptr + bins, h, sem="relaxed")


@triton.jit
def softmax_via_scan_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tlang.program_id(0)
    cols = tlang.arange(0, BLOCK)
    x = tlang.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    e = tlang.exp2((x - tlang.max(x, 0)) * LOG2_E)
    tlang.store(y_ptr + row * n_cols + cols, e / tlang.sum(e, 0), mask=cols < n_cols)


def check_all():
    x = torch.randint(0, 100, (16, 200), device=DEVICE, dtype=torch.int32)
    y = torch.empty_like(x)
    cumsum_kernel[(x.shape[0], )](x, y, x.shape[1], x.stride(0), BLOCK=256)
    torch.testing.assert_close(y, torch.cumsum(x, dim=1, dtype=torch.int32))

    f = torch.randn(16, 200, device=DEVICE)
    values = torch.empty(16, device=DEVICE)
    indices = torch.empty(16, device=DEVICE, dtype=torch.int32)
    argmax_kernel[(triton.cdiv(16, 4), )](f, values, indices, 16, 200, BLOCK_N=256)
    assert torch.equal(indices.long(), f.argmax(dim=1))

    data = torch.randint(0, 64, (10000, ), device=DEVICE, dtype=torch.int32)
    hist = torch.zeros(64, device=DEVICE, dtype=torch.int32)
    histogram_kernel[(triton.cdiv(data.numel(), 1024), )](data, hist, data.numel(), BLOCK=1024)
    assert torch.equal(hist.cpu(), torch.bincount(data.cpu(), minlength=64).int()), {
        b: (int(hist[b]), int(c))
        for b, c in enumerate(torch.bincount(data.cpu(), minlength=64))
        if int(hist[b]) != int(c)
    }


if __name__ == "__main__":
    check_all()
    print("all good")
