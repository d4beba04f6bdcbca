"""Quantized FULLY_CONNECTED models: one-op models and random cases (weights and inputs small
so that multipliers up to ~3 do not saturate, or full range), and the shape and multiplier
grids the op tests run."""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import ModelBuilder
from builders.quant import qdict

X_SCALE, W_SCALE = 0.05, 0.01


def fc_model(xshape, xdt, xzp, w, wscale, wzp, bias, yshape, ydt, ys, yzp, w_const=True,
             **opts) -> bytes:
    b = ModelBuilder()
    ins = [b.add_input("x", xshape, xdt, quant=qdict(X_SCALE, xzp))]
    per_channel = np.size(wscale) > 1
    wq = qdict(wscale, wzp, 0 if per_channel else None)
    ins.append(b.add_const("w", w, quant=wq) if w_const else
               b.add_input("w", w.shape, str(w.dtype), quant=wq))
    if bias is None:
        ins.append(-1)
    else:
        bs = (np.float32(X_SCALE) * np.asarray(wscale, np.float32)).astype(np.float32)
        ins.append(b.add_const("b", bias, quant=qdict(bs, 0, 0 if per_channel else None)))
    y = b.add_tensor("y", yshape, ydt, quant=qdict(ys, yzp))
    b.add_op("FULLY_CONNECTED", ins, [y], **opts)
    b.add_output(y)
    return b.build()


def make_case(rng, dt, batch, depth, units, real, zps, per_channel=False, bias="int32",
              small=True):
    """Weights/inputs small (so multipliers up to ~3 do not saturate) or full range."""
    xz, wz, yz = zps
    info = np.iinfo(dt)
    wdt = "int8" if dt == "int16" else dt
    winfo = np.iinfo(wdt)
    span = (-4, 4) if small else (-100, 100)
    x = np.clip(rng.integers(*span, (batch, depth), endpoint=True) + xz, info.min, info.max)
    w = np.clip(rng.integers(*span, (units, depth), endpoint=True) + wz, winfo.min, winfo.max)
    ws = np.float32(W_SCALE)
    if per_channel:
        ws = (W_SCALE * rng.uniform(0.5, 2.0, units)).astype(np.float32)
    ys = float(np.float32(X_SCALE) * np.float32(W_SCALE) / np.float32(real))
    b = None if bias is None else rng.integers(-300, 300, units).astype(bias)
    return x.astype(dt), w.astype(wdt), ws, b, ys


GRID = [(1, 16, 67), (4, 16, 64), (33, 40, 19)]


REALS = [0.25, 0.37, 0.5, 3.0]


DT_ZPS = [("int8", (0, 0, 0)), ("int8", (-5, 0, 3)), ("uint8", (128, 128, 128)),
          ("uint8", (120, 131, 90))]


def case_8bit(dt, zps, shape, real):
    """(model, input) of an 8-bit FC case: zero points (x, w, y), (batch, depth, units)."""
    rng = np.random.default_rng([sum(map(abs, zps)), *shape, int(real * 100)])
    x, w, ws, b, ys = make_case(rng, dt, *shape, real, zps)
    model = fc_model(x.shape, dt, zps[0], w, ws, zps[1], b, (shape[0], shape[2]), dt, ys, zps[2])
    return model, x
