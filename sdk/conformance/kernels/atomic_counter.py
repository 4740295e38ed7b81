# tegula: --kernel atomic_counter --signature "*i32:16, *i32:16, *i32:16, i32, i32, 64"
"""Atomics under contention: every program takes a ticket from one counter
(tickets[pid] = the counter's old value, so the tickets are a permutation of
the program ids) and adds 1 to bins[i % n_bins] for each of its elements
i < n, every program hitting the same few bins."""
import triton
import triton.language as tl


@triton.jit
def atomic_counter(counter_ptr, tickets_ptr, bins_ptr, n, n_bins,
                   BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    ticket = tl.atomic_add(counter_ptr, 1)
    tl.store(tickets_ptr + pid, ticket)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    ones = tl.full((BLOCK,), 1, tl.int32)
    tl.atomic_add(bins_ptr + offsets % n_bins, ones, mask=offsets < n)
