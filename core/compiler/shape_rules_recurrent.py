"""Shape rules of the recurrent ops: LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM,
BIDIRECTIONAL_SEQUENCE_LSTM, RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN, SVDF.

Sequence inputs are (time, batch, features) when time_major, else (batch, time, features);
the outputs keep the input's leading dimensions and end with the number of output units.
"""
from __future__ import annotations

from .shape_inference import rule


def lstm_units(shapes, base: int = 0) -> int:
    """n_output of an LSTM whose slots start at `base`: the projection's rows when there is
    one (slot 16), else the recurrent_to_output weights' columns (slot 8; diagonal: its size)."""
    proj = shapes[base + 16] if len(shapes) > base + 16 else None
    if proj is not None:
        return proj[0]
    rec = shapes[base + 8]
    return rec[-1]


def _seq_out(x, units: int):
    if len(x) != 3:
        raise ValueError(f"a sequence input must have rank 3, not {len(x)} ({x})")
    return tuple(x[:2]) + (units,)


@rule("LSTM")
def _lstm(op, shapes, v):
    x = shapes[0]
    return [(x[0], lstm_units(shapes))]


@rule("UnidirectionalSequenceLSTM")
def _uni_lstm(op, shapes, v):
    return [_seq_out(shapes[0], lstm_units(shapes))]


def _bidi(op, shapes, fw_units: int, bw_units: int):
    x = shapes[0]
    if op.params.get("merge_outputs", False):
        return [_seq_out(x, fw_units + bw_units)]
    return [_seq_out(x, fw_units), _seq_out(x, bw_units)]


@rule("BidirectionalSequenceLSTM")
def _bidi_lstm(op, shapes, v):
    # the backward direction's slots are the forward's shifted by 17 (slot 1 -> 18)
    return _bidi(op, shapes, lstm_units(shapes[:18]), lstm_units(shapes, 17))


@rule("RNN")
def _rnn(op, shapes, v):
    return [(shapes[0][0], shapes[1][0])]


@rule("UnidirectionalSequenceRNN")
def _uni_rnn(op, shapes, v):
    return [_seq_out(shapes[0], shapes[1][0])]


@rule("BidirectionalSequenceRNN")
def _bidi_rnn(op, shapes, v):
    return _bidi(op, shapes, shapes[1][0], shapes[5][0])


@rule("Svdf")
def _svdf(op, shapes, v):
    rank = int(op.params.rank)
    filters = shapes[1][0]
    if rank <= 0 or filters % rank:
        raise ValueError(f"SVDF: {filters} filters do not divide into rank {rank}")
    return [(shapes[0][0], filters // rank)]
