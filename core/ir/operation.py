"""Operations of the IR: onert's grouped op type, the builtin it came from, and its params."""
from __future__ import annotations

from typing import Any, Iterator


class Params:
    """Read-only attribute bag of an operation's options (snake_case schema field names)."""

    def __init__(self, values: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "_values", dict(values or {}))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"operation has no parameter {name!r}; it has "
                                 f"{sorted(self._values) or 'none'}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("operation params are read-only")

    def get(self, name: str, default: Any = None) -> Any:
        return self._values.get(name, default)

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"Params({inner})"


class Operation:
    """One node of a graph. `index` is the operator's index in the model file's subgraph
    (operations added by the compiler, such as Permute, get indices past the file's count).

    `type`: onert IR type ("Conv2D", "BinaryArithmetic", "Permute", ...); `builtin`: schema
    builtin name ("CONV_2D", "ADD", "CUSTOM", ...); `inputs`/`outputs`: operand indices, -1 for
    an absent optional input; `subtype`: for grouped types ("ADD", "RELU6", "MEAN", ...);
    `intermediates`: operand indices of the op's intermediate tensors (a quantized LSTM's gate
    scales)."""

    def __init__(self, index: int, type: str, builtin: str, inputs: list[int],
                 outputs: list[int], params: Params | None = None, subtype: str | None = None,
                 custom_code: str | None = None, version: int = 1,
                 intermediates: list[int] | None = None) -> None:
        self.index, self.type, self.builtin = index, type, builtin
        self.inputs, self.outputs = inputs, outputs
        self.params = Params() if params is None else params
        self.subtype, self.custom_code, self.version = subtype, custom_code, version
        self.intermediates = [] if intermediates is None else intermediates

    @property
    def name(self) -> str:
        """What users see: the builtin name, or CUSTOM(<code>)."""
        if self.custom_code is not None:
            return f"CUSTOM({self.custom_code})"
        return self.builtin

    def __repr__(self) -> str:
        return f"#{self.index} {self.type}({self.name}) in={self.inputs} out={self.outputs}"
