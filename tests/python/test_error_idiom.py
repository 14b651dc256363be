"""One error idiom in the C++ sources (issue 20).

Errors are thrown as SAMPAN_THROW(Kind, pieces...) or SAMPAN_CHECK(cond, Kind, pieces...), the message
streamed from its pieces. A hand-built `throw ValueError(std::string(op) + ": ..." + std::to_string(n))`
is the old idiom: this test finds every `throw <sampan error kind>(` whose argument has a `+` outside
string literals and comments, and names each by file:line. Rethrows, `throw Kind(msg)` of a variable,
`throw Kind(os.str())` and std:: exceptions in CUDA launch glue are not concatenations and pass.
"""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
KINDS = ("ValueError", "TypeError", "IndexError", "NotImplementedError", "RuntimeError", "IOError")
THROW = re.compile(r"\bthrow\s+(?:(?:::)?sampan::)?(?:" + "|".join(KINDS) + r")\s*\(")
SUFFIXES = {".cpp", ".cc", ".h", ".hpp", ".cu", ".cuh"}

# folder -> subfolders scanned on their own (left out of the folder's case)
FOLDERS = {
    "framework": (),
    "deepmd_bridge": (),
    "helix": (),
    "python/bindings": ("python/bindings/quantum",),
    "python/bindings/quantum": (),
    "quantum": (),
    "examples": (),
    "docs/examples": (),
}


def code_only(text):
    """`text` with comments and the insides of string and char literals blanked (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i + 2)
            delim = ")" + text[i + 2:k] + '"'
            j = text.find(delim, k)
            j = n if j < 0 else j + len(delim)
            blank(i + 2, j - 1)
            i = j
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):  # not a 1'000 digit separator
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def concatenated_throws(path):
    """(line, statement) of each `throw Kind(...)` in `path` whose argument holds a `+`."""
    text = path.read_text(encoding="utf-8", errors="replace")
    code = code_only(text)
    found = []
    for m in THROW.finditer(code):
        depth, j = 0, m.end() - 1
        while j < len(code):
            depth += code[j] in "([{"
            depth -= code[j] in ")]}"
            if depth == 0:
                break
            j += 1
        if "+" in code[m.end():j]:
            line = code.count("\n", 0, m.start()) + 1
            found.append((line, " ".join(text[m.start():j + 1].split())[:120]))
    return found


def sources(folder, excluded):
    base = ROOT / folder
    for p in sorted(base.rglob("*")):
        rel = p.relative_to(ROOT).as_posix()
        if p.suffix not in SUFFIXES or not p.is_file():
            continue
        if any(rel.startswith(e + "/") for e in excluded):
            continue
        if any(part.startswith("build") for part in p.relative_to(base).parts[:-1]):
            continue
        yield p


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_no_hand_built_error_messages(folder):
    if not (ROOT / folder).is_dir():
        pytest.skip(f"{folder} is not in this checkout")
    bad = [f"{p.relative_to(ROOT).as_posix()}:{line}: {stmt}"
           for p in sources(folder, FOLDERS[folder]) for line, stmt in concatenated_throws(p)]
    assert not bad, ("hand-built error messages; stream the pieces with SAMPAN_THROW(Kind, a, b, ...) or "
                     "SAMPAN_CHECK(cond, Kind, a, b, ...) from sampan/error.h:\n" + "\n".join(bad))


def test_the_scan_finds_the_old_idiom(tmp_path):
    src = tmp_path / "x.cpp"
    src.write_text('void f(int n, const char* op) {\n'
                   '  // throw ValueError("a" + b) in a comment is fine\n'
                   '  if (n < 0) throw ValueError(std::string(op) + ": n = " + std::to_string(n));\n'
                   '  throw sampan::TypeError("a + b is fine inside a literal");\n'
                   '  throw RuntimeError(msg);\n'
                   '  SAMPAN_THROW(IndexError, "n = ", n + 1);\n'
                   '  throw IOError(\n      "x" +\n      path);\n'
                   '}\n')
    assert [line for line, _ in concatenated_throws(src)] == [3, 7]
