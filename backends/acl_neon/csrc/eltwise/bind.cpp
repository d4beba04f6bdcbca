// Module _eltwise: plans (built once in a kernel's prepare()); plan.bind(slots..., threads)
// gives the native step that runs it (native_step.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "bind_util.h"
#include "eltwise.h"
#include "int_eltwise.h"
#include "native_bind.h"

namespace py = pybind11;
using namespace onert_neon;
using namespace onert_neon::eltwise;
using namespace onert_rt;

namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t d : v) {
    if (d < 0) throw py::value_error("negative dimension");
    n *= d;
  }
  return n;
}

// the largest offset + 1 reached over dims (shape, stride), 0 for an empty shape
int64_t extent(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride) {
  int64_t e = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (stride[d] < 0) throw py::value_error("negative stride");
    if (shape[d] == 0) return 0;
    e += (shape[d] - 1) * stride[d];
  }
  return e + 1;
}

void check_rank(size_t n, const char* what) {
  if (n > static_cast<size_t>(kMaxRank))
    throw py::value_error(std::string(what) + ": more than 8 dimensions");
}

// a collapsed broadcast from the Python side (output shape, element strides per input),
// checked; extents[k]: the elements input k spans
template <int N>
Broadcast<N> broadcast_of(const char* what, const std::vector<int64_t>& shape,
                          const std::array<std::vector<int64_t>, N>& strides,
                          int64_t* extents) {
  if (shape.empty())
    throw py::value_error(std::string(what) + ": shape and strides differ in rank");
  check_rank(shape.size(), what);
  Broadcast<N> b;
  b.rank = static_cast<int>(shape.size());
  const size_t last = shape.size() - 1;
  for (int k = 0; k < N; ++k) {
    const std::vector<int64_t>& st = strides[k];
    if (st.size() != shape.size())
      throw py::value_error(std::string(what) + ": shape and strides differ in rank");
    if (st[last] != 0 && st[last] != 1)
      throw py::value_error(std::string(what) + ": the innermost strides must be 0 or 1");
    extents[k] = extent(shape, st);
    std::copy(st.begin(), st.end(), b.stride[k]);
  }
  std::copy(shape.begin(), shape.end(), b.shape);
  return b;
}

struct BinaryPlan {
  BinaryParams p;
  int64_t na = 0, nb = 0, nout = 0;
  BinaryPlan(int op, float lo, float hi, std::vector<int64_t> shape, std::vector<int64_t> sa,
             std::vector<int64_t> sb) {
    if (op < 0 || op >= kBinOpCount) throw py::value_error("binary: unknown op");
    int64_t ext[2];
    const Broadcast<2> b = broadcast_of<2>("binary", shape, {sa, sb}, ext);
    p.op = op;
    p.act_min = lo;
    p.act_max = hi;
    p.rank = b.rank;
    std::copy(b.shape, b.shape + kMaxRank, p.shape);
    std::copy(b.stride[0], b.stride[0] + kMaxRank, p.sa);
    std::copy(b.stride[1], b.stride[1] + kMaxRank, p.sb);
    nout = product(shape);
    na = ext[0];
    nb = ext[1];
  }
  // ADD of a [rows, len] tensor zero-extended to columns [lo, lo + len) of n, and b [rows, n]
  // (a PAD of the channels folded in: BinaryParams::pad_len)
  static BinaryPlan padded(int op, float lo_, float hi_, int64_t rows, int64_t n, int64_t lo,
                           int64_t len) {
    if (op != kAdd) throw py::value_error("padded binary: ADD only");
    if (rows < 0 || n < 1 || lo < 0 || len < 0 || lo + len > n)
      throw py::value_error("padded binary: bad rows, width or padding");
    BinaryPlan plan(op, lo_, hi_, {rows, n}, {0, 0}, {n, 1});
    plan.p.pad_lo = lo;
    plan.p.pad_len = len;
    plan.na = rows * len;
    return plan;
  }
  void exec(const Slot* a, const Slot* b, const Slot* o, int threads) const {
    const float* pa = in<float>(a, na, "binary input 0");
    const float* pb = in<float>(b, nb, "binary input 1");
    void* po = p.op >= kEq ? static_cast<void*>(out<bool>(o, nout, "binary output"))
                           : static_cast<void*>(out<float>(o, nout, "binary output"));
    if (nout == 0) return;
    binary(p, pa, pb, po, threads);
  }
};

