// Module _quant, continued: the kernels on TFLite's fixed-point lanes, quantized ADD/SUB of
// same-shape tensors, MEAN and SOFTMAX (bound from bind.cpp through bind_fixed_point).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <string>
#include <vector>

#include "bind_util.h"
#include "native_bind.h"
#include "qadd.h"
#include "qmean.h"
#include "qsoftmax.h"

namespace py = pybind11;
using namespace onert_neon;
using namespace onert_neon::quant;
using namespace onert_rt;

namespace {

void check_multiplier(int64_t m, int64_t e, int64_t e_lo, int64_t e_hi, const char* what) {
  if (m < 0 || m > INT32_MAX || e < e_lo || e > e_hi)
    throw py::value_error(std::string(what) + ": multiplier or shift out of range");
}

struct QAddPlan {
  AddParams p{};
  int64_t n;

  QAddPlan(int64_t n_, py::dict d) : n(n_) {
    auto i32 = [&](const char* k) { return d[k].cast<int32_t>(); };
    p.zp1 = i32("zp1"); p.zp2 = i32("zp2"); p.zpo = i32("zpo");
    p.m1 = i32("m1"); p.e1 = i32("e1"); p.m2 = i32("m2"); p.e2 = i32("e2");
    p.mo = i32("mo"); p.eo = i32("eo"); p.lo = i32("lo"); p.hi = i32("hi");
    p.sub = d["sub"].cast<bool>();
    p.x_signed = d["signed"].cast<bool>();
    p.shift_first = d["shift_first"].cast<bool>();
    p.width = d["width"].cast<int64_t>();
    check_multiplier(p.m1, p.e1, -31, 0, "add input 1");
    check_multiplier(p.m2, p.e2, -31, 0, "add input 2");
    check_multiplier(p.mo, p.eo, -31, 0, "add output");
    const int32_t tlo = p.x_signed ? -128 : 0, thi = p.x_signed ? 127 : 255;
    if (p.lo < tlo || p.hi > thi || p.lo > p.hi) throw py::value_error("add: bad clamp range");
    for (int32_t zp : {p.zp1, p.zp2, p.zpo})
      if (zp < tlo || zp > thi) throw py::value_error("add: zero point out of range");
    if (n < 0 || p.width < 0) throw py::value_error("add: bad size or width");
    add_bound_wraps(p);
  }

  void exec(const Slot* a, const Slot* b, const Slot* y, int threads) const {
    qadd(p, in<uint8_t>(a, n, "add input 0"), in<uint8_t>(b, n, "add input 1"),
         out<uint8_t>(y, n, "add output"), n, threads);
  }
};

struct QMeanPlan {
  MeanParams p{};

  QMeanPlan(int64_t outer, int64_t count, int64_t inner, py::dict d) {
    p.outer = outer; p.count = count; p.inner = inner;
    if (outer < 0 || count < 1 || inner < 0) throw py::value_error("mean: bad shape");
    if (count * 510 >= (int64_t{1} << 31)) throw py::value_error("mean: count too large");
    p.x_signed = d["signed"].cast<bool>();
    p.hw = d["hw"].cast<bool>();
    const int64_t m = d["m"].cast<int64_t>(), s = d["shift"].cast<int64_t>();
    check_multiplier(m, s, -31, 31, "mean");
    p.m = static_cast<int32_t>(m);
    p.shift = static_cast<int32_t>(s);
    p.offset = d["offset"].cast<int64_t>();
    if (p.offset < -(int64_t{1} << 40) || p.offset > (int64_t{1} << 40))
      throw py::value_error("mean: offset out of range");
    p.out_zp = d["out_zp"].cast<int32_t>();
    p.lo = d["lo"].cast<int32_t>();
    p.hi = d["hi"].cast<int32_t>();
    p.vec = d["vec"].cast<int64_t>();
    const int32_t tlo = p.x_signed ? -128 : 0, thi = p.x_signed ? 127 : 255;
    if (p.lo < tlo || p.hi > thi || p.lo > p.hi) throw py::value_error("mean: bad clamp range");
  }

  void exec(const Slot* x, const Slot* y, int threads) const {
    qmean(p, in<uint8_t>(x, p.outer * p.count * p.inner, "mean input"),
          out<uint8_t>(y, p.outer * p.inner, "mean output"), threads);
  }
};

struct QSoftmaxPlan {
  SoftmaxParams p{};
  std::vector<float> table;

  QSoftmaxPlan(int64_t rows, int64_t depth, py::dict d) {
    if (rows < 0 || depth < 0) throw py::value_error("softmax: bad shape");
    p.rows = rows;
    p.depth = depth;
    p.x_signed = d["signed"].cast<bool>();
    p.out_bytes = d["out_bytes"].cast<int>();
    p.round_away = d["round_away"].cast<bool>();
    p.zp = d["zp"].cast<int32_t>();
    p.lo = d["lo"].cast<int32_t>();
    p.hi = d["hi"].cast<int32_t>();
    p.out_scale = d["out_scale"].cast<float>();
    if (p.out_bytes != 1 && p.out_bytes != 2) throw py::value_error("softmax: 8- or 16-bit output");
    const int32_t tlo = p.out_bytes == 2 ? -32768 : (p.x_signed ? -128 : 0);
    const int32_t thi = p.out_bytes == 2 ? 32767 : (p.x_signed ? 127 : 255);
    if (p.lo < tlo || p.hi > thi || p.lo > p.hi) throw py::value_error("softmax: bad clamp range");
    if (p.zp < -65536 || p.zp > 65536) throw py::value_error("softmax: zero point out of range");
    if (!(p.out_scale > 0) || !std::isfinite(p.out_scale))
      throw py::value_error("softmax: the output scale must be positive and finite");
    py::array t = d["table"].cast<py::array>();
    if (t.dtype().kind() != 'f' || t.itemsize() != 4 || t.size() != 256 ||
        !(t.flags() & py::array::c_style))
      throw py::value_error("softmax: a contiguous float32 table of 256 entries expected");
    const float* tp = static_cast<const float*>(t.data());
    table.assign(tp, tp + 256);
    p.table = table.data();
  }

  // an empty tensor (no rows, or rows of depth 0) is left as it is
  void exec(const Slot* x, const Slot* y, int threads) const {
    const int64_t n = p.rows * p.depth;
    const uint8_t* xp = in<uint8_t>(x, n, "softmax input");
    void* yp = p.out_bytes == 2 ? static_cast<void*>(out<int16_t>(y, n, "softmax output"))
                                : static_cast<void*>(out<uint8_t>(y, n, "softmax output"));
    if (n > 0) qsoftmax(p, xp, yp, threads);
  }
};

}  // namespace

void bind_fixed_point(py::module_& m) {
  py::class_<QAddPlan>(m, "QAddPlan")
      .def(py::init<int64_t, py::dict>())
      .def("bind", &bind_plan<QAddPlan, 3>);
  py::class_<QMeanPlan>(m, "QMeanPlan")
      .def(py::init<int64_t, int64_t, int64_t, py::dict>())
      .def("bind", &bind_plan<QMeanPlan, 2>);
  py::class_<QSoftmaxPlan>(m, "QSoftmaxPlan")
      .def(py::init<int64_t, int64_t, py::dict>())
      .def("bind", &bind_plan<QSoftmaxPlan, 2>);
}
