"""Mutators of TFLite/Circle model files for the fuzzer (tools/fuzz.py).

Structured mutators unpack the flatbuffer with the Circle schema's object API (ModelT; the
TFLite and Circle layouts are the same for every field TFLite has), change one thing, and pack
it again under the original file identifier. Byte mutators work on the raw bytes; the offset
and length mutators find the positions of offsets and vector lengths by walking the tables.

A mutator is `fn(data: bytes, rng: random.Random) -> Mutation | None` (None: nothing in this
model it applies to). `Mutation.detail` says exactly what changed, so tests can check it.
"""
from __future__ import annotations

import importlib
import random
import struct
from dataclasses import dataclass, field
from typing import Any, Callable

import flatbuffers
from circle_schema.v0_10.circle.Model import ModelT

INT32_MAX = 2**31 - 1
UINT32_MAX = 2**32 - 1
CONTROL_FLOW_FIELDS = ("thenSubgraphIndex", "elseSubgraphIndex", "condSubgraphIndex",
                       "bodySubgraphIndex", "initSubgraphIndex", "subgraph")


@dataclass
class Mutation:
    kind: str
    data: bytes
    what: str                                     # one line for the regression sidecar
    detail: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- object-API helpers
def unpack(data: bytes) -> ModelT:
    return ModelT.InitFromPackedBuf(data, 0)


def pack(m: ModelT, identifier: bytes) -> bytes:
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=identifier)
    return bytes(b.Output())


def ints(v: Any) -> list[int]:
    return [] if v is None else [int(x) for x in v]


def structured(kind: str):
    """Decorate `fn(m: ModelT, rng) -> (what, detail) | None` into a byte-level mutator."""
    def deco(fn: Callable) -> Callable:
        def mutate(data: bytes, rng: random.Random) -> Mutation | None:
            m = unpack(data)
            got = fn(m, rng)
            if got is None:
                return None
            what, detail = got
            return Mutation(kind, pack(m, bytes(data[4:8])), what, detail)
        mutate.__name__ = fn.__name__
        MUTATORS[kind] = mutate
        return mutate
    return deco


def ops_of(m: ModelT) -> list[tuple[int, int, Any]]:
    return [(s, k, op) for s, sg in enumerate(m.subgraphs or [])
            for k, op in enumerate(sg.operators or [])]


def tensors_of(m: ModelT, pred=lambda t: True) -> list[tuple[int, int, Any]]:
    return [(s, k, t) for s, sg in enumerate(m.subgraphs or [])
            for k, t in enumerate(sg.tensors or []) if pred(t)]


def cf_ops(m: ModelT) -> list[tuple[int, int, Any, str]]:
    """(subgraph, op, operator, field) of every subgraph-index field of If/While/CallOnce."""
    out = []
    for s, k, op in ops_of(m):
        opts = op.builtinOptions
        for f in CONTROL_FLOW_FIELDS:
            if opts is not None and hasattr(opts, f):
                out.append((s, k, op, f))
    return out


def bad_index(rng: random.Random, n: int, negative: bool) -> int:
    if negative:
        return rng.choice([-2, -3, -n - 1, -1000, -(2**31)])
    return rng.choice([n, n + 1, n + 7, 1000, INT32_MAX])


MUTATORS: dict[str, Callable[[bytes, random.Random], Mutation | None]] = {}


# ---------------------------------------------------------------- byte mutators
def bit_flip(data: bytes, rng: random.Random) -> Mutation:
    d = bytearray(data)
    flips = []
    for _ in range(rng.randint(1, 8)):
        pos, bit = rng.randrange(8, len(d)), rng.randrange(8)   # keep the identifier
        d[pos] ^= 1 << bit
        flips.append((pos, bit))
    return Mutation("bit_flip", bytes(d), f"flipped bits (pos, bit) {flips}", {"flips": flips})


def truncate(data: bytes, rng: random.Random) -> Mutation:
    n = rng.choice([rng.randrange(8, len(data)), len(data) - rng.randint(1, 16)])
    return Mutation("truncate", data[:n], f"cut to {n} of {len(data)} bytes", {"length": n})