// integer / bool binary ops (int_eltwise.h): type one of ELEM_TYPES, [lo, hi] the fused clamp
struct IntBinaryPlan {
  IntBinaryParams p;
  int64_t na = 0, nb = 0, nout = 0, es = 1, eo = 1;
  IntBinaryPlan(int op, int type, int64_t lo, int64_t hi, std::vector<int64_t> shape,
                std::vector<int64_t> sa, std::vector<int64_t> sb) {
    if (!int_binary_supported(op, type))
      throw py::value_error("int binary: no kernel for this op and element type");
    if (lo > hi) throw py::value_error("int binary: empty clamp range");
    int64_t ext[2];
    p.b = broadcast_of<2>("int binary", shape, {sa, sb}, ext);
    p.op = op;
    p.type = type;
    p.act_min = lo;
    p.act_max = hi;
    es = elem_size(type);
    eo = bool_out(op) ? 1 : es;
    nout = product(shape);
    na = ext[0];
    nb = ext[1];
  }
  void exec(const Slot* a, const Slot* b, const Slot* o, int threads) const {
    const char* pa = in<char>(a, na * es, "binary input 0");
    const char* pb = in<char>(b, nb * es, "binary input 1");
    char* po = out<char>(o, nout * eo, "binary output");
    if (nout == 0) return;
    int_binary(p, pa, pb, po, threads);
  }
};

// out = c ? x : y (int_eltwise.h), elements of 1, 2, 4 or 8 bytes
struct SelectPlan {
  Broadcast<3> b;
  int eb;
  int64_t nc = 0, nx = 0, ny = 0, nout = 0;
  SelectPlan(int elem_bytes, std::vector<int64_t> shape, std::vector<int64_t> sc,
             std::vector<int64_t> sx, std::vector<int64_t> sy) : eb(elem_bytes) {
    if (eb != 1 && eb != 2 && eb != 4 && eb != 8)
      throw py::value_error("select: elements must be of 1, 2, 4 or 8 bytes");
    int64_t ext[3];
    b = broadcast_of<3>("select", shape, {sc, sx, sy}, ext);
    nc = ext[0];
    nx = ext[1];
    ny = ext[2];
    nout = product(shape);
  }
  void exec(const Slot* c, const Slot* x, const Slot* y, const Slot* o, int threads) const {
    const uint8_t* pc = in<uint8_t>(c, nc, "select condition");
    const char* px = in<char>(x, nx * eb, "select input x");
    const char* py = in<char>(y, ny * eb, "select input y");
    char* po = out<char>(o, nout * eb, "select output");
    if (nout == 0) return;
    select_values(b, eb, pc, px, py, po, threads);
  }
};

struct LogicalNotPlan {
  int64_t n;
  explicit LogicalNotPlan(int64_t n_) : n(n_) {
    if (n < 0) throw py::value_error("logical_not: negative size");
  }
  void exec(const Slot* x, const Slot* y, int) const {
    logical_not(in<uint8_t>(x, n, "logical_not input"), out<uint8_t>(y, n, "logical_not output"),
                n);
  }
};

struct UnaryPlan {
  UnaryParams p;
  int64_t n;
  UnaryPlan(int op, float alpha, int64_t n_) : n(n_) {
    if (op < 0 || op >= kUnOpCount) throw py::value_error("unary: unknown op");
    if (n < 0) throw py::value_error("unary: negative size");
    p.op = op;
    p.alpha = alpha;
  }
  void exec(const Slot* x, const Slot* y, int threads) const {
    unary(p, in<float>(x, n, "unary input"), out<float>(y, n, "unary output"), n, threads);
  }
};

struct SoftmaxPlan {
  int64_t rows, n;
  float beta;
  SoftmaxPlan(int64_t rows_, int64_t n_, float beta_) : rows(rows_), n(n_), beta(beta_) {
    if (rows < 0 || n < 1) throw py::value_error("softmax: bad shape");
  }
  void exec(const Slot* x, const Slot* y, int threads) const {
    softmax(in<float>(x, rows * n, "softmax input"), out<float>(y, rows * n, "softmax output"),
            rows, n, beta, threads);
  }
};

struct ReducePlan {
  ReduceParams p;
  int64_t nin = 0, nout = 0;
  ReducePlan(int op, std::vector<int64_t> ks, std::vector<int64_t> kst, std::vector<int64_t> rs,
             std::vector<int64_t> rst, bool inner_kept) {
    if (op < 0 || op >= kRedOpCount) throw py::value_error("reduce: unknown op");
    if (ks.size() != kst.size() || rs.size() != rst.size())
      throw py::value_error("reduce: shapes and strides differ in rank");
    check_rank(ks.size(), "reduce kept dims");
    check_rank(rs.size(), "reduce reduced dims");
    if (inner_kept ? (ks.empty() || kst.back() != 1) : (rs.empty() || rst.back() != 1))
      throw py::value_error("reduce: the innermost dim must be contiguous");
    if (product(ks) == 0 || product(rs) == 0) throw py::value_error("reduce: empty tensor");
    p.op = op;
    p.nk = static_cast<int>(ks.size());
    p.nr = static_cast<int>(rs.size());
    p.inner_kept = inner_kept;
    for (size_t d = 0; d < ks.size(); ++d) { p.kshape[d] = ks[d]; p.kstride[d] = kst[d]; }
    for (size_t d = 0; d < rs.size(); ++d) { p.rshape[d] = rs[d]; p.rstride[d] = rst[d]; }
    nout = product(ks);
    std::vector<int64_t> all = ks, st = kst;
    all.insert(all.end(), rs.begin(), rs.end());
    st.insert(st.end(), rst.begin(), rst.end());
    nin = extent(all, st);
  }
  void exec(const Slot* x, const Slot* y, int threads) const {
    reduce(p, in<float>(x, nin, "reduce input"), out<float>(y, nout, "reduce output"), threads);
  }
};

