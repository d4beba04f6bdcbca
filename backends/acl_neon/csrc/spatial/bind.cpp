// Module _spatial: plans (parameters checked and fixed once, in prepare) for the float32
// spatial kernels; plan.bind(slots..., threads) gives the native step (native_step.h) that
// runs the plan over those tensors' current buffers, checked when it runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "bind_util.h"
#include "native_bind.h"
#include "spatial.h"

namespace py = pybind11;
using namespace onert_neon;
using namespace onert_rt;

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw py::value_error(what);
}

// An optional operand's slot: nullptr for None (the operand is absent); `keep` holds it.
const Slot* optional_slot(py::handle h, std::vector<py::object>& keep) {
  if (h.is_none()) return nullptr;
  keep.push_back(py::reinterpret_borrow<py::object>(h));
  return slot_of(h);
}

// plan.bind(slot or None, ..., threads) for plans with optional operands: the step runs
// plan.exec(slot or nullptr, ..., threads); exec() handles the absent ones.
template <class Plan, size_t N>
py::capsule bind_optional(py::object self, py::args args) {
  if (args.size() != N + 1)
    throw py::type_error("bind() takes " + std::to_string(N) +
                         " tensor slots (None: absent) and threads");
  const Plan* plan = self.cast<const Plan*>();
  std::vector<py::object> keep{self};
  std::array<const Slot*, N> slots;
  for (size_t i = 0; i < N; ++i) slots[i] = optional_slot(args[i], keep);
  plan->check_present(slots);
  const int threads = args[N].cast<int>();
  return make_step(
      [plan, slots, threads] {
        std::apply([&](auto... s) { plan->exec(s..., threads); }, slots);
      },
      std::move(keep));
}

struct DepthwisePlan {
  DepthwiseParams p;
  int64_t in_size, w_size, cout, out_size;
  std::vector<float> zero_bias;     // the bias when the op has none: cout zeros
  Epilogue epi;                     // the fused swish / hard-swish (ops/conv_epilogue.py)
  // bind(x, filter, bias or None, y, threads)
  void check_present(const std::array<const Slot*, 4>& s) const {
    require(s[0] && s[1] && s[3], "depthwise: input, filter and output are required");
  }
  void exec(const Slot* x, const Slot* w, const Slot* bias, const Slot* y, int threads) const {
    const float* xp = in<float>(x, in_size, "depthwise input");
    const float* wp = in<float>(w, w_size, "depthwise filter");
    const float* bp = bias ? in<float>(bias, cout, "depthwise bias") : zero_bias.data();
    float* yp = out<float>(y, out_size, "depthwise output");
    depthwise_conv_f32(p, xp, wp, bp, yp, threads, epi.kind == kEpilogueNone ? nullptr : &epi);
  }
};

DepthwisePlan make_depthwise(int n, int h, int w, int cin, int mult, int kh, int kw, int sh,
                             int sw, int dh, int dw, int pt, int pl, int oh, int ow, float lo,
                             float hi, int epilogue, float epi_lo, float epi_hi) {
  require(n >= 0 && h > 0 && w > 0 && cin > 0 && mult > 0 && kh > 0 && kw > 0 && oh >= 0 &&
              ow >= 0, "depthwise: sizes must be positive");
  require(sh > 0 && sw > 0 && dh > 0 && dw > 0, "depthwise: strides and dilations must be >= 1");
  require(pt >= 0 && pl >= 0, "depthwise: padding must be >= 0");
  require(!(lo > hi), "depthwise: activation range is empty");
  const char* epi_why = epilogue_error(epilogue, epi_lo, epi_hi);
  require(!epi_why, epi_why ? epi_why : "");
  DepthwisePlan plan{{n, h, w, cin, mult, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, lo, hi},
                     0, 0, 0, 0, {}, Epilogue{epilogue, epi_lo, epi_hi}};
  plan.cout = int64_t{cin} * mult;
  plan.in_size = int64_t{n} * h * w * cin;
  plan.w_size = int64_t{kh} * kw * plan.cout;
  plan.out_size = int64_t{n} * oh * ow * plan.cout;
  plan.zero_bias.assign(static_cast<size_t>(plan.cout), 0.0f);
  return plan;
}

