"""The bundled custom op TFLite_Detection_PostProcess (SSD box decoding + NMS) against the
TFLite interpreter, whose builtin resolver includes it.

TFLite leaves the output slots past the detections unwritten (whatever the arena held), so
`check_detections` compares the slots it writes (the first num_detections for regular NMS;
max_classes_per_detection slots per detection, of which the first min(that, num_classes) are
written, for fast NMS) and requires onert_py's other slots to be zero. Counts and classes are
compared exactly, boxes and scores with the ELEMENTWISE tolerance."""
from __future__ import annotations

import numpy as np
import pytest
from flatbuffers import flexbuffers

import onert_py
import onert_py.backends.cpu.ops.detection_postprocess  # noqa: F401  (registers the kernel)
from onert_py.backends.cpu.ops.detection_postprocess import partial_argsort
from onert_py.model_builder import ModelBuilder
from op_harness import ELEMENTWISE, run_onert
from oracle import tflite_run

F32, U8 = np.float32, np.uint8
CODE = "CUSTOM:TFLite_Detection_PostProcess"
BASE = dict(max_detections=5, max_classes_per_detection=1, detections_per_class=100,
            use_regular_nms=False, nms_score_threshold=0.0, nms_iou_threshold=0.5,
            num_classes=3, y_scale=10.0, x_scale=10.0, h_scale=5.0, w_scale=5.0)


def options(**kw) -> bytes:
    """The FlexBuffer map of BASE updated by kw; a value None drops the key."""
    opts = {**BASE, **kw}
    return bytes(flexbuffers.Dumps({k: v for k, v in opts.items() if v is not None}))


def dpp_model(nb: int, ncb: int, opts: dict, anchors: np.ndarray | None = None,
              box_len: int = 4, box_q: dict | None = None, cls_q: dict | None = None,
              raw: bytes | None = None, out_dtype: str = "float32", open_boxes: bool = False
              ) -> bytes:
    """The op on graph inputs boxes [1, nb, box_len] and scores [1, nb, ncb]; anchors are a
    constant when given, else a third graph input. `box_q`/`cls_q` make those inputs uint8 with
    that quantization (the anchors follow the boxes). `open_boxes` leaves the number of boxes
    open (-1 in the shape signatures)."""
    b = ModelBuilder()
    nb = None if open_boxes else nb
    box = b.add_input("boxes", (1, nb, box_len), "uint8" if box_q else "float32", quant=box_q)
    cls = b.add_input("scores", (1, nb, ncb), "uint8" if cls_q else "float32", quant=cls_q)
    aq = None if box_q is None else {"scale": [0.01], "zero_point": [0]}
    if anchors is None:
        anc = b.add_input("anchors", (nb, 4), "uint8" if box_q else "float32", quant=aq)
    else:
        anc = b.add_const("anchors", anchors, quant=aq)
    n = opts["max_detections"] * opts["max_classes_per_detection"]
    outs = [b.add_tensor("det_boxes", (1, n, 4), out_dtype), b.add_tensor("det_classes", (1, n)),
            b.add_tensor("det_scores", (1, n)), b.add_tensor("num_det", (1,))]
    b.add_op(CODE, [box, cls, anc], outs, custom_options=raw if raw is not None else
             options(**{k: v for k, v in opts.items() if k not in BASE or BASE[k] != v}))
    for t in outs:
        b.add_output(t)
    return b.build()


def anchors_for(rng, nb: int) -> np.ndarray:
    """Anchors (y, x, h, w) crowded in the unit square, so that many decoded boxes overlap."""
    yx = rng.uniform(0.2, 0.8, (nb, 2))
    hw = rng.uniform(0.1, 0.5, (nb, 2))
    return np.concatenate([yx, hw], axis=1).astype(F32)


def scores_for(rng, nb: int, ncb: int, ties: bool) -> np.ndarray:
    if ties:   # few levels: equal scores within anchors, across anchors and across classes
        return (rng.integers(0, 5, (1, nb, ncb)) / 4).astype(F32)
    return rng.uniform(0.0, 1.0, (1, nb, ncb)).astype(F32)


