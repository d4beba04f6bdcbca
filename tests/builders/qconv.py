"""Quantized CONV_2D / DEPTHWISE_CONV_2D models: the activation forms (int8 per-channel and
per-tensor, uint8, int16x8), one-op models with their inputs, and the shape cases."""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import ModelBuilder
from builders.quant import conv_filter, conv_input, qdict
from builders.single_op import conv_out

# activation (dtype, scale, zero point); "int8pt" = int8 with a per-tensor filter scale
FORMS = {
    "int8": ("int8", 0.05, -3, True),
    "int8pt": ("int8", 0.05, -3, False),
    "uint8": ("uint8", 0.05, 131, False),
    "int16": ("int16", 0.002, 0, True),
}


def qconv_model(op: str, form: str, xs: tuple, ws: tuple, stride=(1, 1), dilation=(1, 1),
                padding="SAME", act="NONE", mult=1, ties=False, seed=0, bias_scale=None,
                bias=True, wzp=None, bias_dtype=None) -> tuple[bytes, np.ndarray]:
    """A one-op quantized convolution model and an input for it. The output scale spreads the
    accumulators over the output range (ties: an exact power-of-two multiplier instead)."""
    rng = np.random.default_rng(seed)
    dt, xsc, xzp, per_channel = FORMS[form]
    depthwise = op == "DEPTHWISE_CONV_2D"
    cout = ws[3] if depthwise else ws[0]
    axis = 3 if depthwise else 0
    w, w_zp, wsc = conv_filter(rng, dt, ws, cout, per_channel, ties, wzp)
    k = ws[1] * ws[2] * (1 if depthwise else ws[3])
    xin, ysc = conv_input(rng, xs, dt, xsc, xzp, wsc, k, ties)
    bscale = (np.float64(np.float32(xsc)) * wsc.astype(np.float64)).astype(np.float32)
    b = ModelBuilder("tflite")
    x = b.add_input("x", xs, dt, quant=qdict(xsc, xzp))
    wt = b.add_const("w", w, quant=qdict(wsc, w_zp, axis if per_channel else None))
    inputs = [x, wt]
    if bias:
        bdt = bias_dtype or ("int64" if dt == "int16" else "int32")
        bv = rng.integers(-3000, 3000, cout).astype(bdt)
        bq = qdict(bscale if bias_scale is None else bias_scale, 0)
        inputs.append(b.add_const("b", bv, quant=bq))
    oh = conv_out(xs[1], ws[1], stride[0], dilation[0], padding)
    ow = conv_out(xs[2], ws[2], stride[1], dilation[1], padding)
    y = b.add_tensor("y", (xs[0], oh, ow, cout), dt, quant=qdict(ysc, xzp + 7 if dt != "int16" else 0))
    opts = dict(padding=padding, stride_h=stride[0], stride_w=stride[1],
                dilation_h_factor=dilation[0], dilation_w_factor=dilation[1],
                fused_activation_function=act)
    if depthwise:
        opts["depth_multiplier"] = mult
    b.add_op(op, inputs, [y], **opts)
    b.add_output(y)
    return b.build(), xin


# (input NHWC, filter OHWI, stride, dilation, padding, activation)
CONV = {
    "same_3x3": ((1, 7, 8, 3), (4, 3, 3, 3), (1, 1), (1, 1), "SAME", "NONE"),
    "valid_3x3": ((1, 7, 8, 5), (6, 3, 3, 5), (1, 1), (1, 1), "VALID", "RELU"),
    "same_s2": ((1, 9, 8, 3), (17, 3, 3, 3), (2, 2), (1, 1), "SAME", "RELU6"),
    "valid_s2": ((2, 9, 8, 3), (4, 3, 3, 3), (2, 2), (1, 1), "VALID", "NONE"),
    "stride_1x2": ((1, 6, 9, 2), (3, 3, 3, 2), (1, 2), (1, 1), "SAME", "RELU_N1_TO_1"),
    "kernel_3x2": ((1, 6, 7, 3), (5, 3, 2, 3), (1, 1), (1, 1), "SAME", "NONE"),
    "dilation2_same": ((1, 9, 9, 3), (4, 3, 3, 3), (1, 1), (2, 2), "SAME", "RELU"),
    "dilation_2x1_valid": ((1, 9, 10, 2), (3, 3, 3, 2), (1, 1), (2, 1), "VALID", "NONE"),
    "pointwise": ((1, 5, 6, 32), (24, 1, 1, 32), (1, 1), (1, 1), "VALID", "NONE"),
    "pointwise_relu6": ((2, 4, 4, 19), (33, 1, 1, 19), (1, 1), (1, 1), "SAME", "RELU6"),
    "pointwise_s2": ((1, 6, 6, 8), (4, 1, 1, 8), (2, 2), (1, 1), "SAME", "NONE"),
    "kernel_5x5": ((1, 10, 10, 4), (8, 5, 5, 4), (2, 2), (1, 1), "SAME", "NONE"),
    "deep": ((1, 4, 4, 96), (16, 3, 3, 96), (1, 1), (1, 1), "SAME", "NONE"),
}


