"""The server's tensor limits, held to by every tensor this process sends: one over them never crosses the pipe.

The engine names them in `init` (`{"maxTensorElements": n, "maxBodyBytes": m}`, or null for none): the same limits
the server holds a client's input tensors to, by the same names, so a refusal reads as the server's own do.
"""

from .errors import TritonModelException


class OverLimit(TritonModelException):
    """A tensor over one of the server's limits; its message names the tensor, its size and the limit."""


class TensorLimits:
    def __init__(self):
        self.max_elements = None
        self.max_bytes = None

    def set(self, limits):
        """Takes the `limits` of the init frame (None: no limits)."""
        limits = limits or {}
        self.max_elements = limits.get("maxTensorElements")
        self.max_bytes = limits.get("maxBodyBytes")

    def wire(self, tensors, describe):
        """The tensors' wire forms, in order; raises OverLimit for the first one over a limit.

        The element count is checked before a tensor is serialised (BYTES elements would be copied first), the
        serialised size after. `describe(name)` names a tensor in the message, e.g. "output 'Y' of model 'm'".
        """
        out = []
        for tensor in tensors:
            if self.max_elements is not None:
                count = tensor.as_numpy().size
                if count > self.max_elements:
                    raise OverLimit(f"{describe(tensor.name())} has {count} elements, "
                                    f"over the limit maxTensorElements={self.max_elements}")
            wire = tensor._to_wire()
            if self.max_bytes is not None:
                nbytes = memoryview(wire[3]).nbytes
                if nbytes > self.max_bytes:
                    raise OverLimit(f"{describe(tensor.name())} has {nbytes} bytes, "
                                    f"over the limit maxBodyBytes={self.max_bytes}")
            out.append(wire)
        return out
