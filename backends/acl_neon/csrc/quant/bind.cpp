// Module _quant: 8-bit quantized kernels (GEMM convolution / fully connected, depthwise,
// pooling, pair-table binary ops, 256-entry lookups). Plans are built once in prepare().
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bind_util.h"
#include "parallel.h"
#include "qbind.h"
#include "qelem.h"
#include "qgemm.h"

namespace py = pybind11;
void bind_fixed_point(py::module_& m);   // bind_fixed_point.cpp
using namespace onert_neon;
using namespace onert_neon::quant;

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

// the 8-bit input and output buffers of a convolution: int8 (x_signed) or uint8, as bytes
struct Io8 {
  const uint8_t* x;
  uint8_t* out;
  Io8(bool x_signed, py::array& xa, int64_t nx, py::array& oa, int64_t nout) {
    if (x_signed) {
      x = reinterpret_cast<const uint8_t*>(in_buffer<int8_t>(xa, "x", nx));
      out = reinterpret_cast<uint8_t*>(out_buffer<int8_t>(oa, "out", nout));
    } else {
      x = in_buffer<uint8_t>(xa, "x", nx);
      out = out_buffer<uint8_t>(oa, "out", nout);
    }
  }
};

int64_t in_size(const ConvGeom& g) { return g.batch * g.ih * g.iw * g.cin; }
int64_t out_pixels(const ConvGeom& g) { return g.batch * g.oh * g.ow; }

struct QConvPlan {
  ConvParams p{};
  std::vector<int8_t> packed;
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

  void run(py::array x, py::array out, int threads) {
    const Io8 io(p.x_signed, x, in_size(p.g), out, out_pixels(p.g) * p.cout);
    py::gil_scoped_release release;
    conv_u8s8(p, io.x, packed.data(), ccoef.data(), rs.rq, io.out, threads);
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

  void run(py::array x, py::array out, int threads) {
    const Io8 io(p.x_signed, x, in_size(p.g), out, out_pixels(p.g) * p.cout);
    py::gil_scoped_release release;
    depthwise(p, io.x, w.data(), rs.rq, io.out, threads);
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
  void run(py::array x, py::array out, int threads) {
    const Io8 io(p.x_signed, x, in_size(p.g), out, out_pixels(p.g) * p.g.cin);
    py::gil_scoped_release release;
    pool(p, io.x, io.out, threads);
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

  void run(py::array a, py::array b, py::array out, int threads) {
    const uint8_t* ap = bytes_of(a, "binary a", a_need, false, false);
    const uint8_t* bp = bytes_of(b, "binary b", b_need, false, false);
    uint8_t* op = bytes_of(out, "binary out", n, true, false);
    py::gil_scoped_release release;
    pair_lookup(table.data(), ap, bp, kinds.empty() ? nullptr : kinds.data(), shape, astr, bstr,
                op, threads);
  }
};

// The requantization alone, over int32 rows of n channels (accumulators made elsewhere: the
// quantized BatchMatMul's exact float32 GEMM)
struct QRequantPlan {
  int64_t n;
  RequantStore rs;
  std::vector<int32_t> zeros;
  QRequantPlan(int64_t n_, py::dict d) : n(n_), rs(n_, d), zeros(static_cast<size_t>(n_), 0) {
    if (n < 1) throw py::value_error("requant: channels must be >= 1");
  }
  void run(py::array acc, py::array out, int threads) {
    const int64_t count = acc.size();
    if (count % n != 0) throw py::value_error("requant: not whole rows of the channels");
    const int32_t* a = in_buffer<int32_t>(acc, "requant acc", count);
    uint8_t* o = bytes_of(out, "requant out", count, true);
    const int64_t rows = count / n;
    py::gil_scoped_release release;
    parallel_range(threads, rows, 1 + 8192 / n, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) requant_row(a + r * n, zeros.data(), 0, n, rs.rq, o + r * n);
    });
  }
};

}  // namespace

PYBIND11_MODULE(_quant, m) {
  m.doc() = "acl_neon native 8-bit quantized kernels";
  add_isa_functions(m);
  bind_fixed_point(m);
  py::class_<QConvPlan>(m, "QConvPlan")
      .def(py::init<std::vector<int64_t>, py::array, py::array, int32_t, bool, int, py::dict>())
      .def("run", &QConvPlan::run);
  py::class_<QDepthwisePlan>(m, "QDepthwisePlan")
      .def(py::init<std::vector<int64_t>, int64_t, py::array, bool, int32_t, py::dict>())
      .def("run", &QDepthwisePlan::run);
  py::class_<QPoolPlan>(m, "QPoolPlan")
      .def(py::init<std::vector<int64_t>, bool, bool, int32_t, int32_t>())
      .def("run", &QPoolPlan::run);
  py::class_<QRequantPlan>(m, "QRequantPlan")
      .def(py::init<int64_t, py::dict>())
      .def("run", &QRequantPlan::run);
  py::class_<QBinaryPlan>(m, "QBinaryPlan")
      .def(py::init<py::array, py::object, std::vector<int64_t>, std::vector<int64_t>,
                    std::vector<int64_t>>())
      .def("run", &QBinaryPlan::run);
  m.def("lut8", [](py::array table, py::array x, py::array out, int threads) {
    const int64_t n = x.size();
    const uint8_t* tp = bytes_of(table, "lut8 table", 256, false);
    const uint8_t* xp = bytes_of(x, "lut8 x", n, false);
    uint8_t* op = bytes_of(out, "lut8 out", n, true);
    py::gil_scoped_release release;
    lut8(tp, xp, n, op, threads);
  });
}
