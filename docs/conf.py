"""Sphinx configuration: the guides (docs/*.md, through MyST-Parser) and the API reference
(docs/api/, through autodoc) as one site. Built by `make docs` into build/docs/html with warnings
as errors. The sampan package is imported from python/ of this checkout, so the extension
(sampan._C) must have been built first (`make build`)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "_ext"))

import sampan  # noqa: E402  (fails loudly when the extension is not built)

project = "sampan"
author = "the sampan developers"
copyright = "the sampan developers"  # noqa: A001 (Sphinx's name)
release = version = sampan.__version__

extensions = [
    "myst_parser",          # the guides are Markdown
    "sphinx.ext.autodoc",   # the Python API from docstrings
    "sampan_ops",           # docs/_ext/sampan_ops.py: the op reference from the op registry
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

# Headings get anchors (#section-name) as on GitHub, so links between guides work in both.
myst_heading_anchors = 3
# A code block without a language is shown as it is (no guessing a lexer).
highlight_language = "none"

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True}
# Signatures as written; the op functions carry their schema's kinds as string annotations.
autodoc_typehints = "signature"

html_theme = "alabaster"
html_title = f"sampan {release}"
html_static_path = []
