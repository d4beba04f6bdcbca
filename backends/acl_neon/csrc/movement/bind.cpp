// Module _movement: strided copy plans (most data-movement ops), gather, one-hot.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "bind_util.h"
#include "gather.h"
#include "strided_copy.h"

namespace py = pybind11;
using namespace onert_neon;

namespace {

struct Step {
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
    for (auto item : steps) {
      auto t = item.cast<py::tuple>();
      if (t.size() != 9) throw py::value_error("copy plan: a step has 9 fields");
      Step s;
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

  void run(const std::vector<py::array>& srcs, std::vector<py::array>& dsts, int threads) {
    if (srcs.size() != src_nbytes_.size() || dsts.size() != dst_nbytes_.size())
      throw py::value_error("copy plan: wrong number of buffers");
    std::vector<const char*> sp(srcs.size());
    std::vector<char*> dp(dsts.size());
    for (size_t i = 0; i < srcs.size(); ++i) {
      if (!(srcs[i].flags() & py::array::c_style) || srcs[i].nbytes() != src_nbytes_[i])
        throw py::value_error("copy plan: source " + std::to_string(i) +
                              " is not the C-contiguous buffer it was planned for");
      sp[i] = static_cast<const char*>(srcs[i].data());
    }
    for (size_t i = 0; i < dsts.size(); ++i) {
      if (!(dsts[i].flags() & py::array::c_style) || dsts[i].nbytes() != dst_nbytes_[i] ||
          !dsts[i].writeable())
        throw py::value_error("copy plan: destination " + std::to_string(i) +
                              " is not the writeable C-contiguous buffer it was planned for");
      dp[i] = static_cast<char*>(dsts[i].mutable_data());
    }
    py::gil_scoped_release release;
    for (const Step& s : steps_) {
      if (s.fill)
        strided_fill(s.region, &s.value, dp[s.dst] + s.dst_off, threads);
      else
        strided_copy(s.region, sp[s.src] + s.src_off, dp[s.dst] + s.dst_off, threads);
    }
  }

  size_t size() const { return steps_.size(); }

 private:
  std::vector<int64_t> src_nbytes_, dst_nbytes_;
  std::vector<Step> steps_;
};

int index_bytes(const py::array& idx) {
  const char kind = idx.dtype().kind();
  const int n = static_cast<int>(idx.itemsize());
  if ((kind != 'i') || (n != 2 && n != 4 && n != 8) || !(idx.flags() & py::array::c_style))
    throw py::value_error("indices must be a C-contiguous int16/int32/int64 array");
  return n;
}

void need_bytes(const py::array& a, const char* what, int64_t n, bool write) {
  if (!(a.flags() & py::array::c_style) || a.nbytes() < n || (write && !a.writeable()))
    throw py::value_error(std::string(what) + ": needs a " + (write ? "writeable " : "") +
                          "C-contiguous buffer of " + std::to_string(n) + " bytes");
}

}  // namespace

PYBIND11_MODULE(_movement, m) {
  m.doc() = "acl_neon data movement: strided copy plans, gather, one-hot";
  add_isa_functions(m);
  py::class_<CopyPlan>(m, "CopyPlan")
      .def(py::init<std::vector<int64_t>, std::vector<int64_t>, py::list>(),
           py::arg("src_nbytes"), py::arg("dst_nbytes"), py::arg("steps"),
           "steps: (src, dst, src_offset, dst_offset, shape, src_strides, dst_strides, "
           "elem, fill_value_bytes); src -1 is a fill; offsets and strides in bytes")
      .def("run", &CopyPlan::run, py::arg("srcs"), py::arg("dsts"), py::arg("threads") = 1)
      .def("__len__", &CopyPlan::size);
  m.def("gather", [](py::array params, py::array idx, py::array out, int64_t batch,
                     int64_t outer, int64_t limit, int64_t n_idx, int64_t row_bytes,
                     int threads) {
    if (batch < 0 || outer < 0 || limit < 0 || n_idx < 0 || row_bytes < 0)
      throw py::value_error("gather: negative size");
    const int ib = index_bytes(idx);
    need_bytes(params, "gather params", batch * outer * limit * row_bytes, false);
    need_bytes(idx, "gather indices", batch * n_idx * ib, false);
    need_bytes(out, "gather output", batch * outer * n_idx * row_bytes, true);
    GatherParams p{batch, outer, limit, n_idx, row_bytes};
    const void* s = params.data();
    const void* i = idx.data();
    void* d = out.mutable_data();
    int64_t bad;
    {
      py::gil_scoped_release release;
      bad = gather_rows(p, s, i, ib, d, threads);
    }
    if (bad >= 0)
      throw py::value_error("gather index " + std::to_string(index_at(i, ib, bad)) +
                            " out of range [0, " + std::to_string(limit) + ")");
  });
  m.def("one_hot", [](py::array idx, py::array on, py::array off, py::array out,
                      int64_t outer, int64_t depth, int64_t inner, int threads) {
    const int ib = index_bytes(idx);
    if (ib == 2 || outer < 0 || depth < 0 || inner < 0)
      throw py::value_error("one_hot: int32/int64 indices and non-negative sizes");
    const int64_t es = out.itemsize();
    need_bytes(idx, "one_hot indices", outer * inner * ib, false);
    need_bytes(on, "one_hot on_value", es, false);
    need_bytes(off, "one_hot off_value", es, false);
    need_bytes(out, "one_hot output", outer * depth * inner * es, true);
    OneHotParams p{outer, depth, inner, static_cast<int>(es)};
    const void* i = idx.data();
    const void* a = on.data();
    const void* b = off.data();
    void* d = out.mutable_data();
    py::gil_scoped_release release;
    one_hot(p, i, ib, a, b, d, threads);
  });
}
