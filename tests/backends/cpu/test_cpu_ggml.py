"""cpu's GGML FULLY_CONNECTED taking its weights a chunk of units at a time (CHUNK_BYTES made
small so that 7 units take 4 chunks), against ggml_harness's reference."""
from __future__ import annotations

import numpy as np
import pytest

from builders.ggml import TYPES, fc_model, random_blocks
from ggml_harness import check_fully_connected
from onert_py.backends.cpu.ops import ggml as cpu_ggml
from op_harness import rand, run_onert


@pytest.mark.parametrize("type_name", TYPES)
def test_ggml_fc_in_chunks(monkeypatch, type_name, rng):
    units, depth, rows = 7, 96, 3
    monkeypatch.setattr(cpu_ggml, "CHUNK_BYTES", 2 * depth // 32 * (32 + rows) * 4)
    w = random_blocks(type_name, (units, depth), rng)
    bias = rand(rng, (units,))
    model = fc_model(type_name, w, units, depth, (rows, depth), (rows, units), bias)
    x = rand(rng, (rows, depth))
    check_fully_connected(run_onert(model, [x], "cpu")[0], type_name, w, x, bias)
