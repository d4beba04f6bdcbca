// Module _ggml: FULLY_CONNECTED with GGML block-quantized weights (FcPlan: the weights read in
// place, the activations quantized into a buffer of the plan) and GATHER of block rows.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "bind_util.h"
#include "ggml.h"

namespace py = pybind11;
using namespace onert_neon;

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
  GgmlActs acts;

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
    args.acts = &acts;
    args.lo = lo;
    args.hi = hi;
  }

  void run(py::array x, py::array y, int threads) {
    const float* xp = in_buffer<float>(x, "input", args.M * args.K);
    args.y = out_buffer<float>(y, "output", args.M * args.N);
    py::gil_scoped_release release;
    ggml_quantize_acts(xp, args.M, args.K, args.type, acts, threads);
    ggml_fc(args, threads);
  }
};

template <class Index>
int64_t gather_as(const GgmlGatherArgs& a, py::array& idx, int threads) {
  const Index* ip = in_buffer<Index>(idx, "indices", a.batch * a.n_idx);
  py::gil_scoped_release release;
  return ggml_gather(a, ip, threads);
}

void gather(py::array params, const std::string& type, py::array idx, py::array out,
            int64_t batch, int64_t outer, int64_t limit, int64_t n_idx, int64_t row_blocks,
            int threads) {
  GgmlGatherArgs a{type_of(type), nullptr, batch, outer, limit, n_idx, row_blocks, nullptr};
  if (batch < 0 || outer < 0 || limit < 0 || n_idx < 0 || row_blocks < 0)
    throw py::value_error("gather: negative size");
  a.params = blocks_of(params, "params",
                       batch * outer * limit * row_blocks * ggml_block_bytes(a.type));
  a.out = out_buffer<float>(out, "output", batch * outer * n_idx * row_blocks * kGgmlBlock);
  const bool wide = idx.itemsize() == 8;
  const int64_t bad = wide ? gather_as<int64_t>(a, idx, threads)
                           : gather_as<int32_t>(a, idx, threads);
  if (bad >= 0) {
    const int64_t value = wide ? static_cast<const int64_t*>(idx.data())[bad]
                               : static_cast<const int32_t*>(idx.data())[bad];
    throw py::value_error("gather index " + std::to_string(value) + " out of range [0, " +
                          std::to_string(limit) + ")");
  }
}

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
      .def("run", &FcPlan::run, py::arg("x"), py::arg("y"), py::arg("threads") = 1);
  m.def("gather", &gather, py::arg("params"), py::arg("type"), py::arg("indices"),
        py::arg("out"), py::arg("batch"), py::arg("outer"), py::arg("limit"), py::arg("n_idx"),
        py::arg("row_blocks"), py::arg("threads") = 1);
  m.def("dequantize", &dequantize, py::arg("blocks"), py::arg("type"),
        "blocks (uint8, whole blocks) as float32 values, GGML's dequantize_row_*");
}
