# tegula: --kernel row_sum_f32 --signature "*fp32:16, *fp32:16, i32, i32, i32, 4, 32"
"""out[r] = sum(x[r, 0:n_cols]) for r < n_rows, x with a row stride: each
program sums ROWS rows, BLOCK columns at a time (a loop, a 2-D tile, masks on
both axes, a reduction along axis 1)."""
import triton
import triton.language as tl


@triton.jit
def row_sum_f32(x_ptr, out_ptr, n_rows, n_cols, stride, ROWS: tl.constexpr,
                BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_mask = rows < n_rows
    acc = tl.zeros((ROWS, BLOCK), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = row_mask[:, None] & (cols[None, :] < n_cols)
        acc += tl.load(x_ptr + rows[:, None] * stride + cols[None, :],
                       mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=row_mask)
