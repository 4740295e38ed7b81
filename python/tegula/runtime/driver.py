"""``triton.runtime.driver``: ``driver.active``, the backend of the current
device, with Triton's methods (``get_current_device``,
``get_active_torch_device``, ``get_current_stream``, ``get_current_target``,
``utils.get_device_properties`` ...) answered from Tegula's devices.

The current device is ``tegula.default_device()`` (the first device that is
not the host CPU, else the host) until ``set_current_device`` picks another.
Device indices are those of the current device's backend: on ``nvidia``
index 1 is ``nvidia:1``, as CUDA numbers it.
"""

import collections

__all__ = ["driver", "DriverConfig", "TegulaDriver", "GPUTarget"]

#: Triton's GPUTarget: backend ("cuda", "hip" for nvidia and amd devices,
#: the Tegula backend's name otherwise), arch, warp size.
GPUTarget = collections.namedtuple("GPUTarget", ["backend", "arch", "warp_size"])

_TRITON_BACKEND = {"nvidia": "cuda", "amd": "hip"}

# 32-bit registers per block (CUDA's regsPerBlock, HIP's too) on every
# architecture these backends target; the plugins do not report it.
_REGS_PER_BLOCK = {"nvidia": 65536, "amd": 65536}


def _tegula():
    import tegula
    return tegula


def _index(device):
    return int(device.name.rsplit(":", 1)[1])


class _Utils:
    """``driver.active.utils``."""

    def __init__(self, drv):
        self._driver = drv

    def get_device_properties(self, device=None):
        """Triton's property dict of |device| (an index of the current
        backend, a tegula.Device, a device name, a torch device; None: the
        current device): ``multiprocessor_count`` (compute units),
        ``max_shared_mem`` (bytes per block), ``max_num_regs`` (registers per
        block; None where unknown, as on the host), ``warpSize``,
        ``sm_clock_rate`` and ``mem_clock_rate`` (kHz), ``mem_bus_width``
        (None: not reported), and Tegula's own: ``max_threads_per_block``,
        ``global_memory``, ``matrix_units``, ``arch``, ``name``, ``backend``,
        ``device`` (the tegula.Device)."""
        dev = self._driver._resolve(device)
        p = dev.properties
        return {
            "multiprocessor_count": p.get("compute_units"),
            "max_shared_mem": p.get("shared_memory_per_block"),
            "max_num_regs": _REGS_PER_BLOCK.get(dev.backend),
            "warpSize": p.get("warp_size"),
            "sm_clock_rate": p.get("clock_khz"),
            "mem_clock_rate": p.get("memory_clock_khz"),
            "mem_bus_width": None,
            "max_threads_per_block": p.get("max_threads_per_block"),
            "global_memory": p.get("global_memory"),
            "matrix_units": p.get("matrix_units"),
            "arch": p.get("arch"),
            "name": p.get("name"),
            "backend": dev.backend,
            "device": dev,
        }


class _DeviceInterface:
    """``get_device_interface()`` where torch's CUDA is not the answer: the
    calls Triton makes of ``torch.cuda`` (events, synchronize, the current
    device), over Tegula. Work on the NULL stream is complete when its call
    returns, so ``synchronize`` has nothing to wait for and events read the
    wall clock."""

    def __init__(self, drv):
        self._driver = drv

    @property
    def Event(self):
        from ..testing import _WallEvent
        return _WallEvent

    def synchronize(self, device=None):
        pass

    def current_device(self):
        return self._driver.get_current_device()

    def set_device(self, device):
        self._driver.set_current_device(device)

    def device_count(self):
        dev = self._driver.get_current_tegula_device()
        return sum(1 for d in dev.runtime.devices if d.backend == dev.backend)

    def is_available(self):
        return True


