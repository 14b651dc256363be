// SVG depictions through RDKit's MolDraw2DSVG (see sampan/helix/draw.h).
#include <GraphMol/GraphMol.h>
#include <GraphMol/MolDraw2D/MolDraw2DSVG.h>
#include <GraphMol/MolDraw2D/MolDraw2DUtils.h>

#include <memory>

#include "featurize/molecule_graph.h"
#include "sampan/error.h"
#include "sampan/helix/draw.h"

namespace sampan::helix {

namespace {

/// The molecule ready to draw (kekulized, wedged bonds, 2D coordinates).
std::unique_ptr<RDKit::RWMol> molecule_for_drawing(const std::string& smiles, const char* what) {
  std::string reason;
  std::unique_ptr<RDKit::ROMol> mol;
  {
    QuietRdkitLogs quiet;
    mol = parse_smiles(smiles, reason);
  }
  SAMPAN_CHECK(mol != nullptr, ValueError, what, ": cannot draw '", smiles, "': ", reason);
  auto rw = std::make_unique<RDKit::RWMol>(*mol);
  RDKit::MolDraw2DUtils::prepareMolForDrawing(*rw);
  return rw;
}

void check_size(int width, int height, const char* what) {
  SAMPAN_CHECK(width > 0 && height > 0 && width <= 10000 && height <= 10000, ValueError, what,
               ": width and height must be in 1..10000 pixels, got ", width, " x ", height);
}

}  // namespace

std::string draw_svg(const std::string& smiles, int width, int height, const std::vector<int>& highlight_atoms,
                     const std::string& legend) {
  check_size(width, height, "helix.draw_svg");
  std::unique_ptr<RDKit::RWMol> mol = molecule_for_drawing(smiles, "helix.draw_svg");
  for (int a : highlight_atoms) {
    SAMPAN_CHECK(a >= 0 && a < static_cast<int>(mol->getNumAtoms()), ValueError, "helix.draw_svg: highlight atom ",
                 a, " is out of range for '", smiles, "' (", mol->getNumAtoms(), " atoms)");
  }
  RDKit::MolDraw2DSVG drawer(width, height);
  drawer.drawMolecule(*mol, legend, highlight_atoms.empty() ? nullptr : &highlight_atoms);
  drawer.addMoleculeMetadata(*mol);
  drawer.finishDrawing();
  return drawer.getDrawingText();
}

std::string draw_grid_svg(const std::vector<std::string>& smiles, int per_row, int panel_width, int panel_height,
                          const std::vector<std::string>& legends) {
  SAMPAN_CHECK(!smiles.empty(), ValueError, "helix.draw_grid_svg: no molecules to draw");
  SAMPAN_CHECK(per_row > 0, ValueError, "helix.draw_grid_svg: per_row must be > 0, got ", per_row);
  check_size(panel_width, panel_height, "helix.draw_grid_svg");
  SAMPAN_CHECK(legends.empty() || legends.size() == smiles.size(), ValueError, "helix.draw_grid_svg: ",
               legends.size(), " legends for ", smiles.size(), " molecules");
  std::vector<std::unique_ptr<RDKit::RWMol>> owned;
  std::vector<RDKit::ROMol*> mols;
  for (const std::string& s : smiles) {
    owned.push_back(molecule_for_drawing(s, "helix.draw_grid_svg"));
    mols.push_back(owned.back().get());
  }
  const int n = static_cast<int>(smiles.size());
  const int cols = std::min(per_row, n), rows = (n + per_row - 1) / per_row;
  check_size(cols * panel_width, rows * panel_height, "helix.draw_grid_svg (whole grid)");
  RDKit::MolDraw2DSVG drawer(cols * panel_width, rows * panel_height, panel_width, panel_height);
  drawer.drawMolecules(mols, legends.empty() ? nullptr : &legends);
  drawer.finishDrawing();
  return drawer.getDrawingText();
}

}  // namespace sampan::helix