# grouped CONV_2D: the filter's input depth is the input's / groups
# (input NHWC, filter OHWI, stride, dilation, padding, activation)
GROUPED = {
    "g2_same": ((1, 6, 7, 6), (4, 3, 3, 3), (1, 1), (1, 1), "SAME", "NONE"),
    "g4_valid_s2": ((2, 7, 6, 8), (12, 3, 3, 2), (2, 2), (1, 1), "VALID", "RELU"),
    "g8_pointwise": ((1, 5, 5, 16), (32, 1, 1, 2), (1, 1), (1, 1), "SAME", "RELU6"),
    "g3_dilation2": ((1, 9, 8, 9), (6, 3, 3, 3), (1, 1), (2, 2), "SAME", "NONE"),
    "g2_deep": ((1, 4, 4, 64), (16, 3, 3, 32), (1, 1), (1, 1), "SAME", "NONE"),
}


# (input NHWC, filter 1HWO, depth multiplier, stride, dilation, padding, activation)
DEPTHWISE = {
    "c8_same": ((1, 6, 7, 8), (1, 3, 3, 8), 1, (1, 1), (1, 1), "SAME", "NONE"),
    "c19_same": ((1, 5, 6, 19), (1, 3, 3, 19), 1, (1, 1), (1, 1), "SAME", "RELU6"),
    "c13_s2": ((1, 9, 8, 13), (1, 3, 3, 13), 1, (2, 2), (1, 1), "SAME", "NONE"),
    "c3_m2_valid": ((1, 6, 5, 3), (1, 3, 3, 6), 2, (1, 1), (1, 1), "VALID", "RELU"),
    "c5_m4": ((2, 4, 5, 5), (1, 3, 3, 20), 4, (1, 1), (1, 1), "SAME", "RELU_N1_TO_1"),
    "c16_dil2": ((1, 9, 9, 16), (1, 3, 3, 16), 1, (1, 1), (2, 2), "SAME", "NONE"),
    "c4_k5x2_s1x2": ((1, 8, 9, 4), (1, 5, 2, 4), 1, (1, 2), (1, 1), "VALID", "NONE"),
    "c37_k1": ((1, 3, 4, 37), (1, 1, 1, 37), 1, (1, 1), (1, 1), "SAME", "NONE"),
    "c1_m3": ((1, 5, 5, 1), (1, 3, 3, 3), 3, (2, 1), (1, 1), "SAME", "NONE"),
    # several accumulation bands of output rows (depthwise_plan.BAND_BYTES)
    "c64_bands": ((1, 60, 60, 64), (1, 3, 3, 64), 1, (1, 1), (1, 1), "SAME", "RELU6"),
    # phase planes: stride with dilation, stride 3, taps that only ever read padding
    "c8_s2_dil2": ((1, 11, 12, 8), (1, 3, 3, 8), 1, (2, 2), (2, 2), "SAME", "NONE"),
    "c4_s3_valid": ((2, 10, 11, 4), (1, 3, 2, 4), 1, (3, 3), (1, 1), "VALID", "RELU"),
    "c6_k5_tiny": ((1, 2, 3, 6), (1, 5, 5, 6), 1, (1, 1), (1, 1), "SAME", "NONE"),
    # an odd tap count other than 9, with inner rows and columns (whole-row kernels)
    "c40_k5": ((1, 9, 10, 40), (1, 5, 5, 40), 1, (1, 1), (1, 1), "SAME", "RELU6"),
    "c2_m3_s2x1_dil1x2": ((1, 9, 10, 2), (1, 2, 3, 6), 3, (2, 1), (1, 2), "SAME", "NONE"),
}
