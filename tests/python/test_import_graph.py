"""The import graph of python/sampan has no circle, and no module reaches into another's private names.

Every module of the package is parsed with ``ast`` (nothing is imported), and every import
statement anywhere in it -- top level, inside functions and methods, under ``try``/``if`` -- is
an edge; only the bodies of ``if TYPE_CHECKING:`` blocks are left out (they never run). Relative
imports are resolved. ``from pkg import name`` is an edge to ``pkg.name`` when that is a
submodule (a ``.py`` file, a package or a compiled extension), else to ``pkg`` itself (its
``__init__``). A package ``__init__`` importing its own submodules is an edge like any other, so
a submodule that takes names from its parent package (``from .. import Tensor``, ``from sampan
import x``, ``import sampan``) while that parent imports it closes a circle.

``importlib.import_module`` is not an import statement and is not an edge: the subpackages that
``sampan.__getattr__`` loads on first use (``sp.nn``, ``sp.helix`` ...) load after ``sampan``
has finished initializing, so their ``import sampan`` sees a complete package.

A private import is a name with one leading underscore written in an import statement that
resolves into another module of the package: ``from .m import _helper``, ``from . import _impl``,
``import sampan._impl``. It is allowed from the modules of ``PRIVATE_INTERNALS``, and a package
``__init__`` may pull in its own private submodules (``from . import _tensor``). A public name of a
private module (``from ._creation import zeros_like``) is not private: a module's underscore keeps
it out of the public API, its unprefixed names are what it offers the rest of the package.

Each check is parametrized by subpackage (core ``sampan``, ``sampan.nn``, ``sampan.helix`` ...)
so each part of the package reports on its own: a cycle is listed under every part one of its
modules belongs to, a private import under the part of the module that makes it.
"""
import ast
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"
PACKAGE = "sampan"

# Compiled extension modules of the package. They are modules (``from . import _C`` is an edge to
# sampan._C, a leaf, not to the package), whether or not the build has put the .so there yet.
EXTENSION_MODULES = {"sampan._C"}

# The modules meant to be the package's private internals: any module of sampan may import them
# (``from .. import _C``) and private names from them. Keep this set minimal.
PRIVATE_INTERNALS = {
    # The compiled extension (python/bindings): Tensor, dtypes, the op handles, the domain modules'
    # bindings (_C.helix, _C.deepmd ...). Every Python layer sits on it, and its helpers for the
    # Python side (_C._from_buffer, _C._scalar_tensor ...) are private to the package, not to a module.
    "sampan._C",
}


# ---- the graph builder ----------------------------------------------------------------------

