// sampan._C.amp: autocast scopes and their op lists (sampan/amp.h). The Python API (context
// manager, GradScaler) is sampan/amp/.
#include <memory>

#include "bindings.h"
#include "sampan/amp.h"

namespace sampan::python {

namespace {

// A scope Python opens in __enter__ and closes in __exit__ (close() ends the C++ scope).
struct AutocastScope {
  std::unique_ptr<amp::Autocast> scope;
};

AmpCast policy_named(const std::string& name) {
  if (name == "low_precision") return AmpCast::LowPrecision;
  if (name == "float32") return AmpCast::Float32;
  if (name == "keep") return AmpCast::Keep;
  SAMPAN_THROW(ValueError, "amp policy: expected 'low_precision', 'float32' or 'keep', got '", name, "'");
}

void init_amp(py::module_& m) {
  auto a = m.def_submodule("amp", "Autocast scopes (sampan/amp.h).");
  py::class_<AutocastScope>(a, "Scope", "An open autocast scope; close() ends it.")
      .def(py::init([](const std::string& device, py::handle dtype, bool enabled,
                       const std::vector<std::string>& low_precision_ops, const std::vector<std::string>& float32_ops) {
             const DeviceType d = Device::parse(device).type;
             auto s = std::make_unique<AutocastScope>();
             s->scope = std::make_unique<amp::Autocast>(d, dtype.is_none() ? amp::default_dtype(d) : to_dtype(dtype),
                                                        enabled, low_precision_ops, float32_ops);
             return s;
           }),
           py::arg("device"), py::arg("dtype"), py::arg("enabled"), py::arg("low_precision_ops"),
           py::arg("float32_ops"))
      .def("close", [](AutocastScope& s) {
        if (s.scope && !s.scope->innermost())
          SAMPAN_THROW(RuntimeError, "autocast: scopes must close in the reverse order of opening, on the thread that "
                       "opened them (a scope opened inside this one is still open, or this is another thread)");
        s.scope.reset();
      });
  a.def("is_enabled", [](const std::string& device) { return amp::is_enabled(Device::parse(device).type); },
        py::arg("device"));
  a.def("dtype", [](const std::string& device) { return dtype_object(amp::dtype_of(Device::parse(device).type)); },
        py::arg("device"));
  a.def("ops_with_policy", [](const std::string& policy) { return amp::ops_with_policy(policy_named(policy)); },
        py::arg("policy"));
}

}  // namespace

SAMPAN_PYTHON_BINDING(amp, init_amp);

}  // namespace sampan::python
