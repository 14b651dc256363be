// Thin bindings of helix's SVG drawing.
#include <string>
#include <vector>

#include "bindings.h"
#include "helix/helix_binding.h"
#include "sampan/helix/draw.h"

namespace sampan::python::helix {

namespace {

void init_helix_draw(py::module_& m) {
  py::module_ h = helix_module(m);
  h.def("draw_svg", &sampan::helix::draw_svg, py::arg("smiles"), py::arg("width") = 300, py::arg("height") = 300,
        py::arg("highlight_atoms") = std::vector<int>{}, py::arg("legend") = "");
  h.def("draw_grid_svg", &sampan::helix::draw_grid_svg, py::arg("smiles"), py::arg("per_row") = 4,
        py::arg("panel_width") = 200, py::arg("panel_height") = 200, py::arg("legends") = std::vector<std::string>{});
}

}  // namespace

SAMPAN_PYTHON_BINDING(helix_draw, init_helix_draw);

}  // namespace sampan::python::helix
