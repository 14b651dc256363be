// sampan._C.profiler: start/stop of the op profiler (sampan/profiler.h). The Python API with its
// table is sampan/profiler.py.
#include "bindings.h"
#include "sampan/error.h"
#include "sampan/profiler.h"

namespace sampan::python {

namespace {
void init_profiler(py::module_& m) {
  auto p = m.def_submodule("profiler", "The op profiler: every op call timed and summed per op.");
  p.def("start", [](bool record_shapes, const std::string& clock) {
    profiler::Options o;
    o.record_shapes = record_shapes;
    if (clock == "wall") o.clock = profiler::Clock::Wall;
    else if (clock == "cpu") o.clock = profiler::Clock::ThreadCpu;
    else SAMPAN_THROW(ValueError, "profiler clock: expected 'wall' or 'cpu', got '", clock, "'");
    profiler::start(o);
  }, py::arg("record_shapes") = false, py::arg("clock") = "wall",
     "Starts collecting; RuntimeError if the profiler already runs.");
  p.def("stop", [] {
    py::list rows;
    for (auto& r : profiler::stop())
      rows.append(py::make_tuple(r.op, r.backward, r.shapes, r.calls, r.total_ns, r.self_ns));
    return rows;
  }, "Stops; returns (op, backward, shapes, calls, total_ns, self_ns) rows, largest self time first.");
  p.def("is_running", &profiler::is_running);
}
}  // namespace

SAMPAN_PYTHON_BINDING(profiler, init_profiler);

}  // namespace sampan::python
