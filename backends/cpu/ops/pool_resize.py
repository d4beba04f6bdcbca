"""AVERAGE_POOL_2D / MAX_POOL_2D / L2_POOL_2D, PRELU, RESIZE_BILINEAR,
RESIZE_NEAREST_NEIGHBOR."""
from __future__ import annotations

import numpy as np

from .common import ANY, CpuKernel, clamp_activation, conv_padding, register

@register("Pool2D")
class Pool2DLayer(CpuKernel):
    """A reduction over the window's taps: shifted views of a padded input, combined in place.
    Average pooling divides by the number of valid (unpadded) inputs, as TFLite does."""

    def validate(self) -> None:
        if len(self.inputs[0].shape) != 4:
            raise self.fail(f"pooling needs NHWC input, got {self.inputs[0].shape}")
        self.act = clamp_activation(self.op.params.get("fused_activation_function"))

    def prepare(self) -> None:
        p = self.op.params
        x, y = self.buf(0), self.out
        n, h, w, c = x.shape
        _, oh, ow, _ = y.shape
        kh, kw, sh, sw = p.filter_height, p.filter_width, p.stride_h, p.stride_w
        pt, pb, pl, pr = conv_padding(p.padding, h, w, kh, kw, sh, sw, 1, 1, oh, ow)
        kind = self.op.subtype
        fill = -np.inf if kind == "MAX_POOL_2D" else 0
        self.padded = np.full((n, h + pt + pb, w + pl + pr, c), fill, x.dtype)
        self.interior = self.padded[:, pt:pt + h, pl:pl + w, :]
        self.taps = [self.padded[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw, :]
                     for i in range(kh) for j in range(kw)]
        self.combine = np.maximum if kind == "MAX_POOL_2D" else np.add
        self.kind = kind
        if kind != "MAX_POOL_2D":
            ones = np.zeros((h + pt + pb, w + pl + pr), np.float32)
            ones[pt:pt + h, pl:pl + w] = 1
            count = sum(ones[i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw]
                        for i in range(kh) for j in range(kw))
            self.inv_count = (1.0 / np.maximum(count, 1)).astype(x.dtype)[None, :, :, None]

    def run(self) -> None:
        np.copyto(self.interior, self.inputs[0].buffer)
        out = self.outputs[0].buffer
        taps = self.taps
        if self.kind == "L2_POOL_2D":
            np.square(taps[0], out=out)
            for t in taps[1:]:
                out += np.square(t)
            out *= self.inv_count
            np.sqrt(out, out=out)
        else:
            np.copyto(out, taps[0])
            for t in taps[1:]:
                self.combine(out, t, out=out)
            if self.kind == "AVERAGE_POOL_2D":
                out *= self.inv_count
        if self.act is not None:
            self.act(out)


@register("PReLU")
class PReLULayer(CpuKernel):
    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        np.multiply(x, self.inputs[1].buffer, out=out)
        np.copyto(out, x, where=x >= 0)


def interpolation(out_size: int, in_size: int, align: bool, half: bool):
    """TFLite's source coordinates: (lower index, upper index, fraction) per output index."""
    scale = (in_size - 1) / (out_size - 1) if align and out_size > 1 else in_size / out_size
    v = np.arange(out_size, dtype=np.float32)
    src = (v + 0.5) * np.float32(scale) - 0.5 if half else v * np.float32(scale)
    lo = np.maximum(np.floor(src), 0).astype(np.int64)
    hi = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
    return lo, hi, (src - lo).astype(np.float32)


@register("ResizeBilinear")
class ResizeBilinearLayer(CpuKernel):
    def validate(self) -> None:
        p = self.op.params
        if p.get("align_corners", False) and p.get("half_pixel_centers", False):
            raise self.fail("align_corners and half_pixel_centers cannot both be true")

    def prepare(self) -> None:
        p = self.op.params
        _, h, w, _ = self.buf(0).shape
        _, oh, ow, _ = self.out.shape
        align, half = p.get("align_corners", False), p.get("half_pixel_centers", False)
        self.y0, self.y1, dy = interpolation(oh, h, align, half)
        self.x0, self.x1, dx = interpolation(ow, w, align, half)
        self.dy = dy[None, :, None, None]
        self.dx = dx[None, None, :, None]

    def run(self) -> None:
        x = self.inputs[0].buffer
        top, bottom = x[:, self.y0], x[:, self.y1]
        rows = top + (bottom - top) * self.dy
        left, right = rows[:, :, self.x0], rows[:, :, self.x1]
        np.add(left, (right - left) * self.dx, out=self.outputs[0].buffer)


@register("ResizeNearestNeighbor")
class ResizeNearestNeighborLayer(CpuKernel):
    dtypes = ANY        # a gather: any dtype, quantized ones included
    quantized = True

    def prepare(self) -> None:
        p = self.op.params
        _, h, w, _ = self.buf(0).shape
        _, oh, ow, _ = self.out.shape
        align, half = p.get("align_corners", False), p.get("half_pixel_centers", False)

        def index(o: int, i: int) -> np.ndarray:
            scale = (i - 1) / (o - 1) if align and o > 1 else i / o
            v = np.arange(o, dtype=np.float32)
            src = (v + (0.5 if half else 0.0)) * np.float32(scale)
            idx = np.floor(src)
            if align:   # TfLiteRound: halves go away from zero (np.round goes to even)
                idx += (src - idx) >= 0.5
            return np.minimum(idx.astype(np.int64), i - 1)
        self.iy, self.ix = index(oh, h), index(ow, w)

    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.inputs[0].buffer[:, self.iy][:, :, self.ix])