class Walker:
    """Positions of the uoffsets, vector lengths and vtable soffsets of a valid model's tables
    (Model, OperatorCode, Buffer, SubGraph, Tensor, Operator and its options table)."""

    def __init__(self, data: bytes) -> None:
        self.d = data
        self.uoffsets: list[int] = []
        self.lengths: list[int] = []
        self.soffsets: list[int] = []
        root = self.u32(0)
        self.uoffsets.append(0)
        self.table(root, {1: "opcode", 2: "subgraph", 4: "buffer"})

    def u32(self, p: int) -> int:
        return struct.unpack_from("<I", self.d, p)[0]

    def field(self, t: int, slot: int) -> int | None:
        vt = t - struct.unpack_from("<i", self.d, t)[0]
        vsize = struct.unpack_from("<H", self.d, vt)[0]
        o = 4 + 2 * slot
        if o >= vsize:
            return None
        v = struct.unpack_from("<H", self.d, vt + o)[0]
        return t + v if v else None

    def table(self, t: int, children: dict[int, str], vectors: tuple[int, ...] = ()) -> None:
        """Record table `t`; follow its table-vector fields (`children`: slot -> kind) and
        its scalar-vector/string fields (`vectors`)."""
        self.soffsets.append(t)
        for slot in vectors:
            p = self.field(t, slot)
            if p is not None:
                self.uoffsets.append(p)
                self.lengths.append(p + self.u32(p))
        for slot, kind in children.items():
            p = self.field(t, slot)
            if p is None:
                continue
            self.uoffsets.append(p)
            vec = p + self.u32(p)
            if kind == "options":
                self.table(vec, {})
                continue
            self.lengths.append(vec)
            for i in range(self.u32(vec)):
                e = vec + 4 + 4 * i
                self.uoffsets.append(e)
                self.visit(kind, e + self.u32(e))

    def visit(self, kind: str, t: int) -> None:
        if kind == "subgraph":
            self.table(t, {0: "tensor", 3: "operator"}, vectors=(1, 2, 4))
        elif kind == "tensor":
            self.table(t, {}, vectors=(0, 3, 7))
        elif kind == "operator":
            self.table(t, {4: "options"}, vectors=(1, 2, 5))
        elif kind == "buffer":
            self.table(t, {}, vectors=(0,))
        else:
            self.table(t, {}, vectors=(1,))


def offset_out_of_range(data: bytes, rng: random.Random) -> Mutation:
    w = Walker(data)
    d = bytearray(data)
    if rng.random() < 0.7:
        pos = rng.choice(w.uoffsets)
        what = "uoffset"
        value = rng.choice([len(d), len(d) - pos, len(d) - pos + rng.randint(1, 64), UINT32_MAX,
                            2**31, rng.randrange(0, UINT32_MAX)])
        struct.pack_into("<I", d, pos, value)
    else:
        pos = rng.choice(w.soffsets)
        what = "vtable soffset"
        value = rng.choice([-len(d), len(d), 2**31 - 1, -(2**31), pos + 1, rng.randint(-64, 64)])
        struct.pack_into("<i", d, pos, value)
    return Mutation("offset_out_of_range", bytes(d), f"{what} at byte {pos} set to {value}",
                    {"pos": pos, "value": value, "field": what})


def length_out_of_range(data: bytes, rng: random.Random) -> Mutation:
    w = Walker(data)
    pos = rng.choice(w.lengths)
    old = w.u32(pos)
    value = rng.choice([old + 1, old + rng.randint(2, 100), len(data), len(data) // 4 + 1,
                        2**30, UINT32_MAX, 0 if old else 1])
    d = bytearray(data)
    struct.pack_into("<I", d, pos, value)
    return Mutation("length_out_of_range", bytes(d),
                    f"vector length at byte {pos} set from {old} to {value}",
                    {"pos": pos, "old": old, "value": value})


MUTATORS.update(bit_flip=bit_flip, truncate=truncate, offset_out_of_range=offset_out_of_range,
                length_out_of_range=length_out_of_range)

importlib.import_module("fuzz_mutators_graph")     # registers the structured mutators
