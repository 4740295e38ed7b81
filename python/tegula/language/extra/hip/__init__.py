"""``tl.extra.hip``: only its ``libdevice`` (the functions of
``tl.extra.libdevice``)."""

from . import libdevice  # noqa: F401

__all__ = ["libdevice"]
