"""Tegula kernels as PyTorch operators on the host CPU (tegula.torch,
docs/torch.md): eager results, torch.compile(fullgraph=True), torch.export
round trips and autograd, each against PyTorch's own float64 computation
on fresh random inputs, the Tegula outputs poisoned (NaN) first.

Runs in the interop venv (scripts/interop-venv.sh), test python.interop."""

import os
import subprocess
import sys

import pytest

import torch  # noqa: E402  (the interop venv has it: a missing torch fails)

import tegula  # noqa: E402
import torch_ops  # noqa: E402
from kernels.interop_kernels import scaled_add as scaled_add_kernel  # noqa: E402
from torch_ops import attention, layer_norm, layer_norm_fwd_op, scaled_add  # noqa: E402

torch_ops.POISON = True


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(int.from_bytes(os.urandom(8), "little"))


def ref_layer_norm(x, w, b, eps=1e-5):
    x, w, b = x.double(), w.double(), b.double()
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w + b


def close(actual, expected, tol=1e-4):
    assert not torch.isnan(actual).any(), "an output element was never written"
    torch.testing.assert_close(actual.double(), expected.double(), atol=tol, rtol=tol)


def test_scaled_add_eager(gen):
    x = torch.randn(3000, generator=gen)
    y = torch.randn(3000, generator=gen)
    close(scaled_add(x, y, 0.25), x.double() + 0.25 * y.double())
    close(torch.ops.tegula_demo.scaled_add(x, y, -2.0), x.double() - 2.0 * y.double())


@pytest.mark.parametrize("shape", [(37, 300), (2, 5, 64)])
def test_layer_norm_forward_and_backward(gen, shape):
    x = torch.randn(*shape, generator=gen, requires_grad=True)
    w = torch.randn(shape[-1], generator=gen, requires_grad=True)
    b = torch.randn(shape[-1], generator=gen, requires_grad=True)
    y = layer_norm(x, w, b)
    ref = ref_layer_norm(x, w, b)
    close(y, ref, tol=2e-5)
    dy = torch.randn(*shape, generator=gen)
    grads = torch.autograd.grad(y, (x, w, b), dy)
    expected = torch.autograd.grad(ref, (x, w, b), dy.double())
    for g, e in zip(grads, expected):
        close(g, e, tol=2e-5)


@pytest.mark.parametrize("heads,tokens,dim", [(3, 13, 16), (2, 32, 32)])
def test_attention_forward_and_backward(gen, heads, tokens, dim):
    q, k, v = (torch.randn(heads, tokens, dim, generator=gen, requires_grad=True)
               for _ in range(3))
    out = attention(q, k, v)
    qd, kd, vd = (t.double() for t in (q, k, v))
    ref = torch.softmax(qd @ kd.transpose(-1, -2) * dim ** -0.5, -1) @ vd
    close(out, ref, tol=1e-5)
    do = torch.randn(heads, tokens, dim, generator=gen)
    for g, e in zip(torch.autograd.grad(out, (q, k, v), do),
                    torch.autograd.grad(ref, (q, k, v), do.double())):
        close(g, e, tol=1e-5)


def test_opcheck():
    """PyTorch's own checks of a custom operator: schema, fake tensor,
    autograd registration, AOT dispatch."""
    x, y = torch.randn(100), torch.randn(100)
    torch.library.opcheck(torch.ops.tegula_demo.scaled_add.default, (x, y, 3.0))
    torch.library.opcheck(torch.ops.tegula_demo.layer_norm_fwd.default,
                          (torch.randn(7, 33), torch.randn(33), torch.randn(33), 1e-5))
    torch.library.opcheck(torch.ops.tegula_demo.attention_fwd.default,
                          (torch.randn(2, 10, 16), torch.randn(2, 10, 16),
                           torch.randn(2, 10, 16), 0.25))


def program(x, y, w, b):
    """Two Tegula operators with PyTorch operations between them."""
    h = scaled_add(x, torch.tanh(y), 0.5)
    return layer_norm_fwd_op(h * 2.0, w, b, 1e-5)[0].relu()


def reference_program(x, y, w, b):
    h = x.double() + 0.5 * torch.tanh(y.double())
    return ref_layer_norm(h * 2.0, w, b).relu()


