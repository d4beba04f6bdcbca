// Module _ggml: FULLY_CONNECTED with GGML block-quantized weights (FcPlan: the weights read in
// place, the activations quantized into a buffer of the plan) and GATHER of block rows
// (GatherPlan), bound to slots as native steps (plan.bind(slots..., threads)).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "bind_util.h"
#include "ggml.h"

namespace py = pybind11;
using namespace onert_neon;
using onert_rt::in;
using onert_rt::out;
using onert_rt::Slot;
using onert_rt::StepError;

namespace {

GgmlType type_of(const std::string& name) {
  GgmlType t;
  if (!ggml_type_of(name.c_str(), &t))
    throw py::value_error("not a GGML block type: " + name +
                          " (valid: GGML_Q4_0, GGML_Q4_1, GGML_Q8_0, GGML_Q8_1)");
  return t;
}

// rows of blocks as uint8, C-contiguous, `bytes` long
const uint8_t* blocks_of(py::array& a, const char* what, int64_t bytes) {
  if (a.dtype().kind() != 'u' || a.itemsize() != 1 || !(a.flags() & py::array::c_style) ||
      a.nbytes() != bytes)
    throw py::value_error(std::string(what) + ": needs C-contiguous uint8 blocks of " +
                          std::to_string(bytes) + " bytes");
  return static_cast<const uint8_t*>(a.data());
}

// y (rows x units) = the GGML product of x (rows x depth) with weights [units][depth / 32
// blocks] (kept referenced, never copied), plus the bias, clamped to [lo, hi].
struct FcPlan {
  py::array weights;
  std::vector<float> bias;
  GgmlFcArgs args{};
  mutable GgmlActs acts;      // the activations quantized per block: scratch of one run

  FcPlan(py::array w, const std::string& type, int64_t units, int64_t depth, py::object b,
         int64_t rows, float lo, float hi)
      : weights(w) {
    args.type = type_of(type);
    if (units < 1 || depth < 1 || depth % kGgmlBlock || rows < 0)
      throw py::value_error("FcPlan: units >= 1, depth a positive multiple of 32, rows >= 0");
    args.M = rows;
    args.K = depth;
    args.N = units;
    args.w = blocks_of(weights, "weights", units * depth / kGgmlBlock *
                                               ggml_block_bytes(args.type));
    if (!b.is_none()) {
      py::array arr = py::reinterpret_borrow<py::array>(b);
      const float* bp = in_buffer<float>(arr, "bias", units);
      bias.assign(bp, bp + units);
    }
    args.bias = bias.empty() ? nullptr : bias.data();
    args.lo = lo;
    args.hi = hi;
  }

  void exec(const Slot* x, const Slot* y, int threads) const {
    const float* xp = in<float>(x, args.M * args.K, "input");
    GgmlFcArgs a = args;
    a.y = out<float>(y, args.M * args.N, "output");
    a.acts = &acts;
    ggml_quantize_acts(xp, a.M, a.K, a.type, acts, threads);
    ggml_fc(a, threads);
  }
};

// GATHER of block rows: params (uint8 blocks), indices (int32 or int64), output float32.
struct GatherPlan {
  GgmlGatherArgs a{};
  bool wide;
  int64_t param_bytes, out_count;

  GatherPlan(const std::string& type, int64_t batch, int64_t outer, int64_t limit,
             int64_t n_idx, int64_t row_blocks, bool wide_)
      : wide(wide_) {
    a = GgmlGatherArgs{type_of(type), nullptr, batch, outer, limit, n_idx, row_blocks,
                       nullptr};
    if (batch < 0 || outer < 0 || limit < 0 || n_idx < 0 || row_blocks < 0)
      throw py::value_error("gather: negative size");
    param_bytes = batch * outer * limit * row_blocks * ggml_block_bytes(a.type);
    out_count = batch * outer * n_idx * row_blocks * kGgmlBlock;
  }

  template <class Index>
  void gather_as(GgmlGatherArgs g, const Slot* idx, int threads) const {
    const Index* ip = in<Index>(idx, g.batch * g.n_idx, "indices");
    const int64_t bad = ggml_gather(g, ip, threads);
    if (bad >= 0)
      throw StepError("gather index " + std::to_string(static_cast<int64_t>(ip[bad])) +
                      " out of range [0, " + std::to_string(g.limit) + ")");
  }

  void exec(const Slot* params, const Slot* idx, const Slot* y, int threads) const {
    GgmlGatherArgs g = a;
    g.params = in<uint8_t>(params, param_bytes, "params");
    g.out = out<float>(y, out_count, "output");
    if (wide)
      gather_as<int64_t>(g, idx, threads);
    else
      gather_as<int32_t>(g, idx, threads);
  }
};

py::array_t<float> dequantize(py::array blocks, const std::string& type) {
  const GgmlType t = type_of(type);
  const int64_t bb = ggml_block_bytes(t), count = blocks.nbytes() / bb;
  const uint8_t* src = blocks_of(blocks, "blocks", count * bb);
  py::array_t<float> out(count * kGgmlBlock);
  ggml_dequantize(t, src, count, out.mutable_data());
  return out;
}

}  // namespace

PYBIND11_MODULE(_ggml, m) {
  m.doc() = "acl_neon GGML block-quantized kernels: FULLY_CONNECTED weights, GATHER params";
  add_isa_functions(m);
  py::class_<FcPlan>(m, "FcPlan")
      .def(py::init<py::array, const std::string&, int64_t, int64_t, py::object, int64_t,
                    float, float>(),
           py::arg("weights"), py::arg("type"), py::arg("units"), py::arg("depth"),
           py::arg("bias"), py::arg("rows"), py::arg("lo"), py::arg("hi"))
      .def("bind", &bind_plan<FcPlan, 2>, "bind(x, y, threads): the step");
  py::class_<GatherPlan>(m, "GatherPlan")
      .def(py::init<const std::string&, int64_t, int64_t, int64_t, int64_t, int64_t, bool>(),
           py::arg("type"), py::arg("batch"), py::arg("outer"), py::arg("limit"),
           py::arg("n_idx"), py::arg("row_blocks"), py::arg("wide"))
      .def("bind", &bind_plan<GatherPlan, 3>, "bind(params, indices, y, threads): the step");
  m.def("dequantize", &dequantize, py::arg("blocks"), py::arg("type"),
        "blocks (uint8, whole blocks) as float32 values, GGML's dequantize_row_*");
}
