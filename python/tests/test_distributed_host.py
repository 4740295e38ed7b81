"""The data-parallel training step of distributed_train.py, two processes
on the gloo backend, with Tegula's attention and layer norm forward and
backward kernels: each rank's averaged gradients against one process's
eager PyTorch step on the whole batch (float64, PyTorch's softmax attention
and torch.nn.functional.layer_norm).

Runs in the interop venv (scripts/interop-venv.sh), test python.interop."""

import os

import distributed_train  # imports torch: the interop venv has it, a missing torch fails


def test_two_process_gloo_step_matches_single_process(tmp_path):
    seed = int.from_bytes(os.urandom(4), "little")
    distributed_train.run(str(tmp_path), world_size=2, seed=seed, backend="gloo")
    distributed_train.check(str(tmp_path), 2, seed)
