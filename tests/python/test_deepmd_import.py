"""Import of se_e2_a models that DeePMD-kit itself wrote in its backend-neutral (dpmodel) YAML,
against DeePMD-kit's own energies: ``../shared/data/deepmd_dpkit_models`` (its SOURCE.md; made
with DeePMD-kit 3.2.0 by its make_fixture.py). ``se_e2_a_two_side`` has ``type_one_side: false``
(one embedding net per (centre, neighbour) type pair, held in DeePMD-kit's NetworkCollection
order); ``se_e2_a_four_types`` has one net per neighbour type, resnet_dt and timesteps. Every
weight and statistic was perturbed from DeePMD-kit's initial values, so a mix-up of nets, types
or statistics changes the numbers.

The reference per model, one 24-atom frame in a triclinic cell: the energy and atomic energies
from DeePMD-kit's DeepPot.eval, and forces as central differences (h = 1e-5 Å) of DeePMD-kit's
energy (its numpy backend returns no forces).
"""
import numpy as np
import pytest

import sampan as sp  # noqa: F401
from sampan.deepmd import md
from sampan.deepmd.model import load_model
from shared_data import SHARED_DATA

DPKIT = SHARED_DATA / "deepmd_dpkit_models"
MODELS = ["se_e2_a_two_side", "se_e2_a_four_types"]
needs_dpkit = pytest.mark.skipif(not (DPKIT / "reference.npz").exists(),
                                 reason=f"DeePMD-kit-written models not found at {DPKIT}")

# Energies: the same float64 formula evaluated by two codes, so they differ by rounding only
# (measured: 9e-16 eV). Forces: DeePMD-kit's are central differences of its energy, with error
# ~ h^2 |d3E/dx3| + 1e-16 |E| / h (measured: 1.4e-10 eV/Å, on forces up to 0.04 eV/Å).
ENERGY_ATOL = 1e-12   # eV, total and per atom
FORCE_ATOL = 1e-9     # eV/Å


def reference(name):
    ref = np.load(DPKIT / "reference.npz")
    return {key: ref[f"{name}/{key}"] for key in ("coord", "box", "types", "energy", "atom_energy", "force_fd")}


def evaluate(model, ref):
    """Energy, atomic energies and forces of `model` at the reference frame."""
    ext = model.extend(ref["coord"].ravel().tolist(), ref["types"].tolist(), ref["box"].ravel().tolist())
    assert not ext.any_overflow(), ext.overflow_message(model.config["sel"])
    atom_e = model.evaluate(ext, False, False)["atom_energy"].numpy().ravel()
    e, f, _ = md.evaluate(model, ref["coord"], ref["types"], md.box(ref["box"]))
    return e, atom_e, f


@needs_dpkit
@pytest.mark.parametrize("name", MODELS)
def test_deepmd_kit_model_gives_deepmd_kits_energy_and_forces(name, tmp_path):
    model = load_model(DPKIT / f"{name}.yaml")
    ref = reference(name)
    assert model.config["type_one_side"] is (name != "se_e2_a_two_side")
    e, atom_e, f = evaluate(model, ref)
    assert abs(e - ref["energy"][0]) <= ENERGY_ATOL, (e, ref["energy"][0])
    np.testing.assert_allclose(atom_e, ref["atom_energy"], rtol=0, atol=ENERGY_ATOL)
    np.testing.assert_allclose(f, ref["force_fd"], rtol=0, atol=FORCE_ATOL)
    assert np.abs(ref["force_fd"]).max() > 1e-3 and np.ptp(ref["atom_energy"]) > 0.1  # not vacuous
    # The imported model through the frozen-file path too (what MD and LAMMPS load).
    model.save(str(tmp_path / "frozen.h5"))
    e2, f2, _ = md.evaluate(md.load_deeppot(tmp_path / "frozen.h5"), ref["coord"], ref["types"], md.box(ref["box"]))
    assert e2 == e and np.array_equal(f2, f)


# ---- the YAML edited as text (no YAML library in the test environment) ----------------------

NET = "      - '@class': EmbeddingNetwork"  # an item of model.descriptor.embeddings.networks


def _network_blocks(lines):
    """(first, end) line ranges of the embedding nets, in file order."""
    starts = [i for i, line in enumerate(lines) if line == NET]
    blocks = []
    for s in starts:
        e = s + 1
        while e < len(lines) and (len(lines[e]) - len(lines[e].lstrip()) > 6 or not lines[e].strip()):
            e += 1
        blocks.append((s, e))
    return blocks


def _edited(name, tmp_path, edit):
    lines = (DPKIT / f"{name}.yaml").read_text().splitlines()
    blocks = _network_blocks(lines)
    nets = [lines[s:e] for s, e in blocks]
    nets = edit(nets)
    first, end = blocks[0][0], blocks[-1][1]
    path = tmp_path / f"{name}_edited.yaml"
    path.write_text("\n".join(lines[:first] + [l for net in nets for l in net] + lines[end:]) + "\n")
    return path


@needs_dpkit
def test_the_pair_nets_order_is_what_the_comparison_sees(tmp_path):
    # Nets 1 and 2 are (centre 1, neighbour 0) and (centre 0, neighbour 1) in DeePMD-kit's order
    # (index ti + tj * ntypes); swapped, as an importer reading them centre-major would, the
    # energy moves far beyond the tolerance above.
    name = "se_e2_a_two_side"
    ref = reference(name)
    unedited = _edited(name, tmp_path, lambda nets: nets)
    assert evaluate(load_model(unedited), ref)[0] == evaluate(load_model(DPKIT / f"{name}.yaml"), ref)[0]
    swapped = _edited(name, tmp_path, lambda nets: [nets[0], nets[2], nets[1], nets[3]])
    e, _, f = evaluate(load_model(swapped), ref)
    assert abs(e - ref["energy"][0]) > 1e3 * ENERGY_ATOL
    assert np.abs(f - ref["force_fd"]).max() > 1e3 * FORCE_ATOL


@needs_dpkit
def test_pair_model_with_the_wrong_number_of_networks_is_refused(tmp_path):
    path = _edited("se_e2_a_two_side", tmp_path, lambda nets: nets[:3])  # 3 nets for 2 types
    with pytest.raises(ValueError, match=r"se_e2_a_two_side_edited.yaml: model.descriptor.embeddings.networks: "
                                         r"expected 4 networks"):
        load_model(path)