class TegulaDriver:
    """``driver.active``: answers for the current device."""

    def __init__(self):
        self._device = None
        self.utils = _Utils(self)

    # -- the current device --------------------------------------------------

    def get_current_tegula_device(self):
        """The current tegula.Device."""
        if self._device is not None and self._device.runtime._handle is not None:
            return self._device
        return _tegula().default_device()

    def _resolve(self, device):
        """A tegula.Device from an index, a Device, a name or a torch device."""
        tg = _tegula()
        if device is None:
            return self.get_current_tegula_device()
        if isinstance(device, tg.Device):
            return device
        if isinstance(device, str):
            if ":" not in device:  # "cuda", "cpu": torch's names
                device = {"cuda": "nvidia:0", "cpu": "host:0"}.get(device, device + ":0")
            elif device.startswith("cuda:"):
                device = "nvidia:" + device.split(":", 1)[1]
            return tg.runtime().find_device(device)
        torch_type = getattr(device, "type", None)
        if isinstance(torch_type, str):  # a torch.device
            index = getattr(device, "index", None)
            return self._resolve("%s:%d" % (torch_type, index or 0))
        if isinstance(device, int) and not isinstance(device, bool):
            backend = self.get_current_tegula_device().backend
            return tg.runtime().find_device("%s:%d" % (backend, device))
        raise TypeError("a device is an index, a tegula.Device, a device name or a torch "
                        "device, not %r" % (device,))

    def set_current_device(self, device):
        """Makes |device| (see _resolve) the current device."""
        self._device = self._resolve(device)

    def get_current_device(self):
        """The current device's index in its backend (Triton: the CUDA
        ordinal)."""
        return _index(self.get_current_tegula_device())

    @property
    def backend(self):
        """Triton's backend name of the current device ("cuda", "hip", or
        the Tegula backend's name: "host", "intel", ...)."""
        b = self.get_current_tegula_device().backend
        return _TRITON_BACKEND.get(b, b)

    def get_current_target(self):
        dev = self.get_current_tegula_device()
        b = dev.backend
        return GPUTarget(_TRITON_BACKEND.get(b, b), dev.arch, dev.warp_size)

    def get_active_torch_device(self):
        """torch.device of the current device where torch is installed
        ("cuda:N" for a GPU of torch's backend, "cpu" for the host), else
        the tegula.Device itself."""
        dev = self.get_current_tegula_device()
        try:
            import torch
        except ImportError:
            return dev
        from .._interop import _torch_gpu_backend
        if dev.backend == _torch_gpu_backend():
            return torch.device("cuda", _index(dev))
        if dev.host_memory:
            return torch.device("cpu")
        return dev

    def get_current_stream(self, device=None):
        """torch's current CUDA stream handle (an int) where the device is a
        GPU of torch's backend and torch is imported; else None, which as
        ``stream=`` means the NULL stream (a native handle of 0 would need a
        plugin that wraps native streams)."""
        dev = self._resolve(device)
        from .. import _interop
        if _interop._torch() is not None and dev.backend == _interop._torch_gpu_backend():
            return _interop.torch_current_stream(_index(dev))
        return None

    def get_device_interface(self):
        """torch.cuda where it drives the current device, else an object with
        the same calls over Tegula (_DeviceInterface)."""
        from .. import testing
        torch = testing._torch_cuda()
        return torch.cuda if torch is not None else _DeviceInterface(self)

    def get_benchmarker(self):
        from .. import testing
        return testing.do_bench

    def get_empty_cache_for_benchmark(self):
        from .. import testing
        return testing._empty_cache(testing._torch_cuda())

    def clear_cache(self, cache):
        cache.zero_()

    @staticmethod
    def is_active():
        return True

    def __repr__(self):
        try:
            name = self.get_current_tegula_device().name
        except Exception as e:  # no device
            name = "no device: %s" % (e,)
        return "<tegula.runtime.driver.active (%s)>" % name


class DriverConfig:
    """``driver``: ``active`` (made on first use), ``default``,
    ``set_active``, ``reset_active``."""

    def __init__(self):
        self.default = None
        self._active = None

    @property
    def active(self):
        if self._active is None:
            if self.default is None:
                self.default = TegulaDriver()
            self._active = self.default
        return self._active

    def set_active(self, driver):
        self._active = driver

    def reset_active(self):
        self._active = None


driver = DriverConfig()
