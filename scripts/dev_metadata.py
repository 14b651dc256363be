"""Writes the source tree's package metadata into a venv, as an editable install would.

Plug-in hosts find sampan through entry points (PennyLane's ``pennylane.plugins``, dpdata's
``dpdata.plugins``), which importlib.metadata reads from a ``*.dist-info`` folder. The source tree
is on the venv's path through a .pth file (scripts/setup.sh), so this writes the folder that a
``pip install -e .`` would: METADATA, entry_points.txt (pyproject.toml's
``[project.entry-points]``, the one list) and a RECORD, so that a later pip install can replace it.

    python scripts/dev_metadata.py SITE_PACKAGES PYPROJECT CMAKELISTS
Prints "unchanged" or "written". Files are written to a temporary folder, then renamed.
"""
import os
import re
import shutil
import sys
import tomllib


def render(pyproject, cmakelists):
    project = tomllib.load(open(pyproject, "rb"))["project"]
    text = open(cmakelists).read()
    match = re.search(r"project\(sampan VERSION ([0-9][0-9.]*)", text)
    if not match:
        raise SystemExit(f"{cmakelists}: no 'project(sampan VERSION x.y.z)' line")
    version = match.group(1)
    groups = dict(project.get("entry-points", {}))
    if project.get("scripts"):
        groups["console_scripts"] = project["scripts"]
    entry_points = "".join(f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in table.items()) + "\n"
                           for group, table in sorted(groups.items()))
    metadata = f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {version}\n"
    return version, {"METADATA": metadata, "entry_points.txt": entry_points, "INSTALLER": "sampan-setup\n"}


def main(site_packages, pyproject, cmakelists):
    version, files = render(pyproject, cmakelists)
    name = f"sampan-{version}.dist-info"
    files["RECORD"] = "".join(f"{name}/{f},,\n" for f in sorted(files)) + f"{name}/RECORD,,\nsampan.pth,,\n"
    target = os.path.join(site_packages, name)
    if os.path.isdir(target) and all(
            os.path.isfile(os.path.join(target, f)) and open(os.path.join(target, f)).read() == text
            for f, text in files.items()):
        print("unchanged")
        return
    for old in os.listdir(site_packages):  # an earlier version's folder
        if old.startswith("sampan-") and old.endswith(".dist-info"):
            shutil.rmtree(os.path.join(site_packages, old))
    tmp = target + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for f, text in files.items():
        with open(os.path.join(tmp, f), "w") as out:
            out.write(text)
    os.rename(tmp, target)
    print("written")


if __name__ == "__main__":
    main(*sys.argv[1:4])
