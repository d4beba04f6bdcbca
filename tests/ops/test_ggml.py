"""Circle's GGML block-quantized weights (GGML_Q4_0, GGML_Q4_1, GGML_Q8_0, GGML_Q8_1) as
onert's cpu backend runs them: FULLY_CONNECTED weights and GATHER params, on every backend,
against the plain-loop reference of ggml_harness (written from GGML's definitions); the block
layout pinned by hand-made blocks; malformed models refused at load or compile."""
from __future__ import annotations

import struct

import numpy as np
import pytest

import onert_py
from builders.ggml import LAYOUT, TYPES, fc_model, gather_model, random_blocks
from ggml_harness import check_fully_connected, gather_rows
from onert_py.core.quant import ggml_blocks
from onert_py.model_builder import ModelBuilder
from op_harness import open_session, rand, run_onert


def tie_block() -> np.ndarray:
    """A block whose quantization has exact halves (d = 1: 0.5, -2.5, 3.5, ...): GGML's NEON
    quantizer rounds them to even, its scalar reference would round them away from zero."""
    x = np.zeros(32, np.float32)
    x[:8] = [127, 0.5, -2.5, 3.5, -0.5, 1.5, 100.5, -126.5]
    return x


@pytest.mark.parametrize("type_name", TYPES)
def test_ggml_fully_connected(backend, type_name, rng):
    units, depth = 7, 96                                  # 3 blocks a row: an odd count
    w = random_blocks(type_name, (units, depth), rng)
    # one row: the mat-vec kernel; five rows with bias and a clamp: 4 + 1 rows of a tile
    model = fc_model(type_name, w, units, depth, (1, depth), (1, units))
    x = rand(rng, (1, depth))
    check_fully_connected(run_onert(model, [x], backend)[0], type_name, w, x, None)
    bias = rand(rng, (units,))
    model = fc_model(type_name, w, units, depth, (5, 2, 48), (5, units), bias,
                     fused_activation_function="RELU6")
    x = rand(rng, (5, 2, 48), low=-3, high=3)
    x[0, 0, :32] = tie_block()
    check_fully_connected(run_onert(model, [x], backend)[0], type_name, w, x, bias, "RELU6")
    # a long row: 128 blocks
    w = random_blocks(type_name, (11, 4096), rng)
    model = fc_model(type_name, w, 11, 4096, (1, 4096), (1, 11))
    x = rand(rng, (1, 4096))
    check_fully_connected(run_onert(model, [x], backend)[0], type_name, w, x, None)


@pytest.mark.parametrize("type_name", TYPES)
def test_ggml_gather(backend, type_name, rng):
    params = random_blocks(type_name, (6, 64), rng)
    model = gather_model(type_name, params, (6, 64), (4,), (4, 64), axis=0)
    idx = np.array([5, 0, 3, 3], np.int32)
    got = run_onert(model, [idx], backend)[0]
    np.testing.assert_array_equal(got, gather_rows(type_name, params, list(idx)))
    # rank 3, axis 1, int64 indices sharing the batch dimension
    params = random_blocks(type_name, (2, 3, 32), rng)
    model = gather_model(type_name, params, (2, 3, 32), (2, 2), (2, 2, 32), "int64", axis=1,
                         batch_dims=1)
    idx = np.array([[2, 0], [1, 1]], np.int64)
    got = run_onert(model, [idx], backend)[0]
    flat = params.reshape(6, -1)
    want = [gather_rows(type_name, flat, [3 * b + int(i) for i in idx[b]]) for b in range(2)]
    np.testing.assert_array_equal(got, np.stack(want))


def test_ggml_block_layout():
    """Hand-made blocks: value j in the low nibble of byte j, j + 16 in its high nibble."""
    qs = bytes((j & 0x0F) | ((15 - j) << 4) for j in range(16))
    q4_0 = struct.pack("<e", 0.5) + qs
    q4_1 = struct.pack("<ee", 0.25, -1.0) + qs
    q8 = bytes(range(-16, 16)[k] & 0xFF for k in range(32))
    q8_0, q8_1 = struct.pack("<e", 2.0) + q8, struct.pack("<ee", 0.5, 123.0) + q8
    nibbles = np.array(list(range(16)) + [15 - j for j in range(16)], np.float32)
    want = {"GGML_Q4_0": (nibbles - 8) * 0.5, "GGML_Q4_1": nibbles * 0.25 - 1.0,
            "GGML_Q8_0": np.arange(-16, 16) * 2.0, "GGML_Q8_1": np.arange(-16, 16) * 0.5}
    for name, blk in (("GGML_Q4_0", q4_0), ("GGML_Q4_1", q4_1), ("GGML_Q8_0", q8_0),
                      ("GGML_Q8_1", q8_1)):
        fmt = ggml_blocks.block_format(name)
        assert len(blk) == fmt.block_bytes == LAYOUT[name][0]
        got = ggml_blocks.dequantize(fmt, np.frombuffer(blk, np.uint8)[None])
        np.testing.assert_array_equal(got[0], want[name].astype(np.float32), err_msg=name)


