"""`make bench` entry for helix featurization: runs bench/helix/featurize_bench.py (sampan vs OGB's
smiles2graph, molecules per second per core). See that file for the options."""
import os
import runpy
import sys

sys.argv[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helix", "featurize_bench.py")
runpy.run_path(sys.argv[0], run_name="__main__")
