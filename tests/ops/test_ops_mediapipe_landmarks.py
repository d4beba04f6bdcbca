"""MediaPipe's landmark custom ops, bundled (Landmarks2TransformMatrix v1/v2,
TransformTensorBilinear v2 and its v1 TransformTensor, TransformLandmarks v1/v2), against NumPy
references written from MediaPipe's definitions (mediapipe/util/tflite/operations/*.cc) in plain
loops; the interpreter has no kernel for them. Then the refusals: options, versions, shapes."""
from __future__ import annotations

import math

import numpy as np
import pytest
from flatbuffers import flexbuffers

import onert_py
from onert_py.model_builder import ModelBuilder

F32 = np.float32
MATRIX, TENSOR, TENSOR_V1, LANDMARKS = ("Landmarks2TransformMatrix", "TransformTensorBilinear",
                                        "TransformTensor", "TransformLandmarks")


def op_model(code: str, inputs: list[tuple], out_shape: tuple, options=None, version: int = 2,
             dtype: str = "float32") -> bytes:
    """One custom op; `options` a dict (written as a FlexBuffer map) or raw bytes."""
    b = ModelBuilder()
    ins = [b.add_input(f"x{k}", shape, dtype) for k, shape in enumerate(inputs)]
    y = b.add_tensor("y", out_shape, dtype)
    raw = bytes(flexbuffers.Dumps(options)) if isinstance(options, dict) else options
    b.add_op(f"CUSTOM:{code}", ins, [y], custom_options=raw, version=version)
    b.add_output(y)
    return b.build()


def run(code, inputs, out_shape, options=None, version=2) -> np.ndarray:
    model = op_model(code, [x.shape for x in inputs], out_shape, options, version)
    (y,) = onert_py.Session(model).run(list(inputs))
    return y


