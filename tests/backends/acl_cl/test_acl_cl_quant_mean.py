"""acl_cl's quantized 8-bit MEAN (ops/quant_reduce.py, cl/quant.cl qmean) against the
interpreter, bit-exact, with acl_cl alone: the optimized 4-D HW mean (axes [1, 2], keep_dims:
vector rounding on depth - depth % 16 channels, reference rounding on the rest) and the
reference mean (every other axis set, keep_dims false), scales equal and different, output zero
points shifted; exact rounding ties; forms acl_cl refuses fall back to cpu with a reason."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders import qpool
from builders.quant import qspec
from cl_harness import check_on_cl, placed
from onert_py.model_builder import single_op_model
from quant_harness import qrand

pytestmark = pytest.mark.usefixtures("cl_ready")   # skip where no OpenCL device builds


@pytest.mark.parametrize("ratio", list(qpool.RATIOS))
@pytest.mark.parametrize("case", list(qpool.REDUCE_CASES))
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_q_mean(dtype, case, ratio):
    shape, model = qpool.reduce_model("MEAN", case, dtype, qpool.RATIOS[ratio], ozp_shift=5)
    rng = np.random.default_rng(sum(map(ord, case + ratio)))
    check_on_cl(model, [qrand(rng, shape, dtype)])


@pytest.mark.parametrize("keep", [True, False])
@pytest.mark.parametrize("ratio", [1.0, 0.5])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_q_mean_rounding_ties(dtype, ratio, keep):
    """Counts 8 and power-of-two scale ratios: many sums fall on exact halves, which the HW
    mean's vector lanes round up and its tail (and the reference mean) away from zero; 37
    channels give 32 vector lanes and a tail of 5."""
    case = ((2, 2, 4, 37), [1, 2], keep)
    shape, model = qpool.reduce_model("MEAN", case, dtype, ratio)
    rng = np.random.default_rng(17)
    check_on_cl(model, [qrand(rng, shape, dtype)])


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("case", [((3, 1, 2, 5, 4, 3), [1, 3, 5], True),   # rank 6, strided
                                  ((4, 6, 5), [-1, 0], False),
                                  ((5, 16), [1, 1], True),                # a repeated axis
                                  ((7, 3), [0], False)])
def test_q_mean_other_axes(dtype, case):
    shape, model = qpool.reduce_model("MEAN", case, dtype, 0.8, ozp_shift=-4)
    rng = np.random.default_rng(len(shape))
    check_on_cl(model, [qrand(rng, shape, dtype)])


def test_q_mean_saturates():
    """A tiny output scale: most means clamp to the type's ends."""
    shape, model = qpool.reduce_model("MEAN", "hw_keep", "int8", 0.02)
    check_on_cl(model, [qrand(np.random.default_rng(2), shape, "int8")])


def test_q_mean_int16_stays_on_cpu():
    _, model = qpool.reduce_model("MEAN", "hw_keep", "int16", 1.0)
    assert placed(model) == {"cpu"}


def test_q_mean_huge_count_stays_on_cpu():
    """More than 2^23 reduced elements could leave acl_cl's int32 sums: refused with a reason."""
    _, model = qpool.reduce_model("MEAN", ((1, 4096, 2049, 1), [1, 2], True), "int8", 1.0)
    assert placed(model) == {"cpu"}
    with pytest.raises(onert_py.CompileError, match="int32"):
        onert_py.Session(model, backends="acl_cl")


def test_q_mean_bad_axis_refused():
    x, y = qspec("x", (2, 3, 4), "int8", 0.05, 0), qspec("y", (2, 3, 4), "int8", 0.05, 0)
    model = single_op_model("MEAN", [x, np.array([7], np.int32)], [y], keep_dims=True)
    with pytest.raises(onert_py.CompileError, match="out of range"):
        onert_py.Session(model, backends="acl_cl")


def test_mobilenet_v2_int8_on_acl_cl_alone():
    """With quantized MEAN, the shared MobileNetV2 int8 model runs on acl_cl alone and equals
    the interpreter exactly."""
    from oracle import tflite_run
    from quant_harness import assert_close_int
    from builders.shared_models import model_path, quantized_inputs
    path = model_path("mobilenet_v2_int8")     # skips when ../shared/models is absent
    sess = onert_py.Session(path, backends="acl_cl")
    assert sess.placement().used_backends <= {"acl_cl", "builtin"}
    inputs = quantized_inputs(sess, 0)
    expected = tflite_run(path, inputs)
    for got, e in zip(sess.run(inputs), expected):
        assert_close_int(np.asarray(got), e, 0, "mobilenet_v2_int8 on acl_cl alone")
