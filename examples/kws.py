"""A streaming int8 keyword-spotting model shaped like microWakeWord's (kahrendt/microWakeWord):
each call takes the 3 newest spectrogram frames of 40 features and returns one wake-word
probability, keeping what the convolutions need of earlier frames in resource variables.

What the TFLite converter writes for such a model, and what this builder writes:

- subgraph ``init`` (run once through CALL_ONCE): per ring buffer a VAR_HANDLE and an
  ASSIGN_VARIABLE of a constant holding the buffer activation's zero point (real 0);
- subgraph ``main``: CALL_ONCE; RESHAPE of the int8 1x3x40 input to 1x3x1x40 (time as H,
  features as C); then per streaming stage VAR_HANDLE, READ_VARIABLE (the stage's ring
  buffer), CONCATENATION (buffer + new frames along time), STRIDED_SLICE (the newest frames,
  the next buffer), ASSIGN_VARIABLE, and the convolution over time (VALID):

  * stage 0: CONV_2D 5x1, stride 3, 40 -> 32 channels, RELU; its buffer holds the last
    k - stride = 2 frames (3 new frames in, one output frame out);
  * stages 1-4: DEPTHWISE_CONV_2D kx1 (k = 5, 9, 13, 21; buffer of the last k - 1 frames),
    then a pointwise CONV_2D 1x1 with RELU;
  * a streaming flatten: the last 3 frames of stage 4's output (buffer of 2), RESHAPE 1x192;

  then FULLY_CONNECTED 192 -> 1, LOGISTIC (int8, scale 1/256, zero point -128, as TFLite's
  kernel requires) and QUANTIZE int8 -> uint8 (scale 1/256, zero point 0): the uint8
  probability microWakeWord's models output. 45 ops in ``main``, 12 in ``init``.

Weights are random (He-scaled, fixed seed), quantized per output channel the way the converter
does (symmetric int8 in [-127, 127], scale = max |w| / 127; int32 biases at input scale x
filter scale). Activation scales and zero points are calibrated like post-training
quantization: the float model (dequantized weights) runs over a random stream, each
activation gets the range [min, max] it reached (0 included), so they do not saturate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from onert_py.model_builder import ModelBuilder

FRAMES, FEATURES = 3, 40                     # one call: 3 new frames of 40 features
INPUT_QUANT = (0.1015625, -128)              # microWakeWord's feature quantization
STAGE0 = (5, 3, 32)                          # kernel over time, stride, output channels
DEPTHWISE = ((5, 48), (9, 48), (13, 64), (21, 64))   # (kernel over time, pointwise outputs)
FLATTEN_FRAMES = 3                           # frames of the last stage the classifier sees
PROB_QUANT = (1.0 / 256, -128)               # TFLite's int8 LOGISTIC output
OUT_QUANT = (1.0 / 256, 0)                   # the uint8 probability


def _q(scale, zero_point, axis: int | None = None) -> dict:
    """A quantization dict for the model builder (per channel when `scale` is an array)."""
    sc = np.atleast_1d(np.asarray(scale, np.float32))
    zp = np.broadcast_to(np.asarray(zero_point, np.int64), sc.shape)
    d = {"scale": sc.tolist(), "zero_point": zp.tolist()}
    if axis is not None:
        d["quantized_dimension"] = axis
    return d


def _range_quant(lo: float, hi: float) -> tuple[float, int]:
    """int8 (scale, zero point) of the range [lo, hi] widened to hold 0 (TFLite's
    asymmetric activation quantization: zero point in [-128, 127], real 0 exact)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = float(np.float32(max(hi - lo, 1e-6) / 255.0))
    return scale, int(np.clip(np.round(-128 - lo / scale), -128, 127))


