// Module _lookup: HASHTABLE_LOOKUP (binary search and row copies, the GIL released).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>

#include "bind_util.h"
#include "lookup.h"

namespace py = pybind11;
using namespace onert_neon;

namespace {

void lookup(py::array lookups, py::array keys, py::array values, py::array out, py::array hits,
            int threads) {
  LookupArgs a{};
  if (values.ndim() < 1 || keys.ndim() != 1 || lookups.ndim() != 1)
    throw py::value_error("lookup and keys must be 1-D, values at least 1-D");
  a.n_lookup = lookups.shape(0);
  a.n_keys = keys.shape(0);
  if (values.shape(0) != a.n_keys) throw py::value_error("values must have a row per key");
  if (!(values.flags() & py::array::c_style) || !(out.flags() & py::array::c_style))
    throw py::value_error("values and output must be C-contiguous");
  if (!out.writeable()) throw py::value_error("output is read-only");
  if (!out.dtype().is(values.dtype())) throw py::value_error("output dtype differs from values");
  a.row_bytes = a.n_keys ? values.nbytes() / a.n_keys : 0;
  if (out.nbytes() != a.n_lookup * a.row_bytes)
    throw py::value_error("output must hold one value row per lookup");
  a.lookup = in_buffer<int32_t>(lookups, "lookup", a.n_lookup);
  a.keys = in_buffer<int32_t>(keys, "keys", a.n_keys);
  a.hits = out_buffer<uint8_t>(hits, "hits", a.n_lookup);
  a.values = static_cast<const uint8_t*>(values.data());
  a.out = static_cast<uint8_t*>(out.mutable_data());
  if (a.n_keys == 0 && a.n_lookup > 0 && out.nbytes() != 0)
    throw py::value_error("no keys: rows have unknown size");
  py::gil_scoped_release release;
  hashtable_lookup(a, threads);
}

}  // namespace

PYBIND11_MODULE(_lookup, m) {
  m.doc() = "acl_neon lookup kernels: HASHTABLE_LOOKUP";
  add_isa_functions(m);
  m.def("hashtable_lookup", &lookup, py::arg("lookups"), py::arg("keys"), py::arg("values"),
        py::arg("out"), py::arg("hits"), py::arg("threads") = 1);
}
