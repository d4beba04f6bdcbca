// Module _quant: 8-bit quantized kernels (GEMM convolution / fully connected, depthwise,
// pooling, pair-table binary ops, 256-entry lookups, requantizing concatenation). Plans are
// built once in prepare(); plan.bind(slots..., threads) gives the native step that runs it
// (native_step.h). The kernels read and write 8-bit data as bytes whatever its signedness.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "bind_util.h"
#include "native_bind.h"
#include "parallel.h"
#include "qelem.h"
#include "qgemm.h"
#include "weights_alloc.h"

namespace py = pybind11;
void bind_fixed_point(py::module_& m);   // bind_fixed_point.cpp
using namespace onert_neon;
using namespace onert_neon::quant;
using namespace onert_rt;

namespace {

template <class T>
std::vector<T> vec(py::array a, const char* what, int64_t n) {
  const T* p = in_buffer<T>(a, what, n);
  if (a.size() != n)
    throw py::value_error(std::string(what) + ": " + std::to_string(a.size()) +
                          " values, expected " + std::to_string(n));
  return std::vector<T>(p, p + n);
}

ConvGeom geom_of(const std::vector<int64_t>& v) {
  if (v.size() != 14) throw py::value_error("geometry needs 14 values");
  for (int64_t e : v)
    if (e < 0) throw py::value_error("geometry values must be >= 0");
  ConvGeom g{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12],
             v[13]};
  if (g.kh < 1 || g.kw < 1 || g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1)
    throw py::value_error("filter, stride and dilation must be >= 1");
  return g;
}

struct RequantStore {
  std::vector<int64_t> m, k, thresh, dfix;
  std::vector<int32_t> s, left, bias;
  RequantVecStore vstore;
  Requant rq{};

  // conv: (m, k, thresh, dfix, s); fc: (m, s = right shift, left, bias)
  RequantStore(int64_t n, py::dict d) {
    rq.fc = d["fc"].cast<bool>();
    m = vec<int64_t>(d["m"], "m", n);
    s = vec<int32_t>(d["s"], "s", n);
    for (int32_t v : s)
      if (v < 0 || v > 63) throw py::value_error("shift out of range");
    if (rq.fc) {
      left = vec<int32_t>(d["left"], "left", n);
      bias = vec<int32_t>(d["bias"], "bias", n);
      for (int32_t v : left)
        if (v < 0 || v > 31) throw py::value_error("left shift out of range");
      for (int32_t v : s)
        if (v > 31) throw py::value_error("right shift out of range");
      rq.left = left.data();
      rq.bias = bias.data();
    } else {
      k = vec<int64_t>(d["k"], "k", n);
      thresh = vec<int64_t>(d["thresh"], "thresh", n);
      dfix = vec<int64_t>(d["dfix"], "dfix", n);
      rq.k = k.data();
      rq.thresh = thresh.data();
      rq.dfix = dfix.data();
    }
    rq.m = m.data();
    rq.s = s.data();
    rq.zp_add = d["zp_add"].cast<int32_t>();
    rq.lo = d["lo"].cast<int32_t>();
    rq.hi = d["hi"].cast<int32_t>();
    vstore.attach(rq, n);
  }
};

int64_t in_size(const ConvGeom& g) { return g.batch * g.ih * g.iw * g.cin; }
int64_t out_pixels(const ConvGeom& g) { return g.batch * g.oh * g.ow; }

struct QConvPlan {
  ConvParams p{};
  std::vector<int8_t, WeightsAllocator<int8_t>> packed;   // in huge pages (weights_alloc.h)
  std::vector<int32_t> ccoef;
  RequantStore rs;

  QConvPlan(std::vector<int64_t> geom, py::array w, py::array cc, int32_t rcoef, bool x_signed,
           int pad_code, py::dict requant)
      : rs(cc.size(), requant) {
    p.g = geom_of(geom);
    p.cout = cc.size();
    p.k = p.g.kh * p.g.kw * p.g.cin;
    p.kp = (p.k + 3) / 4 * 4;
    if (p.cout < 1 || p.k < 1) throw py::value_error("empty convolution");
    if (p.kp * 255 * 128 >= (int64_t{1} << 31)) throw py::value_error("depth too large");
    p.x_signed = x_signed;
    p.pad_code = static_cast<uint8_t>(pad_code);
    p.rcoef = rcoef;
    ccoef = vec<int32_t>(cc, "ccoef", p.cout);
    const int8_t* wp = in_buffer<int8_t>(w, "weights", p.cout * p.k);
    packed.resize(static_cast<size_t>(packed_size(p.cout, p.kp)));
    pack_weights(wp, p.cout, p.k, p.kp, packed.data());
  }

  void exec(const Slot* x, const Slot* y, int threads) const {
    conv_u8s8(p, in<uint8_t>(x, in_size(p.g), "conv input"), packed.data(), ccoef.data(), rs.rq,
              out<uint8_t>(y, out_pixels(p.g) * p.cout, "conv output"), threads);
  }
};