def _per_channel(w: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-channel int8 weights along `axis` and their scales."""
    other = tuple(i for i in range(w.ndim) if i != axis)
    scales = (np.abs(w).max(axis=other) / 127.0).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scales.reshape(shape)), -127, 127).astype(np.int8)
    return q, scales


@dataclass
class _Layer:
    """A convolution's quantized filter and bias (float values kept for calibration)."""
    w: np.ndarray           # int8: conv [O, k, 1, I], depthwise [1, k, 1, C], fc [O, I]
    w_scale: np.ndarray
    axis: int
    bias: np.ndarray        # float32, one per output channel

    def dequantized(self) -> np.ndarray:
        shape = [1] * self.w.ndim
        shape[self.axis] = -1
        return self.w.astype(np.float32) * self.w_scale.reshape(shape)


def _layers(rng: np.random.Generator) -> list[_Layer]:
    """The random filters, in order: stage 0 conv, (depthwise, pointwise) x 4, fc."""
    def make(shape, axis, fan_in, cout, gain=np.sqrt(2.0)):
        w = rng.standard_normal(shape).astype(np.float32) * np.float32(gain / np.sqrt(fan_in))
        q, s = _per_channel(w, axis)
        return _Layer(q, s, axis, (rng.standard_normal(cout) * 0.1).astype(np.float32))

    k0, _, c0 = STAGE0
    out = [make((c0, k0, 1, FEATURES), 0, k0 * FEATURES, c0)]
    c = c0
    for k, cout in DEPTHWISE:
        out.append(make((1, k, 1, c), 3, k, c, gain=0.8))
        out.append(make((cout, 1, 1, c), 0, c, cout))
        c = cout
    out.append(make((1, FLATTEN_FRAMES * c), 0, FLATTEN_FRAMES * c, 1, gain=0.8))
    return out


def _conv_time(x: np.ndarray, w: np.ndarray, stride: int, depthwise: bool) -> np.ndarray:
    """Float VALID convolution over time of x [T, C] (w as in _Layer, dequantized)."""
    k = w.shape[1]
    starts = range(0, x.shape[0] - k + 1, stride)
    win = np.stack([x[s:s + k] for s in starts])                        # [T', k, C]
    if depthwise:
        return np.einsum("tkc,kc->tc", win, w[0, :, 0, :])
    return np.einsum("tkc,okc->to", win, w[:, :, 0, :])


def _calibrate(layers: list[_Layer], rng: np.random.Generator, calls: int = 200) -> list[tuple]:
    """Activation (scale, zero point) after each layer, from the float model streamed over
    `calls` random inputs from zeroed buffers (= a sequence padded with zeros on the left)."""
    xs = (rng.integers(-128, 128, (calls * FRAMES, FEATURES)) - INPUT_QUANT[1]) * INPUT_QUANT[0]
    k0, s0, _ = STAGE0
    seq = np.concatenate([np.zeros((k0 - s0, FEATURES)), xs])
    act = np.maximum(_conv_time(seq, layers[0].dequantized(), s0, False) + layers[0].bias, 0)
    quants = [_range_quant(act.min(), act.max())]
    for i in range(len(DEPTHWISE)):
        dw, pw = layers[1 + 2 * i], layers[2 + 2 * i]
        k = dw.w.shape[1]
        seq = np.concatenate([np.zeros((k - 1, act.shape[1])), act])
        act = _conv_time(seq, dw.dequantized(), 1, True) + dw.bias
        quants.append(_range_quant(act.min(), act.max()))
        act = np.maximum(act @ pw.dequantized()[:, 0, 0, :].T + pw.bias, 0)
        quants.append(_range_quant(act.min(), act.max()))
    seq = np.concatenate([np.zeros((FLATTEN_FRAMES - 1, act.shape[1])), act])
    flat = np.stack([seq[t:t + FLATTEN_FRAMES].reshape(-1) for t in range(act.shape[0])])
    fc = layers[-1]
    logits = flat @ fc.dequantized().T + fc.bias
    quants.append(_range_quant(logits.min(), logits.max()))
    return quants


class _Graph:
    """Writes the two subgraphs; `stream()` adds one ring-buffer stage."""

    def __init__(self) -> None:
        self.b = ModelBuilder("tflite")
        self.init = self.b.add_subgraph("init")
        self.buffers = 0

    def tensor(self, name: str, shape, quant: tuple, dtype: str = "int8") -> int:
        return self.b.add_tensor(name, shape, dtype, quant=_q(*quant))

    def stream(self, x: int, new: int, keep: int, channels: int, quant: tuple) -> int:
        """Ring buffer of `keep` frames before `x` ([1, new, 1, channels]): returns the
        concatenation [1, keep + new, 1, channels]; the newest `keep` frames become the buffer."""
        b, name = self.b, f"stream_{self.buffers}"
        self.buffers += 1
        shape = (1, keep, 1, channels)
        ih = b.add_tensor(f"{name}/handle", (), "resource", subgraph=self.init)
        zeros = b.add_const(f"{name}/zeros", np.full(shape, quant[1], np.int8), quant=_q(*quant),
                            subgraph=self.init)
        b.add_op("VAR_HANDLE", [], [ih], subgraph=self.init, container="", shared_name=name)
        b.add_op("ASSIGN_VARIABLE", [ih, zeros], [], subgraph=self.init)
        h = b.add_tensor(f"{name}/handle", (), "resource")
        state = self.tensor(f"{name}/state", shape, quant)
        joined = self.tensor(f"{name}/concat", (1, keep + new, 1, channels), quant)
        nxt = self.tensor(f"{name}/next", shape, quant)
        b.add_op("VAR_HANDLE", [], [h], container="", shared_name=name)
        b.add_op("READ_VARIABLE", [h], [state])
        b.add_op("CONCATENATION", [state, x], [joined], axis=1, fused_activation_function="NONE")
        i32 = np.int32
        b.add_op("STRIDED_SLICE", [joined, b.add_const(f"{name}/begin", np.array([0, new, 0, 0], i32)),
                                   b.add_const(f"{name}/end", np.array([1, keep + new, 1, channels], i32)),
                                   b.add_const(f"{name}/strides", np.ones(4, i32))], [nxt])
        b.add_op("ASSIGN_VARIABLE", [h, nxt], [])
        return joined

    def conv(self, name: str, x: int, x_quant: tuple, layer: _Layer, y_shape, y_quant: tuple,
             depthwise: bool = False, stride: int = 1, act: str = "RELU") -> int:
        b = self.b
        w = b.add_const(f"{name}/filter", layer.w, quant=_q(layer.w_scale, 0, layer.axis))
        bias_scale = (np.float64(np.float32(x_quant[0])) * layer.w_scale.astype(np.float64)
                      ).astype(np.float32)
        bias = b.add_const(f"{name}/bias", np.round(layer.bias / bias_scale).astype(np.int32),
                           quant=_q(bias_scale, 0, 0))
        y = self.tensor(name, y_shape, y_quant)
        opts = dict(padding="VALID", stride_h=stride, stride_w=1, fused_activation_function=act)
        if depthwise:
            b.add_op("DEPTHWISE_CONV_2D", [x, w, bias], [y], depth_multiplier=1, **opts)
        else:
            b.add_op("CONV_2D", [x, w, bias], [y], **opts)
        return y

    def reshape(self, name: str, x: int, shape, quant: tuple) -> int:
        y = self.tensor(name, shape, quant)
        self.b.add_op("RESHAPE", [x, self.b.add_const(f"{name}/shape", np.array(shape, np.int32))],
                      [y], new_shape=list(shape))
        return y


def kws_model(seed: int = 0) -> bytes:
    """The streaming keyword-spotting model (see the module docstring); `seed` picks the
    weights."""
    rng = np.random.default_rng(seed)
    layers = _layers(rng)
    quants = _calibrate(layers, rng)
    g = _Graph()
    b = g.b
    x = b.add_input("features", (1, FRAMES, FEATURES), "int8", quant=_q(*INPUT_QUANT))
    b.add_op("CALL_ONCE", [], [], init_subgraph_index=g.init)
    xq = INPUT_QUANT
    t = g.reshape("frames", x, (1, FRAMES, 1, FEATURES), xq)
    k0, s0, c0 = STAGE0
    t = g.stream(t, FRAMES, k0 - s0, FEATURES, xq)
    t = g.conv("conv_0", t, xq, layers[0], (1, 1, 1, c0), quants[0], stride=s0)
    c, xq = c0, quants[0]
    for i, (k, cout) in enumerate(DEPTHWISE):
        t = g.stream(t, 1, k - 1, c, xq)
        t = g.conv(f"depthwise_{i + 1}", t, xq, layers[1 + 2 * i], (1, 1, 1, c),
                   quants[1 + 2 * i], depthwise=True, act="NONE")
        t = g.conv(f"pointwise_{i + 1}", t, quants[1 + 2 * i], layers[2 + 2 * i],
                   (1, 1, 1, cout), quants[2 + 2 * i])
        c, xq = cout, quants[2 + 2 * i]
    t = g.stream(t, 1, FLATTEN_FRAMES - 1, c, xq)
    t = g.reshape("flatten", t, (1, FLATTEN_FRAMES * c), xq)
    fc = layers[-1]
    bias_scale = np.float32(np.float64(np.float32(xq[0])) * np.float64(fc.w_scale[0]))
    logits = g.tensor("logits", (1, 1), quants[-1])
    b.add_op("FULLY_CONNECTED", [t, b.add_const("fc/weights", fc.w, quant=_q(fc.w_scale, 0)),
                                 b.add_const("fc/bias", np.round(fc.bias / bias_scale).astype(np.int32),
                                             quant=_q(bias_scale, 0))],
             [logits], fused_activation_function="NONE")
    prob = g.tensor("probability_int8", (1, 1), PROB_QUANT)
    b.add_op("LOGISTIC", [logits], [prob])
    out = g.tensor("probability", (1, 1), OUT_QUANT, dtype="uint8")
    b.add_op("QUANTIZE", [prob], [out])
    b.add_output(out)
    return b.build()


def kws_stream(n: int, seed: int = 0) -> list[np.ndarray]:
    """`n` random int8 inputs (1x3x40 feature frames) for the model."""
    rng = np.random.default_rng(seed)
    return [rng.integers(-128, 128, (1, FRAMES, FEATURES)).astype(np.int8) for _ in range(n)]
