"""acl_neon's 8-bit quantized kernels against the TFLite interpreter, bit-exact: the quantized
op tests' model builders (tests/ops/test_q_*.py) run on acl_neon (with cpu behind it; a test
whose op acl_neon did not take is skipped by op_harness), at every instruction-set level and
with 1 and 2 threads."""
from __future__ import annotations

import numpy as np
import pytest

import neon_harness
from builders.qconv import CONV, DEPTHWISE, qconv_model
from neon_harness import ISAS, check_threads
from onert_py import Session
from oracle import tflite_run
from quant_harness import assert_close_int, check_qop

pytestmark = pytest.mark.skipif(not ISAS, reason="acl_neon's _quant module is not built")
isa = neon_harness.isa          # the fixture: each ISA level of the native modules
FORMS8 = ["int8", "int8pt", "uint8"]


@pytest.mark.parametrize("form", FORMS8)
@pytest.mark.parametrize("case", list(CONV))
def test_conv2d(form, case):
    xs, ws, stride, dil, padding, act = CONV[case]
    check_qop(*_model("CONV_2D", form, xs, ws, stride, dil, padding, act), backends="acl_neon")


@pytest.mark.parametrize("form", FORMS8)
@pytest.mark.parametrize("case", list(DEPTHWISE))
def test_depthwise(form, case):
    xs, ws, mult, stride, dil, padding, act = DEPTHWISE[case]
    check_qop(*_model("DEPTHWISE_CONV_2D", form, xs, ws, stride, dil, padding, act, mult),
              backends="acl_neon")


def _model(*args):
    model, x = qconv_model(*args)
    return model, [x]


@pytest.mark.parametrize("form", FORMS8)
@pytest.mark.parametrize("op,xs,ws,mult", [
    ("CONV_2D", (1, 6, 7, 5), (21, 3, 3, 5), 1),
    ("CONV_2D", (1, 5, 5, 16), (8, 1, 1, 16), 1),
    ("DEPTHWISE_CONV_2D", (1, 6, 7, 21), (1, 3, 3, 21), 1),
    # several 32-channel blocks with a tail above 16 channels (the paired-tap AVX-512 form)
    ("DEPTHWISE_CONV_2D", (1, 5, 6, 150), (1, 3, 3, 150), 1),
    ("DEPTHWISE_CONV_2D", (1, 4, 5, 70), (1, 2, 2, 70), 1),
    ("DEPTHWISE_CONV_2D", (1, 5, 4, 3), (1, 3, 3, 12), 4),
])
def test_rounding_ties_each_isa(isa, form, op, xs, ws, mult):
    """Power-of-two multipliers (exact ties) at every ISA level, 1 and 2 threads."""
    model, x = qconv_model(op, form, xs, ws, mult=mult, ties=True, seed=1)
    check_threads(model, [x])


@pytest.mark.parametrize("form", FORMS8)
def test_conv_column_tails_each_isa(isa, form):
    """1x1 convolutions whose last 16-channel block has at most 8 channels (computed 8 wide by
    the AVX-512 fused GEMM): alone, second of a pair, after whole pairs."""
    for cout in (8, 24, 40):
        model, x = qconv_model("CONV_2D", form, (1, 7, 9, 20), (cout, 1, 1, 20), act="RELU6")
        check_threads(model, [x])


@pytest.mark.parametrize("form", FORMS8)
def test_conv_large_each_isa(isa, form):
    """Enough rows and channels for several GEMM tiles, channel blocks and threads."""
    model, x = qconv_model("CONV_2D", form, (1, 15, 13, 37), (45, 3, 3, 37), act="RELU6")
    check_threads(model, [x])
    model, x = qconv_model("DEPTHWISE_CONV_2D", form, (1, 15, 13, 37), (1, 3, 3, 37),
                           stride=(2, 2), act="RELU6")
    check_threads(model, [x])


@pytest.mark.parametrize("form", FORMS8)
@pytest.mark.parametrize("xs,k,stride,padding", [
    ((1, 9, 37, 32), 3, 1, "SAME"),           # chunks of 16 pixels and a remainder, ymm block
    ((2, 9, 35, 96), 3, 2, "SAME"),           # stride 2, odd size: 64 + 32 channels
    ((1, 8, 36, 144), 3, 2, "VALID"),         # 64 + 64 + 16 channels
    ((1, 7, 40, 16), 5, 1, "SAME"),           # 5x5: two groups of rows
])
def test_depthwise_vnni_each_isa(isa, form, xs, k, stride, padding):
    """The AVX-512 VNNI depthwise (4-row tap groups; uint8 weights at zero point 128 fit int8,
    so it takes them too) at every ISA level, 1 and 2 threads."""
    model, x = qconv_model("DEPTHWISE_CONV_2D", form, xs, (1, k, k, xs[3]),
                           stride=(stride, stride), padding=padding, act="RELU6",
                           wzp=128 if form == "uint8" else None)
    check_threads(model, [x])


def test_mobilenet_v2_int8_bit_exact():
    """The shared MobileNetV2 int8 model on acl_neon (cpu behind it) equals the interpreter's
    builtin kernels exactly, and acl_neon runs its convolutions, ADDs and pooling."""
    from builders.shared_models import model_path, quantized_inputs
    path = model_path("mobilenet_v2_int8")     # skips when ../shared/models is absent
    sess = Session(path, backends="acl_neon;cpu", config={"num_threads": 2})
    neon = {op.type for op in sess.placement().ops_on("acl_neon")}
    assert {"Conv2D", "DepthwiseConv2D", "BinaryArithmetic"} <= neon, neon
    for seed in range(2):
        inputs = quantized_inputs(sess, seed)
        expected = tflite_run(path, inputs)
        for g_, e in zip(sess.run(inputs), expected):
            assert_close_int(np.asarray(g_), e, 0, "mobilenet_v2_int8 on acl_neon")