def check_detections(model: bytes, inputs: list, opts: dict) -> list[np.ndarray]:
    want = tflite_run(model, inputs)
    got = run_onert(model, inputs)
    for k, (g, e) in enumerate(zip(got, want)):
        assert g.shape == e.shape and g.dtype == e.dtype == F32, f"output {k}"
    count = int(want[3][0])
    np.testing.assert_array_equal(got[3], want[3], err_msg="num_detections")
    mcpd, n = opts["max_classes_per_detection"], opts["max_detections"] * \
        opts["max_classes_per_detection"]
    if opts.get("use_regular_nms"):
        written = np.arange(n) < count
    else:
        ncat = min(mcpd, opts["num_classes"])
        written = (np.arange(n) < count * mcpd) & (np.arange(n) % mcpd < ncat)
    for k, name in enumerate(("boxes", "classes", "scores")):
        g, e = got[k][0], want[k][0]
        if name == "classes":
            np.testing.assert_array_equal(g[written], e[written], err_msg=name)
        else:
            np.testing.assert_allclose(g[written], e[written], err_msg=name, **ELEMENTWISE)
        assert not g[~written].any(), f"{name}: slots past the detections must be zero"
    return got


CONFIGS = {   # name: (num_boxes, background column, option overrides)
    "fast_1class": (12, True, dict(num_classes=1)),
    "fast_3class": (20, True, dict(max_detections=6)),
    "fast_3class_top2": (20, True, dict(max_classes_per_detection=2)),
    "fast_3class_top3_iou03": (24, True, dict(max_classes_per_detection=3, nms_iou_threshold=0.3)),
    "fast_top4_of_3_classes": (16, True, dict(max_classes_per_detection=4, max_detections=3)),
    "fast_no_background": (16, False, dict(max_classes_per_detection=2)),
    "fast_few_detections": (6, True, dict(max_detections=10, nms_score_threshold=0.6)),
    "fast_scales": (20, True, dict(y_scale=2.0, x_scale=3.0, h_scale=1.5, w_scale=0.7)),
    "fast_iou_1": (10, True, dict(nms_iou_threshold=1.0, max_detections=8)),
    "regular_1class": (12, True, dict(num_classes=1, use_regular_nms=True)),
    "regular_3class": (20, True, dict(use_regular_nms=True, max_detections=8)),
    "regular_3class_per_class2": (20, True, dict(use_regular_nms=True, detections_per_class=2)),
    "regular_top2": (16, True, dict(use_regular_nms=True, max_classes_per_detection=2)),
    "regular_no_background": (16, False, dict(use_regular_nms=True, detections_per_class=4)),
    "regular_few_detections": (5, True, dict(use_regular_nms=True, max_detections=20,
                                             nms_score_threshold=0.5)),
    "regular_scales_iou03": (20, True, dict(use_regular_nms=True, y_scale=4.0, x_scale=1.0,
                                            h_scale=2.0, w_scale=3.0, nms_iou_threshold=0.3,
                                            max_detections=1)),
}


@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "tied"])
@pytest.mark.parametrize("case", list(CONFIGS))
def test_detection_postprocess_float(rng, case, ties):
    nb, background, over = CONFIGS[case]
    opts = {**BASE, **over}
    ncb = opts["num_classes"] + background
    model = dpp_model(nb, ncb, opts, anchors_for(rng, nb))
    boxes = rng.normal(0.0, 1.0, (1, nb, 4)).astype(F32)
    check_detections(model, [boxes, scores_for(rng, nb, ncb, ties)], opts)


