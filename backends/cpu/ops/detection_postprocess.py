"""TFLite's custom op TFLite_Detection_PostProcess (SSD box decoding + non-max suppression),
bundled as a default custom kernel.

Inputs: box encodings [1, num_boxes, >=4] (y, x, h, w relative to the anchor), class predictions
[1, num_boxes, num_classes (+1 background, skipped)], anchors [num_boxes, 4] (y, x, h, w).
Float32, or uint8 with per-tensor quantization (boxes and anchors both uint8; the class
predictions independently), dequantized here; int8 is refused like TFLite refuses it.
Outputs (float32): boxes [1, n, 4] (ymin, xmin, ymax, xmax), classes [1, n], scores [1, n] and
num_detections [1], with n = max_detections * max_classes_per_detection. Slots past the
detections are zeros (TFLite leaves them unwritten).

The custom options are a FlexBuffer map: max_detections, max_classes_per_detection,
nms_score_threshold, nms_iou_threshold, num_classes, y_scale, x_scale, h_scale, w_scale
(required), detections_per_class (default 100) and use_regular_nms (default false).

Decoding follows TFLite in double precision, rounded to float32: ycenter = y / y_scale * ah + ay,
half_h = 0.5 * exp(h / h_scale) * ah (x, w alike), box = center -/+ half. NMS per class: the
scores >= the score threshold, by descending score (stable), each selected box drops the later
ones of IoU > the IoU threshold (float32 IoU; 0 when an area is not positive). Fast NMS (the
default) runs it once on each anchor's best class score and reports each selected anchor's top
max_classes_per_detection classes; regular NMS runs it per class (detections_per_class each)
and keeps the max_detections best overall, merging each class's picks into the best so far
stably (on equal scores the earlier class first). Fast NMS orders an anchor's top classes like
TFLite: the first maximum for one class, else std::partial_sort, whose order of tied scores is
libstdc++'s heap select + heap sort; `partial_argsort` reproduces it (checked against the
interpreter on tie-heavy inputs). TFLite runs the per-class NMS of regular NMS on several threads
when it has them, which can reorder tied scores; this kernel follows its one-thread order.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....core.ops.bundled import BundledKernel, bundle
from ....core.ops.flexbuffer_options import as_float, as_int, read_map, require
from ....errors import ExecutionError

CODE = "TFLite_Detection_PostProcess"
F32, U8 = np.dtype(np.float32), np.dtype(np.uint8)
INT_KEYS = ("max_detections", "max_classes_per_detection", "num_classes")
FLOAT_KEYS = ("nms_score_threshold", "nms_iou_threshold", "y_scale", "x_scale", "h_scale",
              "w_scale")


@dataclass(frozen=True)
class Options:
    max_detections: int
    max_classes_per_detection: int
    detections_per_class: int
    use_regular_nms: bool
    nms_score_threshold: float
    nms_iou_threshold: float
    num_classes: int
    y_scale: float
    x_scale: float
    h_scale: float
    w_scale: float

    @property
    def num_slots(self) -> int:
        return self.max_detections * self.max_classes_per_detection


def parse_options(options: bytes | None) -> Options:
    """The op's options from their FlexBuffer map; ValueError when missing or malformed."""
    m = read_map(CODE, options)
    require(CODE, m, (*INT_KEYS, *FLOAT_KEYS))
    ints = {k: as_int(CODE, k, m[k]) for k in INT_KEYS}
    floats = {k: as_float(CODE, k, m[k]) for k in FLOAT_KEYS}
    per_class = m.get("detections_per_class")
    per_class = 100 if per_class is None else as_int(CODE, "detections_per_class", per_class)
    regular = m.get("use_regular_nms")
    if regular is None:
        regular = False
    elif isinstance(regular, (bool, int)):
        regular = bool(regular)
    else:
        raise ValueError(f"{CODE}: option 'use_regular_nms' must be a bool, got {regular!r}")
    for k in INT_KEYS:
        if ints[k] < 1:
            raise ValueError(f"{CODE}: option {k!r} must be positive, got {ints[k]}")
    if regular and per_class < 1:
        raise ValueError(f"{CODE}: option 'detections_per_class' must be positive with "
                         f"use_regular_nms, got {per_class}")
    if not 0.0 < floats["nms_iou_threshold"] <= 1.0:
        raise ValueError(f"{CODE}: option 'nms_iou_threshold' must be in (0, 1], got "
                         f"{floats['nms_iou_threshold']}")
    for k in ("y_scale", "x_scale", "h_scale", "w_scale"):
        if floats[k] == 0.0:
            raise ValueError(f"{CODE}: option {k!r} must not be zero")
    return Options(detections_per_class=per_class, use_regular_nms=regular, **ints, **floats)


