// Module _spatial: plans (parameters checked and fixed once, in prepare) for the float32
// spatial kernels; run() reads the tensors' current buffers and releases the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <string>
#include <vector>

#include "bind_util.h"
#include "spatial.h"

namespace py = pybind11;
using namespace onert_neon;

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw py::value_error(what);
}

struct DepthwisePlan {
  DepthwiseParams p;
  int64_t in_size, w_size, cout, out_size;
  void run(py::array x, py::array w, py::array bias, py::array y, int threads) {
    const float* xp = in_buffer<float>(x, "depthwise input", in_size);
    const float* wp = in_buffer<float>(w, "depthwise filter", w_size);
    const float* bp = in_buffer<float>(bias, "depthwise bias", cout);
    float* yp = out_buffer<float>(y, "depthwise output", out_size);
    py::gil_scoped_release release;
    depthwise_conv_f32(p, xp, wp, bp, yp, threads);
  }
};

DepthwisePlan make_depthwise(int n, int h, int w, int cin, int mult, int kh, int kw, int sh,
                             int sw, int dh, int dw, int pt, int pl, int oh, int ow, float lo,
                             float hi) {
  require(n >= 0 && h > 0 && w > 0 && cin > 0 && mult > 0 && kh > 0 && kw > 0 && oh >= 0 &&
              ow >= 0, "depthwise: sizes must be positive");
  require(sh > 0 && sw > 0 && dh > 0 && dw > 0, "depthwise: strides and dilations must be >= 1");
  require(pt >= 0 && pl >= 0, "depthwise: padding must be >= 0");
  require(!(lo > hi), "depthwise: activation range is empty");
  DepthwisePlan plan{{n, h, w, cin, mult, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, lo, hi},
                     0, 0, 0, 0};
  plan.cout = int64_t{cin} * mult;
  plan.in_size = int64_t{n} * h * w * cin;
  plan.w_size = int64_t{kh} * kw * plan.cout;
  plan.out_size = int64_t{n} * oh * ow * plan.cout;
  return plan;
}

struct PoolPlan {
  PoolParams p;
  void run(py::array x, py::array y, int threads) {
    const float* xp = in_buffer<float>(x, "pool input", int64_t{p.n} * p.h * p.w * p.c);
    float* yp = out_buffer<float>(y, "pool output", int64_t{p.n} * p.oh * p.ow * p.c);
    py::gil_scoped_release release;
    pool2d_f32(p, xp, yp, threads);
  }
};

PoolPlan make_pool(const std::string& kind, int n, int h, int w, int c, int kh, int kw, int sh,
                   int sw, int pt, int pl, int oh, int ow, float lo, float hi) {
  require(kind == "average" || kind == "max", "pool: kind must be 'average' or 'max'");
  require(n >= 0 && h > 0 && w > 0 && c > 0 && kh > 0 && kw > 0 && oh >= 0 && ow >= 0,
          "pool: sizes must be positive");
  require(sh > 0 && sw > 0 && pt >= 0 && pl >= 0, "pool: strides >= 1 and padding >= 0");
  require(!(lo > hi), "pool: activation range is empty");
  return PoolPlan{{n, h, w, c, kh, kw, sh, sw, pt, pl, oh, ow,
                   kind == "max" ? PoolKind::Max : PoolKind::Average, lo, hi}};
}

struct ResizePlan {
  int n, h, w, c, oh, ow;
  std::vector<int32_t> y0, y1, x0, x1;
  std::vector<float> dy, dx;
  void run(py::array x, py::array y, int threads) {
    const float* xp = in_buffer<float>(x, "resize input", int64_t{n} * h * w * c);
    float* yp = out_buffer<float>(y, "resize output", int64_t{n} * oh * ow * c);
    ResizeParams p{n, h, w, c, oh, ow, y0.data(), y1.data(), dy.data(),
                   x0.data(), x1.data(), dx.data()};
    py::gil_scoped_release release;
    resize_bilinear_f32(p, xp, yp, threads);
  }
};

std::vector<int32_t> indices(py::array a, int count, int limit, const char* what) {
  const int32_t* p = in_buffer<int32_t>(a, what, count);
  require(a.size() == count, std::string(what) + ": wrong length");
  std::vector<int32_t> v(p, p + count);
  for (int32_t i : v) require(i >= 0 && i < limit, std::string(what) + ": index out of range");
  return v;
}

std::vector<float> fractions(py::array a, int count, const char* what) {
  const float* p = in_buffer<float>(a, what, count);
  require(a.size() == count, std::string(what) + ": wrong length");
  return std::vector<float>(p, p + count);
}

ResizePlan make_resize(int n, int h, int w, int c, int oh, int ow, py::array y0, py::array y1,
                       py::array dy, py::array x0, py::array x1, py::array dx) {
  require(n >= 0 && h > 0 && w > 0 && c > 0 && oh >= 0 && ow >= 0,
          "resize: sizes must be positive");
  return ResizePlan{n, h, w, c, oh, ow,
                    indices(y0, oh, h, "resize y0"), indices(y1, oh, h, "resize y1"),
                    indices(x0, ow, w, "resize x0"), indices(x1, ow, w, "resize x1"),
                    fractions(dy, oh, "resize dy"), fractions(dx, ow, "resize dx")};
}

