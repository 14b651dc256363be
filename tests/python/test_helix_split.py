"""helix splits: the deterministic scaffold split reproduces the golden train/valid/test counts and
scaffold counts of shared/data/moleculenet/SOURCE.md; scaffolds checked on hand-built molecules;
seeded splits are reproducible partitions."""
from shared_data import SHARED_DATA
import os

import numpy as np
import pytest

from sampan import helix
from sampan.helix import split

pytestmark = pytest.mark.skipif(not helix.native_available(),
                                reason="helix's C++ part is not built (RDKit's C++ libraries not found)")

HERE = os.path.dirname(os.path.abspath(__file__))
MOLECULENET = str(SHARED_DATA / "moleculenet")
needs_moleculenet = pytest.mark.skipif(not os.path.isdir(MOLECULENET),
                                       reason=f"MoleculeNet data folder not found ({MOLECULENET})")
slow = pytest.mark.skipif(not os.environ.get("SAMPAN_SLOW_TESTS"),
                          reason="10-30 s of RDKit work on the 2-core box; set SAMPAN_SLOW_TESTS=1")


def smiles_of(name):
    return helix._native.native().read_smiles_csv(os.path.join(MOLECULENET, name))["smiles"]


@needs_moleculenet
@pytest.mark.parametrize("name,num_scaffolds,counts", [
    ("bbbp.csv", 1102, (1631, 204, 204)),
    ("tox21.csv", 2405, (6264, 783, 784)),
    ("toxcast.csv.gz", 2508, (6860, 858, 858)),
    ("sider.csv", 868, (1141, 143, 143)),
    ("clintox.csv", 814, (1182, 148, 148)),
    ("bace.csv", 738, (1210, 151, 152)),
    ("delaney.csv", 269, (902, 113, 113)),
    ("freesolv.csv", 63, (513, 64, 65)),
    ("lipo.csv", 2444, (3360, 420, 420)),
    pytest.param("hiv.csv.gz", 19089, (32901, 4113, 4113), marks=slow),
    pytest.param("muv.csv.gz", 42930, (74469, 9309, 9309), marks=slow),
])
def test_scaffold_split_reproduces_the_reference_counts(name, num_scaffolds, counts):
    smiles = smiles_of(name)
    scaffolds = split.murcko_scaffolds(smiles)
    assert len(set(scaffolds)) == num_scaffolds
    # (the scaffolds computed once: split.scaffold_split(smiles) = native scaffold_split of these)
    train, valid, test = helix._native.native().scaffold_split(scaffolds)
    assert (len(train), len(valid), len(test)) == counts
    # A partition, with no scaffold shared between the parts.
    assert sorted(np.concatenate([train, valid, test]).tolist()) == list(range(len(smiles)))
    parts = [{scaffolds[i] for i in part} for part in (train, valid, test)]
    assert not (parts[0] & parts[1] or parts[0] & parts[2] or parts[1] & parts[2])
    # Deterministic: the same again.
    again = helix._native.native().scaffold_split(scaffolds)
    assert all(np.array_equal(a, b) for a, b in zip((train, valid, test), again))


def test_murcko_scaffolds_by_hand():
    s = split.murcko_scaffolds([
        "CCc1ccccc1", "Oc1ccccc1", "c1ccccc1",          # side chains go: all benzene
        "c1ccccc1CCc1ccccc1C", "c1ccccc1CCc1ccccc1",   # the linker between rings stays
        "c1ccccc1Cc1ccccc1",                            # a shorter linker: another scaffold
        "CCCCO", "CC(=O)O",                             # no ring: ''
    ])
    assert s[0] == s[1] == s[2] == "c1ccccc1"
    assert s[3] == s[4] != s[5]
    assert s[6] == s[7] == ""
    with pytest.raises(ValueError, match=r"molecule 1 \('C1CC'\)"):
        split.murcko_scaffolds(["CC", "C1CC"])


def test_scaffold_split_order_rule():
    # Groups (by scaffold): A x4 (0,1,2,3), B x2 (4,5), C x2 (6,7), D x1 (8), E x1 (9); N = 10.
    # Sorted: A, then C before B (equal size, later first index first), then E before D.
    # train <= 8: A (4), C (6), B (8); then E: 9 > 8 -> valid (train+valid 9 <= 9); D: 10 > 9 -> test.
    keys = ["A"] * 4 + ["B"] * 2 + ["C"] * 2 + ["D", "E"]
    train, valid, test = helix._native.native().scaffold_split(keys)
    assert train.tolist() == [0, 1, 2, 3, 6, 7, 4, 5]
    assert valid.tolist() == [9] and test.tolist() == [8]


def test_seeded_splits_are_reproducible_partitions():
    smiles = ["c1ccccc1" + "C" * k for k in range(5)] + ["C1CCCCC1" + "O" * k for k in range(5)] + \
             ["c1ccncc1" + "N" * (k % 3) for k in range(20)] + ["CC" * (k + 1) for k in range(30)]
    n = len(smiles)
    scaffolds = split.murcko_scaffolds(smiles)
    for fn in (split.random_scaffold_split, split.random_split):
        a = fn(smiles, seed=1)
        b = fn(smiles, seed=1)
        c = fn(smiles, seed=2)
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
        assert not all(np.array_equal(x, y) for x, y in zip(a, c))
        assert sorted(np.concatenate(a).tolist()) == list(range(n))
    train, valid, test = split.random_split(smiles, seed=0)
    assert (len(train), len(valid)) == (int(0.8 * n), int(0.1 * n))
    # Random scaffold: valid and test within floor(0.1 n) and no scaffold straddles two parts.
    train, valid, test = split.random_scaffold_split(smiles, seed=5)
    assert len(valid) <= n // 10 and len(test) <= n // 10
    groups = [{scaffolds[i] for i in part} for part in (train, valid, test)]
    assert not (groups[0] & groups[1] or groups[0] & groups[2] or groups[1] & groups[2])


def test_split_dataset_returns_subsets():
    ds = helix.featurize(["c1ccccc1C", "c1ccccc1N", "C1CCCCC1", "CCO", "CCN", "c1ccncc1", "C1CC1", "O",
                          "c1ccccc1O", "C1CCNCC1"], labels=np.arange(10, dtype=float))
    (tr, va, te), (i_tr, i_va, i_te) = split.split_dataset(ds, "scaffold")
    assert len(tr) + len(va) + len(te) == 10
    assert tr.y[:, 0].tolist() == i_tr.tolist()
    with pytest.raises(ValueError, match="unknown method 'kfold'"):
        split.split_dataset(ds, "kfold")
    with pytest.raises(ValueError, match="fractions must be >= 0 and sum to 1"):
        split.random_split(ds, 0, 0.8, 0.3, 0.1)
