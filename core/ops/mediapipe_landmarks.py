"""MediaPipe's landmark custom ops, as MediaPipe defines them (mediapipe/util/tflite/operations/
landmarks_to_transform_matrix.cc, transform_tensor_bilinear.cc, transform_landmarks.cc; their
custom options are the FlexBuffer maps TFLite's delegates/gpu/common/mediapipe/ parses): the
options, validation and output shapes that every backend's kernel shares. The face mesh with
attention (refined lips, eyes and irises) chains them: a transform matrix from the mesh
landmarks, a crop of a feature map through it, and the crop's landmarks mapped back.

Landmarks2TransformMatrix (1 input, float32 landmarks as (x, y, z) triples; output the 4x4
row-major matrix, shape (1, 4, 4)) maps a crop's pixel coordinates to the landmarks' space:
- version 2 (input (1, N, 3); options subset_idxs, left_rotation_idx, right_rotation_idx,
  target_rotation_radians (0 when absent), output_height, output_width, scale_x, scale_y):
  r = target - atan2(y_right - y_left, x_right - x_left); the subset's (x, y) rotated by r span
  a box of size (w, h) and centre c (rotated back by -r); the matrix is
  shift(c) . rotate(-r) . scale(scale_x * w / output_width, scale_y * h / output_height) .
  shift(-output_width / 2, -output_height / 2).
- version 1 (input (1, 1, 1, 3N); options input_hw, output_hw, dimensions (3),
  landmarks_range, bbox_size_multiplier, left_rotation_idx, right_rotation_idx, subset):
  a = -atan((y_right - y_left) / (x_right - x_left)); the subset rotated by a spans [lo, hi];
  size = (hi - lo) * bbox_size_multiplier, m = R(-a) (lo + hi) / 2; the 3x3 matrix
  to_absolute(input_hw) . [R(-a) | 2 m / range - 1] . diag(size / range, 1) . to_relative(output_hw)
  (to_relative: [2 / (w - 1), -1] per axis, to_absolute: [(w - 1) / 2, (w - 1) / 2]) is laid
  into the 4x4 output with its translation in column 3 and z passed through.
MediaPipe reads the subset as pairs (an odd last index paired with itself); only its set of
indexes matters, so it is kept as a flat tuple here.

TransformTensorBilinear (version 2) / TransformTensor (MediaPipe's version 1): input 0 a float32
NHWC map (batch 1), input 1 the 4x4 matrix (its first two rows are read); output
(1, output_height, output_width, C). Output pixel (x, y) samples the input at
(m00 x + m01 y + m03, m10 x + m11 y + m13) bilinearly; version 2 first moves the matrix to pixel
centres (T -> S . T . A, A adding 0.5 and S subtracting 0.5 on x and y). A sample point outside
[0, W - 1] x [0, H - 1] gives 0 in every channel; neighbours past the last row/column read 0.
Options: version 2 output_height, output_width; version 1 output_size [h, w] and mode (only
"bilinear").

TransformLandmarks: input 0 landmarks, input 1 the 4x4 matrix; each landmark's (x, y) becomes
(m00 x + m01 y + m03 s, m10 x + m11 y + m13 s) and z passes through; output shape = input shape.
Version 2: input (1, N, D), D (2 or 3) per landmark, s = 1, no options. Version 1: input
(1, H, W, C) holding C / dimensions landmarks per pixel; options dimensions (2 or 3, default 3)
and scale (s, default 1, not 0).

The options MediaPipe reads are required (it would read an absent key as 0), except
target_rotation_radians and TransformLandmarks version 1's keys, which default as there.
MediaPipe's kernels read batch 0 only; inputs with a larger batch are refused here, and so are
landmark indexes past the input (MediaPipe reads out of bounds), an empty subset (version 2
reads past its end) and a version-1 output_hw of 1 (a division by zero). Version 1's box starts
at +-100000 in MediaPipe, which matters only for coordinates beyond that. Kernels:
backends/cpu/ops/mediapipe_landmarks.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .bundled import BundledKernel
from .flexbuffer_options import as_float, as_int, as_ints, read_map, require

MATRIX = "Landmarks2TransformMatrix"
TENSOR = "TransformTensorBilinear"
TENSOR_V1 = "TransformTensor"
LANDMARKS = "TransformLandmarks"
VERSIONS = {MATRIX: (1, 2), TENSOR: (2,), TENSOR_V1: (1,), LANDMARKS: (1, 2)}
F32 = np.dtype(np.float32)


@dataclass(frozen=True)
class MatrixV1Options:
    input_hw: tuple[int, int]
    output_hw: tuple[int, int]
    landmarks_range: int
    bbox_size_multiplier: float
    left_rotation_idx: int
    right_rotation_idx: int
    subset: tuple[int, ...]


@dataclass(frozen=True)
class MatrixV2Options:
    left_rotation_idx: int
    right_rotation_idx: int
    target_rotation_radians: float
    output_height: int
    output_width: int
    scale_x: float
    scale_y: float
    subset: tuple[int, ...]


@dataclass(frozen=True)
class TensorOptions:
    output_height: int
    output_width: int
    align_corners: bool        # version 2: sample at pixel centres


@dataclass(frozen=True)
class LandmarksOptions:
    dimensions: int | None     # None: the input's last dimension (version 2)
    scale: float


def check_version(code: str, version: int) -> None:
    known = VERSIONS[code]
    if version not in known:
        names = " and ".join(str(v) for v in known)
        raise ValueError(f"MediaPipe defines {code} version{'s' if len(known) > 1 else ''} "
                         f"{names}; the op is version {version}")


def _positive(code: str, key: str, value: int | float, least: int | float = 1) -> None:
    if value < least:
        raise ValueError(f"{code}: option {key!r} must be at least {least}, got {value}")


def _pair(code: str, key: str, value) -> tuple[int, int]:
    hw = as_ints(code, key, value)
    if len(hw) != 2:
        raise ValueError(f"{code}: option {key!r} must hold 2 integers (h, w), got {len(hw)}")
    return hw[0], hw[1]


def _indexes(code: str, m: dict, subset_key: str) -> tuple[int, int, tuple[int, ...]]:
    """(left, right, subset), all non-negative, the subset not empty."""
    left = as_int(code, "left_rotation_idx", m["left_rotation_idx"])
    right = as_int(code, "right_rotation_idx", m["right_rotation_idx"])
    subset = as_ints(code, subset_key, m[subset_key])
    if not subset:
        raise ValueError(f"{code}: option {subset_key!r} is empty; it must name the landmarks "
                         f"that size the crop")
    for key, value in (("left_rotation_idx", left), ("right_rotation_idx", right),
                       (subset_key, min(subset))):
        _positive(code, key, value, 0)
    return left, right, subset


def parse_matrix_options(version: int, options: bytes | None):
    """Landmarks2TransformMatrix's options (MatrixV1Options or MatrixV2Options)."""
    check_version(MATRIX, version)
    m = read_map(MATRIX, options)
    if version == 1:
        require(MATRIX, m, ("input_hw", "output_hw", "dimensions", "landmarks_range",
                            "bbox_size_multiplier", "left_rotation_idx", "right_rotation_idx",
                            "subset"))
        dims = as_int(MATRIX, "dimensions", m["dimensions"])
        if dims != 3:
            raise ValueError(f"{MATRIX}: option 'dimensions' must be 3, got {dims}")
        input_hw, output_hw = _pair(MATRIX, "input_hw", m["input_hw"]), _pair(
            MATRIX, "output_hw", m["output_hw"])
        _positive(MATRIX, "input_hw", min(input_hw))
        _positive(MATRIX, "output_hw", min(output_hw), 2)
        landmarks_range = as_int(MATRIX, "landmarks_range", m["landmarks_range"])
        _positive(MATRIX, "landmarks_range", landmarks_range)
        mult = as_float(MATRIX, "bbox_size_multiplier", m["bbox_size_multiplier"])
        if mult == 0:
            raise ValueError(f"{MATRIX}: option 'bbox_size_multiplier' must not be 0")
        left, right, subset = _indexes(MATRIX, m, "subset")
        return MatrixV1Options(input_hw, output_hw, landmarks_range, mult, left, right, subset)
    require(MATRIX, m, ("subset_idxs", "left_rotation_idx", "right_rotation_idx",
                        "output_height", "output_width", "scale_x", "scale_y"))
    left, right, subset = _indexes(MATRIX, m, "subset_idxs")
    target = m.get("target_rotation_radians")
    target = 0.0 if target is None else as_float(MATRIX, "target_rotation_radians", target)
    oh = as_int(MATRIX, "output_height", m["output_height"])
    ow = as_int(MATRIX, "output_width", m["output_width"])
    sx = as_float(MATRIX, "scale_x", m["scale_x"])
    sy = as_float(MATRIX, "scale_y", m["scale_y"])
    for key, value in (("output_height", oh), ("output_width", ow)):
        _positive(MATRIX, key, value)
    for key, value in (("scale_x", sx), ("scale_y", sy)):
        if value <= 0:
            raise ValueError(f"{MATRIX}: option {key!r} must be positive, got {value}")
    return MatrixV2Options(left, right, target, oh, ow, sx, sy, subset)


