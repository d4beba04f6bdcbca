"""acl_neon's GGML kernels (module _ggml) at every ISA level this CPU has, with num_threads 1
and 2 (shapes this small run on one thread; the C++ tests, test_ggml.cpp, split one), against
ggml_harness's reference: FULLY_CONNECTED over every row-tile size (1..4 rows and a remainder)
and a depth of many blocks, GATHER; the form it leaves to cpu."""
from __future__ import annotations

import numpy as np
import pytest

from builders.ggml import TYPES, fc_model, gather_model, random_blocks
from ggml_harness import check_fully_connected, gather_rows
from neon_harness import isa_fixture, neon_isas
from onert_py import Session
from op_harness import rand

pytestmark = pytest.mark.skipif(not neon_isas("ggml"),
                                reason="acl_neon's _ggml module is not built")
isa = isa_fixture("ggml")        # the fixture: each ISA level of the native modules


@pytest.mark.parametrize("type_name", TYPES)
def test_ggml_fc_isa_threads(isa, type_name):
    rng = np.random.default_rng(5)
    units, depth = 11, 1024
    w = random_blocks(type_name, (units, depth), rng)
    bias = rand(rng, (units,))
    for rows in (1, 2, 3, 4, 7):
        model = fc_model(type_name, w, units, depth, (rows, depth), (rows, units), bias,
                         fused_activation_function="RELU")
        x = rand(rng, (rows, depth))
        for threads in (1, 2):
            sess = Session(model, backends="acl_neon", config={"num_threads": threads})
            check_fully_connected(sess.run([x])[0], type_name, w, x, bias, "RELU")


@pytest.mark.parametrize("type_name", TYPES)
def test_ggml_gather_threads(type_name):
    params = random_blocks(type_name, (9, 128), np.random.default_rng(6))
    model = gather_model(type_name, params, (9, 128), (5,), (5, 128), axis=0)
    idx = np.array([8, 0, 4, 4, 1], np.int32)
    for threads in (1, 2):
        got = Session(model, backends="acl_neon", config={"num_threads": threads}).run([idx])
        np.testing.assert_array_equal(got[0], gather_rows(type_name, params, list(idx)))


def test_ggml_fc_tanh_runs_on_cpu():
    """acl_neon fuses clamps only: a TANH activation leaves the op to cpu, with the reason."""
    w = random_blocks("GGML_Q4_0", (3, 32), np.random.default_rng(0))
    model = fc_model("GGML_Q4_0", w, 3, 32, (1, 32), (1, 3), fused_activation_function="TANH")
    op = Session(model, backends=["acl_neon", "cpu"]).placement().ops[0]
    assert op.backend == "cpu"
    assert "fuses clamps only, not TANH" in op.refusals["acl_neon"]