@pytest.mark.parametrize("regular", [False, True], ids=["fast", "regular"])
def test_detection_postprocess_keypoints_and_anchor_input(rng, regular):
    """Box encodings with extra values per box (keypoints, ignored); anchors as an input."""
    opts = {**BASE, "use_regular_nms": regular, "max_classes_per_detection": 2}
    model = dpp_model(15, 4, opts, box_len=8)
    inputs = [rng.normal(0, 1, (1, 15, 8)).astype(F32), scores_for(rng, 15, 4, False),
              anchors_for(rng, 15)]
    check_detections(model, inputs, opts)


@pytest.mark.parametrize("open_boxes", [False, True], ids=["declared", "open"])
@pytest.mark.parametrize("regular", [False, True], ids=["fast", "regular"])
def test_detection_postprocess_resized_inputs(rng, regular, open_boxes):
    """The model declares 8 boxes (or leaves their number open); it runs on 30 (anchors as an
    input)."""
    opts = {**BASE, "use_regular_nms": regular}
    model = dpp_model(8, 4, opts, open_boxes=open_boxes)
    inputs = [rng.normal(0, 1, (1, 30, 4)).astype(F32), scores_for(rng, 30, 4, True),
              anchors_for(rng, 30)]
    check_detections(model, inputs, opts)


@pytest.mark.parametrize("quantized", ["boxes", "classes", "both"])
@pytest.mark.parametrize("regular", [False, True], ids=["fast", "regular"])
def test_detection_postprocess_uint8(rng, quantized, regular):
    """uint8 box encodings (with uint8 anchors) and/or uint8 class predictions."""
    nb, opts = 20, {**BASE, "use_regular_nms": regular, "max_classes_per_detection": 2}
    box_q = {"scale": [0.05], "zero_point": [128]} if quantized != "classes" else None
    cls_q = {"scale": [1 / 255], "zero_point": [0]} if quantized != "boxes" else None
    anchors = anchors_for(rng, nb)
    if box_q:
        anchors = np.round(anchors / 0.01).astype(U8)
        boxes = rng.integers(90, 166, (1, nb, 4)).astype(U8)
    else:
        boxes = rng.normal(0, 1, (1, nb, 4)).astype(F32)
    scores = (rng.integers(0, 256, (1, nb, 4)).astype(U8) if cls_q
              else scores_for(rng, nb, 4, False))
    check_detections(dpp_model(nb, 4, opts, anchors, box_q=box_q, cls_q=cls_q),
                     [boxes, scores], opts)


def test_detection_postprocess_can_be_overridden(rng):
    from onert_py.custom_ops import custom_op, lookup_custom_op
    opts = dict(BASE)
    model = dpp_model(6, 4, opts, anchors_for(rng, 6))
    inputs = [rng.normal(0, 1, (1, 6, 4)).astype(F32), scores_for(rng, 6, 4, False)]
    assert lookup_custom_op("TFLite_Detection_PostProcess").bundled
    zeros = [np.zeros((1, 5, 4), F32), np.zeros((1, 5), F32), np.zeros((1, 5), F32),
             np.zeros(1, F32)]
    with custom_op("TFLite_Detection_PostProcess", lambda ins, o: zeros):
        assert not onert_py.Session(model).run(inputs)[3].any()
    assert onert_py.Session(model).run(inputs)[3][0] > 0


@pytest.mark.parametrize("over, match", [
    (dict(num_classes=None), "lack num_classes"),
    (dict(y_scale=None, w_scale=None), "lack y_scale, w_scale"),
    (dict(nms_iou_threshold=0.0), "nms_iou_threshold' must be in"),
    (dict(nms_iou_threshold=1.5), "nms_iou_threshold' must be in"),
    (dict(x_scale=0.0), "'x_scale' must not be zero"),
    (dict(max_detections=0), "'max_detections' must be positive"),
    (dict(max_classes_per_detection=0), "'max_classes_per_detection' must be positive"),
    (dict(num_classes=2.5), "'num_classes' must be an integer"),
    (dict(h_scale="big"), "'h_scale' must be a finite number"),
    (dict(use_regular_nms=True, detections_per_class=0), "'detections_per_class' must be"),
])
def test_detection_postprocess_bad_options_refused(over, match):
    opts = {**BASE, "max_detections": 5, "max_classes_per_detection": 1}
    model = dpp_model(4, 4, opts, np.full((4, 4), 0.5, F32), raw=options(**over))
    with pytest.raises(onert_py.UnsupportedOperationError, match=match):
        onert_py.Session(model)