@pytest.mark.parametrize("type_name", TYPES)
def test_ggml_quantize_round_trip(type_name, rng):
    """GGML's reference quantizers (ggml_blocks.quantize, used to write models) keep every
    value within half a step (Q4_0: one step at the block's largest value's far end)."""
    x = rand(rng, (3, 64), low=-4, high=4)
    fmt = ggml_blocks.block_format(type_name)
    blocks = ggml_blocks.quantize(fmt, x)
    assert blocks.shape == (3, 2 * fmt.block_bytes)
    back = gather_rows(type_name, blocks, [0, 1, 2])         # the reference's dequantization
    np.testing.assert_array_equal(back, ggml_blocks.dequantize(fmt, blocks))
    step = np.ptp(x.reshape(3, 2, 32), axis=-1) / (15 if fmt.bits == 4 else 254)
    err = np.abs(back - x).reshape(3, 2, 32).max(axis=-1)
    assert (err <= step * (1.01 if fmt.bits == 8 or fmt.second else 2.01)).all()


# ---- malformed models ---------------------------------------------------------------------
def fc_bytes(type_name: str, nbytes: int, depth: int = 64) -> bytes:
    return fc_model(type_name, np.zeros(nbytes, np.uint8), 2, depth, (1, depth), (1, 2))


@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("delta", [-1, 1])
def test_neg_ggml_buffer_size(type_name, delta):
    need = 2 * 2 * LAYOUT[type_name][0]                      # [2, 64]: 2 rows of 2 blocks
    with pytest.raises(onert_py.ModelLoadError, match=f"{need} bytes"):
        onert_py.Session(fc_bytes(type_name, need + delta))


def test_neg_ggml_depth_not_whole_blocks():
    with pytest.raises(onert_py.ModelLoadError, match="not a multiple of 32"):
        onert_py.Session(fc_bytes("GGML_Q4_0", 2 * 18, depth=40))


def test_neg_ggml_outside_fc_and_gather():
    b = ModelBuilder("circle")
    x = b.add_input("x", (1, 32))
    w = b.add_blocks("w", random_blocks("GGML_Q8_0", (1, 32), np.random.default_rng(0)),
                     "GGML_Q8_0", (1, 32))
    y = b.add_tensor("y", (1, 32))
    b.add_op("ADD", [x, w], [y])
    b.add_output(y)
    with pytest.raises(onert_py.ModelLoadError,
                       match="ADD.*as input 1.*FULLY_CONNECTED weights .input 1. and GATHER"):
        onert_py.Session(b.build())


def test_neg_ggml_graph_input():
    b = ModelBuilder("circle")
    w = b.add_input("w", (2, 32), "GGML_Q4_0")
    i = b.add_input("i", (1,), "int32")
    y = b.add_tensor("y", (1, 32))
    b.add_op("GATHER", [w, i], [y])
    b.add_output(y)
    with pytest.raises(onert_py.ModelLoadError, match="no data .GGML block-quantized tensors "
                                                      "are constants"):
        onert_py.Session(b.build())


def test_neg_ggml_gather_along_blocks():
    """Gathering single values out of the blocks is not a form any backend runs."""
    params = random_blocks("GGML_Q4_0", (2, 64), np.random.default_rng(0))
    model = gather_model("GGML_Q4_0", params, (2, 64), (3,), (2, 3), axis=1)
    with pytest.raises(onert_py.CompileError, match="cpu: GGML Gather cannot gather along "
                                                    "the last axis of GGML_Q4_0 params"):
        onert_py.Session(model, backends=["acl_neon", "cpu"])


def test_neg_ggml_gather_index_out_of_range(backend):
    params = random_blocks("GGML_Q8_0", (4, 32), np.random.default_rng(0))
    model = gather_model("GGML_Q8_0", params, (4, 32), (2,), (2, 32))
    sess = open_session(model, backend)
    with pytest.raises(onert_py.ExecutionError, match="out of range"):
        sess.run([np.array([1, 4], np.int32)])
