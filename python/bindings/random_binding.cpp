// sampan Python bindings: random generators (sampan/generator.h). Random ops are ordinary ops
// taking (seed, offset) attributes; sampan/_random.py reserves a draw from a Generator and calls
// them, so only the Generator itself is bound here.
#include "bindings.h"
#include "sampan/generator.h"

namespace sampan::python {

namespace {

// The ops take seed and offset as int64 attributes holding the uint64 bits.
int64_t as_attribute(uint64_t v) { return static_cast<int64_t>(v); }

void init_random(py::module_& m) {
  py::class_<Generator>(m, "Generator",
                        "A stream of random draws: a seed and the number of draws taken (offset). "
                        "Every random op call takes one draw, so results do not depend on threads.")
      .def(py::init<uint64_t>(), py::arg("seed") = Generator::kDefaultSeed)
      .def("manual_seed", [](py::object self, uint64_t seed) {
        self.cast<Generator&>().manual_seed(seed);
        return self;
      }, py::arg("seed"), "Restarts the stream at `seed` (offset 0); returns the generator.")
      .def("initial_seed", &Generator::seed)
      .def_property_readonly("seed", &Generator::seed)
      .def_property_readonly("offset", &Generator::offset, "Draws taken so far.")
      .def("get_state", [](const Generator& g) {
        auto s = g.state();
        return py::make_tuple(s.seed, s.offset);
      }, "(seed, offset): everything needed to resume the stream.")
      .def("set_state", [](Generator& g, std::pair<uint64_t, uint64_t> s) {
        g.set_state(Generator::State{s.first, s.second});
      }, py::arg("state"))
      .def("_draw", [](Generator& g) {
        auto s = g.reserve();
        return py::make_tuple(as_attribute(s.seed), as_attribute(s.offset));
      }, "Reserves one draw: (seed, offset) as the random ops' attributes.")
      .def("__repr__", [](const Generator& g) {
        auto s = g.state();
        return "<sampan.Generator seed=" + std::to_string(s.seed) + " offset=" + std::to_string(s.offset) + ">";
      });

  m.def("default_generator", &default_generator, py::return_value_policy::reference,
        "The process-wide generator random functions use when none is given.");
  m.def("manual_seed", &manual_seed, py::arg("seed"), "Reseeds the default generator (offset 0).");
}

}  // namespace

SAMPAN_PYTHON_BINDING(random, init_random);

}  // namespace sampan::python