def parse_tensor_options(code: str, version: int, options: bytes | None) -> TensorOptions:
    """TransformTensorBilinear's (version 2) or TransformTensor's (version 1) options."""
    check_version(code, version)
    m = read_map(code, options)
    if code == TENSOR_V1:
        require(code, m, ("output_size",))
        mode = m.get("mode")
        if mode is not None and mode != "bilinear":
            raise ValueError(f"{code}: option 'mode' must be 'bilinear' (the only mode "
                             f"MediaPipe implements), got {mode!r}")
        oh, ow = _pair(code, "output_size", m["output_size"])
        _positive(code, "output_size", min(oh, ow))
    else:
        require(code, m, ("output_height", "output_width"))
        oh = as_int(code, "output_height", m["output_height"])
        ow = as_int(code, "output_width", m["output_width"])
        for key, value in (("output_height", oh), ("output_width", ow)):
            _positive(code, key, value)
    return TensorOptions(oh, ow, align_corners=code == TENSOR)


def parse_landmarks_options(version: int, options: bytes | None) -> LandmarksOptions:
    """TransformLandmarks's options: version 1's dimensions and scale; version 2 has none."""
    check_version(LANDMARKS, version)
    if version == 2:
        return LandmarksOptions(None, 1.0)
    m = read_map(LANDMARKS, options) if options else {}
    dims = m.get("dimensions")
    dims = 3 if dims is None else as_int(LANDMARKS, "dimensions", dims)
    scale = m.get("scale")
    scale = 1.0 if scale is None else as_float(LANDMARKS, "scale", scale)
    if dims not in (2, 3):
        raise ValueError(f"{LANDMARKS}: option 'dimensions' must be 2 or 3, got {dims}")
    if scale == 0:
        raise ValueError(f"{LANDMARKS}: option 'scale' must not be 0")
    return LandmarksOptions(dims, scale)


