"""A data-parallel training step under torch.distributed, one process a
device, of a transformer block whose attention and layer norms are Tegula
kernels (torch_ops.attention and .layer_norm: forward and backward kernels
as PyTorch operators, paired by autograd.Functions).

On the host: the gloo backend, each process a CPU "device" with its share
of the batch; DistributedDataParallel averages the gradients across them.
``python distributed_train.py OUT_DIR [WORLD_SIZE] [gloo|nccl]`` runs it,
writes each rank's loss and gradients to OUT_DIR/rank<R>.pt and compares
them with one process's float64 eager PyTorch step on the whole batch
(test_distributed_host.py does so with gloo). With nccl each process takes
CUDA device <local rank> (the GPU machine: not run yet), and WORLD_SIZE
defaults to the number of CUDA devices (torch.cuda.device_count()); the
batch is 4 rows a process, so any world size divides it.

Under torchrun (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT
set) the process is one rank and writes its own file only:
``torchrun --nproc-per-node=N distributed_train.py OUT_DIR N nccl SEED``,
then ``distributed_train.py --check OUT_DIR N nccl SEED`` compares. With
NCCL on a machine without NVLink multicast, set NCCL_NVLS_ENABLE=0."""
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


class Block(torch.nn.Module):
    """A transformer block on [batch, tokens, width]: single-head attention
    (each sequence a "head" of the attention kernel), a residual, a layer
    norm, an MLP, a residual, a layer norm; the attention and the norms by
    |ops| (Tegula's or PyTorch's)."""

    def __init__(self, width, hidden, ops):
        super().__init__()
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)
        self.fc1 = torch.nn.Linear(width, hidden)
        self.fc2 = torch.nn.Linear(hidden, width)
        self.w1 = torch.nn.Parameter(1 + 0.1 * torch.randn(width))
        self.b1 = torch.nn.Parameter(0.1 * torch.randn(width))
        self.w2 = torch.nn.Parameter(1 + 0.1 * torch.randn(width))
        self.b2 = torch.nn.Parameter(0.1 * torch.randn(width))
        self.ops = ops

    def forward(self, x):
        attention, norm = self.ops
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        h = norm(x + self.proj(attention(q, k, v)), self.w1, self.b1)
        return norm(h + self.fc2(torch.nn.functional.gelu(self.fc1(h))), self.w2, self.b2)


def torch_norm(x, w, b):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, 1e-5)


def torch_attention(q, k, v):
    return torch.softmax(q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5, -1) @ v


TORCH_OPS = (torch_attention, torch_norm)


def tegula_ops():
    from torch_ops import attention, layer_norm
    return (attention, lambda x, w, b: layer_norm(x, w, b, 1e-5))


def make(seed, ops, width=32, hidden=64, batch=8, tokens=12):
    """The model, the batch and the targets, the same in every process (the
    batch: 4 rows a process, batch_rows())."""
    torch.manual_seed(seed)
    model = Block(width, hidden, ops)
    x = torch.randn(batch, tokens, width)
    target = torch.randn(batch, tokens, width)
    return model, x, target


def step(model, x, target):
    loss = torch.nn.functional.mse_loss(model(x), target)
    loss.backward()
    return loss


def batch_rows(world_size):
    """The batch of a step of |world_size| processes: 4 rows each, at least 8."""
    return max(8, 4 * world_size)


def worker(rank, world_size, port, seed, out_dir, backend, local_rank=None):
    if port is not None:  # else torchrun set MASTER_ADDR and MASTER_PORT
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(port)
    device = torch.device("cpu")
    if backend == "nccl":  # one CUDA device a process; Tegula launches on its stream
        device = torch.device("cuda", rank if local_rank is None else local_rank)
        torch.cuda.set_device(device)
    dist.init_process_group(backend, rank=rank, world_size=world_size)
    try:
        model, x, target = make(seed, tegula_ops(), batch=batch_rows(world_size))
        model.to(device)
        ddp = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[rank] if device.type == "cuda" else None)
        shard = x.shape[0] // world_size
        rows = slice(rank * shard, (rank + 1) * shard)
        loss = step(ddp, x[rows].to(device), target[rows].to(device))
        grads = {n: p.grad.detach().cpu() for n, p in model.named_parameters()}
        torch.save({"loss": loss.detach().cpu(), "grads": grads},
                   os.path.join(out_dir, "rank%d.pt" % rank))
    finally:
        dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_world_size(backend):
    """nccl: every CUDA device of the machine, one process each; gloo: 2."""
    return torch.cuda.device_count() if backend == "nccl" else 2


def run(out_dir, world_size=2, seed=0, backend="gloo"):
    if backend == "nccl" and world_size > torch.cuda.device_count():
        raise SystemExit("nccl with %d processes needs %d CUDA devices, this machine "
                         "has %d" % (world_size, world_size, torch.cuda.device_count()))
    mp.spawn(worker, args=(world_size, free_port(), seed, out_dir, backend),
             nprocs=world_size, join=True)


def check(out_dir, world_size, seed, backend="gloo"):
    """Each rank's gradients and the mean loss against one process's float64
    eager PyTorch step on the whole batch; AssertionError otherwise."""
    # Relative to the gradient's norm: fp32 against float64 is ~1e-6 on the
    # host; on GPUs tl.dot multiplies fp32 as tf32 by default (as Triton's
    # does), ~1e-4 of the norm.
    bound = 2e-5 if backend == "gloo" else 1e-3
    model, x, target = make(seed, TORCH_OPS, batch=batch_rows(world_size))
    model = model.double()
    loss = step(model, x.double(), target.double())
    expected = {n: p.grad for n, p in model.named_parameters()}
    losses = []
    for rank in range(world_size):
        got = torch.load(os.path.join(out_dir, "rank%d.pt" % rank))
        losses.append(got["loss"].double())
        assert set(got["grads"]) == set(expected)
        for name, grad in got["grads"].items():
            assert not torch.isnan(grad).any(), "rank %d: %s has NaNs" % (rank, name)
            error = ((grad.double() - expected[name]).norm() / expected[name].norm()).item()
            assert error < bound, "rank %d: %s is off by %.2g of its norm" % (rank, name, error)
    # Each rank's loss is over its share of the batch: their mean is the whole batch's.
    torch.testing.assert_close(sum(losses) / world_size, loss.detach(), atol=1e-5, rtol=1e-5)


if __name__ == "__main__":
    argv = sys.argv[1:]
    check_only = argv[:1] == ["--check"]
    if check_only:
        argv = argv[1:]
    out = argv[0]
    backend = argv[2] if len(argv) > 2 else "gloo"
    n = int(argv[1]) if len(argv) > 1 and argv[1] != "auto" else default_world_size(backend)
    seed = int(argv[3]) if len(argv) > 3 else int.from_bytes(os.urandom(4), "little")
    if "LOCAL_RANK" in os.environ and not check_only:  # a rank of torchrun's
        if len(argv) < 4:
            raise SystemExit("under torchrun, give the seed: every rank needs the same")
        worker(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), None, seed, out,
               backend, int(os.environ["LOCAL_RANK"]))
        sys.exit(0)
    if not check_only:
        run(out, n, seed, backend)
    check(out, n, seed, backend)
    print("%d processes, %s: every rank's gradients match one process's eager PyTorch step"
          % (n, backend))
