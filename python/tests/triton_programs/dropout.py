"""Seeded dropout of PyTorch tensors with `tl.rand`.

A program in the shape of Triton's low-memory-dropout tutorial (04),
written for Tegula's tests; `import tegula as triton` is its only
Tegula-specific line. The keep/drop decision of element i is
`tl.rand(seed, i) > p`, so no mask is stored: the seed alone reproduces it.
Checks: one seed gives one mask (also across block sizes), other seeds give
other masks, about p of the elements are dropped, and the kept ones are
scaled by 1 / (1 - p). Exits 1 when a check fails.
"""

import sys

import torch

import tegula as triton
import tegula.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def seeded_dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    idx = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    inside = idx < n
    x = tl.load(x_ptr + idx, mask=inside)
    # A uniform number in [0, 1) per element, from the seed and the index.
    keep = tl.rand(seed, idx) > p
    tl.store(out_ptr + idx, tl.where(keep, x / (1 - p), 0.0), mask=inside)


def seeded_dropout(x, p, seed, block=1024):
    out = torch.empty_like(x)
    n = x.numel()
    seeded_dropout_kernel[(triton.cdiv(n, block),)](x, out, n, p, seed, BLOCK=block)
    return out


failed = []


def check(name, ok, detail):
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail))
    if not ok:
        failed.append(name)


n, p = 10007, 0.3
gen = torch.Generator().manual_seed(11)
x = (torch.rand(n, generator=gen) + 0.5).to(DEVICE)  # no zeros: zero means dropped
first = seeded_dropout(x, p, seed=123)
again = seeded_dropout(x, p, seed=123)
check("dropout same seed", torch.equal(first, again), "two runs with seed 123 agree")
other_blocks = seeded_dropout(x, p, seed=123, block=256)
check("dropout same seed other block", torch.equal(first, other_blocks),
      "BLOCK 1024 and 256 agree: the mask depends on the seed and the index only")
other = seeded_dropout(x, p, seed=321)
differ = ((first == 0) != (other == 0)).float().mean().item()
check("dropout other seed", differ > 0.2,
      "seeds 123 and 321 disagree on %.3f of the elements" % differ)
kept = first != 0
dropped = 1 - kept.float().mean().item()
check("dropout rate", abs(dropped - p) < 0.03, "%.4f of %d dropped at p = %g" % (dropped, n, p))
scale_err = (first[kept] - x[kept] / (1 - p)).abs().max().item()
check("dropout scale", scale_err <= 1e-5,
      "kept elements are x / (1 - p) to within %.3g" % scale_err)
everything = seeded_dropout(x, 0.0, seed=5)
check("dropout p=0", torch.allclose(everything, x), "p = 0 keeps every element as it is")

small = torch.arange(1, 11, dtype=torch.float32, device=DEVICE)
print("input:              ", [round(v, 3) for v in small.tolist()])
for seed in (1, 2):
    print("seed %d, p = 0.5:     " % seed,
          [round(v, 3) for v in seeded_dropout(small, 0.5, seed).tolist()])
sys.exit(1 if failed else 0)