def _batch_one(code: str, what: str, shape: tuple, rank: int) -> None:
    if len(shape) != rank or shape[0] != 1:
        raise ValueError(f"{code}: {what} must be {rank}-D with batch 1 (MediaPipe reads batch "
                         f"0 only), got {tuple(shape)}")


def _matrix_input(code: str, shape: tuple | None) -> None:
    if shape is None or math.prod(shape) != 16:
        raise ValueError(f"{code}: input 1 must be the 4x4 transform matrix (16 values), got "
                         f"shape {None if shape is None else tuple(shape)}")


def matrix_output_shape(opt, x: tuple) -> tuple[int, int, int]:
    """(1, 4, 4), after checking the landmarks input against the options' version and
    indexes."""
    if isinstance(opt, MatrixV1Options):
        if len(x) != 4 or tuple(x[:3]) != (1, 1, 1) or x[3] % 3:
            raise ValueError(f"{MATRIX} version 1 needs landmarks of shape (1, 1, 1, 3N), got "
                             f"{tuple(x)}")
        count = x[3] // 3
    else:
        if len(x) != 3 or x[0] != 1 or x[2] != 3:
            raise ValueError(f"{MATRIX} version 2 needs landmarks of shape (1, N, 3), got "
                             f"{tuple(x)}")
        count = x[1]
    top = max(opt.left_rotation_idx, opt.right_rotation_idx, *opt.subset)
    if top >= count:
        raise ValueError(f"{MATRIX}: the options name landmark {top}, the input holds {count}")
    return 1, 4, 4


