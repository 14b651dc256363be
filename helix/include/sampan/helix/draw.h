// sampan helix: 2D depictions of molecules as SVG, through RDKit's C++ drawing (MolDraw2DSVG),
// so that notebooks show molecules without a second (Python) RDKit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sampan::helix {

/// An SVG document (a string) depicting the molecule `smiles` in width x height pixels, with
/// RDKit's 2D coordinates, optional highlighted atoms (indices into the SMILES' atom order) and a
/// legend under it. The SVG carries RDKit's molecule metadata (every atom and bond, with its
/// SMILES). ValueError naming the SMILES when RDKit cannot read it or an atom index is out of range.
std::string draw_svg(const std::string& smiles, int width = 300, int height = 300,
                     const std::vector<int>& highlight_atoms = {}, const std::string& legend = "");

/// One SVG with the molecules on a grid of `per_row` columns, each panel panel_width x
/// panel_height, with optional legends (one per molecule, or none).
std::string draw_grid_svg(const std::vector<std::string>& smiles, int per_row = 4, int panel_width = 200,
                          int panel_height = 200, const std::vector<std::string>& legends = {});

}  // namespace sampan::helix
