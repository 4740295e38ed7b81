"""Row softmax of a PyTorch matrix with a persistent Triton kernel.

A program in the shape of Triton's fused-softmax tutorial (02), written for
Tegula's tests; `import tegula as triton` is its only Tegula-specific line.
The kernel normalizes whole rows, one row per loop trip, with a program
count sized from what the compiled kernel uses (`warmup`, `n_regs`,
`n_spills`, `metadata.shared`) and what the device offers
(`get_device_properties`). Checked against torch.softmax; a bandwidth table
follows. Exits 1 on a mismatch.
"""

import sys

import torch

import tegula as triton
import tegula.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
PROPS = triton.runtime.driver.active.utils.get_device_properties(DEVICE.index)
SM_COUNT = PROPS["multiprocessor_count"]
SMEM_PER_SM = PROPS["max_shared_mem"]
REGS_PER_SM = PROPS["max_num_regs"]  # None where the device reports none
WARP = PROPS["warpSize"]


@triton.jit
def softmax_kernel(dst_ptr, src_ptr, src_row_stride, dst_row_stride, rows, cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # Programs stride over the rows: program p does rows p, p + P, p + 2P...
    for r in tl.range(tl.program_id(0), rows, tl.num_programs(0), num_stages=num_stages):
        offs = tl.arange(0, BLOCK_SIZE)
        live = offs < cols
        # Padding lanes read -inf: they neither win the max nor add to the sum.
        vals = tl.load(src_ptr + r * src_row_stride + offs, mask=live, other=-float("inf"))
        vals = vals - tl.max(vals, axis=0)
        num = tl.exp(vals)
        den = tl.sum(num, axis=0)
        tl.store(dst_ptr + r * dst_row_stride + offs, num / den, mask=live)


_programs = {}


def launch_config(block):
    warps = 4 if block <= 1024 else (8 if block <= 4096 else 16)
    stages = 4 if SMEM_PER_SM and SMEM_PER_SM > 200_000 else 2
    return warps, stages


def programs_for(kernel, warps):
    """How many programs fit at once on the whole device, from the kernel's
    registers and shared memory and the device's budget of each."""
    per_sm = []
    regs = kernel.n_regs
    if REGS_PER_SM and regs:
        per_sm.append(REGS_PER_SM // (regs * WARP * warps))
    if SMEM_PER_SM and kernel.metadata.shared:
        per_sm.append(SMEM_PER_SM // kernel.metadata.shared)
    return SM_COUNT * max(1, min(per_sm) if per_sm else 1)


def softmax(x, persistent=True):
    rows, cols = x.shape
    block = triton.next_power_of_2(cols)
    warps, stages = launch_config(block)
    y = torch.empty_like(x)
    if not persistent:
        # One program per row: the loop in the kernel runs once.
        softmax_kernel[(rows,)](y, x, x.stride(0), y.stride(0), rows, cols,
                                BLOCK_SIZE=block, num_stages=stages, num_warps=warps)
        return y
    key = (block, warps, stages, x.dtype)
    if key not in _programs:
        kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), rows, cols,
                                       BLOCK_SIZE=block, num_stages=stages, num_warps=warps,
                                       grid=(1,))
        kernel._init_handles()
        _programs[key] = (kernel, programs_for(kernel, warps))
        print("softmax kernel BLOCK_SIZE=%d: %d registers, %d spills, %d bytes of shared "
              "memory; %d programs at once" % (block, kernel.n_regs, kernel.n_spills,
                                                kernel.metadata.shared, _programs[key][1]))
    kernel, count = _programs[key]
    kernel[(min(count, rows), 1, 1)](y, x, x.stride(0), y.stride(0), rows, cols, block, stages)
    return y


failed = []


def check(name, got, want):
    err = (got - want).abs().max().item()
    ok = torch.allclose(got, want, atol=2e-6, rtol=1e-4)
    print("%s %s: largest difference from torch.softmax %.3g" % ("PASS" if ok else "FAIL",
                                                                 name, err))
    if not ok:
        failed.append(name)


gen = torch.Generator().manual_seed(7)
shapes = ((37, 5), (97, 643), (64, 1024), (300, 129))
for rows, cols in shapes:
    x = (torch.randn(rows, cols, generator=gen) * 3).to(DEVICE)
    check("softmax one-program-per-row %dx%d" % (rows, cols), softmax(x, persistent=False),
          torch.softmax(x, dim=-1))
for rows, cols in shapes:
    x = (torch.randn(rows, cols, generator=gen) * 3).to(DEVICE)
    check("softmax persistent %dx%d" % (rows, cols), softmax(x), torch.softmax(x, dim=-1))
# A strided view: rows 2 apart, the first 100 columns of each.
wide = torch.randn(80, 256, generator=gen).to(DEVICE)
view = wide[::2, :100]
check("softmax strided view 40x100", softmax(view), torch.softmax(view, dim=-1))


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=["N"],
        x_vals=[256, 512, 1024],
        line_arg="impl",
        line_vals=["triton", "torch"],
        line_names=["Triton", "Torch"],
        styles=[("blue", "-"), ("green", "-")],
        ylabel="GB/s",
        plot_name="softmax-bandwidth",
        args={"M": 256},
    ))
def bandwidth(M, N, impl):
    x = torch.randn(M, N, device=DEVICE)
    run = (lambda: softmax(x)) if impl == "triton" else (lambda: torch.softmax(x, dim=-1))
    ms = triton.testing.do_bench(run, warmup=5, rep=20)
    return 2 * x.numel() * x.element_size() / (ms * 1e-3) / 1e9


bandwidth.run(print_data=True, show_plots=False)
sys.exit(1 if failed else 0)
