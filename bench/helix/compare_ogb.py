"""Feature parity: sampan.helix's 'ogb' featurizer against OGB's own smiles2graph on every molecule
of the MoleculeNet CSVs (node features, edge index, edge features, exactly).

Run in the benchmark environment (scripts/setup_bench.sh makes .venv-bench with `ogb` and the PyPI
RDKit closest to the Debian RDKit that sampan's C++ links):

    .venv-bench/bin/python bench/helix/compare_ogb.py [--data ../shared/data/moleculenet] [--skip muv]

Prints one line per file (molecules, identical graphs, mismatches with the first few examples)
and a total; exits 1 when any molecule differs. Takes a few minutes (OGB featurizes in Python).
"""
import argparse
import csv
import gzip
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(os.environ.get("SAMPAN_SHARED_DATA", os.path.join(ROOT, "..", "shared", "data")), "moleculenet"))
    parser.add_argument("--skip", default="", help="comma-separated file stems to skip (e.g. muv)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many molecules per file (0: all)")
    args = parser.parse_args()
    try:
        from ogb.utils import smiles2graph as ogb_smiles2graph
        import rdkit
        from rdkit import RDLogger
        RDLogger.DisableLog("rdApp.*")  # RDKit's per-molecule warnings (e.g. lone H atoms kept)
    except ImportError as error:
        print(f"compare_ogb: OGB/RDKit not importable ({error}); run scripts/setup_bench.sh and use .venv-bench")
        return 2
    from sampan import helix
    if not os.path.isdir(args.data):
        print(f"compare_ogb: MoleculeNet folder not found: {args.data} (set SAMPAN_SHARED_DATA or pass --data); skipped")
        return 0
    skip = {s for s in args.skip.split(",") if s}
    print(f"ogb smiles2graph with Python RDKit {rdkit.__version__}; sampan.helix featurizer 'ogb' "
          f"(C++ RDKit as built)")
    total = same = 0
    failures = []
    for name in sorted(os.listdir(args.data)):
        if not (name.endswith(".csv") or name.endswith(".csv.gz")) or name.split(".")[0] in skip:
            continue
        path = os.path.join(args.data, name)
        opener = gzip.open if name.endswith(".gz") else open
        with opener(path, "rt", newline="") as f:
            rows = list(csv.reader(f))
        header = rows[0]
        col = header.index("mol") if "mol" in header else header.index("smiles")
        smiles = [r[col] for r in rows[1:]]
        if args.limit:
            smiles = smiles[:args.limit]
        start = time.perf_counter()
        ds = helix.featurize(smiles, "ogb", warn=False)
        ours_time = time.perf_counter() - start
        kept = {int(i): k for k, i in enumerate(ds.rows)}
        n_same = 0
        bad = []
        start = time.perf_counter()
        for i, s in enumerate(smiles):
            ref = ogb_smiles2graph(s)
            k = kept.get(i)
            if k is None:
                bad.append((i, s, "sampan skipped it: " + str([m["reason"] for m in ds.invalid if m["index"] == i])))
                continue
            b = ds.batch([k])
            if (np.array_equal(ref["node_feat"], b.x) and np.array_equal(ref["edge_index"], b.edge_index)
                    and np.array_equal(ref["edge_feat"], b.edge_attr)):
                n_same += 1
            else:
                diff_atoms = np.argwhere(ref["node_feat"] != b.x).tolist() if ref["node_feat"].shape == b.x.shape else "shape"
                bad.append((i, s, f"differs (atom, feature): {diff_atoms[:4] if isinstance(diff_atoms, list) else diff_atoms}"))
        ogb_time = time.perf_counter() - start
        total += len(smiles)
        same += n_same
        failures += [(name,) + b for b in bad]
        print(f"{name:16s} {len(smiles):6d} molecules  identical {n_same:6d}  mismatches {len(bad):4d}   "
              f"(sampan {ours_time:.2f} s, ogb {ogb_time:.1f} s)", flush=True)
        for i, s, why in bad[:3]:
            print(f"    row {i + 2}: {s}: {why}")
    print(f"TOTAL {total} molecules, identical {same}, mismatches {total - same}")
    return 0 if total == same else 1


if __name__ == "__main__":
    sys.exit(main())