struct QDepthwisePlan {
  DwParams p{};
  std::vector<int16_t> w;
  DwPacked packed;
  RequantStore rs;

  QDepthwisePlan(std::vector<int64_t> geom, int64_t mult, py::array wq, bool x_signed, int32_t x_zp,
         py::dict requant)
      : rs(geom_of(geom).cin * mult, requant) {
    p.g = geom_of(geom);
    if (mult < 1) throw py::value_error("depth multiplier must be >= 1");
    p.mult = mult;
    p.cout = p.g.cin * mult;
    p.x_signed = x_signed;
    p.x_zp = x_zp;
    w = vec<int16_t>(wq, "filter", p.g.kh * p.g.kw * p.cout);
    packed.attach(p, w.data());                  // the paired-tap weights, packed once
  }

  void exec(const Slot* x, const Slot* y, int threads) const {
    depthwise(p, in<uint8_t>(x, in_size(p.g), "depthwise input"), w.data(), rs.rq,
              out<uint8_t>(y, out_pixels(p.g) * p.cout, "depthwise output"), threads);
  }
};

struct QPoolPlan {
  PoolParams p{};
  QPoolPlan(std::vector<int64_t> geom, bool x_signed, bool average, int32_t lo, int32_t hi) {
    p.g = geom_of(geom);
    p.x_signed = x_signed;
    p.average = average;
    p.lo = lo;
    p.hi = hi;
  }
  void exec(const Slot* x, const Slot* y, int threads) const {
    pool(p, in<uint8_t>(x, in_size(p.g), "pool input"),
         out<uint8_t>(y, out_pixels(p.g) * p.g.cin, "pool output"), threads);
  }
};

struct QBinaryPlan {
  std::vector<uint8_t> table, kinds;
  int64_t shape[4], astr[4], bstr[4];
  int64_t a_need = 1, b_need = 1, n = 1;

  QBinaryPlan(py::array tab, py::object kinds_obj, std::vector<int64_t> sh,
             std::vector<int64_t> as, std::vector<int64_t> bs) {
    if (sh.size() != 4 || as.size() != 4 || bs.size() != 4)
      throw py::value_error("binary: 4-D shape and strides expected");
    for (int i = 0; i < 4; ++i) {
      shape[i] = sh[i];
      astr[i] = as[i];
      bstr[i] = bs[i];
      if (sh[i] < 1 || as[i] < 0 || bs[i] < 0) throw py::value_error("binary: bad shape");
      n *= sh[i];
      a_need += (sh[i] - 1) * as[i];
      b_need += (sh[i] - 1) * bs[i];
    }
    int kcount = 1;
    if (!kinds_obj.is_none()) {
      kinds = vec<uint8_t>(kinds_obj.cast<py::array>(), "kinds", n);
      for (uint8_t k : kinds) kcount = k + 1 > kcount ? k + 1 : kcount;
    }
    if (tab.size() < int64_t{65536} * kcount) throw py::value_error("binary: table too small");
    table = vec<uint8_t>(tab, "table", tab.size());
  }

  void exec(const Slot* a, const Slot* b, const Slot* y, int threads) const {
    pair_lookup(table.data(), in<uint8_t>(a, a_need, "binary input 0"),
                in<uint8_t>(b, b_need, "binary input 1"), kinds.empty() ? nullptr : kinds.data(),
                shape, astr, bstr, out<uint8_t>(y, n, "binary output"), threads);
  }
};

// The requantization alone, over `rows` int32 rows of n channels (accumulators made elsewhere:
// the quantized BatchMatMul's exact float32 GEMM)
struct QRequantPlan {
  int64_t rows, n;
  RequantStore rs;
  std::vector<int32_t> zeros;
  QRequantPlan(int64_t rows_, int64_t n_, py::dict d)
      : rows(rows_), n(n_), rs(n_, d), zeros(static_cast<size_t>(n_ > 0 ? n_ : 0), 0) {
    if (rows < 0 || n < 1) throw py::value_error("requant: rows must be >= 0, channels >= 1");
  }
  void exec(const Slot* acc, const Slot* y, int threads) const {
    const int32_t* a = in<int32_t>(acc, rows * n, "requant accumulators");
    uint8_t* o = out<uint8_t>(y, rows * n, "requant output");
    parallel_range(threads, rows, 1 + 8192 / n, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) requant_row(a + r * n, zeros.data(), 0, n, rs.rq, o + r * n);
    });
  }
};

