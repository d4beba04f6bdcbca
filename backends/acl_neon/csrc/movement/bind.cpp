// Module _movement: strided copy plans (most data-movement ops), gather, one-hot: plans built
// in a kernel's prepare(), plan.bind(slots..., threads) giving the native step that runs them
// (native_step.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "bind_util.h"
#include "native_bind.h"
#include "gather.h"
#include "strided_copy.h"

namespace py = pybind11;
using namespace onert_neon;
using namespace onert_rt;

namespace {

struct CopyStep {
  bool fill = false;
  int src = -1, dst = 0;
  int64_t src_off = 0, dst_off = 0;
  StridedRegion region;
  uint64_t value = 0;
};

// The byte range [lo, hi] a view touches; ValueError unless inside [0, nbytes).
void check_extent(const char* what, int64_t off, const std::vector<int64_t>& shape,
                  const std::vector<int64_t>& strides, int elem, int64_t nbytes) {
  int64_t lo = off, hi = off + elem - 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return;
    int64_t span = (shape[i] - 1) * strides[i];
    (span < 0 ? lo : hi) += span;
  }
  if (lo < 0 || hi >= nbytes)
    throw py::value_error(std::string("copy plan: ") + what + " bytes [" + std::to_string(lo) +
                          ", " + std::to_string(hi) + "] outside its buffer of " +
                          std::to_string(nbytes));
}

// A sequence of copies/fills between fixed-size buffers, checked once, run many times.
class CopyPlan {
 public:
  CopyPlan(std::vector<int64_t> src_nbytes, std::vector<int64_t> dst_nbytes, py::list steps)
      : src_nbytes_(std::move(src_nbytes)), dst_nbytes_(std::move(dst_nbytes)) {
    for (size_t i = 0; i < src_nbytes_.size(); ++i)
      src_names_.push_back("copy plan source " + std::to_string(i));
    for (size_t i = 0; i < dst_nbytes_.size(); ++i)
      dst_names_.push_back("copy plan destination " + std::to_string(i));
    for (auto item : steps) {
      auto t = item.cast<py::tuple>();
      if (t.size() != 9) throw py::value_error("copy plan: a step has 9 fields");
      CopyStep s;
      s.src = t[0].cast<int>();
      s.dst = t[1].cast<int>();
      s.src_off = t[2].cast<int64_t>();
      s.dst_off = t[3].cast<int64_t>();
      auto shape = t[4].cast<std::vector<int64_t>>();
      auto ss = t[5].cast<std::vector<int64_t>>();
      auto ds = t[6].cast<std::vector<int64_t>>();
      int elem = t[7].cast<int>();
      s.fill = s.src < 0;
      if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
        throw py::value_error("copy plan: element size must be 1, 2, 4 or 8");
      if (shape.size() > static_cast<size_t>(kMaxCopyDims) || ds.size() != shape.size() ||
          (!s.fill && ss.size() != shape.size()))
        throw py::value_error("copy plan: bad rank (at most " + std::to_string(kMaxCopyDims) +
                              " dims, one stride per dim)");
      for (int64_t n : shape)
        if (n < 0) throw py::value_error("copy plan: negative dimension");
      if (s.dst < 0 || s.dst >= static_cast<int>(dst_nbytes_.size()) ||
          s.src >= static_cast<int>(src_nbytes_.size()))
        throw py::value_error("copy plan: buffer index out of range");
      check_extent("destination", s.dst_off, shape, ds, elem, dst_nbytes_[s.dst]);
      if (s.fill) {
        auto v = t[8].cast<std::string>();
        if (v.size() != static_cast<size_t>(elem))
          throw py::value_error("copy plan: fill value must have the element's size");
        std::memcpy(&s.value, v.data(), elem);
        ss = ds;
      } else {
        check_extent("source", s.src_off, shape, ss, elem, src_nbytes_[s.src]);
      }
      StridedRegion& r = s.region;
      r.nd = static_cast<int>(shape.size());
      r.elem = elem;
      for (int i = 0; i < r.nd; ++i) {
        r.shape[i] = shape[i]; r.src_stride[i] = ss[i]; r.dst_stride[i] = ds[i];
      }
      if (normalize_region(r)) steps_.push_back(s);
    }
  }

  size_t n_src() const { return src_nbytes_.size(); }
  size_t n_dst() const { return dst_nbytes_.size(); }

  // The copies over the buffers of slots srcs[0..n_src), dsts[0..n_dst), each checked first
  // (bound, as large as planned, destinations writeable): nothing is written on a failure.
  void exec(const Slot* const* srcs, const Slot* const* dsts, int threads) const {
    std::vector<const char*> sp(src_nbytes_.size());
    std::vector<char*> dp(dst_nbytes_.size());
    for (size_t i = 0; i < sp.size(); ++i)
      sp[i] = in<char>(srcs[i], src_nbytes_[i], src_names_[i].c_str());
    for (size_t i = 0; i < dp.size(); ++i)
      dp[i] = out<char>(dsts[i], dst_nbytes_[i], dst_names_[i].c_str());
    for (const CopyStep& s : steps_) {
      if (s.fill)
        strided_fill(s.region, &s.value, dp[s.dst] + s.dst_off, threads);
      else
        strided_copy(s.region, sp[s.src] + s.src_off, dp[s.dst] + s.dst_off, threads);
    }
  }

  size_t size() const { return steps_.size(); }

 private:
  std::vector<int64_t> src_nbytes_, dst_nbytes_;
  std::vector<std::string> src_names_, dst_names_;
  std::vector<CopyStep> steps_;
};

