"""acl_cl's quantized FullyConnected against the interpreter, bit-exact, on the builders of
tests/ops/test_q_fc.py (int8 per-tensor and per-channel, uint8 with zero points, ties)."""
from __future__ import annotations

import numpy as np
import pytest

from builders.qfc import DT_ZPS, GRID, REALS, case_8bit, fc_model, make_case
from quant_harness import check_qop


pytestmark = pytest.mark.usefixtures("cl_ready")   # skip where no OpenCL device builds


def _check_on_cl(model, x):
    import onert_py
    with onert_py.Session(model, backends="acl_cl") as s:     # no cpu: it must run on acl_cl
        assert "acl_cl" in s.placement().used_backends
    check_qop(model, [x], backends="acl_cl")


@pytest.mark.parametrize("dt,zps", DT_ZPS)
@pytest.mark.parametrize("shape", GRID, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("real", REALS)
def test_q_fc_8bit_acl_cl(dt, zps, shape, real):
    _check_on_cl(*case_8bit(dt, zps, shape, real))


@pytest.mark.parametrize("real", REALS)
@pytest.mark.parametrize("act", ["RELU", "RELU6"])
def test_q_fc_int8_per_channel_acl_cl(real, act):
    rng = np.random.default_rng(7)
    x, w, ws, b, ys = make_case(rng, "int8", 33, 40, 19, real, (2, 0, -1), per_channel=True,
                                small=False)
    model = fc_model(x.shape, "int8", 2, w, ws, 0, b, (33, 19), "int8", ys, -1,
                     fused_activation_function=act)
    _check_on_cl(model, x)
