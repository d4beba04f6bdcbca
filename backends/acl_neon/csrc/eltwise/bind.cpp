// Module _eltwise: plans (built once in a kernel's prepare()) whose run() makes one native call.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bind_util.h"
#include "eltwise.h"

namespace py = pybind11;
using namespace onert_neon;
using namespace onert_neon::eltwise;

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

struct BinaryPlan {
  BinaryParams p;
  int64_t na = 0, nb = 0, nout = 0;
  BinaryPlan(int op, float lo, float hi, std::vector<int64_t> shape, std::vector<int64_t> sa,
             std::vector<int64_t> sb) {
    if (op < 0 || op >= kBinOpCount) throw py::value_error("binary: unknown op");
    if (shape.empty() || sa.size() != shape.size() || sb.size() != shape.size())
      throw py::value_error("binary: shape and strides differ in rank");
    check_rank(shape.size(), "binary");
    const size_t last = shape.size() - 1;
    if ((sa[last] != 0 && sa[last] != 1) || (sb[last] != 0 && sb[last] != 1))
      throw py::value_error("binary: the innermost strides must be 0 or 1");
    p.op = op;
    p.act_min = lo;
    p.act_max = hi;
    p.rank = static_cast<int>(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      p.shape[d] = shape[d];
      p.sa[d] = sa[d];
      p.sb[d] = sb[d];
    }
    nout = product(shape);
    na = extent(shape, sa);
    nb = extent(shape, sb);
  }
  void run(py::array a, py::array b, py::array out, int threads) const {
    const float* pa = in_buffer<float>(a, "binary input 0", na);
    const float* pb = in_buffer<float>(b, "binary input 1", nb);
    void* po = p.op >= kEq ? static_cast<void*>(out_buffer<bool>(out, "binary output", nout))
                           : static_cast<void*>(out_buffer<float>(out, "binary output", nout));
    if (nout == 0) return;
    py::gil_scoped_release release;
    binary(p, pa, pb, po, threads);
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
  void run(py::array x, py::array y, int threads) const {
    const float* px = in_buffer<float>(x, "unary input", n);
    float* py_ = out_buffer<float>(y, "unary output", n);
    py::gil_scoped_release release;
    unary(p, px, py_, n, threads);
  }
};

struct SoftmaxPlan {
  int64_t rows, n;
  float beta;
  SoftmaxPlan(int64_t rows_, int64_t n_, float beta_) : rows(rows_), n(n_), beta(beta_) {
    if (rows < 0 || n < 1) throw py::value_error("softmax: bad shape");
  }
  void run(py::array x, py::array y, int threads) const {
    const float* px = in_buffer<float>(x, "softmax input", rows * n);
    float* py_ = out_buffer<float>(y, "softmax output", rows * n);
    py::gil_scoped_release release;
    softmax(px, py_, rows, n, beta, threads);
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
  void run(py::array x, py::array y, int threads) const {
    const float* px = in_buffer<float>(x, "reduce input", nin);
    float* py_ = out_buffer<float>(y, "reduce output", nout);
    py::gil_scoped_release release;
    reduce(p, px, py_, threads);
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
  void run(py::array x, py::array out, int threads) const {
    const float* px = in_buffer<float>(x, "argminmax input", outer * len * inner);
    void* po = out64 ? static_cast<void*>(out_buffer<int64_t>(out, "argminmax output", outer * inner))
                     : static_cast<void*>(out_buffer<int32_t>(out, "argminmax output", outer * inner));
    py::gil_scoped_release release;
    argminmax(px, po, out64, outer, len, inner, is_max, threads);
  }
};

}  // namespace

PYBIND11_MODULE(_eltwise, m) {
  m.doc() = "acl_neon native elementwise, activation, softmax, reduce and arg-min/max kernels";
  add_isa_functions(m);
  py::class_<BinaryPlan>(m, "BinaryPlan")
      .def(py::init<int, float, float, std::vector<int64_t>, std::vector<int64_t>,
                    std::vector<int64_t>>())
      .def("run", &BinaryPlan::run);
  py::class_<UnaryPlan>(m, "UnaryPlan")
      .def(py::init<int, float, int64_t>())
      .def("run", &UnaryPlan::run);
  py::class_<SoftmaxPlan>(m, "SoftmaxPlan")
      .def(py::init<int64_t, int64_t, float>())
      .def("run", &SoftmaxPlan::run);
  py::class_<ReducePlan>(m, "ReducePlan")
      .def(py::init<int, std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>,
                    std::vector<int64_t>, bool>())
      .def("run", &ReducePlan::run);
  py::class_<ArgPlan>(m, "ArgPlan")
      .def(py::init<int64_t, int64_t, int64_t, bool, bool>())
      .def("run", &ArgPlan::run);
  // op codes, in the header's order
  m.attr("BINARY_OPS") = std::vector<std::string>{
      "ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SquaredDifference", "PReLU", "EQUAL",
      "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"};
  m.attr("UNARY_OPS") = std::vector<std::string>{
      "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LOGISTIC", "TANH", "LEAKY_RELU", "ELU",
      "HARD_SWISH", "GELU", "GELU_TANH", "ABS", "NEG", "SQRT", "RSQRT", "EXP", "LOG", "FLOOR",
      "CEIL", "ROUND", "SQUARE"};
  m.attr("REDUCE_OPS") = std::vector<std::string>{
      "SUM", "MEAN", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"};
}
