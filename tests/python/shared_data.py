"""Where the tests find the project's shared real data (MoleculeNet, ZINC, DeePMD water, golden case).

One rule for every test: the environment variable SAMPAN_SHARED_DATA if set, else
``<checkout>/../shared/data`` (the layout the project is developed in). Tests that need a data set
skip, naming the path, when it is missing.
"""
import os
from pathlib import Path

_DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "data"
SHARED_DATA = Path(os.environ.get("SAMPAN_SHARED_DATA", str(_DEFAULT)))