// plan.bind([source slots], [destination slots], threads): the step running exec() on them.
py::capsule bind_copy(py::object self, py::list srcs, py::list dsts, int threads) {
  const CopyPlan* plan = self.cast<const CopyPlan*>();
  if (srcs.size() != plan->n_src() || dsts.size() != plan->n_dst())
    throw py::value_error("copy plan: bind() takes " + std::to_string(plan->n_src()) +
                          " source and " + std::to_string(plan->n_dst()) +
                          " destination slots");
  std::vector<const Slot*> s, d;
  std::vector<py::object> keep{self};
  for (auto h : srcs) {
    s.push_back(slot_of(h));
    keep.push_back(py::reinterpret_borrow<py::object>(h));
  }
  for (auto h : dsts) {
    d.push_back(slot_of(h));
    keep.push_back(py::reinterpret_borrow<py::object>(h));
  }
  return make_step([plan, s, d, threads] { plan->exec(s.data(), d.data(), threads); },
                   std::move(keep));
}

void check_index_bytes(int ib, bool int16_ok, const char* what) {
  if (ib != 4 && ib != 8 && !(int16_ok && ib == 2))
    throw py::value_error(std::string(what) + ": indices must be " +
                          (int16_ok ? "int16, " : "") + "int32 or int64");
}

// GATHER / EMBEDDING_LOOKUP: out[b, o, j, :] = params[b, o, idx[b, j], :] (gather.h); an
// index outside [0, limit) fails the step before anything is written.
struct GatherPlan {
  GatherParams p;
  int ib;
  GatherPlan(int64_t batch, int64_t outer, int64_t limit, int64_t n_idx, int64_t row_bytes,
             int index_bytes)
      : p{batch, outer, limit, n_idx, row_bytes}, ib(index_bytes) {
    if (batch < 0 || outer < 0 || limit < 0 || n_idx < 0 || row_bytes < 0)
      throw py::value_error("gather: negative size");
    check_index_bytes(ib, true, "gather");
  }
  void exec(const Slot* params, const Slot* idx, const Slot* o, int threads) const {
    const char* s = in<char>(params, p.batch * p.outer * p.limit * p.row_bytes, "gather params");
    const char* i = in<char>(idx, p.batch * p.n_idx * ib, "gather indices");
    char* d = out<char>(o, p.batch * p.outer * p.n_idx * p.row_bytes, "gather output");
    const int64_t bad = gather_rows(p, s, i, ib, d, threads);
    if (bad >= 0)
      throw StepError("gather index " + std::to_string(index_at(i, ib, bad)) +
                      " out of range [0, " + std::to_string(p.limit) + ")");
  }
};

// ONE_HOT: out[o, d, i] = idx[o, i] == d ? on : off, elements of `elem` bytes (gather.h).
struct OneHotPlan {
  OneHotParams p;
  int ib;
  OneHotPlan(int64_t outer, int64_t depth, int64_t inner, int elem, int index_bytes)
      : p{outer, depth, inner, elem}, ib(index_bytes) {
    if (outer < 0 || depth < 0 || inner < 0 || elem < 1)
      throw py::value_error("one_hot: non-negative sizes and a positive element size");
    check_index_bytes(ib, false, "one_hot");
  }
  void exec(const Slot* idx, const Slot* on, const Slot* off, const Slot* o, int threads) const {
    const char* i = in<char>(idx, p.outer * p.inner * ib, "one_hot indices");
    const char* a = in<char>(on, p.elem, "one_hot on_value");
    const char* b = in<char>(off, p.elem, "one_hot off_value");
    char* d = out<char>(o, p.outer * p.depth * p.inner * p.elem, "one_hot output");
    one_hot(p, i, ib, a, b, d, threads);
  }
};

}  // namespace

PYBIND11_MODULE(_movement, m) {
  m.doc() = "acl_neon data movement: strided copy plans, gather, one-hot (bound to slots)";
  add_isa_functions(m);
  py::class_<CopyPlan>(m, "CopyPlan")
      .def(py::init<std::vector<int64_t>, std::vector<int64_t>, py::list>(),
           py::arg("src_nbytes"), py::arg("dst_nbytes"), py::arg("steps"),
           "steps: (src, dst, src_offset, dst_offset, shape, src_strides, dst_strides, "
           "elem, fill_value_bytes); src -1 is a fill; offsets and strides in bytes")
      .def("bind", &bind_copy, py::arg("srcs"), py::arg("dsts"), py::arg("threads") = 1,
           "The native step running the plan over these source and destination slots")
      .def("__len__", &CopyPlan::size);
  py::class_<GatherPlan>(m, "GatherPlan")
      .def(py::init<int64_t, int64_t, int64_t, int64_t, int64_t, int>(), py::arg("batch"),
           py::arg("outer"), py::arg("limit"), py::arg("n_idx"), py::arg("row_bytes"),
           py::arg("index_bytes"))
      .def("bind", &bind_plan<GatherPlan, 3>, "bind(params, indices, out, threads)");
  py::class_<OneHotPlan>(m, "OneHotPlan")
      .def(py::init<int64_t, int64_t, int64_t, int, int>(), py::arg("outer"), py::arg("depth"),
           py::arg("inner"), py::arg("elem"), py::arg("index_bytes"))
      .def("bind", &bind_plan<OneHotPlan, 4>, "bind(indices, on_value, off_value, out, threads)");
  m.def("error_step", [](const std::string& message) {
    return make_step([message] { throw StepError(message); }, {});
  }, py::arg("message"),
     "A step that fails with `message` (a kernel whose prepare() found shapes that do not fit)");
}