@pytest.mark.parametrize("raw, match", [
    (b"", "needs its custom options"),
    (bytes(flexbuffers.Dumps([1, 2, 3])), "must be a FlexBuffer map"),
    (b"\x07", "not a FlexBuffer"),
])
def test_detection_postprocess_malformed_options_refused(raw, match):
    model = dpp_model(4, 4, BASE, np.full((4, 4), 0.5, F32), raw=raw)
    with pytest.raises(onert_py.UnsupportedOperationError, match=match):
        onert_py.Session(model)


def test_detection_postprocess_forms_refused():
    anchors = np.full((4, 4), 0.5, F32)
    with pytest.raises(onert_py.CompileError, match="num_classes .3. or one more"):
        onert_py.Session(dpp_model(4, 6, BASE, anchors))
    with pytest.raises(onert_py.UnsupportedOperationError, match="anchors must have"):
        onert_py.Session(dpp_model(4, 4, BASE, anchors, box_q={"scale": [0.1],
                                                               "zero_point": [0]}))
    with pytest.raises(onert_py.UnsupportedOperationError, match="outputs are float32"):
        onert_py.Session(dpp_model(4, 4, BASE, anchors, out_dtype="int32"))
    b = ModelBuilder()   # int8 inputs: the interpreter fails on them too
    ins = [b.add_input("boxes", (1, 4, 4), "int8", quant={"scale": [0.1], "zero_point": [0]}),
           b.add_input("scores", (1, 4, 4)), b.add_const("anchors", anchors)]
    outs = [b.add_tensor("o0", (1, 5, 4)), b.add_tensor("o1", (1, 5)),
            b.add_tensor("o2", (1, 5)), b.add_tensor("o3", (1,))]
    b.add_op(CODE, ins, outs, custom_options=options())
    for t in outs:
        b.add_output(t)
    with pytest.raises(onert_py.UnsupportedOperationError, match="float32 or uint8, not INT8"):
        onert_py.Session(b.build())


def test_detection_postprocess_invalid_boxes_fail_at_run(rng):
    """A negative anchor height decodes to ymin > ymax: TFLite's invoke fails, and so do we."""
    anchors = anchors_for(rng, 6)
    anchors[2, 2] = -0.3
    model = dpp_model(6, 4, BASE, anchors)
    inputs = [rng.normal(0, 1, (1, 6, 4)).astype(F32), scores_for(rng, 6, 4, False)]
    with pytest.raises(Exception):
        tflite_run(model, inputs)
    with pytest.raises(onert_py.ExecutionError, match="ymin > ymax"):
        onert_py.Session(model).run(inputs)


def test_detection_postprocess_box_counts_must_agree(rng):
    """Inputs resized to disagreeing numbers of boxes fail at run time, naming the op."""
    model = dpp_model(8, 4, BASE, open_boxes=True)
    inputs = [rng.normal(0, 1, (1, 9, 4)).astype(F32), scores_for(rng, 8, 4, False),
              anchors_for(rng, 8)]
    with pytest.raises(onert_py.ExecutionError, match=r"disagree on the number of boxes .9, 8"):
        onert_py.Session(model).run(inputs)


@pytest.mark.parametrize("k", [1, 2, 5, 13])
def test_partial_argsort_is_a_descending_prefix(rng, k):
    for _ in range(50):
        values = (rng.integers(0, 4, 13) / 3).astype(F32)
        got = partial_argsort(values, k)
        assert len(set(got)) == len(got) == k
        assert list(values[got]) == sorted(values, reverse=True)[:k]