struct ArgPlan {
  int64_t outer, len, inner;
  bool is_max, out64;
  ArgPlan(int64_t outer_, int64_t len_, int64_t inner_, bool is_max_, bool out64_)
      : outer(outer_), len(len_), inner(inner_), is_max(is_max_), out64(out64_) {
    if (outer < 0 || len < 1 || inner < 1 || len > (int64_t{1} << 24))
      throw py::value_error("argminmax: bad shape");
  }
  void exec(const Slot* x, const Slot* o, int threads) const {
    const float* px = in<float>(x, outer * len * inner, "argminmax input");
    void* po = out64 ? static_cast<void*>(out<int64_t>(o, outer * inner, "argminmax output"))
                     : static_cast<void*>(out<int32_t>(o, outer * inner, "argminmax output"));
    argminmax(px, po, out64, outer, len, inner, is_max, threads);
  }
};

}  // namespace

PYBIND11_MODULE(_eltwise, m) {
  m.doc() = "acl_neon native elementwise (float, integer, bool), select, activation, softmax, reduce and "
          "arg-min/max kernels";
  add_isa_functions(m);
  py::class_<BinaryPlan>(m, "BinaryPlan")
      .def(py::init<int, float, float, std::vector<int64_t>, std::vector<int64_t>,
                    std::vector<int64_t>>())
      .def_static("padded", &BinaryPlan::padded,
                  "padded(op, lo, hi, rows, n, pad_lo, pad_len): op(a zero-extended, b)")
      .def("bind", &bind_plan<BinaryPlan, 3>);
  py::class_<IntBinaryPlan>(m, "IntBinaryPlan")
      .def(py::init<int, int, int64_t, int64_t, std::vector<int64_t>, std::vector<int64_t>,
                    std::vector<int64_t>>())
      .def("bind", &bind_plan<IntBinaryPlan, 3>);
  py::class_<SelectPlan>(m, "SelectPlan")
      .def(py::init<int, std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>,
                    std::vector<int64_t>>())
      .def("bind", &bind_plan<SelectPlan, 4>);
  py::class_<LogicalNotPlan>(m, "LogicalNotPlan")
      .def(py::init<int64_t>())
      .def("bind", &bind_plan<LogicalNotPlan, 2>);
  py::class_<UnaryPlan>(m, "UnaryPlan")
      .def(py::init<int, float, int64_t>())
      .def("bind", &bind_plan<UnaryPlan, 2>);
  py::class_<SoftmaxPlan>(m, "SoftmaxPlan")
      .def(py::init<int64_t, int64_t, float>())
      .def("bind", &bind_plan<SoftmaxPlan, 2>);
  py::class_<ReducePlan>(m, "ReducePlan")
      .def(py::init<int, std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>,
                    std::vector<int64_t>, bool>())
      .def("bind", &bind_plan<ReducePlan, 2>);
  py::class_<ArgPlan>(m, "ArgPlan")
      .def(py::init<int64_t, int64_t, int64_t, bool, bool>())
      .def("bind", &bind_plan<ArgPlan, 2>);
  // op codes, in the header's order
  m.attr("BINARY_OPS") = std::vector<std::string>{
      "ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SquaredDifference", "PReLU", "EQUAL",
      "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"};
  m.attr("UNARY_OPS") = std::vector<std::string>{
      "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LOGISTIC", "TANH", "LEAKY_RELU", "ELU",
      "HARD_SWISH", "GELU", "GELU_TANH", "ABS", "NEG", "SQRT", "RSQRT", "EXP", "LOG", "FLOOR",
      "CEIL", "ROUND", "SQUARE"};
  m.attr("INT_BINARY_OPS") = std::vector<std::string>{
      "ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM", "EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL",
      "GREATER", "GREATER_EQUAL", "LOGICAL_AND", "LOGICAL_OR"};
  m.attr("ELEM_TYPES") = std::vector<std::string>{
      "bool", "int8", "uint8", "int16", "int32", "int64"};
  m.attr("REDUCE_OPS") = std::vector<std::string>{
      "SUM", "MEAN", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"};
}