# ---- references ------------------------------------------------------------------------------
def subset_points(idxs) -> list[int]:
    """MediaPipe reads the subset as pairs; an odd last index is paired with itself."""
    pairs = [(idxs[2 * k], idxs[2 * k + 1]) for k in range(len(idxs) // 2)]
    if len(idxs) % 2:
        pairs.append((idxs[-1], idxs[-1]))
    return [i for pair in pairs for i in pair]


def matrix_of(f) -> np.ndarray:
    """The 4x4 matrix of the affine map (u, v) -> f(u, v) on x, y (z passes)."""
    o, ex, ey = np.array(f(0, 0)), np.array(f(1, 0)), np.array(f(0, 1))
    t = np.eye(4)
    t[:2, 0], t[:2, 1], t[:2, 3] = ex - o, ey - o, o
    return t


def ref_matrix_v2(lm: np.ndarray, o: dict) -> np.ndarray:
    """Crop pixel (u, v) -> centre + R(-r) (scale_x w / ow (u - ow/2), scale_y h / oh (v - oh/2)),
    r = target - angle(left -> right), (w, h) and centre: the box of the subset rotated by r."""
    lx, ly = lm[o["left_rotation_idx"]][:2]
    rx, ry = lm[o["right_rotation_idx"]][:2]
    r = o.get("target_rotation_radians", 0.0) - math.atan2(ry - ly, rx - lx)
    xs, ys = [], []
    for i in subset_points(o["subset_idxs"]):
        x, y = lm[i][0], lm[i][1]
        xs.append(x * math.cos(r) - y * math.sin(r))
        ys.append(x * math.sin(r) + y * math.cos(r))
    mx, my = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    cx, cy = mx * math.cos(-r) - my * math.sin(-r), mx * math.sin(-r) + my * math.cos(-r)
    ow, oh = o["output_width"], o["output_height"]
    sx, sy = o["scale_x"] * (max(xs) - min(xs)) / ow, o["scale_y"] * (max(ys) - min(ys)) / oh

    def f(u, v):
        px, py = sx * (u - ow / 2), sy * (v - oh / 2)
        return (cx + px * math.cos(-r) - py * math.sin(-r),
                cy + px * math.sin(-r) + py * math.cos(-r))
    return matrix_of(f)


def ref_matrix_v1(lm: np.ndarray, o: dict) -> np.ndarray:
    """Crop pixel (u, v) -> [-1, 1] of the output size -> scaled by the subset's box (rotated by
    a = -atan(slope left -> right), times bbox_size_multiplier, over landmarks_range) -> rotated
    by -a and moved to the box's middle (in [-1, 1] of landmarks_range) -> pixels of input_hw."""
    lx, ly = lm[o["left_rotation_idx"]][:2]
    rx, ry = lm[o["right_rotation_idx"]][:2]
    a = -math.atan((ry - ly) / (rx - lx))
    xs, ys = [], []
    for i in subset_points(o["subset"]):
        x, y = lm[i][0], lm[i][1]
        xs.append(x * math.cos(a) - y * math.sin(a))
        ys.append(x * math.sin(a) + y * math.cos(a))
    span, mult = o["landmarks_range"], o["bbox_size_multiplier"]
    bw, bh = (max(xs) - min(xs)) * mult, (max(ys) - min(ys)) * mult
    mx, my = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    rmx, rmy = mx * math.cos(-a) - my * math.sin(-a), mx * math.sin(-a) + my * math.cos(-a)
    (ih, iw), (oh, ow) = o["input_hw"], o["output_hw"]

    def f(u, v):
        nx, ny = (2 * u / (ow - 1) - 1) * bw / span, (2 * v / (oh - 1) - 1) * bh / span
        gx = nx * math.cos(-a) - ny * math.sin(-a) + rmx / span * 2 - 1
        gy = nx * math.sin(-a) + ny * math.cos(-a) + rmy / span * 2 - 1
        return (iw - 1) / 2 * (gx + 1), (ih - 1) / 2 * (gy + 1)
    return matrix_of(f)


def ref_transform_tensor(x: np.ndarray, m: np.ndarray, oh: int, ow: int,
                         align: bool) -> np.ndarray:
    """Output pixel (u, v) samples x at (m00 u + m01 v + m03, m10 u + m11 v + m13) (version 2:
    of the matrix moved to pixel centres), bilinearly; 0 outside [0, W-1] x [0, H-1] and for
    neighbours past the edge. Sample points in float32 as MediaPipe computes them."""
    _, h, w, c = x.shape
    m = m.reshape(-1).astype(F32)
    a, b, d, e, f, g = (float(v) for v in m[[0, 1, 3, 4, 5, 7]])
    if align:
        d, g = d + a * 0.5 + b * 0.5 - 0.5, g + e * 0.5 + f * 0.5 - 0.5
    a, b, d, e, f, g = (F32(v) for v in (a, b, d, e, f, g))
    out = np.zeros((1, oh, ow, c))

    def read(yy, xx):
        return x[0, yy, xx].astype(np.float64) if 0 <= yy < h and 0 <= xx < w else np.zeros(c)
    for v in range(oh):
        for u in range(ow):
            tx, ty = float(a * F32(u) + b * F32(v) + d), float(e * F32(u) + f * F32(v) + g)
            if not (0 <= tx <= w - 1 and 0 <= ty <= h - 1):
                continue
            x0, y0 = math.floor(tx), math.floor(ty)
            fx, fy = tx - x0, ty - y0
            upper = (1 - fx) * read(y0, x0) + fx * read(y0, x0 + 1)
            lower = (1 - fx) * read(y0 + 1, x0) + fx * read(y0 + 1, x0 + 1)
            out[0, v, u] = (1 - fy) * upper + fy * lower
    return out


def ref_transform_landmarks(x: np.ndarray, m: np.ndarray, dims: int,
                            scale: float = 1.0) -> np.ndarray:
    """Each landmark (`dims` values): x, y through the matrix's first two rows (translation
    times `scale`), z copied."""
    m = m.reshape(-1).astype(np.float64)
    flat, out = x.reshape(-1), np.zeros(x.size)
    for k in range(0, x.size, dims):
        px, py = float(flat[k]), float(flat[k + 1])
        out[k] = m[0] * px + m[1] * py + m[3] * scale
        out[k + 1] = m[4] * px + m[5] * py + m[7] * scale
        if dims == 3:
            out[k + 2] = flat[k + 2]
    return out.reshape(x.shape)


def crop_matrix(angle: float, scale: tuple, centre: tuple, out_hw: tuple) -> np.ndarray:
    """A (1, 4, 4) matrix taking a crop of out_hw pixels, turned by `angle`, around `centre`."""
    def f(u, v):
        px, py = scale[0] * (u - out_hw[1] / 2), scale[1] * (v - out_hw[0] / 2)
        return (centre[0] + px * math.cos(angle) - py * math.sin(angle),
                centre[1] + px * math.sin(angle) + py * math.cos(angle))
    return matrix_of(f).astype(F32)[None]


def landmarks(rng, n: int, extent: float = 48.0) -> np.ndarray:
    return (rng.uniform(0, extent, (1, n, 3)) * [1, 1, 0.2]).astype(F32)


# ---- Landmarks2TransformMatrix ---------------------------------------------------------------
V2_OPTIONS = {   # the face mesh's lips crop, and variations
    "mesh_like": dict(left_rotation_idx=3, right_rotation_idx=11, output_height=16,
                      output_width=16, scale_x=1.5, scale_y=1.5, target_rotation_radians=0.0,
                      subset_idxs=[3, 5, 8, 11, 13, 17, 20, 22, 24, 29]),
    "odd_subset_target": dict(left_rotation_idx=0, right_rotation_idx=7, output_height=12,
                              output_width=20, scale_x=1.2, scale_y=2.0,
                              target_rotation_radians=0.7, subset_idxs=[1, 4, 9, 16, 25]),
    "vertical_no_target": dict(left_rotation_idx=2, right_rotation_idx=6, output_height=8,
                               output_width=8, scale_x=1.0, scale_y=1.0,
                               subset_idxs=[2, 6, 12, 18]),
}


@pytest.mark.parametrize("case", list(V2_OPTIONS))
def test_landmarks_to_transform_matrix_v2(rng, case):
    o = V2_OPTIONS[case]
    lm = landmarks(rng, 30)
    if case.startswith("vertical"):
        lm[0, 6, 0] = lm[0, 2, 0]          # right straight below left: atan2 of (dy, 0)
    got = run(MATRIX, [lm], (1, 4, 4), o)
    want = ref_matrix_v2(lm[0].astype(np.float64), o)
    assert got.shape == (1, 4, 4) and got.dtype == F32
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-4)


def test_landmarks_to_transform_matrix_v1(rng):
    o = dict(input_hw=[48, 40], output_hw=[16, 12], dimensions=3, landmarks_range=192,
             bbox_size_multiplier=1.5, left_rotation_idx=1, right_rotation_idx=9,
             subset=[1, 4, 9, 12, 15, 18, 19])
    lm = (rng.uniform(20, 170, (1, 1, 1, 60)) * np.tile([1, 1, 0.1], 20)).astype(F32)
    got = run(MATRIX, [lm], (1, 4, 4), o, version=1)
    want = ref_matrix_v1(lm.reshape(-1, 3).astype(np.float64), o)
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-4)


