// Thin bindings of helix's splits: index arrays as NumPy.
#include <string>
#include <vector>

#include "bindings.h"
#include "helix/helix_binding.h"
#include "sampan/helix/split.h"

namespace sampan::python::helix {

using namespace sampan::helix;

namespace {

py::tuple split_to_python(Split&& s) {
  const py::ssize_t a = s.train.size(), b = s.valid.size(), c = s.test.size();
  return py::make_tuple(to_numpy(std::move(s.train), {a}), to_numpy(std::move(s.valid), {b}),
                        to_numpy(std::move(s.test), {c}));
}

void init_helix_split(py::module_& m) {
  py::module_ h = helix_module(m);
  h.def("murcko_scaffolds", [](const std::vector<std::string>& smiles, bool include_chirality, int num_threads) {
    py::gil_scoped_release release;
    return murcko_scaffolds(smiles, include_chirality, num_threads);
  }, py::arg("smiles"), py::arg("include_chirality") = true, py::arg("num_threads") = 0);
  h.def("scaffold_split", [](const std::vector<std::string>& scaffolds, double a, double b, double c) {
    return split_to_python(scaffold_split(scaffolds, a, b, c));
  }, py::arg("scaffolds"), py::arg("frac_train") = 0.8, py::arg("frac_valid") = 0.1, py::arg("frac_test") = 0.1);
  h.def("random_scaffold_split", [](const std::vector<std::string>& scaffolds, uint64_t seed, double a, double b,
                                    double c) {
    return split_to_python(random_scaffold_split(scaffolds, seed, a, b, c));
  }, py::arg("scaffolds"), py::arg("seed"), py::arg("frac_train") = 0.8, py::arg("frac_valid") = 0.1,
     py::arg("frac_test") = 0.1);
  h.def("random_split", [](int64_t n, uint64_t seed, double a, double b, double c) {
    return split_to_python(random_split(n, seed, a, b, c));
  }, py::arg("n"), py::arg("seed"), py::arg("frac_train") = 0.8, py::arg("frac_valid") = 0.1,
     py::arg("frac_test") = 0.1);
}

}  // namespace

SAMPAN_PYTHON_BINDING(helix_split, init_helix_split);

}  // namespace sampan::python::helix
