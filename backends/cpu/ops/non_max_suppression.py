"""NON_MAX_SUPPRESSION_V4/V5: TFLite's single-class (soft-)NMS."""
from __future__ import annotations

import heapq

import numpy as np

from .common import F32, OpKernel, register


def non_max_suppression(boxes: np.ndarray, scores: np.ndarray, max_out: int, iou_thr: float,
                        score_thr: float, sigma: float) -> tuple[list[int], list[float]]:
    """TFLite's single-class (soft-)NMS in float32: candidates above score_thr by descending
    score; each is hard-suppressed by a selected box of IoU >= iou_thr, or (sigma > 0) has its
    score decayed by exp(-0.5 / sigma * iou^2) per selected box and goes back in the queue."""
    f = np.float32
    iou_thr, score_thr, sigma = f(iou_thr), f(score_thr), f(sigma)
    y_min = np.minimum(boxes[:, 0], boxes[:, 2])
    y_max = np.maximum(boxes[:, 0], boxes[:, 2])
    x_min = np.minimum(boxes[:, 1], boxes[:, 3])
    x_max = np.maximum(boxes[:, 1], boxes[:, 3])
    area = (y_max - y_min) * (x_max - x_min)

    def iou(i: int, sel: np.ndarray) -> np.ndarray:
        """IoU of box i with each box in sel (float32, 0 where an area is not positive)."""
        ih = np.maximum(np.minimum(y_max[i], y_max[sel]) - np.maximum(y_min[i], y_min[sel]), f(0))
        iw = np.maximum(np.minimum(x_max[i], x_max[sel]) - np.maximum(x_min[i], x_min[sel]), f(0))
        inter = ih * iw
        union = area[i] + area[sel] - inter
        valid = (area[i] > 0) & (area[sel] > 0) & (union != 0)
        with np.errstate(all="ignore"):
            return np.where(valid, inter / np.where(valid, union, f(1)), f(0)).astype(f)

    heap = [(-scores[i], i, 0) for i in np.flatnonzero(scores > score_thr).tolist()]
    heapq.heapify(heap)
    n_out = min(len(heap), max_out)
    scale = f(-0.5) / sigma if sigma > 0 else f(0)
    selected: list[int] = []
    selected_scores: list[float] = []
    while len(selected) < n_out and heap:
        neg, i, begin = heapq.heappop(heap)
        score = original = f(-neg)
        suppressed = False
        if begin < len(selected):
            ious = iou(i, np.array(selected[begin:][::-1], np.int64))   # newest first
            if sigma > 0:
                for v in ious:
                    if v >= iou_thr:
                        suppressed = True
                        break
                    score = f(score * np.exp(f(f(scale * v) * v)))
                    if score <= score_thr:
                        break
            else:
                suppressed = bool((ious >= iou_thr).any())
        if suppressed:
            continue
        begin = len(selected)     # the boxes this candidate has now been compared with
        if score == original:
            selected.append(i)
            selected_scores.append(score)
        if score > score_thr:     # as in TFLite, a selected box goes back too (its IoU with
            heapq.heappush(heap, (-score, i, begin))   # itself suppresses it next time)
    return selected, selected_scores


class NonMaxSuppressionBase(OpKernel):
    """inputs (boxes [n, 4], scores [n], max_output_size, iou_threshold, score_threshold
    [, soft_nms_sigma]); outputs padded to max_output_size with zeros, then the count."""

    dtypes = F32
    soft = False

    def validate(self) -> None:
        for i, t in enumerate(self.inputs):
            want = np.int32 if i == 2 else np.float32
            if t is None or t.dtype != want:
                raise self.fail(f"input {i} must be {np.dtype(want).name}")
        n_out = 3 if self.soft else 2
        if len(self.outputs) != n_out:
            raise self.fail(f"{self.op.name} has {n_out} outputs, got {len(self.outputs)}")
        if self.outputs[0].dtype != np.int32 or self.outputs[-1].dtype != np.int32:
            raise self.fail("selected indices and their count are int32")
        if self.soft and self.outputs[1].dtype != np.float32:
            raise self.fail("selected scores are float32")

    def run(self) -> None:
        boxes, scores = self.buf(0), self.buf(1)
        if boxes.ndim != 2 or boxes.shape[1] != 4 or scores.shape != boxes.shape[:1]:
            raise ValueError(f"boxes {boxes.shape} must be [n, 4] and scores {scores.shape} [n]")
        m = int(self.buf(2).reshape(-1)[0])
        sigma = float(self.buf(5).reshape(-1)[0]) if self.soft else 0.0
        if sigma < 0:
            raise ValueError(f"soft_nms_sigma {sigma} is negative")
        sel, sel_scores = non_max_suppression(
            boxes, scores, m, self.buf(3).reshape(-1)[0], self.buf(4).reshape(-1)[0], sigma)
        out = self.outputs[0].buffer
        if out.shape != (m,):
            raise ValueError(f"max_output_size {m}, but the output holds {out.shape}")
        out.fill(0)
        out[:len(sel)] = sel
        if self.soft:
            s = self.outputs[1].buffer
            s.fill(0)
            s[:len(sel)] = sel_scores
        self.outputs[-1].buffer[...] = len(sel)


@register("NonMaxSuppressionV4")
class NonMaxSuppressionV4Layer(NonMaxSuppressionBase):
    pass


@register("NonMaxSuppressionV5")
class NonMaxSuppressionV5Layer(NonMaxSuppressionBase):
    soft = True