# ---- TransformTensorBilinear / TransformTensor -----------------------------------------------
TENSOR_CASES = {   # input shape, matrix (angle, scale, centre), output (h, w)
    "inside_turned": ((1, 24, 20, 5), (0.4, (0.7, 0.9), (10.0, 12.0)), (8, 8)),
    "partly_outside": ((1, 12, 12, 3), (-1.1, (1.3, 1.1), (2.0, 9.5)), (10, 6)),
    "upscale": ((1, 6, 7, 2), (0.0, (0.25, 0.3), (3.0, 2.5)), (16, 16)),
}


@pytest.mark.parametrize("code", [TENSOR, TENSOR_V1])
@pytest.mark.parametrize("case", list(TENSOR_CASES))
def test_transform_tensor_bilinear(rng, case, code):
    shape, (angle, scale, centre), (oh, ow) = TENSOR_CASES[case]
    x = rng.standard_normal(shape).astype(F32)
    m = crop_matrix(angle, scale, centre, (oh, ow))
    if code == TENSOR:
        options, version = {"output_height": oh, "output_width": ow}, 2
    else:
        options, version = {"mode": "bilinear", "output_size": [oh, ow]}, 1
    got = run(code, [x, m], (1, oh, ow, shape[3]), options, version)
    want = ref_transform_tensor(x, m, oh, ow, align=code == TENSOR)
    assert got.shape == want.shape and got.dtype == F32
    if case == "partly_outside":
        assert 0 < (want == 0).all(axis=-1).sum() < oh * ow     # both kinds of pixels
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_transform_tensor_bilinear_identity_copies_pixels(rng):
    """Version 2 samples pixel centres: the identity matrix copies the top-left corner; past the
    input's last column and row the output is 0."""
    x = rng.standard_normal((1, 5, 6, 3)).astype(F32)
    got = run(TENSOR, [x, np.eye(4, dtype=F32)[None]], (1, 7, 4, 3),
              {"output_height": 7, "output_width": 4})
    np.testing.assert_array_equal(got[0, :5], x[0, :, :4])
    assert not got[0, 5:].any()


def test_transform_tensor_bilinear_nan_matrix_gives_zeros(rng):
    x = rng.standard_normal((1, 4, 4, 2)).astype(F32)
    m = np.full((1, 4, 4), np.nan, F32)
    got = run(TENSOR, [x, m], (1, 3, 3, 2), {"output_height": 3, "output_width": 3})
    np.testing.assert_array_equal(got, np.zeros_like(got))


