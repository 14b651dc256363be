"""The op reference, generated from the op registry at build time.

Every op registered in sampan (built-in `core::` ops and those of the domain modules) is a Python
function `sampan.ops.<namespace>.<name>` generated from its C++ spec at import time
(python/sampan/_ops.py): its signature carries the spec's argument names and kinds, its docstring
the spec's `.doc(...)` text. This extension appends one `autofunction` entry per registered op to
docs/api/ops.rst when Sphinx reads that page, so the page always lists exactly the ops of the
build, and autodoc renders each from the function itself.

A spec's doc text is plain text, not reStructuredText (`e**x`, `x[mask] = value`, `add_`):
before autodoc renders an op's docstring, `plain_text_to_rst` turns `backticks` into inline
literals and escapes the characters that reStructuredText would read as markup.
"""
import re

OPS_DOCNAME = "api/ops"

_NAMESPACE_INTROS = {
    "core": "The built-in ops (library ``sampan_core``); each is also ``sampan.<name>`` and, when "
            "its first argument is a tensor, a Tensor method.",
    "quantum": "The ops of the quantum module (library ``sampan_quantum``); ``sampan.quantum`` "
               "builds on them.",
    "deepmd": "The ops of the deepmd_bridge module (library ``sampan_deepmd_bridge``); "
              "``sampan.deepmd`` builds on them.",
}

_MARKUP = re.compile(r"([\\*|_<>\[\]:])")


def plain_text_to_rst(text):
    """Plain text with `code` spans -> reStructuredText that renders the same words."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for part in parts:
        if len(part) > 1 and part.startswith("`") and part.endswith("`"):
            out.append("``" + part[1:-1] + "``")
        else:
            out.append(_MARKUP.sub(r"\\\1", part))
    return "".join(out)


def _op_entries():
    import sampan as sp

    by_namespace = {}
    for name in sorted(sp.ops.names()):
        by_namespace.setdefault(name.split("::", 1)[0], []).append(name)
    lines = [""]
    for ns in sorted(by_namespace, key=lambda n: (n != "core", n)):
        title = f"``sampan.ops.{ns}``"
        lines += [title, "-" * len(title), "", _NAMESPACE_INTROS.get(ns, f"The ops of namespace ``{ns}``."),
                  f"{len(by_namespace[ns])} ops.", ""]
        for op_name in by_namespace[ns]:
            fn = sp.ops.function(op_name)
            lines += [f".. autofunction:: sampan.ops.{ns}.{fn.__name__}", ""]
    return "\n".join(lines) + "\n"


def _on_source_read(app, docname, source):
    if docname == OPS_DOCNAME:
        source[0] += _op_entries()


def _on_process_docstring(app, what, name, obj, options, lines):
    """An op function's docstring: the schema's signature line (shown as the signature), the
    spec's plain-text doc, and the line naming the op, written as reStructuredText by _ops.py."""
    op_name = getattr(obj, "__sampan_op__", None)
    if op_name is None or not lines:
        return
    short = op_name.split("::", 1)[1]
    if lines[0].startswith(short + "("):
        del lines[0]
    for i, line in enumerate(lines):
        if line.startswith("Op ``") or line in ("Not differentiable.", "Differentiable once (no second derivative)."):
            continue
        lines[i] = plain_text_to_rst(line)


def _on_process_signature(app, what, name, obj, options, signature, return_annotation):
    """An op function's return annotation is its kind (Tensor or a tuple of them), not the name
    of its output that the schema's signature line ends with (`-> out`): the output names are in
    the docstring's last line."""
    if getattr(obj, "__sampan_op__", None) is None:
        return None
    return signature, getattr(obj, "__annotations__", {}).get("return", return_annotation)


def setup(app):
    app.connect("source-read", _on_source_read)
    app.connect("autodoc-process-signature", _on_process_signature)
    app.connect("autodoc-process-docstring", _on_process_docstring)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
