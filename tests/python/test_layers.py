"""The include graph of the C++ sources says what docs/architecture.md's layer diagram says, so
a header of a higher layer cannot creep into a lower one unnoticed:
- the engine (framework/) includes no header of a domain module;
- no domain module includes another's headers;
- kernels (framework/src/kernels, <module>/src/kernels) know no Tensor and no op: of sampan's
  public headers they include only sampan/host_device.h, sampan/cuda_launch.cuh,
  sampan/complex_element.h, sampan/dtype.h and sampan/error.h (the rest are their own folder's
  headers).
Each failure names the file, the line and the include."""
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = ("*.cpp", "*.h", "*.cu", "*.cuh")
MODULES = {"quantum": "quantum", "deepmd_bridge": "deepmd", "helix": "helix"}  # folder -> header namespace
KERNEL_PUBLIC = {"sampan/host_device.h", "sampan/cuda_launch.cuh", "sampan/complex_element.h", "sampan/dtype.h",
                 "sampan/error.h", "sampan/half_bits.h"}


def includes(folder):
    for pattern in SOURCES:
        for path in sorted((REPO / folder).rglob(pattern)):
            text = path.read_text(errors="replace")
            for m in INCLUDE.finditer(text):
                yield path.relative_to(REPO), text.count("\n", 0, m.start()) + 1, m.group(1)


def module_of(include):
    for folder, ns in MODULES.items():
        if include.startswith(f"sampan/{ns}/"):
            return folder
    return None


def test_the_scan_reads_includes():
    found = list(includes("framework/src/op"))
    assert any(inc == "sampan/op.h" for _, _, inc in found)


def test_the_engine_includes_no_domain_module():
    bad = [f"{p}:{line}: {inc}" for p, line, inc in includes("framework") if module_of(inc)]
    assert not bad, "framework/ includes domain-module headers:\n" + "\n".join(bad)


@pytest.mark.parametrize("folder", sorted(MODULES))
def test_a_domain_module_includes_no_other_module(folder):
    bad = [f"{p}:{line}: {inc}" for p, line, inc in includes(folder) if module_of(inc) not in (None, folder)]
    assert not bad, f"{folder}/ includes another module's headers:\n" + "\n".join(bad)


KERNEL_FOLDERS = [f for f in ["framework/src/kernels"] + [f"{m}/src/kernels" for m in MODULES] if (REPO / f).is_dir()]


def test_the_kernel_folders_are_found():
    assert "framework/src/kernels" in KERNEL_FOLDERS and len(KERNEL_FOLDERS) >= 3


@pytest.mark.parametrize("folder", KERNEL_FOLDERS)
def test_kernels_know_no_tensor_and_no_op(folder):
    bad = [f"{p}:{line}: {inc}" for p, line, inc in includes(folder)
           if inc.startswith("sampan/") and inc not in KERNEL_PUBLIC]
    assert not bad, f"{folder} includes engine headers beyond {sorted(KERNEL_PUBLIC)}:\n" + "\n".join(bad)
