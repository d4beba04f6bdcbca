"""MediaPipe's landmark custom ops (Landmarks2TransformMatrix, TransformTensorBilinear /
TransformTensor, TransformLandmarks), bundled as default custom kernels so that MediaPipe's face
mesh with attention runs out of the box. Their definitions, options, validation and shapes:
core/ops/mediapipe_landmarks.py; here only the compute.

The matrix is built in float64 and stored as float32 (MediaPipe builds it in float32); sample
points and transformed landmarks are computed in float32 as MediaPipe does.
"""
from __future__ import annotations

import math

import numpy as np

from ....core.ops.bundled import bundle
from ....core.ops.mediapipe_landmarks import (
    TENSOR_V1, Landmarks2TransformMatrixBase, MatrixV1Options, MatrixV2Options,
    TransformLandmarksBase, TransformTensorBilinearBase)

F64 = np.float64


def rotation(angle: float) -> np.ndarray:
    """The 2x2 matrix rotating by `angle` radians (counter-clockwise in x-right, y-up)."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def affine(linear: np.ndarray, shift=(0.0, 0.0)) -> np.ndarray:
    """The 4x4 matrix applying `linear` (2x2) to (x, y), then adding `shift`; z passes."""
    t = np.eye(4)
    t[:2, :2] = linear
    t[:2, 3] = shift
    return t


def subset_box(points: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) corners of the box around `points` (n x 2) rotated by `angle`."""
    turned = points @ rotation(angle).T
    return turned.min(axis=0), turned.max(axis=0)


def matrix_v2(lm: np.ndarray, o: MatrixV2Options) -> np.ndarray:
    """Version 2: crop pixel -> landmark space, for a crop of output_width x output_height
    around the subset's box (scaled by scale_x, scale_y), turned upright."""
    left, right = lm[o.left_rotation_idx, :2], lm[o.right_rotation_idx, :2]
    r = o.target_rotation_radians - math.atan2(right[1] - left[1], right[0] - left[0])
    lo, hi = subset_box(lm[list(o.subset), :2], r)
    centre = rotation(-r) @ ((lo + hi) / 2)
    size = hi - lo
    scale = np.diag([o.scale_x * size[0] / o.output_width, o.scale_y * size[1] / o.output_height])
    return (affine(np.eye(2), centre) @ affine(rotation(-r)) @ affine(scale)
            @ affine(np.eye(2), (-o.output_width / 2, -o.output_height / 2)))


def matrix_v1(lm: np.ndarray, o: MatrixV1Options) -> np.ndarray:
    """Version 1: through normalized [-1, 1] coordinates of the output and input sizes."""
    left, right = lm[o.left_rotation_idx, :2], lm[o.right_rotation_idx, :2]
    with np.errstate(divide="ignore", invalid="ignore"):      # a vertical pair: atan(inf)
        a = -float(np.arctan((right[1] - left[1]) / (right[0] - left[0])))
    lo, hi = subset_box(lm[list(o.subset), :2], a)
    size = (hi - lo) * o.bbox_size_multiplier
    middle = rotation(-a) @ ((lo + hi) / 2)
    span = o.landmarks_range
    (ih, iw), (oh, ow) = o.input_hw, o.output_hw
    to_absolute = affine(np.diag([(iw - 1) / 2, (ih - 1) / 2]), ((iw - 1) / 2, (ih - 1) / 2))
    rotate = affine(rotation(-a), middle / span * 2 - 1)
    scale = affine(np.diag(size / span))
    to_relative = affine(np.diag([2 / (ow - 1), 2 / (oh - 1)]), (-1.0, -1.0))
    return to_absolute @ rotate @ scale @ to_relative


@bundle
class Landmarks2TransformMatrixLayer(Landmarks2TransformMatrixBase):
    """The 4x4 matrix from the landmarks (MediaPipe landmarks_to_transform_matrix.cc)."""

    def prepare(self) -> None:
        self.landmarks = self.inputs[0].buffer.reshape(-1, 3)
        self.matrix = self.outputs[0].buffer.reshape(4, 4)
        self.build = matrix_v1 if isinstance(self.options, MatrixV1Options) else matrix_v2

    def run(self) -> None:
        self.matrix[...] = self.build(self.landmarks.astype(F64), self.options)


@bundle
class TransformTensorBilinearLayer(TransformTensorBilinearBase):
    """Bilinear sampling of the input through the matrix (MediaPipe
    transform_tensor_bilinear.cc, version 2: pixel centres)."""

    def prepare(self) -> None:
        _, h, w, c = self.inputs[0].shape
        self.size = (w, h)
        self.padded = np.zeros((h + 1, w + 1, c), np.float32)   # row/column past the edge: 0
        ys, xs = np.mgrid[0:self.options.output_height, 0:self.options.output_width]
        self.xs, self.ys = xs.astype(np.float32), ys.astype(np.float32)

    def sample_points(self) -> tuple[np.ndarray, np.ndarray]:
        m = self.inputs[1].buffer.reshape(-1)
        (a, b, _, d), (e, f, _, g) = m[0:4].astype(F64), m[4:8].astype(F64)
        if self.options.align_corners:          # S . T . A: sample at pixel centres
            d, g = d + a * 0.5 + b * 0.5 - 0.5, g + e * 0.5 + f * 0.5 - 0.5
        a, b, d, e, f, g = (np.float32(v) for v in (a, b, d, e, f, g))
        return a * self.xs + b * self.ys + d, e * self.xs + f * self.ys + g

    def run(self) -> None:
        tx, ty = self.sample_points()
        w, h = self.size
        inside = (tx >= 0) & (tx <= w - 1) & (ty >= 0) & (ty <= h - 1)   # NaN: outside
        tx, ty = np.where(inside, tx, 0), np.where(inside, ty, 0)
        x0, y0 = np.floor(tx), np.floor(ty)
        fx, fy = (tx - x0)[..., None], (ty - y0)[..., None]
        x0, y0 = x0.astype(np.intp), y0.astype(np.intp)
        src = self.padded
        src[:h, :w] = self.inputs[0].buffer[0]
        upper = (1 - fx) * src[y0, x0] + fx * src[y0, x0 + 1]
        lower = (1 - fx) * src[y0 + 1, x0] + fx * src[y0 + 1, x0 + 1]
        np.copyto(self.outputs[0].buffer[0], np.where(inside[..., None],
                                                      fy * lower + (1 - fy) * upper, 0))


@bundle
class TransformTensorLayer(TransformTensorBilinearLayer):
    """MediaPipe's version 1 of TransformTensorBilinear (custom code TransformTensor): the same
    sampling at pixel corners."""

    code = TENSOR_V1


@bundle
class TransformLandmarksLayer(TransformLandmarksBase):
    """Each landmark's (x, y) through the matrix, z passed (MediaPipe transform_landmarks.cc)."""

    def prepare(self) -> None:
        x = self.inputs[0]
        dims = self.options.dimensions or x.shape[-1]
        self.points = x.buffer.reshape(-1, dims)
        self.result = self.outputs[0].buffer.reshape(-1, dims)

    def run(self) -> None:
        m = self.inputs[1].buffer.reshape(-1)
        s = np.float32(self.options.scale)
        px, py, out = self.points[:, 0], self.points[:, 1], self.result
        out[:, 0] = m[0] * px + m[1] * py + m[3] * s
        out[:, 1] = m[4] * px + m[5] * py + m[7] * s
        out[:, 2:] = self.points[:, 2:]
