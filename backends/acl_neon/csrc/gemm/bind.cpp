// Module _gemm: plans (weights packed once, in prepare) for Conv2D, FullyConnected,
// TransposeConv and the fused InvertedResidual block, and BatchMatMul (both operands read at
// run time); plan.bind(slots...,
// threads) gives the native step (native_step.h) that runs the plan over those tensors'
// current buffers, checked when it runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bind_util.h"
#include "conv_direct.h"
#include "gemm.h"
#include "inverted_residual.h"
#include "native_bind.h"

namespace py = pybind11;
using namespace onert_neon;
using namespace onert_rt;

namespace {

// the bias (None or an array), read while the caller's `bias` keeps the array alive
const float* optional_bias(const py::object& bias, int64_t n) {
  if (bias.is_none()) return nullptr;
  if (!py::isinstance<py::array>(bias)) throw py::value_error("bias: an array or None expected");
  py::array arr = py::reinterpret_borrow<py::array>(bias);
  return in_buffer<float>(arr, "bias", n);
}

ConvGeom geom_of(const std::vector<int64_t>& v) {
  if (v.size() != 15) throw py::value_error("geometry needs 15 values");
  for (int64_t d : v)
    if (d < 0) throw py::value_error("geometry values must be >= 0");
  ConvGeom g{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
             v[12], v[13], v[14]};
  if (g.n < 1 || g.h < 1 || g.w < 1 || g.cin < 1 || g.kh < 1 || g.kw < 1 || g.sh < 1 ||
      g.sw < 1 || g.dh < 1 || g.dw < 1 || g.oh < 1 || g.ow < 1 || g.cout < 1)
    throw py::value_error("geometry sizes must be positive");
  return g;
}

// The convolution epilogue (common/epilogue.h) from its kind and the MUL's clamp (swish).
Epilogue epilogue_of(int kind, float lo, float hi) {
  if (const char* why = epilogue_error(kind, lo, hi)) throw py::value_error(why);
  return Epilogue{kind, lo, hi};
}

// Conv2D: the direct convolution for few input channels (conv_direct.h), else the GEMM;
// `epilogue` (epilogue_of) runs on the rows just stored: the swish or hard-swish ops the
// compiler fused into the convolution (backends/acl_neon/ops/conv_epilogue.py)
struct ConvPlan {
  ConvGeom g;
  bool direct;
  PackedB b;
  DirectWeights d;
  float lo, hi;
  Epilogue epi;
  ConvPlan(py::array w, py::object bias, std::vector<int64_t> geom, float lo_, float hi_,
           int epilogue, float epi_lo, float epi_hi)
      : g(geom_of(geom)), direct(direct_conv_fits(g)), lo(lo_), hi(hi_),
        epi(epilogue_of(epilogue, epi_lo, epi_hi)) {
    const int64_t K = g.kh * g.kw * g.cin;
    const float* wp = in_buffer<float>(w, "weights", g.cout * K);
    const float* bp = optional_bias(bias, g.cout);
    if (direct) pack_direct(g, wp, bp, d);
    else pack_b(wp, K, bp, g.cout, K, b);
  }
  void exec(const Slot* x, const Slot* y, int threads) const {
    const float* xp = in<float>(x, g.n * g.h * g.w * g.cin, "conv input");
    float* yp = out<float>(y, g.n * g.oh * g.ow * g.cout, "conv output");
    const Epilogue* e = epi.kind == kEpilogueNone ? nullptr : &epi;
    if (direct) conv_direct_f32(g, xp, d, yp, lo, hi, threads, e);
    else conv2d_f32(g, xp, b, yp, lo, hi, threads, e);
  }
};

// A 1x1 stride-1 Conv2D reading MUL(x, gate), the gate one value per channel for all images
// or per image and channel (gated_gemm_f32; backends/acl_neon/ops/gated_conv2d.py):
// bind(x, gate, y, threads).
struct GatedConvPlan {
  int64_t images, pixels, K;
  bool per_image;
  PackedB b;
  float lo, hi, gate_lo, gate_hi;
  GatedConvPlan(py::array w, py::object bias, int64_t images_, int64_t pixels_, bool per_image_,
                float lo_, float hi_, float gate_lo_, float gate_hi_)
      : images(images_), pixels(pixels_), per_image(per_image_), lo(lo_), hi(hi_),
        gate_lo(gate_lo_), gate_hi(gate_hi_) {
    if (w.ndim() != 2 || images < 1 || pixels < 1)
      throw py::value_error("weights must be 2-D, images and pixels positive");
    if (lo > hi || gate_lo > gate_hi) throw py::value_error("a clamp range is empty");
    const int64_t N = w.shape(0);
    K = w.shape(1);
    if (N < 1 || K < 1) throw py::value_error("weights must not be empty");
    pack_b(in_buffer<float>(w, "weights", N * K), K, optional_bias(bias, N), N, K, b);
  }
  void exec(const Slot* x, const Slot* gate, const Slot* y, int threads) const {
    const int64_t M = images * pixels;
    const InputGate g{in<float>(gate, (per_image ? images : 1) * K, "gate"), pixels, per_image,
                      gate_lo, gate_hi};
    gated_gemm_f32(in<float>(x, M * K, "gated conv input"), M, g, b,
                   out<float>(y, M * b.N, "gated conv output"), lo, hi, threads);
  }
};

struct FcPlan {
  int64_t M, K, N;
  PackedB b;
  float lo, hi;
  FcPlan(py::array w, py::object bias, int64_t m, float lo_, float hi_) : M(m), lo(lo_), hi(hi_) {
    if (w.ndim() != 2 || m < 0) throw py::value_error("weights must be 2-D and rows >= 0");
    N = w.shape(0);
    K = w.shape(1);
    if (N < 1 || K < 1) throw py::value_error("weights must not be empty");
    pack_b(in_buffer<float>(w, "weights", N * K), K, optional_bias(bias, N), N, K, b);
  }
  void exec(const Slot* x, const Slot* y, int threads) const {
    gemm_f32(in<float>(x, M * K, "fully connected input"), M, K, b,
             out<float>(y, M * N, "fully connected output"), N, lo, hi, threads);
  }
  // The array form, for acl_neon's recurrent kernels (ops/recurrent.py: their input
  // projection) until they bind this plan too; remove it then.
};

struct TransposeConvPlan {
  ConvGeom g;   // h, w: the input's; oh, ow: the output's; pt, pl: the crop
  PackedB b;
  std::vector<float> bias;
  mutable std::vector<float> cols;   // the GEMM's result, scratch of one run
  float lo, hi;
  TransposeConvPlan(py::array w, py::object bias_, std::vector<int64_t> geom, float lo_,
                    float hi_)
      : g(geom_of(geom)), lo(lo_), hi(hi_) {
    const int64_t taps = g.kh * g.kw, N = taps * g.cout;
    const float* wp = in_buffer<float>(w, "weights", g.cout * taps * g.cin);
    std::vector<float> rows(static_cast<size_t>(N * g.cin));   // [kh][kw][cout] x cin
    for (int64_t o = 0; o < g.cout; ++o)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t c = 0; c < g.cin; ++c)
          rows[(t * g.cout + o) * g.cin + c] = wp[(o * taps + t) * g.cin + c];
    pack_b(rows.data(), g.cin, nullptr, N, g.cin, b);
    if (const float* bp = optional_bias(bias_, g.cout)) bias.assign(bp, bp + g.cout);
    cols.resize(static_cast<size_t>(g.n * g.h * g.w * N));
  }
  void exec(const Slot* x, const Slot* y, int threads) const {
    const float* xp = in<float>(x, g.n * g.h * g.w * g.cin, "transpose conv input");
    float* yp = out<float>(y, g.n * g.oh * g.ow * g.cout, "transpose conv output");
    transpose_conv_f32(g, xp, b, bias.empty() ? nullptr : bias.data(), cols.data(), yp, lo, hi,
                       threads);
  }
};