# ---- TransformLandmarks ----------------------------------------------------------------------
@pytest.mark.parametrize("dims", [2, 3])
def test_transform_landmarks_v2(rng, dims):
    x = rng.uniform(0, 16, (1, 71, dims)).astype(F32)
    m = crop_matrix(0.3, (3.5, 2.8), (90.0, 70.0), (16, 16))
    got = run(LANDMARKS, [x, m], x.shape)
    np.testing.assert_allclose(got, ref_transform_landmarks(x, m, dims), rtol=1e-6, atol=1e-4)


@pytest.mark.parametrize("options, dims, scale", [
    (None, 3, 1.0), ({"dimensions": 2, "scale": 4.0}, 2, 4.0), ({"scale": -0.5}, 3, -0.5)])
def test_transform_landmarks_v1(rng, options, dims, scale):
    x = rng.uniform(0, 16, (1, 2, 3, 6 * dims)).astype(F32)
    m = crop_matrix(-0.2, (1.5, 1.5), (20.0, 30.0), (16, 16))
    got = run(LANDMARKS, [x, m], x.shape, options, version=1)
    np.testing.assert_allclose(got, ref_transform_landmarks(x, m, dims, scale), rtol=1e-6,
                               atol=1e-4)


def test_chain_maps_crop_landmarks_back(rng):
    """The face mesh's pattern: the matrix of a landmark subset, the crop through it, and a
    crop-space point mapped back by TransformLandmarks lands where the crop sampled it."""
    lm = landmarks(rng, 30)
    o = V2_OPTIONS["mesh_like"]
    m = run(MATRIX, [lm], (1, 4, 4), o)
    crop_points = np.array([[[0.5, 0.5], [8.0, 8.0], [15.5, 3.5]]], F32)
    back = run(LANDMARKS, [crop_points, m], crop_points.shape)
    ref = ref_matrix_v2(lm[0].astype(np.float64), o)
    want = [ref[:2, :2] @ p + ref[:2, 3] for p in crop_points[0].astype(np.float64)]
    np.testing.assert_allclose(back[0], want, rtol=1e-5, atol=1e-4)


def test_bundled_by_default():
    from onert_py.custom_ops import registered_custom_ops
    assert {registered_custom_ops()[c] for c in (MATRIX, TENSOR, TENSOR_V1, LANDMARKS)} == {
        "bundled"}


# ---- refusals --------------------------------------------------------------------------------
LIPS_V2 = V2_OPTIONS["mesh_like"]


def without(d: dict, key: str) -> dict:
    return {k: v for k, v in d.items() if k != key}


V1_OPTIONS = dict(input_hw=[48, 48], output_hw=[16, 16], dimensions=3, landmarks_range=192,
                  bbox_size_multiplier=1.5, left_rotation_idx=0, right_rotation_idx=1,
                  subset=[0, 1, 2])

