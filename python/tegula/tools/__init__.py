"""``triton.tools`` names Tegula has: ``tensor_descriptor.TensorDescriptor``."""
