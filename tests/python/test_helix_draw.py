"""helix drawing through RDKit's MolDraw2DSVG: the output is valid SVG (parsed as XML) that depicts
the molecule's atoms (RDKit's metadata lists each atom with its SMILES) and its highlights."""
import xml.etree.ElementTree as ET

import pytest

from sampan import helix

pytestmark = pytest.mark.skipif(not helix.native_available(),
                                reason="helix's C++ part is not built (RDKit's C++ libraries not found)")

SVG = "{http://www.w3.org/2000/svg}"
RDKIT = "{http://www.rdkit.org/xml}"


def parse(svg):
    root = ET.fromstring(svg.encode("iso-8859-1"))
    assert root.tag == SVG + "svg"
    return root


def test_draw_svg_is_valid_svg_with_every_atom():
    svg = helix.draw_svg("OC(=O)c1ccccc1Cl", width=250, height=200, legend="2-chlorobenzoic acid")
    root = parse(svg)
    assert root.get("width") == "250px" and root.get("height") == "200px"
    atoms = [a.get("atom-smiles") for a in root.iter(RDKIT + "atom")]
    # 10 heavy atoms: O, C, O, six aromatic carbons (4 with H), Cl.
    assert len(atoms) == 10
    assert atoms.count("[OH]") == 1 and atoms.count("[O]") == 1 and atoms.count("[Cl]") == 1
    assert sum(a.startswith("[c") for a in atoms) == 6
    assert len(list(root.iter(RDKIT + "bond"))) == 10
    # Heteroatom labels are drawn (as paths classed by atom): atoms 0 (O) and 9 (Cl) appear.
    classes = " ".join(e.get("class") or "" for e in root.iter())
    assert "atom-0" in classes and "atom-9" in classes
    # The legend is drawn (as glyph paths of class 'legend'); none without one.
    assert "legend" in classes
    assert "legend" not in " ".join(e.get("class") or "" for e in parse(helix.draw_svg("OC(=O)c1ccccc1Cl")).iter())


def test_highlights_and_errors():
    plain = helix.draw_svg("c1ccccc1O")
    lit = helix.draw_svg("c1ccccc1O", highlight_atoms=[6])
    assert "ellipse" in lit and "ellipse" not in plain  # RDKit circles highlighted atoms
    with pytest.raises(ValueError, match="highlight atom 7 is out of range for 'c1ccccc1O' \\(7 atoms\\)"):
        helix.draw_svg("c1ccccc1O", highlight_atoms=[7])
    with pytest.raises(ValueError, match="cannot draw 'C1CC'"):
        helix.draw_svg("C1CC")
    with pytest.raises(ValueError, match="width and height"):
        helix.draw_svg("C", width=0)


def test_grid():
    svg = helix.draw_grid_svg(["CCO", "c1ccccc1", "CC(=O)O"], per_row=2, panel_width=150, panel_height=120,
                              legends=["ethanol", "benzene", "acetic acid"])
    root = parse(svg)
    assert root.get("width") == "300px" and root.get("height") == "240px"
    with pytest.raises(ValueError, match="2 legends for 3 molecules"):
        helix.draw_grid_svg(["CCO", "c1ccccc1", "CC(=O)O"], legends=["a", "b"])


def test_reachable_as_sp_helix():
    import sampan as sp
    assert sp.helix.draw_svg is helix.draw_svg
