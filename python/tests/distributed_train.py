"""A data-parallel training step under torch.distributed, one process a
device, whose layer norms are Tegula kernels (torch_ops.layer_norm: forward
and backward kernels as PyTorch operators, paired by an autograd.Function).

On the host: the gloo backend, each process a CPU "device" with its share
of the batch; DistributedDataParallel averages the gradients across them.
``python distributed_train.py OUT_DIR [WORLD_SIZE]`` runs it and writes each
rank's loss and gradients to OUT_DIR/rank<R>.pt (test_distributed_host.py
compares them with one process's eager PyTorch step on the whole batch)."""
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


class Block(torch.nn.Module):
    """Linear -> layer norm -> GELU -> linear -> layer norm, the norms by
    |norm| (Tegula's or PyTorch's)."""

    def __init__(self, d_in, d_hidden, norm):
        super().__init__()
        self.fc1 = torch.nn.Linear(d_in, d_hidden)
        self.fc2 = torch.nn.Linear(d_hidden, d_in)
        self.w1 = torch.nn.Parameter(1 + 0.1 * torch.randn(d_hidden))
        self.b1 = torch.nn.Parameter(0.1 * torch.randn(d_hidden))
        self.w2 = torch.nn.Parameter(1 + 0.1 * torch.randn(d_in))
        self.b2 = torch.nn.Parameter(0.1 * torch.randn(d_in))
        self.norm = norm

    def forward(self, x):
        h = torch.nn.functional.gelu(self.norm(self.fc1(x), self.w1, self.b1))
        return self.norm(self.fc2(h) + x, self.w2, self.b2)


def torch_norm(x, w, b):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, 1e-5)


def make(seed, norm, d_in=48, d_hidden=96, batch=32):
    """The model, the batch and the targets, the same in every process."""
    torch.manual_seed(seed)
    model = Block(d_in, d_hidden, norm)
    x = torch.randn(batch, d_in)
    target = torch.randn(batch, d_in)
    return model, x, target


def step(model, x, target):
    loss = torch.nn.functional.mse_loss(model(x), target)
    loss.backward()
    return loss


def worker(rank, world_size, port, seed, out_dir):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    try:
        from torch_ops import layer_norm
        model, x, target = make(seed, lambda x, w, b: layer_norm(x, w, b, 1e-5))
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        shard = x.shape[0] // world_size
        rows = slice(rank * shard, (rank + 1) * shard)
        loss = step(ddp, x[rows], target[rows])
        grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
        torch.save({"loss": loss.detach(), "grads": grads},
                   os.path.join(out_dir, "rank%d.pt" % rank))
    finally:
        dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(out_dir, world_size=2, seed=0):
    mp.spawn(worker, args=(world_size, free_port(), seed, out_dir), nprocs=world_size,
             join=True)


if __name__ == "__main__":
    run(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2)
