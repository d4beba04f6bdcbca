"""Structured mutators (registered into fuzz_mutators.MUTATORS): shapes, indices, cycles,
control-flow subgraph indices, shared buffers, dtypes, options, constants, arity, opcodes."""
from __future__ import annotations

import random
import struct

import flatbuffers
import numpy as np

from fuzz_mutators import (CONTROL_FLOW_FIELDS, INT32_MAX, UINT32_MAX, bad_index, cf_ops, ints,
                           ops_of, structured, tensors_of)

HUGE_SHAPES = ([10**6, 10**6], [1000, 1000, 1000, 1000], [INT32_MAX], [1, INT32_MAX, 2],
               [65536, 65536, 4], [10**12 // INT32_MAX + 1, INT32_MAX])


@structured("huge_dim")
def huge_dim(m, rng: random.Random):
    cands = tensors_of(m, lambda t: t.shape is not None and len(t.shape) > 0)
    if not cands:
        return None
    s, k, t = rng.choice(cands)
    shape = ints(t.shape)
    if rng.random() < 0.5:
        shape = list(rng.choice(HUGE_SHAPES))
    else:
        shape[rng.randrange(len(shape))] = rng.choice([INT32_MAX, 10**9, 2**20 + 1, 10**6])
    t.shape = np.array(shape, np.int32)
    return (f"subgraph {s} tensor {k} ({t.name!r}) shape set to {shape}",
            {"subgraph": s, "tensor": k, "shape": shape})


def _index_lists(m):
    """(label, owner, attribute, table size) of every tensor-index vector of the model."""
    out = []
    for s, sg in enumerate(m.subgraphs or []):
        n = len(sg.tensors or [])
        out += [(f"subgraph {s} {a}", sg, a, n) for a in ("inputs", "outputs") if ints(getattr(sg, a))]
        for k, op in enumerate(sg.operators or []):
            out += [(f"subgraph {s} operator {k} {a}", op, a, n)
                    for a in ("inputs", "outputs") if ints(getattr(op, a))]
    return out


def _bad_tensor_index(m, rng: random.Random, negative: bool, kind: str):
    cands = _index_lists(m)
    if not cands:
        return None
    label, owner, attr, n = rng.choice(cands)
    values = ints(getattr(owner, attr))
    pos = rng.randrange(len(values))
    values[pos] = bad_index(rng, n, negative)
    setattr(owner, attr, np.array(values, np.int32))
    return (f"{label}[{pos}] set to {values[pos]} ({n} tensors)",
            {"label": label, "position": pos, "value": values[pos], "size": n})


@structured("negative_index")
def negative_index(m, rng: random.Random):
    if rng.random() < 0.2:       # uint32 index fields read as huge numbers
        cands = [(f"subgraph {s} operator {k} opcode_index", op, "opcodeIndex")
                 for s, k, op in ops_of(m)]
        cands += [(f"subgraph {s} tensor {k} buffer", t, "buffer")
                  for s, k, t in tensors_of(m)]
        label, owner, attr = rng.choice(cands)
        setattr(owner, attr, UINT32_MAX)
        return f"{label} set to 0xFFFFFFFF (-1 as int32)", {"label": label, "value": UINT32_MAX}
    return _bad_tensor_index(m, rng, True, "negative_index")


@structured("index_out_of_range")
def index_out_of_range(m, rng: random.Random):
    if rng.random() < 0.3:
        choice = rng.randrange(2)
        if choice == 0:
            s, k, op = rng.choice(ops_of(m))
            op.opcodeIndex = len(m.operatorCodes) + rng.choice([0, 1, 100])
            return (f"subgraph {s} operator {k} opcode_index set to {op.opcodeIndex}",
                    {"label": "opcode_index", "value": op.opcodeIndex})
        s, k, t = rng.choice(tensors_of(m))
        t.buffer = len(m.buffers) + rng.choice([0, 1, 1000])
        return (f"subgraph {s} tensor {k} buffer set to {t.buffer} ({len(m.buffers)} buffers)",
                {"label": "buffer", "value": t.buffer})
    return _bad_tensor_index(m, rng, False, "index_out_of_range")


@structured("cycle")
def cycle(m, rng: random.Random):
    """An op reads its own output, or two ops each read the other's output."""
    cands = [(s, k, op) for s, k, op in ops_of(m) if ints(op.inputs) and ints(op.outputs)]
    if not cands:
        return None
    s, k, op = rng.choice(cands)
    ins = ints(op.inputs)
    pos = rng.randrange(len(ins))
    others = [(k2, o2) for s2, k2, o2 in cands if s2 == s and k2 != k]
    if others and rng.random() < 0.5:
        k2, op2 = rng.choice(others)
        ins2 = ints(op2.inputs)
        pos2 = rng.randrange(len(ins2))
        ins[pos], ins2[pos2] = rng.choice(ints(op2.outputs)), rng.choice(ints(op.outputs))
        op.inputs, op2.inputs = np.array(ins, np.int32), np.array(ins2, np.int32)
        return (f"subgraph {s}: operator {k} input {pos} <- tensor {ins[pos]} (written by "
                f"operator {k2}) and operator {k2} input {pos2} <- tensor {ins2[pos2]} (written by "
                f"operator {k})", {"subgraph": s, "ops": [k, k2], "inputs": [ins, ins2]})
    ins[pos] = rng.choice(ints(op.outputs))
    op.inputs = np.array(ins, np.int32)
    return (f"subgraph {s} operator {k} input {pos} <- its own output tensor {ins[pos]}",
            {"subgraph": s, "ops": [k], "inputs": [ins]})


@structured("subgraph_out_of_range")
def subgraph_out_of_range(m, rng: random.Random):
    cands = cf_ops(m)
    if not cands:
        return None
    s, k, op, f = rng.choice(cands)
    value = bad_index(rng, len(m.subgraphs), rng.random() < 0.4)
    setattr(op.builtinOptions, f, value)
    return (f"subgraph {s} operator {k} {f} set to {value} ({len(m.subgraphs)} subgraphs)",
            {"subgraph": s, "op": k, "field": f, "value": value})


@structured("self_call")
def self_call(m, rng: random.Random):
    """An If/While calls the subgraph it is in (or subgraph 0, its caller's caller)."""
    cands = cf_ops(m)
    if not cands:
        return None
    s, k, op, f = rng.choice(cands)
    target = rng.choice([s, s, 0])
    setattr(op.builtinOptions, f, target)
    return (f"subgraph {s} operator {k} {f} set to {target} (a subgraph that calls it)",
            {"subgraph": s, "op": k, "field": f, "value": target})


@structured("shared_buffer")
def shared_buffer(m, rng: random.Random):
    """A tensor takes another tensor's buffer: a constant of another size or dtype, or an
    activation made constant."""
    consts = sorted({t.buffer for _, _, t in tensors_of(m, lambda t: t.buffer)})
    if not consts:
        return None
    s, k, t = rng.choice(tensors_of(m))
    others = [b for b in consts if b != t.buffer] or consts
    t.buffer = rng.choice(others)
    return (f"subgraph {s} tensor {k} ({t.name!r}, shape {ints(t.shape)}) now uses buffer "
            f"{t.buffer}", {"subgraph": s, "tensor": k, "buffer": t.buffer})


@structured("dtype")
def dtype(m, rng: random.Random):
    s, k, t = rng.choice(tensors_of(m))
    old = t.type
    t.type = rng.choice([v for v in range(18) if v != old] + [25, 100, 127])
    return (f"subgraph {s} tensor {k} type {old} -> {t.type}",
            {"subgraph": s, "tensor": k, "type": t.type})


@structured("rank")
def rank(m, rng: random.Random):
    s, k, t = rng.choice(tensors_of(m))
    shape = ints(t.shape)
    if shape and rng.random() < 0.5:
        del shape[rng.randrange(len(shape))]
    else:
        shape.insert(rng.randrange(len(shape) + 1), rng.choice([0, 1, 2, 3]))
    t.shape = np.array(shape, np.int32)
    return f"subgraph {s} tensor {k} shape -> {shape}", {"subgraph": s, "tensor": k,
                                                         "shape": shape}


EXTREMES = (0, -1, 2, 7, 1000, INT32_MAX, -(2**31))


@structured("option_value")
def option_value(m, rng: random.Random):
    cands = []
    for s, k, op in ops_of(m):
        opts = op.builtinOptions
        if opts is None:
            continue
        for f, v in vars(opts).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) and f not in CONTROL_FLOW_FIELDS:
                cands.append((s, k, opts, f, v))
    if not cands:
        return None
    s, k, opts, f, old = rng.choice(cands)
    if isinstance(old, int):
        first = rng.choice([old + 1, 6, 100] if f in ("fusedActivationFunction", "padding")
                           else EXTREMES)
        tries = [first, 127, -128, 255, 0]      # narrower fields: the largest value that fits
    else:
        tries = [rng.choice([0.0, -1.0, float("nan"), float("inf"), 1e38])]
    for new in tries:
        setattr(opts, f, new)
        try:
            opts.Pack(flatbuffers.Builder(64))
            break
        except (TypeError, struct.error, OverflowError):
            continue
    return f"subgraph {s} operator {k} option {f} {old} -> {new}", {
        "subgraph": s, "op": k, "field": f, "value": new}


@structured("const_data")
def const_data(m, rng: random.Random):
    """A constant's bytes become extreme values (huge or negative shapes/axes/indices, NaN)."""
    cands = [(s, k, t) for s, k, t in tensors_of(m, lambda t: t.buffer)
             if m.buffers[t.buffer].data is not None and len(m.buffers[t.buffer].data) >= 4]
    if not cands:
        return None
    s, k, t = rng.choice(cands)
    raw = bytearray(np.asarray(m.buffers[t.buffer].data, np.uint8).tobytes())
    word = rng.randrange(len(raw) // 4)
    value = rng.choice([INT32_MAX, -(2**31), -1, -5, 10**6, 0x7FC00000, 0x7F800000])
    raw[4 * word:4 * word + 4] = int(value).to_bytes(4, "little", signed=value < 0)
    m.buffers[t.buffer].data = np.frombuffer(bytes(raw), np.uint8)
    return (f"buffer {t.buffer} (tensor {k} {t.name!r}) word {word} set to {value:#x}",
            {"buffer": t.buffer, "word": word, "value": value})


@structured("arity")
def arity(m, rng: random.Random):
    """An op or a subgraph gains or loses an input or an output."""
    cands = [(f"operator {k}", s, op) for s, k, op in ops_of(m)]
    cands += [("subgraph", s, sg) for s, sg in enumerate(m.subgraphs)]
    label, s, owner = rng.choice(cands)
    attr = rng.choice(["inputs", "outputs"])
    values = ints(getattr(owner, attr))
    n = len(m.subgraphs[s].tensors or [])
    if values and rng.random() < 0.5:
        del values[rng.randrange(len(values))]
    else:
        values.insert(rng.randrange(len(values) + 1), rng.randrange(n) if n else 0)
    setattr(owner, attr, np.array(values, np.int32))
    return f"subgraph {s} {label} {attr} -> {values}", {"subgraph": s, "attr": attr,
                                                        "values": values}


@structured("opcode")
def opcode(m, rng: random.Random):
    """An operator code becomes another builtin (the ops using it get foreign inputs)."""
    k = rng.randrange(len(m.operatorCodes))
    oc = m.operatorCodes[k]
    code = rng.choice([c for c in range(0, 160) if c not in (32,)] + [-2, -3, -6, 200])
    oc.builtinCode, oc.deprecatedBuiltinCode = code, min(max(code, 0), 127)
    oc.customCode = None
    if rng.random() < 0.5:      # the ops drop their options: the new op reads its defaults
        for _, _, op in ops_of(m):
            if op.opcodeIndex == k:
                op.builtinOptionsType, op.builtinOptions = 0, None
    return f"operator code {k} set to builtin {code}", {"opcode": k, "code": code}
