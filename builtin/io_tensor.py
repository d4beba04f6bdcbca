"""IOTensor: a builtin tensor wrapping the user's input or output array for one run."""
from __future__ import annotations

import numpy as np

from ..core.backend import HostTensor


class IOTensor(HostTensor):
    """The buffer is the user's array, bound by the session (or an If/While calling the
    subgraph) before each run. Host backends' kernels may use it directly (lowering's shared
    crossings): native steps follow its slot, and a Python kernel that keeps views of it is
    prepared again when it is rebound (`rebinds`, core/exec/executor.py Rebinding). Until
    the first run it holds a zeroed placeholder of its compile-time shape, which kernels
    prepare against."""

    rebinds = True

    def placeholder(self) -> None:
        """The zeroed stand-in buffer kernels prepare against before the first run (called
        by the builtin context once the tensor passed the size checks)."""
        if (self._buffer is None and not self.is_dynamic and self.dtype is not None
                and self.dtype.kind != "O"):
            self.set_buffer(np.zeros(self.shape, self.dtype))

    def bind_user(self, array: np.ndarray) -> None:
        self.set_buffer(array)
        self.shape = array.shape