BAD_OPTIONS = {   # code, input shapes, output shape, options, version, message
    "matrix_version_3": (MATRIX, [(1, 30, 3)], (1, 4, 4), LIPS_V2, 3,
                         "defines Landmarks2TransformMatrix versions 1 and 2; the op is "
                         "version 3"),
    "matrix_lacks_scale": (MATRIX, [(1, 30, 3)], (1, 4, 4), without(LIPS_V2, "scale_x"), 2,
                           "lack scale_x"),
    "matrix_empty_subset": (MATRIX, [(1, 30, 3)], (1, 4, 4), {**LIPS_V2, "subset_idxs": []}, 2,
                            "'subset_idxs' is empty"),
    "matrix_negative_index": (MATRIX, [(1, 30, 3)], (1, 4, 4),
                              {**LIPS_V2, "left_rotation_idx": -1}, 2,
                              "'left_rotation_idx' must be at least 0"),
    "matrix_zero_scale": (MATRIX, [(1, 30, 3)], (1, 4, 4), {**LIPS_V2, "scale_y": 0.0}, 2,
                          "'scale_y' must be positive"),
    "matrix_no_options": (MATRIX, [(1, 30, 3)], (1, 4, 4), None, 2, "needs its custom options"),
    "matrix_v1_dimensions": (MATRIX, [(1, 1, 1, 9)], (1, 4, 4), {**V1_OPTIONS, "dimensions": 2},
                             1, "'dimensions' must be 3"),
    "matrix_v1_output_hw_1": (MATRIX, [(1, 1, 1, 9)], (1, 4, 4),
                              {**V1_OPTIONS, "output_hw": [1, 16]}, 1,
                              "'output_hw' must be at least 2"),
    "matrix_v1_zero_multiplier": (MATRIX, [(1, 1, 1, 9)], (1, 4, 4),
                                  {**V1_OPTIONS, "bbox_size_multiplier": 0.0}, 1,
                                  "'bbox_size_multiplier' must not be 0"),
    "tensor_version_1": (TENSOR, [(1, 8, 8, 2), (1, 4, 4)], (1, 4, 4, 2),
                         {"output_height": 4, "output_width": 4}, 1,
                         "defines TransformTensorBilinear version 2; the op is version 1"),
    "tensor_lacks_width": (TENSOR, [(1, 8, 8, 2), (1, 4, 4)], (1, 4, 4, 2),
                           {"output_height": 4}, 2, "lack output_width"),
    "tensor_v1_mode": (TENSOR_V1, [(1, 8, 8, 2), (1, 4, 4)], (1, 4, 4, 2),
                       {"mode": "nearest", "output_size": [4, 4]}, 1, "must be 'bilinear'"),
    "tensor_zero_size": (TENSOR, [(1, 8, 8, 2), (1, 4, 4)], (1, 4, 4, 2),
                         {"output_height": 0, "output_width": 4}, 2,
                         "'output_height' must be at least 1"),
    "landmarks_v1_dimensions": (LANDMARKS, [(1, 1, 1, 8), (1, 4, 4)], (1, 1, 1, 8),
                                {"dimensions": 4}, 1, "'dimensions' must be 2 or 3"),
    "landmarks_v1_zero_scale": (LANDMARKS, [(1, 1, 1, 6), (1, 4, 4)], (1, 1, 1, 6),
                                {"scale": 0.0}, 1, "'scale' must not be 0"),
    "landmarks_not_a_map": (LANDMARKS, [(1, 1, 1, 6), (1, 4, 4)], (1, 1, 1, 6),
                            bytes(flexbuffers.Dumps([1, 2])), 1, "must be a FlexBuffer map"),
}


@pytest.mark.parametrize("case", list(BAD_OPTIONS))
def test_neg_bad_options_refused_at_compile(case):
    code, shapes, out, options, version, match = BAD_OPTIONS[case]
    with pytest.raises(onert_py.UnsupportedOperationError, match=match):
        onert_py.Session(op_model(code, shapes, out, options, version))


BAD_SHAPES = {   # code, input shapes, output shape, options, version, message
    "index_past_landmarks": (MATRIX, [(1, 20, 3)], (1, 4, 4), LIPS_V2, 2,
                             "options name landmark 29, the input holds 20"),
    "matrix_v2_pairs": (MATRIX, [(1, 30, 2)], (1, 4, 4), LIPS_V2, 2, r"shape \(1, N, 3\)"),
    "matrix_v1_not_triples": (MATRIX, [(1, 1, 1, 10)], (1, 4, 4), V1_OPTIONS, 1,
                              r"shape \(1, 1, 1, 3N\)"),
    "tensor_batch_2": (TENSOR, [(2, 8, 8, 2), (1, 4, 4)], (1, 4, 4, 2),
                       {"output_height": 4, "output_width": 4}, 2, "4-D with batch 1"),
    "tensor_matrix_3x3": (TENSOR, [(1, 8, 8, 2), (1, 3, 3)], (1, 4, 4, 2),
                          {"output_height": 4, "output_width": 4}, 2, "the 4x4 transform"),
    "landmarks_v2_four_values": (LANDMARKS, [(1, 5, 4), (1, 4, 4)], (1, 5, 4), None, 2,
                                 "must have 2 or 3 values each"),
    "landmarks_v1_not_multiple": (LANDMARKS, [(1, 1, 1, 7), (1, 4, 4)], (1, 1, 1, 7),
                                  {"dimensions": 2}, 1, "not a multiple of dimensions"),
}


@pytest.mark.parametrize("case", list(BAD_SHAPES))
def test_neg_bad_shapes_refused_at_compile(case):
    code, shapes, out, options, version, match = BAD_SHAPES[case]
    with pytest.raises(onert_py.CompileError, match=match):
        onert_py.Session(op_model(code, shapes, out, options, version))


def test_neg_int32_refused():
    model = op_model(LANDMARKS, [(1, 5, 2), (1, 4, 4)], (1, 5, 2), version=2, dtype="int32")
    with pytest.raises(onert_py.UnsupportedOperationError, match="supports float32 only"):
        onert_py.Session(model)