// The fused block (inverted_residual.h): geometry [n, h, w, cin, cexp, k, stride_h, stride_w,
// pad_top, pad_left, oh, ow, cout], the expand conv's weights [cexp][cin] and bias (None, None
// without expand), the depthwise filter [k][k][cexp] and bias, the project conv's weights
// [cout][cexp] and bias, the clamps [expand lo, hi, depthwise lo, hi, project lo, hi, add lo,
// hi] and whether the block input is added (residual); or, in place of the expand conv, a
// stem conv: its weights [cexp][kh][kw][cin] and bias and its 15-value geometry (ConvPlan's),
// x then its input, the expand clamp its clamp, h and w its output's.
struct InvertedResidualPlan {
  InvertedResidual f;
  int64_t in_size, out_size;
  InvertedResidualPlan(std::vector<int64_t> geom, py::object exp_w, py::object exp_b,
                       py::array dw_w, py::object dw_b, py::object proj_w, py::object proj_b,
                       std::vector<float> clamps, bool residual,
                       py::object stem_w, py::object stem_b, py::object stem_geom,
                       std::vector<float> epilogues) {
    if (geom.size() != 13 || clamps.size() != 8)
      throw py::value_error("geometry needs 13 values and clamps 8");
    if (!epilogues.empty() && epilogues.size() != 6)
      throw py::value_error("epilogues: (kind, lo, hi) after the expand and the depthwise");
    for (int64_t v : geom)
      if (v < 0 || v > (int64_t{1} << 30)) throw py::value_error("geometry values out of range");
    const int64_t n = geom[0], h = geom[1], w = geom[2], cin = geom[3], cexp = geom[4],
                  k = geom[5], sh = geom[6], sw = geom[7], pt = geom[8], pl = geom[9],
                  oh = geom[10], ow = geom[11], cout = geom[12];
    if (n < 1 || h < 1 || w < 1 || cin < 1 || cexp < 1 || oh < 1 || ow < 1 || cout < 1 ||
        sh < 1 || sw < 1 || (k != 3 && k != 5))
      throw py::value_error("sizes and strides must be positive, the depthwise filter 3 or 5");
    for (int64_t oy = 0; oy < oh; ++oy)
      if (oy * sh - pt + k - 1 < 0 || oy * sh - pt >= h)
        throw py::value_error("an output row reads no input row");
    for (size_t i = 0; i < 8; i += 2)
      if (clamps[i] > clamps[i + 1]) throw py::value_error("a clamp range is empty");
    f.expand = !exp_w.is_none();
    f.stem = !stem_w.is_none();
    if (f.stem) {
      f.stem_g = geom_of(stem_geom.cast<std::vector<int64_t>>());
      const ConvGeom& sg = f.stem_g;
      if (f.expand || residual)
        throw py::value_error("a stem conv takes the place of the expand, without residual");
      if (!direct_conv_fits(sg) || sg.n != n || sg.oh != h || sg.ow != w || sg.cout != cexp ||
          sg.cin != cin)
        throw py::value_error("the stem conv must be a direct one (<= 16 input channels, a "
                              "window) whose output is the depthwise input");
      py::array sw_arr = stem_w.cast<py::array>();
      pack_direct(sg, in_buffer<float>(sw_arr, "stem weights", sg.cout * sg.kh * sg.kw * sg.cin),
                  optional_bias(stem_b, sg.cout), f.stem_w);
    } else if (!f.expand && cexp != cin) {
      throw py::value_error("without expand the depthwise channels are the input's");
    }
    if (residual && (sh != 1 || sw != 1 || oh != h || ow != w || cout != cin))
      throw py::value_error("the residual needs stride 1 and the input's shape");
    f.project = !proj_w.is_none();
    if (!f.project && (residual || cout != cexp))
      throw py::value_error("without a project the block's output is the depthwise's, no "
                            "residual");
    if (!f.project && !f.expand && !f.stem)
      throw py::value_error("a block needs an expand or stem conv before a lone depthwise");
    if (!epilogues.empty()) {
      f.exp_epi = epilogue_of(static_cast<int>(epilogues[0]), epilogues[1], epilogues[2]);
      f.dw_epi = epilogue_of(static_cast<int>(epilogues[3]), epilogues[4], epilogues[5]);
      if (f.exp_epi.kind != kEpilogueNone && !f.expand && !f.stem)
        throw py::value_error("an expand epilogue needs an expand or stem conv");
    }
    f.dw = DepthwiseParams{static_cast<int>(n), static_cast<int>(h), static_cast<int>(w),
                           static_cast<int>(cexp), 1, static_cast<int>(k),
                           static_cast<int>(k), static_cast<int>(sh), static_cast<int>(sw),
                           1, 1, static_cast<int>(pt), static_cast<int>(pl),
                           static_cast<int>(oh), static_cast<int>(ow), clamps[2], clamps[3]};
    f.cin = cin;
    f.cout = cout;
    if (f.expand) {
      py::array ew = exp_w.cast<py::array>();
      pack_b(in_buffer<float>(ew, "expand weights", cexp * cin), cin,
             optional_bias(exp_b, cexp), cexp, cin, f.exp_b);
    }
    f.exp_lo = clamps[0];
    f.exp_hi = clamps[1];
    const float* dwp = in_buffer<float>(dw_w, "depthwise filter", k * k * cexp);
    f.dw_w.assign(dwp, dwp + k * k * cexp);
    const float* dbp = optional_bias(dw_b, cexp);
    f.dw_b.assign(static_cast<size_t>(cexp), 0.0f);
    if (dbp) f.dw_b.assign(dbp, dbp + cexp);
    if (f.project) {
      py::array pw = proj_w.cast<py::array>();
      pack_b(in_buffer<float>(pw, "project weights", cout * cexp), cexp,
             optional_bias(proj_b, cout), cout, cexp, f.proj_b);
    }
    f.proj_lo = clamps[4];
    f.proj_hi = clamps[5];
    f.residual = residual;
    f.add_lo = clamps[6];
    f.add_hi = clamps[7];
    in_size = f.stem ? n * f.stem_g.h * f.stem_g.w * cin : n * h * w * cin;
    out_size = n * oh * ow * cout;
  }
  void exec(const Slot* x, const Slot* y, int threads) const {
    const float* xp = in<float>(x, in_size, "inverted residual input");
    float* yp = out<float>(y, out_size, "inverted residual output");
    // each thread's scratch is its own, shared with the other blocks (inverted_residual.h)
    inverted_residual_f32(f, xp, yp, nullptr, threads < 1 ? 1 : threads);
  }
};

