"""Which columns of a molecule CSV are labels (tasks), when the caller does not say.

The rule (docs/helix-coming-from-ogb.md), applied to every column but the SMILES column:

1. A column whose name is a known identifier name (IDENTIFIER_NAMES, compared case-insensitively
   with spaces and dashes read as underscores: "Compound ID" is compound_id) is not a label.
2. A column holding a row counter (the integers 0, 1, 2, ... or 1, 2, 3, ... in file order, no
   empty cell, at least COUNTER_MIN_ROWS rows) is not a label: it numbers the rows.
3. Otherwise a column is a label when at least LABEL_MIN_NUMERIC_FRACTION of its cells are numbers
   or empty (missing labels) and at least one is a number. A label column's rare text cells make
   their rows bad rows (left out and reported, as before); a column of text is not a label.

An explicit list of tasks (tasks= / --tasks) replaces the rule.
"""
import collections
import csv
import dataclasses
import gzip
import re

IDENTIFIER_NAMES = frozenset({
    "num", "no", "id", "idx", "index", "row", "name", "mol_id", "molecule_id", "molecule_name", "mol_name",
    "compound_id", "compound_name", "cmpd_id", "drug_id", "drug_name", "chembl_id", "zinc_id", "cid",
    "pubchem_cid", "cas", "cas_number", "inchi", "inchikey", "unnamed:_0"})
COUNTER_MIN_ROWS = 10
LABEL_MIN_NUMERIC_FRACTION = 0.99
RULE_VERSION = 1  # part of the dataset cache key: a changed rule must not reuse old caches

# What the C++ reader accepts as a label (strtod over the whole trimmed cell; "nan" = missing).
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_MISSING = ("", "nan")
_CHUNK_ROWS = 4096


def normalized_name(name):
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def is_identifier_name(name):
    return normalized_name(name) in IDENTIFIER_NAMES


def _cell_kind(cell):
    t = cell.strip()
    if t.lower() in _MISSING:
        return "missing"
    return "number" if _NUMBER.fullmatch(t) else "text"


@dataclasses.dataclass
class CsvColumns:
    """The outcome of the rule on one file."""
    header: list
    smiles_column: str
    labels: list        # label columns in file order
    ignored: dict       # column -> why it is not a label
    record_lines: list  # the file line on which each data record starts (blank lines skipped)

    def ignored_message(self, path):
        if not self.ignored:
            return None
        listed = ", ".join(f"{name} ({why})" for name, why in self.ignored.items())
        return (f"{path}: ignored columns: {listed}; they are not labels. Name the labels with tasks=[...] "
                f"(--tasks A,B) to choose them yourself")


def _open_text(path):
    with open(path, "rb") as f:
        packed = f.read(2) == b"\x1f\x8b"
    opener = gzip.open if packed else open
    return opener(path, "rt", newline="", encoding="utf-8-sig")


class _ColumnStats:
    def __init__(self):
        self.counts = collections.Counter()  # distinct cell text -> occurrences
        self.rows = 0
        self.counter_next = None  # the next row-counter value, or False once broken

    def add(self, cells):
        self.counts.update(cells)
        if self.counter_next is not False:
            self._follow_counter(cells)
        self.rows += len(cells)

    def _follow_counter(self, cells):
        try:
            values = [int(c) for c in cells]
        except ValueError:
            self.counter_next = False
            return
        start = values[0] if self.counter_next is None else self.counter_next
        if self.counter_next is None and start not in (0, 1):
            self.counter_next = False
        elif values != list(range(start, start + len(values))):
            self.counter_next = False
        else:
            self.counter_next = start + len(values)

    def why_not_a_label(self):
        kinds = collections.Counter()
        for text, n in self.counts.items():
            kinds[_cell_kind(text)] += n
        if self.counter_next not in (None, False) and self.rows >= COUNTER_MIN_ROWS:
            return "row numbers"
        if kinds["number"] == 0:
            return "no numbers" if kinds["text"] == 0 else "text"
        if kinds["text"] > (1.0 - LABEL_MIN_NUMERIC_FRACTION) * self.rows:
            return f"text in {kinds['text']} of {self.rows} rows"
        return None


def infer_columns(path, smiles_column):
    """CsvColumns of the CSV at `path` (plain or gzip) whose SMILES column is `smiles_column`."""
    with _open_text(path) as f:
        reader = csv.reader(f)
        header = [h.strip() for h in next(reader, [])]
        stats = [_ColumnStats() for _ in header]
        record_lines, chunk = [], []
        start_line = reader.line_num + 1
        for row in reader:
            if row:
                record_lines.append(start_line)
                if len(row) == len(header):  # other rows are the reader's bad rows
                    chunk.append(row)
            start_line = reader.line_num + 1
            if len(chunk) >= _CHUNK_ROWS:
                _add_chunk(stats, chunk)
                chunk = []
        _add_chunk(stats, chunk)
    labels, ignored = [], {}
    for name, column in zip(header, stats):
        if name == smiles_column:
            continue
        why = "identifier" if is_identifier_name(name) else column.why_not_a_label()
        if why is None:
            labels.append(name)
        else:
            ignored[name] = why
    return CsvColumns(header, smiles_column, labels, ignored, record_lines)


def _add_chunk(stats, chunk):
    if chunk:
        for column, cells in zip(stats, zip(*chunk)):
            column.add(cells)


def record_lines(path):
    """The file line on which each data record of the CSV at `path` starts (blank lines skipped),
    as the C++ reader numbers its rows."""
    return infer_columns(path, None).record_lines