def check_shapes(boxes: tuple, classes: tuple, anchors: tuple, opt: Options) -> None:
    """ValueError unless the input shapes fit the op and its options. That the three agree on
    the number of boxes is checked at run time (`check_counts`), like TFLite does: a session
    resizes its inputs one at a time, passing through shapes that disagree."""
    if len(boxes) != 3 or len(classes) != 3 or len(anchors) != 2:
        raise ValueError(f"{CODE} needs 3-D box encodings, 3-D class predictions and 2-D anchors, "
                         f"got {tuple(boxes)}, {tuple(classes)} and {tuple(anchors)}")
    if boxes[0] != 1 or classes[0] != 1:
        raise ValueError(f"{CODE} supports batch 1 only, got {boxes[0]} and {classes[0]}")
    if boxes[2] < 4 or anchors[1] != 4:
        raise ValueError(f"{CODE}: box encodings need at least 4 values per box and anchors "
                         f"exactly 4, got {boxes[2]} and {anchors[1]}")
    if classes[2] - opt.num_classes not in (0, 1):
        raise ValueError(f"{CODE}: class predictions have {classes[2]} columns, expected "
                         f"num_classes ({opt.num_classes}) or one more (background)")


def check_counts(boxes: tuple, classes: tuple, anchors: tuple) -> None:
    if not boxes[1] == classes[1] == anchors[0]:
        raise ValueError(f"{CODE}: the box encodings, class predictions and anchors disagree on "
                         f"the number of boxes ({boxes[1]}, {classes[1]}, {anchors[0]})")


def output_shapes(opt: Options) -> list[tuple[int, ...]]:
    n = opt.num_slots
    return [(1, n, 4), (1, n), (1, n), (1,)]


