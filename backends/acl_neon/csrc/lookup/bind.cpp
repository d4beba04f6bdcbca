// Module _lookup: HASHTABLE_LOOKUP (binary search and row copies), a plan built in the
// kernel's prepare() and bound to the tensors' slots: plan.bind(lookups, keys, values, out,
// hits, threads) is its native step (native_step.h).
#include <pybind11/pybind11.h>

#include <cstdint>

#include "bind_util.h"
#include "lookup.h"
#include "native_bind.h"

namespace py = pybind11;
using namespace onert_neon;
using namespace onert_rt;

namespace {

// n_lookup int32 lookups among n_keys int32 keys; values and output rows of row_bytes bytes.
struct LookupPlan {
  int64_t n_lookup, n_keys, row_bytes;
  LookupPlan(int64_t n_lookup_, int64_t n_keys_, int64_t row_bytes_)
      : n_lookup(n_lookup_), n_keys(n_keys_), row_bytes(row_bytes_) {
    if (n_lookup < 0 || n_keys < 0 || row_bytes < 0)
      throw py::value_error("hashtable_lookup: negative size");
  }
  void exec(const Slot* lookups, const Slot* keys, const Slot* values, const Slot* o,
            const Slot* hits, int threads) const {
    LookupArgs a{};
    a.n_lookup = n_lookup;
    a.n_keys = n_keys;
    a.row_bytes = row_bytes;
    a.lookup = in<int32_t>(lookups, n_lookup, "lookup");
    a.keys = in<int32_t>(keys, n_keys, "keys");
    a.values = in<uint8_t>(values, n_keys * row_bytes, "values");
    a.out = out<uint8_t>(o, n_lookup * row_bytes, "output");
    a.hits = out<uint8_t>(hits, n_lookup, "hits");
    hashtable_lookup(a, threads);
  }
};

}  // namespace

PYBIND11_MODULE(_lookup, m) {
  m.doc() = "acl_neon lookup kernels: HASHTABLE_LOOKUP";
  add_isa_functions(m);
  py::class_<LookupPlan>(m, "LookupPlan")
      .def(py::init<int64_t, int64_t, int64_t>(), py::arg("n_lookup"), py::arg("n_keys"),
           py::arg("row_bytes"))
      .def("bind", &bind_plan<LookupPlan, 5>, "bind(lookups, keys, values, out, hits, threads)");
}