struct BmmPlan {
  BmmArgs g{};
  int64_t a_count, b_count;
  std::vector<int64_t> a_index, b_index;
  mutable std::vector<float> scratch;   // a transposed A, scratch of one run
  mutable PackedB packed;               // the current batch's B, packed per run
  BmmPlan(std::vector<int64_t> mkn, bool adj_x, bool adj_y, std::vector<int64_t> a_idx,
          std::vector<int64_t> b_idx, int64_t a_n, int64_t b_n)
      : a_count(a_n), b_count(b_n), a_index(std::move(a_idx)), b_index(std::move(b_idx)) {
    if (mkn.size() != 3 || mkn[0] < 1 || mkn[1] < 1 || mkn[2] < 1)
      throw py::value_error("M, K, N must be 3 positive sizes");
    if (a_index.size() != b_index.size() || a_index.empty())
      throw py::value_error("batch index lists must be non-empty and of one length");
    for (size_t i = 0; i < a_index.size(); ++i)
      if (a_index[i] < 0 || a_index[i] >= a_count || b_index[i] < 0 || b_index[i] >= b_count)
        throw py::value_error("batch index out of range");
    g.M = mkn[0];
    g.K = mkn[1];
    g.N = mkn[2];
    g.batches = static_cast<int64_t>(a_index.size());
    g.adj_x = adj_x;
    g.adj_y = adj_y;
    g.a_index = a_index.data();
    g.b_index = b_index.data();
  }
  void exec(const Slot* a, const Slot* b, const Slot* y, int threads) const {
    BmmArgs args = g;
    args.a = in<float>(a, a_count * g.M * g.K, "batch matmul input 0");
    args.b = in<float>(b, b_count * g.K * g.N, "batch matmul input 1");
    args.out = out<float>(y, g.batches * g.M * g.N, "batch matmul output");
    batch_matmul_f32(args, scratch, packed, threads);
  }
};

}  // namespace