def partial_argsort(values: np.ndarray, k: int) -> list[int]:
    """The first k indices of `values` by descending value, in TFLite's order: the first
    maximum for k = 1; otherwise libstdc++'s std::partial_sort of 0..n-1 (heap select, then
    heap sort), whose order of tied values differs from a stable sort."""
    n = len(values)
    k = min(k, n)
    if k <= 0:
        return []
    if k == 1:
        return [int(np.argmax(values))]
    if len(np.unique(values)) == n:      # no ties: the order is unique
        return np.argsort(-values, kind="stable")[:k].tolist()
    v = values.tolist()
    idx = list(range(n))

    def adjust(hole: int, length: int, value: int) -> None:   # __adjust_heap + __push_heap
        top = child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if v[idx[child]] > v[idx[child - 1]]:
                child -= 1
            idx[hole] = idx[child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            idx[hole] = idx[child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and v[idx[parent]] > v[value]:
            idx[hole] = idx[parent]
            hole = parent
            parent = (hole - 1) // 2
        idx[hole] = value

    for parent in range((k - 2) // 2, -1, -1):               # make_heap(first, middle)
        adjust(parent, k, idx[parent])
    for i in range(k, n):                                     # heap select
        if v[idx[i]] > v[idx[0]]:
            value = idx[i]
            idx[i] = idx[0]
            adjust(0, k, value)
    for last in range(k - 1, 0, -1):                          # sort_heap
        value = idx[last]
        idx[last] = idx[0]
        adjust(0, last, value)
    return idx[:k]


def merge_desc(old: list, new: list) -> list:
    """Two lists sorted by descending score (first item) merged stably, as TFLite merges each
    class's picks into the best so far: on equal scores the old item stays first."""
    out, i, j = [], 0, 0
    while i < len(old) and j < len(new):
        if new[j][0] > old[i][0]:
            out.append(new[j])
            j += 1
        else:
            out.append(old[i])
            i += 1
    return out + old[i:] + new[j:]


def decode(enc: np.ndarray, anchors: np.ndarray, opt: Options) -> np.ndarray:
    """Corner boxes [n, 4] (ymin, xmin, ymax, xmax) in float32 from float32 inputs."""
    e = enc[:, :4].astype(np.float64)
    a = anchors.astype(np.float64)
    yc = (e[:, 0] / opt.y_scale * a[:, 2] + a[:, 0]).astype(F32)
    xc = (e[:, 1] / opt.x_scale * a[:, 3] + a[:, 1]).astype(F32)
    with np.errstate(over="ignore"):
        hh = (0.5 * np.exp(e[:, 2] / opt.h_scale) * a[:, 2]).astype(F32)
        hw = (0.5 * np.exp(e[:, 3] / opt.w_scale) * a[:, 3]).astype(F32)
    return np.stack([yc - hh, xc - hw, yc + hh, xc + hw], axis=1)


def nms_single(boxes: np.ndarray, scores: np.ndarray, max_out: int, opt: Options) -> list[int]:
    """TFLite's single-class NMS: the selected box indices, best first."""
    f = np.float32
    keep = np.flatnonzero(scores >= f(opt.nms_score_threshold))
    order = keep[np.argsort(-scores[keep], kind="stable")]
    out_size = min(len(order), max_out)
    b = boxes[order]
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    active = np.ones(len(order), bool)
    thr = f(opt.nms_iou_threshold)
    selected: list[int] = []
    for i in range(len(order)):
        if len(selected) >= out_size:
            break
        if not active[i]:
            continue
        selected.append(int(order[i]))
        active[i] = False
        rest = np.flatnonzero(active[i + 1:]) + i + 1
        if len(rest) == 0 or area[i] <= 0:
            continue
        ih = np.maximum(np.minimum(b[i, 2], b[rest, 2]) - np.maximum(b[i, 0], b[rest, 0]), f(0))
        iw = np.maximum(np.minimum(b[i, 3], b[rest, 3]) - np.maximum(b[i, 1], b[rest, 1]), f(0))
        inter = ih * iw
        with np.errstate(all="ignore"):
            iou = np.where(area[rest] > 0, inter / (area[i] + area[rest] - inter), f(0))
        active[rest[iou > thr]] = False
    return selected


@bundle
class TFLiteDetectionPostProcess(BundledKernel):
    """The bundled kernel."""

    code = CODE
    parse_options = staticmethod(parse_options)

    @staticmethod
    def check_op(op, graph) -> tuple[bool, str]:
        if len(op.inputs) != 3 or len(op.outputs) != 4 or min(op.inputs) < 0 \
                or min(op.outputs) < 0:
            return False, ("needs 3 inputs (box encodings, class predictions, anchors) and 4 "
                           "outputs (boxes, classes, scores, num_detections)")
        boxes, classes, anchors = (graph.operands[i] for i in op.inputs)
        for what, t in (("box encodings", boxes), ("class predictions", classes),
                        ("anchors", anchors)):
            if t.dtype not in (F32, U8):
                return False, f"{what} must be float32 or uint8, not {t.type_name}"
            if t.dtype == U8 and (t.quant is None or t.quant.per_channel):
                return False, f"uint8 {what} need per-tensor quantization (scale, zero point)"
        if anchors.dtype != boxes.dtype:
            return False, (f"the anchors must have the box encodings' type "
                           f"({boxes.type_name}), not {anchors.type_name}")
        for i in op.outputs:
            if graph.operands[i].dtype != F32:
                return False, f"outputs are float32, not {graph.operands[i].type_name}"
        return True, ""

    @staticmethod
    def shape_rule(options, shapes) -> list:
        check_shapes(*(tuple(s) for s in shapes[:3]), options)
        return output_shapes(options)

    def validate(self) -> None:
        try:
            self.opt = self.options_of(self.op)
            if not self.dynamic:
                check_shapes(*(tuple(t.shape) for t in self.inputs), self.opt)
        except ValueError as e:
            raise self.fail(str(e)) from None
        self.deq = []
        for t in self.inputs:
            q = t.quant if t.dtype == U8 else None
            self.deq.append(None if q is None else (np.float32(np.asarray(q.scale).reshape(-1)[0]),
                                                    np.float32(np.asarray(q.zero_point)
                                                               .reshape(-1)[0])))

    def _input(self, k: int, shape: tuple) -> np.ndarray:
        a = np.asarray(self.inputs[k].buffer).reshape(shape)
        if self.deq[k] is None:
            return a.astype(F32, copy=False)
        scale, zp = self.deq[k]
        return (a.astype(F32) - zp) * scale

    def run(self) -> None:
        opt = self.opt
        bshape, cshape = self.inputs[0].shape, self.inputs[1].shape
        try:
            if self.dynamic:
                check_shapes(tuple(bshape), tuple(cshape), tuple(self.inputs[2].shape), opt)
            check_counts(tuple(bshape), tuple(cshape), tuple(self.inputs[2].shape))
        except ValueError as e:
            raise ExecutionError(f"op #{self.op.index} {e}") from None
        n, ncb = bshape[1], cshape[2]
        boxes = decode(self._input(0, (n, bshape[2])), self._input(2, (n, 4)), opt)
        if np.any(boxes[:, 0] > boxes[:, 2]) or np.any(boxes[:, 1] > boxes[:, 3]):
            raise ExecutionError(f"op #{self.op.index} {CODE}: a decoded box has ymin > ymax or "
                                 f"xmin > xmax (negative anchor size?)")
        scores = self._input(1, (n, ncb))[:, ncb - opt.num_classes:]
        out_b, out_c, out_s, out_n = (t.buffer for t in self.outputs)
        for o in (out_b, out_c, out_s):
            o.fill(0)
        out_b, out_c, out_s = out_b.reshape(-1, 4), out_c.reshape(-1), out_s.reshape(-1)
        picks, count = (self._regular if opt.use_regular_nms else self._fast)(boxes, scores)
        for slot, (anchor, cls) in picks.items():
            out_b[slot] = boxes[anchor]
            out_c[slot] = cls
            out_s[slot] = scores[anchor, cls]
        out_n.reshape(-1)[0] = count

    def _regular(self, boxes: np.ndarray, scores: np.ndarray) -> tuple[dict, int]:
        """{output slot: (anchor, class)} and the detection count, by regular NMS."""
        opt = self.opt
        best: list[tuple[float, int, int]] = []       # (score, anchor, class), best first
        for c in range(opt.num_classes):
            sel = nms_single(boxes, scores[:, c],
                             min(opt.detections_per_class, opt.max_detections), opt)
            best = merge_desc(best, [(float(scores[a, c]), a, c) for a in sel])
            del best[opt.max_detections:]
        return {k: (a, c) for k, (_, a, c) in enumerate(best)}, len(best)

    def _fast(self, boxes: np.ndarray, scores: np.ndarray) -> tuple[dict, int]:
        """{output slot: (anchor, class)} and the detection count, by fast NMS."""
        opt = self.opt
        ncat = min(opt.max_classes_per_detection, opt.num_classes)
        sel = nms_single(boxes, scores.max(axis=1), opt.max_detections, opt)
        picks = {}
        for o, anchor in enumerate(sel):
            for col, cls in enumerate(partial_argsort(scores[anchor], ncat)):
                picks[opt.max_classes_per_detection * o + col] = (anchor, cls)
        return picks, len(sel)