struct PoolPlan {
  PoolParams p;
  void exec(const Slot* x, const Slot* y, int threads) const {
    const float* xp = in<float>(x, int64_t{p.n} * p.h * p.w * p.c, "pool input");
    float* yp = out<float>(y, int64_t{p.n} * p.oh * p.ow * p.c, "pool output");
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
  void exec(const Slot* x, const Slot* y, int threads) const {
    const float* xp = in<float>(x, int64_t{n} * h * w * c, "resize input");
    float* yp = out<float>(y, int64_t{n} * oh * ow * c, "resize output");
    ResizeParams p{n, h, w, c, oh, ow, y0.data(), y1.data(), dy.data(),
                   x0.data(), x1.data(), dx.data()};
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
  // bind(x, gamma or None, beta or None, y, threads): gamma / beta bound exactly when the
  // plan was made with their sizes
  void check_present(const std::array<const Slot*, 4>& s) const {
    require(s[0] && s[3], "instance norm: input and output are required");
    require((s[1] != nullptr) == (p.gamma_size > 0), "instance norm: gamma is bound iff present");
    require((s[2] != nullptr) == (p.beta_size > 0), "instance norm: beta is bound iff present");
  }
  void exec(const Slot* x, const Slot* gamma, const Slot* beta, const Slot* y,
            int threads) const {
    const int64_t size = p.n * p.spatial * p.c;
    const float* xp = in<float>(x, size, "instance norm input");
    const float* gp = gamma ? in<float>(gamma, p.gamma_size, "instance norm gamma") : nullptr;
    const float* bp = beta ? in<float>(beta, p.beta_size, "instance norm beta") : nullptr;
    float* yp = out<float>(y, size, "instance norm output");
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
  void exec(const Slot* x, const Slot* y, int threads) const {
    const float* xp = in<float>(x, pixels * c, "lrn input");
    float* yp = out<float>(y, pixels * c, "lrn output");
    local_response_norm_f32(xp, yp, pixels, c, radius, bias, alpha, beta, threads);
  }
};

struct L2NormPlan {
  int64_t rows, depth;
  float lo, hi;
  void exec(const Slot* x, const Slot* y, int threads) const {
    const float* xp = in<float>(x, rows * depth, "l2 input");
    float* yp = out<float>(y, rows * depth, "l2 output");
    l2_normalize_f32(xp, yp, rows, depth, lo, hi, threads);
  }
};

}  // namespace

PYBIND11_MODULE(_spatial, m) {
  m.doc() = "acl_neon float32 spatial kernels: depthwise conv, pooling, resize, normalizations";
  add_isa_functions(m);
  py::class_<DepthwisePlan>(m, "DepthwisePlan")
      .def("bind", &bind_optional<DepthwisePlan, 4>,
           "bind(x, filter, bias or None, y, threads): the step");
  m.def("depthwise_plan", &make_depthwise, py::arg("n"), py::arg("h"), py::arg("w"),
        py::arg("cin"), py::arg("mult"), py::arg("kh"), py::arg("kw"), py::arg("sh"),
        py::arg("sw"), py::arg("dh"), py::arg("dw"), py::arg("pt"), py::arg("pl"),
        py::arg("oh"), py::arg("ow"), py::arg("lo"), py::arg("hi"), py::arg("epilogue") = 0,
        py::arg("epilogue_lo") = -__builtin_inff(), py::arg("epilogue_hi") = __builtin_inff());
  py::class_<PoolPlan>(m, "PoolPlan").def("bind", &bind_plan<PoolPlan, 2>);
  m.def("pool_plan", &make_pool, py::arg("kind"), py::arg("n"), py::arg("h"), py::arg("w"),
        py::arg("c"), py::arg("kh"), py::arg("kw"), py::arg("sh"), py::arg("sw"),
        py::arg("pt"), py::arg("pl"), py::arg("oh"), py::arg("ow"), py::arg("lo"),
        py::arg("hi"));
  py::class_<ResizePlan>(m, "ResizePlan").def("bind", &bind_plan<ResizePlan, 2>);
  m.def("resize_plan", &make_resize);
  py::class_<InstanceNormPlan>(m, "InstanceNormPlan")
      .def("bind", &bind_optional<InstanceNormPlan, 4>,
           "bind(x, gamma or None, beta or None, y, threads): the step");
  m.def("instance_norm_plan", &make_instance_norm);
  py::class_<LrnPlan>(m, "LrnPlan").def("bind", &bind_plan<LrnPlan, 2>);
  m.def("lrn_plan", [](int64_t pixels, int64_t c, int radius, float bias, float alpha,
                       float beta) {
    require(pixels >= 0 && c >= 0 && radius >= 0, "lrn: sizes and radius must be >= 0");
    return LrnPlan{pixels, c, radius, bias, alpha, beta};
  });
  py::class_<L2NormPlan>(m, "L2NormPlan").def("bind", &bind_plan<L2NormPlan, 2>);
  m.def("l2_plan", [](int64_t in_size, int64_t out_size, int64_t depth, float lo, float hi) {
    require(depth > 0 && in_size >= 0 && in_size % depth == 0,
            "l2_normalize: size is not a multiple of depth");
    require(in_size == out_size, "l2_normalize: input and output sizes differ");
    require(!(lo > hi), "l2_normalize: activation range is empty");
    return L2NormPlan{in_size / depth, depth, lo, hi};
  }, py::arg("in_size"), py::arg("out_size"), py::arg("depth"), py::arg("lo"), py::arg("hi"));
}