PYBIND11_MODULE(_gemm, m) {
  m.doc() = "acl_neon float32 GEMM family: Conv2D, FullyConnected, TransposeConv, BatchMatMul, the fused InvertedResidual block";
  add_isa_functions(m);
  const float inf = __builtin_inff();
  py::class_<ConvPlan>(m, "ConvPlan")
      .def(py::init<py::array, py::object, std::vector<int64_t>, float, float, int, float,
                    float>(),
           py::arg("weights"), py::arg("bias"), py::arg("geometry"), py::arg("lo"),
           py::arg("hi"), py::arg("epilogue") = 0, py::arg("epilogue_lo") = -inf,
           py::arg("epilogue_hi") = inf)
      .def("bind", &bind_plan<ConvPlan, 2>, "bind(x, y, threads): the step")
      .def_readonly("direct", &ConvPlan::direct, "True: the direct convolution, else the GEMM");
  py::class_<GatedConvPlan>(m, "GatedConvPlan")
      .def(py::init<py::array, py::object, int64_t, int64_t, bool, float, float, float,
                    float>(),
           py::arg("weights"), py::arg("bias"), py::arg("images"), py::arg("pixels"),
           py::arg("per_image"), py::arg("lo"), py::arg("hi"), py::arg("gate_lo"),
           py::arg("gate_hi"))
      .def("bind", &bind_plan<GatedConvPlan, 3>, "bind(x, gate, y, threads): the step");
  py::class_<FcPlan>(m, "FcPlan")
      .def(py::init<py::array, py::object, int64_t, float, float>(), py::arg("weights"),
           py::arg("bias"), py::arg("rows"), py::arg("lo"), py::arg("hi"))
      .def("bind", &bind_plan<FcPlan, 2>, "bind(x, y, threads): the step");
  py::class_<TransposeConvPlan>(m, "TransposeConvPlan")
      .def(py::init<py::array, py::object, std::vector<int64_t>, float, float>(),
           py::arg("weights"), py::arg("bias"), py::arg("geometry"), py::arg("lo"),
           py::arg("hi"))
      .def("bind", &bind_plan<TransposeConvPlan, 2>, "bind(x, y, threads): the step");
  py::class_<InvertedResidualPlan>(m, "InvertedResidualPlan")
      .def(py::init<std::vector<int64_t>, py::object, py::object, py::array, py::object,
                    py::object, py::object, std::vector<float>, bool, py::object,
                    py::object, py::object, std::vector<float>>(),
           py::arg("geometry"), py::arg("expand_weights"), py::arg("expand_bias"),
           py::arg("dw_filter"), py::arg("dw_bias"), py::arg("project_weights"),
           py::arg("project_bias"), py::arg("clamps"), py::arg("residual"),
           py::arg("stem_weights") = py::none(),
           py::arg("stem_bias") = py::none(), py::arg("stem_geometry") = py::none(),
           py::arg("epilogues") = std::vector<float>{})
      .def("bind", &bind_plan<InvertedResidualPlan, 2>, "bind(x, y, threads): the step");
  py::class_<BmmPlan>(m, "BmmPlan")
      .def(py::init<std::vector<int64_t>, bool, bool, std::vector<int64_t>,
                    std::vector<int64_t>, int64_t, int64_t>(),
           py::arg("mkn"), py::arg("adj_x"), py::arg("adj_y"), py::arg("a_index"),
           py::arg("b_index"), py::arg("a_count"), py::arg("b_count"))
      .def("bind", &bind_plan<BmmPlan, 3>, "bind(a, b, y, threads): the step");
}
