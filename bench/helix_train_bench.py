"""`make bench` entry for helix GIN training throughput: runs bench/helix/train_bench.py (sampan vs
the same GIN in PyTorch Geometric, molecules per second, 1 and 2 threads). See that file for the
options; the Table 1 protocol (hours) is bench/helix/table1.py and is not run by `make bench`."""
import os
import runpy
import sys

sys.argv[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helix", "train_bench.py")
runpy.run_path(sys.argv[0], run_name="__main__")