struct InstanceNormPlan {
  InstanceNormParams p;
  void run(py::array x, py::object gamma, py::object beta, py::array y, int threads) {
    const int64_t size = p.n * p.spatial * p.c;
    const float* xp = in_buffer<float>(x, "instance norm input", size);
    const float* gp = nullptr;
    const float* bp = nullptr;
    py::array g, b;
    if (p.gamma_size > 0) {
      g = py::array(gamma);
      gp = in_buffer<float>(g, "instance norm gamma", p.gamma_size);
    }
    if (p.beta_size > 0) {
      b = py::array(beta);
      bp = in_buffer<float>(b, "instance norm beta", p.beta_size);
    }
    float* yp = out_buffer<float>(y, "instance norm output", size);
    py::gil_scoped_release release;
    instance_norm_f32(p, xp, gp, bp, yp, threads);
  }
};

InstanceNormPlan make_instance_norm(int64_t n, int64_t spatial, int64_t c, float eps,
                                    int gamma_size, int beta_size, float lo, float hi) {
  require(n >= 0 && spatial >= 0 && c >= 0, "instance norm: sizes must be >= 0");
  auto ok = [c](int s) { return s == 0 || s == 1 || s == c; };
  require(ok(gamma_size) && ok(beta_size), "instance norm: gamma/beta need 1 or C elements");
  require(std::isfinite(eps), "instance norm: epsilon must be finite");
  require(!(lo > hi), "instance norm: activation range is empty");
  return InstanceNormPlan{{n, spatial, c, eps, gamma_size, beta_size, lo, hi}};
}

struct LrnPlan {
  int64_t pixels, c;
  int radius;
  float bias, alpha, beta;
  void run(py::array x, py::array y, int threads) {
    const float* xp = in_buffer<float>(x, "lrn input", pixels * c);
    float* yp = out_buffer<float>(y, "lrn output", pixels * c);
    py::gil_scoped_release release;
    local_response_norm_f32(xp, yp, pixels, c, radius, bias, alpha, beta, threads);
  }
};

}  // namespace

PYBIND11_MODULE(_spatial, m) {
  m.doc() = "acl_neon float32 spatial kernels: depthwise conv, pooling, resize, normalizations";
  add_isa_functions(m);
  py::class_<DepthwisePlan>(m, "DepthwisePlan").def("run", &DepthwisePlan::run);
  m.def("depthwise_plan", &make_depthwise, py::arg("n"), py::arg("h"), py::arg("w"),
        py::arg("cin"), py::arg("mult"), py::arg("kh"), py::arg("kw"), py::arg("sh"),
        py::arg("sw"), py::arg("dh"), py::arg("dw"), py::arg("pt"), py::arg("pl"),
        py::arg("oh"), py::arg("ow"), py::arg("lo"), py::arg("hi"));
  py::class_<PoolPlan>(m, "PoolPlan").def("run", &PoolPlan::run);
  m.def("pool_plan", &make_pool, py::arg("kind"), py::arg("n"), py::arg("h"), py::arg("w"),
        py::arg("c"), py::arg("kh"), py::arg("kw"), py::arg("sh"), py::arg("sw"),
        py::arg("pt"), py::arg("pl"), py::arg("oh"), py::arg("ow"), py::arg("lo"),
        py::arg("hi"));
  py::class_<ResizePlan>(m, "ResizePlan").def("run", &ResizePlan::run);
  m.def("resize_plan", &make_resize);
  py::class_<InstanceNormPlan>(m, "InstanceNormPlan").def("run", &InstanceNormPlan::run);
  m.def("instance_norm_plan", &make_instance_norm);
  py::class_<LrnPlan>(m, "LrnPlan").def("run", &LrnPlan::run);
  m.def("lrn_plan", [](int64_t pixels, int64_t c, int radius, float bias, float alpha,
                       float beta) {
    require(pixels >= 0 && c >= 0 && radius >= 0, "lrn: sizes and radius must be >= 0");
    return LrnPlan{pixels, c, radius, bias, alpha, beta};
  });
  m.def("l2_normalize", [](py::array x, py::array y, int64_t depth, float lo, float hi,
                           int threads) {
    require(depth > 0 && x.size() % depth == 0, "l2_normalize: size is not a multiple of depth");
    require(x.size() == y.size(), "l2_normalize: input and output sizes differ");
    require(!(lo > hi), "l2_normalize: activation range is empty");
    const int64_t rows = x.size() / depth;
    const float* xp = in_buffer<float>(x, "l2 input", rows * depth);
    float* yp = out_buffer<float>(y, "l2 output", rows * depth);
    py::gil_scoped_release release;
    l2_normalize_f32(xp, yp, rows, depth, lo, hi, threads);
  });
}
