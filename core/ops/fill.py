"""FILL (TFLite's fill.cc): inputs (dims, value); the output (of shape dims, which the shape
rule put in the output's shape) holds value everywhere."""
from __future__ import annotations

from .movement import MoveKernel


class FillBase(MoveKernel):
    data = 1
    index_inputs = (0,)


__all__ = ["FillBase"]
