"""The data-parallel training step of distributed_train.py, two processes
on the gloo backend, with Tegula's attention and layer norm forward and
backward kernels: each rank's averaged gradients against one process's
eager PyTorch step on the whole batch (float64, PyTorch's softmax attention
and torch.nn.functional.layer_norm).

Runs in the interop venv (scripts/interop-venv.sh), test python.interop."""

import os

import pytest

import torch  # noqa: E402  (the interop venv has it: a missing torch fails)

import distributed_train  # noqa: E402


def test_two_process_gloo_step_matches_single_process(tmp_path):
    seed = int.from_bytes(os.urandom(4), "little")
    distributed_train.run(str(tmp_path), world_size=2, seed=seed)

    model, x, target = distributed_train.make(seed, distributed_train.TORCH_OPS)
    model = model.double()
    loss = distributed_train.step(model, x.double(), target.double())
    expected = {n: p.grad for n, p in model.named_parameters()}

    losses = []
    for rank in range(2):
        got = torch.load(str(tmp_path / ("rank%d.pt" % rank)))
        losses.append(got["loss"].double())
        assert set(got["grads"]) == set(expected)
        for name, grad in got["grads"].items():
            assert not torch.isnan(grad).any(), name
            torch.testing.assert_close(grad.double(), expected[name], atol=2e-5, rtol=1e-4,
                                       msg=lambda m, name=name: "%s: %s" % (name, m))
    # Each rank's loss is over its half of the batch: their mean is the whole batch's.
    torch.testing.assert_close(sum(losses) / 2, loss.detach(), atol=1e-5, rtol=1e-5)
