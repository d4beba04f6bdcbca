// Module _recurrent: the recurrent time loops (LSTM, RNN: plans holding the transposed
// recurrent weights, built once in prepare), bound to slots: plan.bind(xw, state..., out,
// threads) is the native step of the loop (native_step.h). The input projection of the
// recurrent ops runs before it, on the gemm group's FcPlan: core/exec/_native's `chain` makes
// one step of the two.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "bind_util.h"
#include "native_bind.h"
#include "recurrent.h"

namespace py = pybind11;
using namespace onert_neon;
using namespace onert_rt;

namespace {

// A copy of `obj` (None -> empty) holding exactly `count` floats.
std::vector<float> floats_of(const py::object& obj, const char* what, int64_t count) {
  if (obj.is_none()) return {};
  if (!py::isinstance<py::array>(obj)) throw py::value_error(std::string(what) + ": array expected");
  py::array arr = py::reinterpret_borrow<py::array>(obj);
  if (arr.size() != count)
    throw py::value_error(std::string(what) + ": " + std::to_string(arr.size()) +
                          " values, needs " + std::to_string(count));
  const float* p = in_buffer<float>(arr, what, count);
  return std::vector<float>(p, p + count);
}

const float* ptr(const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); }

void check_act(int act) {
  if (act < kActNone || act > kActSigmoid) throw py::value_error("unknown activation code");
}

// A state slot of `count` floats: read into the plan's copy before the loop, written back
// after it only when the state is a variable (`write`); else it may be read-only.
struct State {
  const float* from;
  float* to;
};
State state_of(const Slot* s, int64_t count, bool write, const char* what) {
  return {in<float>(s, count, what), write ? out<float>(s, count, what) : nullptr};
}

struct LstmPlan {
  LstmSeq s{};
  bool write_h, write_c;
  std::vector<float> wh, pi, pf, po, proj, pbias;
  mutable std::vector<float> h, c;       // the states during a run
  LstmPlan(std::vector<int64_t> dims, bool cifg, bool time_major, py::array wh_t,
           py::object peep_i, py::object peep_f, py::object peep_o, py::object proj_t,
           py::object proj_bias, float cell_clip, float proj_clip, int act, bool write_h_,
           bool write_c_)
      : write_h(write_h_), write_c(write_c_) {
    if (dims.size() != 4) throw py::value_error("dims: (steps, batch, n_cell, n_output)");
    for (int64_t d : dims)
      if (d < 1) throw py::value_error("dims must be positive");
    check_act(act);
    s.steps = dims[0]; s.batch = dims[1]; s.n_cell = dims[2]; s.n_output = dims[3];
    s.cifg = cifg; s.time_major = time_major;
    const int64_t nz = (cifg ? 3 : 4) * s.n_cell;
    wh = floats_of(wh_t, "recurrent weights", s.n_output * nz);
    if (cifg && !peep_i.is_none()) throw py::value_error("CIFG has no input peephole");
    pi = floats_of(peep_i, "input peephole", s.n_cell);
    pf = floats_of(peep_f, "forget peephole", s.n_cell);
    po = floats_of(peep_o, "output peephole", s.n_cell);
    proj = floats_of(proj_t, "projection", s.n_cell * s.n_output);
    pbias = floats_of(proj_bias, "projection bias", s.n_output);
    if (proj.empty() && (s.n_output != s.n_cell || !pbias.empty()))
      throw py::value_error("without projection n_output must equal n_cell, no bias");
    s.wh_t = wh.data(); s.peep_i = ptr(pi); s.peep_f = ptr(pf); s.peep_o = ptr(po);
    s.proj_t = ptr(proj); s.proj_bias = ptr(pbias);
    s.cell_clip = cell_clip; s.proj_clip = proj_clip; s.act = act;
    h.resize(static_cast<size_t>(s.batch * s.n_output));
    c.resize(static_cast<size_t>(s.batch * s.n_cell));
  }
  void exec(const Slot* xw, const Slot* h_state, const Slot* c_state, const Slot* o,
            int threads) const {
    const int64_t rows = s.steps * s.batch, nz = (s.cifg ? 3 : 4) * s.n_cell;
    LstmSeq a = s;
    a.xw = in<float>(xw, rows * nz, "xw");
    a.out = out<float>(o, rows * s.n_output, "output");
    const State hs = state_of(h_state, s.batch * s.n_output, write_h, "output state");
    const State cs = state_of(c_state, s.batch * s.n_cell, write_c, "cell state");
    std::memcpy(h.data(), hs.from, h.size() * sizeof(float));
    std::memcpy(c.data(), cs.from, c.size() * sizeof(float));
    a.h = h.data();
    a.c = c.data();
    lstm_sequence_f32(a, threads);
    if (hs.to) std::memcpy(hs.to, h.data(), h.size() * sizeof(float));
    if (cs.to) std::memcpy(cs.to, c.data(), c.size() * sizeof(float));
  }
};

