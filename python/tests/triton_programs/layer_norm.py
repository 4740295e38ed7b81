"""Layer normalization, forward and backward, as a torch.autograd.Function.

A program in the shape of Triton's layer-norm tutorial (05), written for
Tegula's tests; `import tegula as triton` is its only Tegula-specific line.

- forward: one program per row computes the row's mean and 1/std, writes
  them for the backward, and y = (x - mean) / std * w + b;
- backward, first kernel: one program per row writes dx and adds the row's
  contribution to dw and db into one of G partial rows, chosen by row
  number. Programs sharing a partial row take turns through a spin lock
  (`tl.atomic_cas` to take it, `tl.atomic_xchg` to give it back), and a
  per-row flag says whether the partial row holds a sum yet;
- backward, second kernel: sums the G partial rows into dw and db.

fp16 tensors; checked against torch's layer norm computed in fp32 on the
CPU, with tolerances for fp16 storage. A timing table of the backward
follows. Exits 1 on a mismatch.
"""

import sys

import torch

import tegula as triton
import tegula.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def ln_forward_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, row_stride, N, eps,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    live = cols < N
    x = tl.load(x_ptr + row * row_stride + cols, mask=live, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    centered = tl.where(live, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=live, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=live, other=0.0).to(tl.float32)
    y = centered * rstd * w + b
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    tl.store(y_ptr + row * row_stride + cols, y.to(y_ptr.dtype.element_ty), mask=live)


@triton.jit
def ln_backward_dx_kernel(dx_ptr, dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr,
                          part_dw_ptr, part_db_ptr, lock_ptr, row_stride, N,
                          G: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    live = cols < N
    x = tl.load(x_ptr + row * row_stride + cols, mask=live, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * row_stride + cols, mask=live, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=live, other=0.0).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(live, (x - mean) * rstd, 0.0)
    g = tl.where(live, dy * w, 0.0)
    # dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
    dx = (g - tl.sum(g, axis=0) / N - xhat * (tl.sum(g * xhat, axis=0) / N)) * rstd
    tl.store(dx_ptr + row * row_stride + cols, dx.to(dx_ptr.dtype.element_ty), mask=live)

    # This row's share of dw and db, added into partial row `slot`.
    slot = row % G
    lock = lock_ptr + slot
    filled = lock_ptr + G + slot
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    dw_part = dy * xhat
    db_part = dy
    at = slot * N + cols
    if tl.load(filled) == 0:
        tl.atomic_xchg(filled, 1)
    else:
        dw_part += tl.load(part_dw_ptr + at, mask=live, other=0.0)
        db_part += tl.load(part_db_ptr + at, mask=live, other=0.0)
    tl.store(part_dw_ptr + at, dw_part, mask=live)
    tl.store(part_db_ptr + at, db_part, mask=live)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def ln_backward_dwdb_kernel(part_dw_ptr, part_db_ptr, dw_ptr, db_ptr, G, N,
                            BLOCK_G: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros((BLOCK_G, BLOCK_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_G, BLOCK_N), dtype=tl.float32)
    for first in range(0, G, BLOCK_G):
        slots = first + tl.arange(0, BLOCK_G)
        live = (slots[:, None] < G) & (cols[None, :] < N)
        at = slots[:, None] * N + cols[None, :]
        dw += tl.load(part_dw_ptr + at, mask=live, other=0.0)
        db += tl.load(part_db_ptr + at, mask=live, other=0.0)
    tl.store(dw_ptr + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(db_ptr + cols, tl.sum(db, axis=0), mask=cols < N)


class LayerNorm(torch.autograd.Function):

    @staticmethod
    def forward(ctx, x, normalized_shape, weight, bias, eps):
        rows = x.reshape(-1, x.shape[-1])
        M, N = rows.shape
        block = triton.next_power_of_2(N)
        if block * x.element_size() > 65536:
            raise RuntimeError("layer norm: rows of more than 64 KiB are not handled")
        warps = min(max(block // 256, 1), 8)
        y = torch.empty_like(rows)
        mean = torch.empty(M, dtype=torch.float32, device=x.device)
        rstd = torch.empty(M, dtype=torch.float32, device=x.device)
        ln_forward_kernel[(M,)](rows, y, weight, bias, mean, rstd, rows.stride(0), N, eps,
                                BLOCK=block, num_warps=warps)
        ctx.save_for_backward(rows, weight, mean, rstd)
        ctx.block, ctx.warps, ctx.x_shape = block, warps, x.shape
        return y.view_as(x)

    @staticmethod
    def backward(ctx, dy):
        rows, weight, mean, rstd = ctx.saved_tensors
        M, N = rows.shape
        G = 8 if N > 4096 else (32 if N > 1024 else 64)
        dev = rows.device
        locks = torch.zeros(2 * G, dtype=torch.int32, device=dev)
        part_dw = torch.zeros((G, N), dtype=torch.float32, device=dev)
        part_db = torch.zeros((G, N), dtype=torch.float32, device=dev)
        dw = torch.empty(N, dtype=torch.float32, device=dev)
        db = torch.empty(N, dtype=torch.float32, device=dev)
        dy = dy.reshape(M, N).contiguous()
        dx = torch.empty_like(dy)
        ln_backward_dx_kernel[(M,)](dx, dy, rows, weight, mean, rstd, part_dw, part_db, locks,
                                    rows.stride(0), N, G=G, BLOCK=ctx.block,
                                    num_warps=ctx.warps)
        ln_backward_dwdb_kernel[lambda meta: (triton.cdiv(N, meta["BLOCK_N"]),)](
            part_dw, part_db, dw, db, G, N, BLOCK_G=32, BLOCK_N=128)
        return dx.view(ctx.x_shape), None, dw.to(weight.dtype), \
            db.to(weight.dtype), None


layer_norm = LayerNorm.apply

failed = []


def compare(name, got, want, atol, rtol):
    got = got.detach().float().cpu()
    err = (got - want).abs().max().item()
    ok = torch.allclose(got, want, atol=atol, rtol=rtol)
    print("%s %s: largest difference from torch %.3g" % ("PASS" if ok else "FAIL", name, err))
    if not ok:
        failed.append(name)


def check(M, N, dtype=torch.float16, eps=1e-5):
    gen = torch.Generator().manual_seed(M * 7919 + N)
    x = (-2.3 + 0.5 * torch.randn(M, N, generator=gen)).to(dtype)
    w = torch.rand(N, generator=gen).to(dtype)
    b = torch.rand(N, generator=gen).to(dtype)
    dy = (0.1 * torch.randn(M, N, generator=gen)).to(dtype)
    # The reference: the same fp16 values, computed in fp32 on the CPU.
    ref = [t.float().requires_grad_(True) for t in (x, w, b)]
    y_ref = torch.nn.functional.layer_norm(ref[0], (N,), ref[1], ref[2], eps)
    y_ref.backward(dy.float())
    # Ours on DEVICE.
    mine = [t.to(DEVICE).requires_grad_(True) for t in (x, w, b)]
    y = layer_norm(mine[0], (N,), mine[1], mine[2], eps)
    y.backward(dy.to(DEVICE))
    what = "layer_norm %dx%d %s" % (M, N, str(dtype).replace("torch.", ""))
    compare(what + " y", y, y_ref.detach(), 1e-2, 0)
    compare(what + " dx", mine[0].grad, ref[0].grad, 1e-2, 0)
    # dw and db add up M rows: fp16 keeps about 3 digits of the sums.
    compare(what + " dw", mine[1].grad, ref[1].grad, 1e-2, 1e-2)
    compare(what + " db", mine[2].grad, ref[2].grad, 1e-2, 1e-2)


check(151, 1000)
check(64, 77)
check(300, 256)

# A batch of sequences: the Function normalizes the last dimension.
gen = torch.Generator().manual_seed(5)
x3 = torch.randn(3, 20, 96, generator=gen).half()
w3, b3 = torch.rand(96, generator=gen).half(), torch.rand(96, generator=gen).half()
x3d = x3.to(DEVICE).detach().requires_grad_(True)
layer_norm(x3d, (96,), w3.to(DEVICE), b3.to(DEVICE), 1e-5).sum().backward()
x3r = x3.detach().float().requires_grad_(True)
torch.nn.functional.layer_norm(x3r, (96,), w3.float(), b3.float(), 1e-5).sum().backward()
compare("layer_norm 3x20x96 float16 dx", x3d.grad, x3r.grad, 1e-2, 0)


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=["N"],
        x_vals=[512, 1024],
        line_arg="impl",
        line_vals=["triton", "torch"],
        line_names=["Triton", "Torch"],
        styles=[("blue", "-"), ("green", "-")],
        ylabel="ms",
        plot_name="layer-norm-backward",
        args={"M": 128, "dtype": torch.float16},
    ))
def backward_time(M, N, dtype, impl):
    x = torch.randn(M, N, dtype=dtype, device=DEVICE, requires_grad=True)
    w = torch.rand(N, dtype=dtype, device=DEVICE, requires_grad=True)
    b = torch.rand(N, dtype=dtype, device=DEVICE, requires_grad=True)
    dy = 0.1 * torch.randn(M, N, dtype=dtype, device=DEVICE)
    if impl == "triton":
        y = layer_norm(x, (N,), w, b, 1e-5)
    else:
        y = torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5)
    return triton.testing.do_bench(lambda: y.backward(dy, retain_graph=True), warmup=5, rep=20,
                                   grad_to_none=[x, w, b])


backward_time.run(print_data=True, show_plots=False, save_path=".")
sys.exit(1 if failed else 0)