def discover_modules(python_dir, package):
    """{module name: (path, is_package)} for every .py module of ``package`` under ``python_dir``."""
    modules = {}
    root = Path(python_dir) / package
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(python_dir).with_suffix("")
        parts = list(rel.parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        # a folder without __init__.py is not a package of ours (data, templates ...)
        if any(not (Path(python_dir).joinpath(*parts[:i]) / "__init__.py").exists()
               for i in range(1, len(parts) if not is_package else len(parts) + 1)):
            continue
        modules[".".join(parts)] = (path, is_package)
    return modules


def _is_type_checking(test):
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _import_nodes(tree):
    """Every Import/ImportFrom node of the module, skipping ``if TYPE_CHECKING:`` bodies."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


class ImportGraph:
    """The import graph of one package: ``edges[a]`` is the set of modules ``a`` imports, and
    ``imports`` lists every resolved import as (importer, line, from_module, name, target)."""

    def __init__(self, python_dir, package, extension_modules=()):
        self.package = package
        self.modules = discover_modules(python_dir, package)
        self.known = set(self.modules) | set(extension_modules)
        self.edges = {name: set() for name in self.modules}
        self.imports = []
        for name, (path, is_package) in self.modules.items():
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in _import_nodes(tree):
                self._add(name, is_package, node)

    def in_package(self, name):
        return name == self.package or name.startswith(self.package + ".")

    def _existing(self, name):
        """The module ``name`` names, or its longest prefix that is a module (``sampan._C.helix``,
        an attribute of an extension, is sampan._C)."""
        parts = name.split(".")
        while parts and ".".join(parts) not in self.known:
            parts.pop()
        return ".".join(parts) if parts else None

    def _add(self, importer, is_package, node):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if self.in_package(alias.name):
                    self._edge(importer, node.lineno, None, alias.name, self._existing(alias.name))
            return
        if node.level:
            base = importer.split(".") if is_package else importer.split(".")[:-1]
            if node.level > 1:
                base = base[:-(node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module
        if not source or not self.in_package(source):
            return
        for alias in node.names:
            sub = f"{source}.{alias.name}"
            target = sub if sub in self.known else self._existing(source)
            self._edge(importer, node.lineno, source, alias.name, target)

    def _edge(self, importer, line, source, name, target):
        self.imports.append((importer, line, source, name, target))
        if target is not None and target in self.modules and target != importer:
            self.edges[importer].add(target)

    def cycles(self, limit=500):
        """Every elementary cycle (as a list of modules, smallest first, not repeating it at the
        end), in a stable order; at most ``limit``."""
        found = []
        order = sorted(self.edges)
        index = {name: i for i, name in enumerate(order)}
        for start in order:
            # paths from start through modules after it in the order, back to start
            stack = [(start, [start])]
            while stack:
                node, path = stack.pop()
                for nxt in sorted(self.edges[node], reverse=True):
                    if nxt == start:
                        found.append(path)
                        if len(found) >= limit:
                            return sorted(found, key=lambda c: (len(c), c))
                    elif index[nxt] > index[start] and nxt not in path:
                        stack.append((nxt, path + [nxt]))
        return sorted(found, key=lambda c: (len(c), c))


def format_cycle(cycle):
    return " -> ".join(cycle + [cycle[0]])


def part_of(module, parts):
    """The part (subpackage) of the package that ``module`` belongs to: the longest of ``parts``
    that is the module or a package above it."""
    best = None
    for part in parts:
        if (module == part or module.startswith(part + ".")) and (best is None or len(part) > len(best)):
            best = part
    return best


def private_imports(graph, internals):
    """(importer, line, name, what) for every import of a private name (a leading underscore,
    not a dunder) from another module of the package, except from ``internals``."""
    found = []
    for importer, line, source, name, target in graph.imports:
        if source is None:  # import a.b._c: the private parts of the dotted name
            parts = name.split(".")
            private = [p for p in parts[1:] if p.startswith("_") and not p.startswith("__")]
            if private and target not in internals:
                found.append((importer, line, name, f"module {name}"))
            continue
        if not name.startswith("_") or name.startswith("__"):
            continue
        if target == f"{source}.{name}":  # a private submodule
            if target in internals or importer == source:
                continue  # an internal module, or a package pulling in its own private submodule
            found.append((importer, line, name, f"module {target}"))
        elif source not in internals:
            found.append((importer, line, name, f"from {source}"))
    return found


# ---- the checks on python/sampan ------------------------------------------------------------

def _parts():
    """Core sampan and each of its direct subpackages."""
    modules = discover_modules(PYTHON_DIR, PACKAGE)
    subpackages = sorted(name for name, (_, is_package) in modules.items()
                         if is_package and name.count(".") == 1)
    return [PACKAGE] + subpackages


PARTS = _parts()


@pytest.fixture(scope="module")
def graph():
    return ImportGraph(PYTHON_DIR, PACKAGE, EXTENSION_MODULES)


def _path(graph, module):
    return graph.modules[module][0].relative_to(PYTHON_DIR.parent)


@pytest.mark.parametrize("part", PARTS)
def test_no_import_cycle(graph, part):
    cycles = [c for c in graph.cycles() if any(part_of(m, PARTS) == part for m in c)]
    assert not cycles, (f"{len(cycles)} import cycle(s) through {part}:\n"
                        + "\n".join(format_cycle(c) for c in cycles))


@pytest.mark.parametrize("part", PARTS)
def test_no_private_import_across_modules(graph, part):
    found = [f for f in private_imports(graph, PRIVATE_INTERNALS) if part_of(f[0], PARTS) == part]
    assert not found, (f"{len(found)} import(s) of private names in {part}:\n"
                       + "\n".join(f"{_path(graph, m)}:{line}: {name} ({what})" for m, line, name, what in found))


def test_every_part_is_checked():
    assert {"sampan", "sampan.nn", "sampan.optim", "sampan.helix", "sampan.deepmd", "sampan.quantum"} <= set(PARTS)
    assert EXTENSION_MODULES <= PRIVATE_INTERNALS


# ---- the builder catches what it should (a tiny package in tmp_path) -------------------------

def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_builder_finds_a_circle_through_the_package_init(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "from .a import f\nfrom . import sub\n",
        "pkg/a.py": "def f():\n    from . import b\n",     # inside a function: still an edge
        "pkg/b.py": "import pkg\n",
        "pkg/sub/__init__.py": "from .c import g\n",
        "pkg/sub/c.py": "from .. import a\nfrom ..a import f\n",  # a submodule, then the module a
        "pkg/leaf.py": "X = 1\n",
    })
    g = ImportGraph(tmp_path, "pkg")
    assert g.edges["pkg"] == {"pkg.a", "pkg.sub"}
    assert g.edges["pkg.a"] == {"pkg.b"}
    assert g.edges["pkg.b"] == {"pkg"}
    assert g.edges["pkg.sub.c"] == {"pkg.a"}
    assert [format_cycle(c) for c in g.cycles()] == [
        "pkg -> pkg.a -> pkg.b -> pkg", "pkg -> pkg.sub -> pkg.sub.c -> pkg.a -> pkg.b -> pkg"]


def test_builder_from_parent_package_name_is_an_edge_to_the_init(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "from ._core import Thing\nfrom . import nn\n",
        "pkg/_core.py": "class Thing: pass\n",
        "pkg/nn/__init__.py": "from .layers import Layer\n",
        "pkg/nn/layers.py": "from .. import Thing\nfrom . import Layer2\n",  # names, not modules
    })
    g = ImportGraph(tmp_path, "pkg")
    assert g.edges["pkg.nn.layers"] == {"pkg", "pkg.nn"}
    assert sorted(format_cycle(c) for c in g.cycles()) == [
        "pkg -> pkg.nn -> pkg.nn.layers -> pkg", "pkg.nn -> pkg.nn.layers -> pkg.nn"]


def test_builder_skips_type_checking_and_outside_imports(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "import os\nfrom . import a\n",
        "pkg/a.py": ("from typing import TYPE_CHECKING\nimport typing\n"
                     "if TYPE_CHECKING:\n    import pkg\nif typing.TYPE_CHECKING:\n    from . import b\n"
                     "else:\n    from . import c\n"),
        "pkg/b.py": "import pkg\n",
        "pkg/c.py": "import numpy\n",
    })
    g = ImportGraph(tmp_path, "pkg")
    assert g.edges["pkg.a"] == {"pkg.c"}
    assert g.cycles() == []


def test_builder_extension_modules_are_leaves(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "from . import _C\nfrom . import a\n",
        "pkg/a.py": "from . import _C\nfrom ._C import Tensor\nimport pkg._C.sub\n",
    })
    without = ImportGraph(tmp_path, "pkg")
    assert without.edges["pkg.a"] == {"pkg"}  # _C unknown: taken for a name of the package
    g = ImportGraph(tmp_path, "pkg", extension_modules={"pkg._C"})
    assert g.edges["pkg.a"] == set() and g.cycles() == []


def test_private_imports_found_with_file_line_and_name(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "from . import _impl, _C\nfrom .a import f\n",
        "pkg/_impl.py": "def _helper(): pass\ndef public(): pass\n",
        "pkg/a.py": ("from ._impl import public\nfrom ._impl import _helper\nfrom . import _C\n"
                     "def f():\n    from .sub import _x\n    import pkg._impl\n"),
        "pkg/sub/__init__.py": "from . import _y\n_x = 1\n",
        "pkg/sub/_y.py": "",
    })
    g = ImportGraph(tmp_path, "pkg", extension_modules={"pkg._C"})
    found = sorted((m, line, name) for m, line, name, _ in private_imports(g, {"pkg._C"}))
    # pkg pulling in its own _impl and anyone importing pkg._C (an internal) are fine; a public
    # name of a private module is fine
    assert found == [("pkg.a", 2, "_helper"), ("pkg.a", 5, "_x"), ("pkg.a", 6, "pkg._impl")]
