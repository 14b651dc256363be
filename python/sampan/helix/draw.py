"""Molecule depictions as SVG strings through RDKit's C++ drawing (MolDraw2DSVG); no Python RDKit
needed. In a notebook: ``IPython.display.SVG(sp.helix.draw_svg("c1ccccc1O"))``."""
from ._native import native

__all__ = ["draw_svg", "draw_grid_svg"]


def draw_svg(smiles, width=300, height=300, highlight_atoms=(), legend=""):
    """An SVG document (str) of one molecule; highlight_atoms are atom indices in SMILES order.
    The SVG carries RDKit's molecule metadata (<rdkit:atom atom-smiles=...> per atom)."""
    return native().draw_svg(smiles, int(width), int(height), [int(a) for a in highlight_atoms], legend)


def draw_grid_svg(smiles, per_row=4, panel_width=200, panel_height=200, legends=None):
    """One SVG with the molecules on a grid, `per_row` per row, optional legends (one per molecule)."""
    return native().draw_grid_svg(list(smiles), int(per_row), int(panel_width), int(panel_height),
                                  [str(x) for x in legends] if legends is not None else [])