struct RnnPlan {
  RnnSeq s{};
  bool write_state;
  std::vector<float> wh;
  mutable std::vector<float> h;          // the state during a run
  RnnPlan(std::vector<int64_t> dims, bool time_major, py::array wh_t, int act, bool write)
      : write_state(write) {
    if (dims.size() != 3) throw py::value_error("dims: (steps, batch, units)");
    for (int64_t d : dims)
      if (d < 1) throw py::value_error("dims must be positive");
    check_act(act);
    s.steps = dims[0]; s.batch = dims[1]; s.units = dims[2];
    s.time_major = time_major; s.act = act;
    wh = floats_of(wh_t, "recurrent weights", s.units * s.units);
    s.wh_t = wh.data();
    h.resize(static_cast<size_t>(s.batch * s.units));
  }
  void exec(const Slot* xw, const Slot* h_state, const Slot* o, int threads) const {
    const int64_t rows = s.steps * s.batch;
    RnnSeq a = s;
    a.xw = in<float>(xw, rows * s.units, "xw");
    a.out = out<float>(o, rows * s.units, "output");
    const State hs = state_of(h_state, s.batch * s.units, write_state, "hidden state");
    std::memcpy(h.data(), hs.from, h.size() * sizeof(float));
    a.h = h.data();
    rnn_sequence_f32(a, threads);
    if (hs.to) std::memcpy(hs.to, h.data(), h.size() * sizeof(float));
  }
};


}  // namespace

PYBIND11_MODULE(_recurrent, m) {
  m.doc() = "acl_neon recurrent kernels: LSTM / RNN time loops";
  add_isa_functions(m);
  m.attr("ACT_NONE") = static_cast<int>(kActNone);
  m.attr("ACT_RELU") = static_cast<int>(kActRelu);
  m.attr("ACT_RELU6") = static_cast<int>(kActRelu6);
  m.attr("ACT_RELU_N1_TO_1") = static_cast<int>(kActReluN1To1);
  m.attr("ACT_TANH") = static_cast<int>(kActTanh);
  m.attr("ACT_SIGMOID") = static_cast<int>(kActSigmoid);
  py::class_<LstmPlan>(m, "LstmPlan")
      .def(py::init<std::vector<int64_t>, bool, bool, py::array, py::object, py::object,
                    py::object, py::object, py::object, float, float, int, bool, bool>(),
           py::arg("dims"), py::arg("cifg"), py::arg("time_major"), py::arg("wh_t"),
           py::arg("peep_i"), py::arg("peep_f"), py::arg("peep_o"), py::arg("proj_t"),
           py::arg("proj_bias"), py::arg("cell_clip"), py::arg("proj_clip"), py::arg("act"),
           py::arg("write_h"), py::arg("write_c"))
      .def("bind", &bind_plan<LstmPlan, 4>, "bind(xw, h, c, out, threads)");
  py::class_<RnnPlan>(m, "RnnPlan")
      .def(py::init<std::vector<int64_t>, bool, py::array, int, bool>(), py::arg("dims"),
           py::arg("time_major"), py::arg("wh_t"), py::arg("act"), py::arg("write_state"))
      .def("bind", &bind_plan<RnnPlan, 3>, "bind(xw, h, out, threads)");
}
