// Integer and bool elementwise kernels (group eltwise): broadcasting binary arithmetic with the
// fused clamp, MAXIMUM / MINIMUM, the comparisons (bool out), LOGICAL_AND / OR / NOT, and
// SELECT (a bool condition picking x or y, elements moved by size).
//
// Plain scalar loops over the collapsed broadcast shape (the same description as eltwise.h's
// BinaryParams: an output shape and per-input element strides, 0 where an input is broadcast,
// the innermost 0 or 1): these ops are small (loop counters, masks) and their cost is the call,
// not the arithmetic. Parameters are validated on the Python side
// (backends/acl_neon/ops/int_eltwise.py, select.py) and in the pybind11 layer.
#pragma once

#include <cstdint>

#include "eltwise.h"

namespace onert_neon {
namespace eltwise {

// the binary ops; from kIEq on they write bool (one byte, 0 or 1)
enum IntBinOp : int {
  kIAdd = 0, kISub, kIMul, kIMax, kIMin,
  kIEq, kINe, kILt, kILe, kIGt, kIGe, kIAnd, kIOr, kIntBinOpCount
};

// element types (bool: one byte, any non-zero byte read as true)
enum ElemType : int { kBool = 0, kInt8, kUInt8, kInt16, kInt32, kInt64, kElemTypeCount };

int elem_size(int type);
// whether `op` has a kernel for inputs of `type`: arithmetic, MAXIMUM / MINIMUM and the
// ordered comparisons on the integer types, EQUAL / NOT_EQUAL on all, LOGICAL_* on bool
bool int_binary_supported(int op, int type);
constexpr bool bool_out(int op) { return op >= kIEq; }

// a collapsed broadcast of N inputs onto a C-contiguous output
template <int N>
struct Broadcast {
  int rank = 1;                                  // 1..kMaxRank
  int64_t shape[kMaxRank] = {0};
  int64_t stride[N][kMaxRank] = {};              // element strides of each input
};

struct IntBinaryParams {
  int op = kIAdd;
  int type = kInt32;
  int64_t act_min = INT64_MIN, act_max = INT64_MAX;   // the fused clamp, within the type
  Broadcast<2> b;
};

// out = a (op) b; integer arithmetic wraps around on overflow (two's complement)
void int_binary(const IntBinaryParams& p, const void* a, const void* b, void* out,
                int threads);
// out = c ? x : y over elements of `elem_bytes` (1, 2, 4 or 8) bytes
void select_values(const Broadcast<3>& p, int elem_bytes, const uint8_t* c, const void* x,
                   const void* y, void* out, int threads);
// y = !x over n bools
void logical_not(const uint8_t* x, uint8_t* y, int64_t n);

}  // namespace eltwise
}  // namespace onert_neon
