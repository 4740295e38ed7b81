# A module without @jit functions (for diagnostics-signature.test).
import torch


def host(n):
    return torch.zeros(n)