// out[i] = table[x[i]] over n bytes (TANH / LOGISTIC's 256-entry tables)
struct Lut8Plan {
  std::array<uint8_t, 256> table;
  int64_t n;
  Lut8Plan(py::array t, int64_t n_) : n(n_) {
    if (n < 0) throw py::value_error("lut8: negative size");
    const std::vector<uint8_t> v = vec<uint8_t>(t, "lut8 table", 256);
    std::copy(v.begin(), v.end(), table.begin());
  }
  void exec(const Slot* x, const Slot* y, int threads) const {
    lut8(table.data(), in<uint8_t>(x, n, "lut8 input"), n, out<uint8_t>(y, n, "lut8 output"),
         threads);
  }
};

// A concatenation of 8-bit inputs: the output viewed as [outer][sum of the inputs' row bytes],
// input i as [outer][row_i]; each input's rows are copied into place, through its 256-entry
// table where it has one (a requantized input), else as they are.
struct QConcatPlan {
  int64_t outer, width = 0;
  std::vector<int64_t> rows, offsets;
  std::vector<std::vector<uint8_t>> tables;    // empty: copied

  QConcatPlan(int64_t outer_, std::vector<int64_t> rows_, std::vector<py::object> tabs)
      : outer(outer_), rows(std::move(rows_)) {
    if (outer < 0 || rows.empty() || tabs.size() != rows.size())
      throw py::value_error("concat: one row size and one table (or None) per input");
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i] < 0) throw py::value_error("concat: negative row size");
      offsets.push_back(width);
      width += rows[i];
      tables.push_back(tabs[i].is_none() ? std::vector<uint8_t>()
                                         : vec<uint8_t>(tabs[i].cast<py::array>(),
                                                        "concat table", 256));
    }
  }

  void exec(const std::vector<const Slot*>& xs, const Slot* y, int threads) const {
    for (size_t i = 0; i < xs.size(); ++i) in<uint8_t>(xs[i], outer * rows[i], "concat input");
    uint8_t* dst = out<uint8_t>(y, outer * width, "concat output");
    parallel_range(threads, outer, 1 + 65536 / (width + 1), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o)
        for (size_t i = 0; i < xs.size(); ++i) {      // each input checked above
          if (rows[i] == 0) continue;
          const uint8_t* s = reinterpret_cast<const uint8_t*>(xs[i]->data) + o * rows[i];
          uint8_t* d = dst + o * width + offsets[i];
          if (tables[i].empty())
            std::memcpy(d, s, static_cast<size_t>(rows[i]));
          else
            lut8(tables[i].data(), s, rows[i], d, 1);
        }
    });
  }
};

// plan.bind([input slots], output slot, threads): the concatenation's native step
py::capsule bind_concat(py::object self, py::list inputs, py::object output, int threads) {
  const QConcatPlan* plan = self.cast<const QConcatPlan*>();
  if (inputs.size() != plan->rows.size())
    throw py::value_error("concat: " + std::to_string(plan->rows.size()) +
                          " input slots expected");
  std::vector<const Slot*> xs;
  std::vector<py::object> keep{self, output};
  for (py::handle h : inputs) {
    xs.push_back(slot_of(h));
    keep.push_back(py::reinterpret_borrow<py::object>(h));
  }
  const Slot* y = slot_of(output);
  return make_step([plan, xs, y, threads] { plan->exec(xs, y, threads); }, std::move(keep));
}

}  // namespace

PYBIND11_MODULE(_quant, m) {
  m.doc() = "acl_neon native 8-bit quantized kernels";
  add_isa_functions(m);
  bind_fixed_point(m);
  py::class_<QConvPlan>(m, "QConvPlan")
      .def(py::init<std::vector<int64_t>, py::array, py::array, int32_t, bool, int, py::dict>())
      .def("bind", &bind_plan<QConvPlan, 2>);
  py::class_<QDepthwisePlan>(m, "QDepthwisePlan")
      .def(py::init<std::vector<int64_t>, int64_t, py::array, bool, int32_t, py::dict>())
      .def("bind", &bind_plan<QDepthwisePlan, 2>);
  py::class_<QPoolPlan>(m, "QPoolPlan")
      .def(py::init<std::vector<int64_t>, bool, bool, int32_t, int32_t>())
      .def("bind", &bind_plan<QPoolPlan, 2>);
  py::class_<QRequantPlan>(m, "QRequantPlan")
      .def(py::init<int64_t, int64_t, py::dict>())
      .def("bind", &bind_plan<QRequantPlan, 2>);
  py::class_<QBinaryPlan>(m, "QBinaryPlan")
      .def(py::init<py::array, py::object, std::vector<int64_t>, std::vector<int64_t>,
                    std::vector<int64_t>>())
      .def("bind", &bind_plan<QBinaryPlan, 3>);
  py::class_<Lut8Plan>(m, "Lut8Plan")
      .def(py::init<py::array, int64_t>())
      .def("bind", &bind_plan<Lut8Plan, 2>);
  py::class_<QConcatPlan>(m, "QConcatPlan")
      .def(py::init<int64_t, std::vector<int64_t>, std::vector<py::object>>())
      .def("bind", &bind_concat);
}
