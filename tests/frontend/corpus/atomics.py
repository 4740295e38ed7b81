"""
Atomics
=======

Atomic read-modify-write operations: a float sum with atomic_add, global
maxima and minima, a spin lock built from atomic_cas and atomic_xchg, and
a ticket counter with explicit memory semantics and scope.
"""

import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()

LOCKED = 1
UNLOCKED = 0


@triton.jit
def sum_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n_elements, other=0.0)
    # One atomic per program rather than one per element.
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


@triton.jit
def minmax_kernel(x_ptr, min_ptr, max_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_max(max_ptr + tl.zeros_like(offs), x, mask=mask, sem="relaxed", scope="gpu")
    tl.atomic_min(min_ptr + tl.zeros_like(offs), x, mask=mask, sem="relaxed", scope="gpu")


@triton.jit
def _acquire(lock_ptr):
    while tl.atomic_cas(lock_ptr, UNLOCKED, LOCKED, sem="acquire") == LOCKED:
        pass


@triton.jit
def _release(lock_ptr):
    tl.atomic_xchg(lock_ptr, UNLOCKED, sem="release")


@triton.jit(noinline=True)
def locked_accumulate_kernel(x_ptr, acc_ptr, lock_ptr, n_cols, BLOCK: tl.constexpr):
    """Rows add into one accumulator row under a lock (a deterministic
    alternative to per-element atomics)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    _acquire(lock_ptr)
    acc = tl.load(acc_ptr + cols, mask=mask, other=0.0, volatile=True)
    tl.store(acc_ptr + cols, acc + x, mask=mask)
    tl.debug_barrier()
    _release(lock_ptr)


@triton.jit
def ticket_kernel(counter_ptr, order_ptr):
    pid = tl.program_id(0)
    ticket = tl.atomic_add(counter_ptr, 1, sem="acq_rel", scope="gpu")
    tl.store(order_ptr + ticket, pid)
    done = tl.atomic_or(counter_ptr + 1, 1 << (pid % 32))
    flags = tl.atomic_and(counter_ptr + 2, ~(1 << (pid % 32)))
    tl.atomic_xor(counter_ptr + 3, done ^ flags)


class Accumulator:
    """Host-side helper owning the lock and the output."""

    def __init__(self, n_cols):
        self.acc = torch.zeros(n_cols, device=DEVICE)
        self.lock = torch.zeros(1, device=DEVICE, dtype=torch.int32)

    def add_rows(self, x):
        n_rows, n_cols = x.shape
        locked_accumulate_kernel[(n_rows, )](x, self.acc, self.lock, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return self.acc


def run_all():
    x = torch.randn(4096, device=DEVICE)
    out = torch.zeros(1, device=DEVICE)
    sum_kernel[(triton.cdiv(x.numel(), 512), )](x, out, x.numel(), BLOCK=512)
    torch.testing.assert_close(out[0], x.sum(), atol=1e-3, rtol=1e-3)
    acc = Accumulator(100)
    rows = torch.randn(8, 100, device=DEVICE)
    torch.testing.assert_close(acc.add_rows(rows), rows.sum(0))
    counter = torch.zeros(4, device=DEVICE, dtype=torch.int32)
    order = torch.full((64, ), -1, device=DEVICE, dtype=torch.int32)
    ticket_kernel[(64, )](counter, order)
    assert sorted(order.tolist()) == list(range(64))


if __name__ == "__main__":
    run_all()