def tensor_output_shape(code: str, opt: TensorOptions, x: tuple, m: tuple | None
                        ) -> tuple[int, int, int, int]:
    _batch_one(code, "input 0", x, 4)
    _matrix_input(code, m)
    return 1, opt.output_height, opt.output_width, x[3]


def landmarks_output_shape(opt: LandmarksOptions, x: tuple, m: tuple | None) -> tuple:
    if opt.dimensions is None:
        _batch_one(LANDMARKS, "version 2's landmarks", x, 3)
        if x[2] not in (2, 3):
            raise ValueError(f"{LANDMARKS}: version 2's landmarks must have 2 or 3 values "
                             f"each, got {x[2]}")
    else:
        _batch_one(LANDMARKS, "version 1's landmarks", x, 4)
        if x[3] % opt.dimensions:
            raise ValueError(f"{LANDMARKS}: the landmarks' last dimension {x[3]} is not a "
                             f"multiple of dimensions ({opt.dimensions})")
    _matrix_input(LANDMARKS, m)
    return tuple(x)


class MediaPipeLandmarksBase(BundledKernel):
    """A MediaPipe landmark op: float32 inputs and output, `n_inputs` of them, options parsed by
    the op's version; `validate` checks the shapes against the options."""

    n_inputs: int

    @classmethod
    def parse(cls, version: int, options: bytes | None):
        raise NotImplementedError

    @classmethod
    def options_of(cls, op):
        return cls.parse(op.version, op.params.get("custom_options", b""))

    @classmethod
    def check_op(cls, op, graph) -> tuple[bool, str]:
        if len(op.inputs) != cls.n_inputs or len(op.outputs) != 1 or min(op.inputs) < 0:
            return False, f"needs {cls.n_inputs} input(s) and 1 output"
        for i in (*op.inputs, *op.outputs):
            if graph.operands[i].dtype != F32:
                return False, f"supports float32 only, not {graph.operands[i].type_name}"
        return True, ""

    def validate(self) -> None:
        self.options = self.options_of(self.op)
        if self.dynamic:
            return
        try:
            (want,) = self.shape_rule(self.options, [tuple(t.shape) for t in self.inputs])
        except ValueError as e:
            raise self.fail(str(e)) from None
        if tuple(self.outputs[0].shape) != tuple(want):
            raise self.fail(f"output shape {tuple(self.outputs[0].shape)}, expected {want}")


class Landmarks2TransformMatrixBase(MediaPipeLandmarksBase):
    code = MATRIX
    n_inputs = 1
    parse = staticmethod(parse_matrix_options)

    @classmethod
    def shape_rule(cls, options, shapes) -> list:
        return [matrix_output_shape(options, shapes[0])]


class TransformTensorBilinearBase(MediaPipeLandmarksBase):
    code = TENSOR
    n_inputs = 2

    @classmethod
    def parse(cls, version: int, options: bytes | None) -> TensorOptions:
        return parse_tensor_options(cls.code, version, options)

    @classmethod
    def shape_rule(cls, options, shapes) -> list:
        return [tensor_output_shape(cls.code, options, shapes[0], shapes[1])]


class TransformLandmarksBase(MediaPipeLandmarksBase):
    code = LANDMARKS
    n_inputs = 2
    parse = staticmethod(parse_landmarks_options)

    @classmethod
    def shape_rule(cls, options, shapes) -> list:
        return [landmarks_output_shape(options, shapes[0], shapes[1])]


__all__ = ["MATRIX", "TENSOR", "TENSOR_V1", "LANDMARKS", "VERSIONS", "MatrixV1Options",
           "MatrixV2Options", "TensorOptions", "LandmarksOptions", "parse_matrix_options",
           "parse_tensor_options", "parse_landmarks_options", "Landmarks2TransformMatrixBase",
           "TransformTensorBilinearBase", "TransformLandmarksBase"]