def test_compile_fullgraph_matches_eager(gen):
    torch._dynamo.reset()
    compiled = torch.compile(program, fullgraph=True)  # inductor, C++ on the CPU
    for _ in range(2):  # the second call reuses the compiled graph, fresh inputs
        x = torch.randn(16, 200, generator=gen)
        y = torch.randn(16, 200, generator=gen)
        w, b = torch.randn(200, generator=gen), torch.randn(200, generator=gen)
        close(compiled(x, y, w, b), reference_program(x, y, w, b))
        torch.testing.assert_close(compiled(x, y, w, b), program(x, y, w, b))


def test_compile_fullgraph_training_step(gen):
    """Forward and backward through the autograd.Function under
    torch.compile(fullgraph=True)."""
    torch._dynamo.reset()

    def loss_fn(x, w, b, target):
        return ((layer_norm(x, w, b) - target) ** 2).mean()

    x = torch.randn(24, 96, generator=gen, requires_grad=True)
    w = torch.randn(96, generator=gen, requires_grad=True)
    b = torch.randn(96, generator=gen, requires_grad=True)
    target = torch.randn(24, 96, generator=gen)
    compiled = torch.compile(loss_fn, fullgraph=True, backend="aot_eager")
    loss = compiled(x, w, b, target)
    loss.backward()
    ref_loss = ((ref_layer_norm(x, w, b) - target.double()) ** 2).mean()
    close(loss, ref_loss, tol=1e-5)
    for g, e in zip((x.grad, w.grad, b.grad), torch.autograd.grad(ref_loss, (x, w, b))):
        close(g, e, tol=1e-5)


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(n))
        self.b = torch.nn.Parameter(torch.randn(n))

    def forward(self, x, y):
        return program(x, y, self.w, self.b)


def test_export_round_trip(gen, tmp_path):
    """torch.export keeps the Tegula operators; the saved program loads and
    runs in a fresh process that registers them (imports torch_ops)."""
    model = Model(128)
    x = torch.randn(8, 128, generator=gen)
    y = torch.randn(8, 128, generator=gen)
    ep = torch.export.export(model, (x, y))
    targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert "tegula_demo.scaled_add.default" in targets, targets
    assert "tegula_demo.layer_norm_fwd.default" in targets, targets
    with torch.no_grad():
        expected = reference_program(x, y, model.w, model.b)
    close(ep.module()(x, y), expected)

    path = tmp_path / "program.pt2"
    torch.export.save(ep, str(path))
    x2 = torch.randn(8, 128, generator=gen)
    y2 = torch.randn(8, 128, generator=gen)
    torch.save({"x": x2, "y": y2}, str(tmp_path / "inputs.pt"))
    script = (
        "import sys, torch\n"
        "sys.path.insert(0, %r)\n"
        "import torch_ops\n"
        "torch_ops.POISON = True\n"
        "ep = torch.export.load(%r)\n"
        "a = torch.load(%r)\n"
        "torch.save(ep.module()(a['x'], a['y']), %r)\n"
        % (os.path.dirname(os.path.abspath(__file__)), str(path),
           str(tmp_path / "inputs.pt"), str(tmp_path / "out.pt")))
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    with torch.no_grad():
        close(torch.load(str(tmp_path / "out.pt")), reference_program(x2, y2, model.w, model.b))


def test_tensors_on_different_devices_are_refused():
    x = torch.randn(10)
    with pytest.raises(ValueError, match=r"tegula_demo::scaled_add: all tensors must be on "
                       r"one device, got x on cpu, y on meta"):
        scaled_add(x, torch.empty(10, device="meta"), 1.0)


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="one shape and dtype"):
        scaled_add(torch.randn(10), torch.randn(11), 1.0)


def test_tegula_buffer_to_torch_by_dlpack(gen):
    """DLPack, Tegula to PyTorch: torch.from_dlpack of a tegula.Buffer is
    a view of its memory (no copy): a kernel writing the Buffer later
    changes the tensor."""
    buf = tegula.empty((300,), "float32", device=tegula.device("host:0"))
    view = torch.from_dlpack(buf)
    assert view.shape == (300,) and view.dtype == torch.float32
    view.fill_(float("nan"))
    x, y = torch.randn(300, generator=gen), torch.randn(300, generator=gen)
    scaled_add_kernel[(1,)](x, y, buf, 300, 0.5, BLOCK=512)
    close(view, x.double() + 0.5 * y.double())
