"""A griffe extension for the API reference: reST simple tables in docstrings become Markdown tables.

The suite's docstrings use reST simple tables (a row of ``====  ====`` column rules above and below, an
optional header between two rules, continuation lines with an empty first column). Markdown would read the
closing rule as a heading underline, so each such table is rewritten as a pipe table before rendering.
"""
from __future__ import annotations

import re
from typing import Any

import griffe

RULE = re.compile(r"^(\s*)(=+)((?:\s+=+)*)\s*$")


def _columns(rule: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", rule)]


def _cells(line: str, cols: list[tuple[int, int]]) -> list[str]:
    """The row's cells; text running past a column's rule ends at its next space (a common reST liberty)."""
    cuts = [cols[0][0]]
    for start, _ in cols[1:]:
        cut = max(start, cuts[-1])
        while 0 < cut < len(line) and not line[cut - 1].isspace() and not line[cut].isspace():
            cut += 1
        cuts.append(cut)
    cuts.append(10**6)
    return [line[cuts[k]:cuts[k + 1]].strip() for k in range(len(cols))]


def _table(rows: list[list[str]], header: list[str] | None) -> list[str]:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
    head = header or [""] * len(rows[0])
    return [line(head), "|" + "---|" * len(head)] + [line(r) for r in rows]


def convert(text: str) -> str:
    """``text`` with every reST simple table (two or more columns) replaced by a Markdown pipe table."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = RULE.match(lines[i])
        if not (m and m.group(3)):  # a rule of one column is a heading underline, not a table
            out.append(lines[i])
            i += 1
            continue
        cols = _columns(lines[i])
        rules = [i]
        j = i + 1
        while j < len(lines) and len(rules) < 3:
            if RULE.match(lines[j]) and _columns(lines[j]) == cols:
                rules.append(j)
                # a rule followed by a blank line (or the end) closes the table
                if j + 1 >= len(lines) or not lines[j + 1].strip():
                    break
            elif not lines[j].strip():
                break
            j += 1
        if len(rules) < 2:
            out.append(lines[i])
            i += 1
            continue
        header = None
        body_start = rules[0] + 1
        if len(rules) == 3:
            header = _cells(lines[rules[0] + 1], cols)
            body_start = rules[1] + 1
        rows: list[list[str]] = []
        for raw in lines[body_start:rules[-1]]:
            cells = _cells(raw, cols)
            if cells[0] or not rows:
                rows.append(cells)
            else:
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
        out += ([""] if out and out[-1].strip() else []) + _table(rows, header) + [""]
        i = rules[-1] + 1
    return "\n".join(out)


class RstTables(griffe.Extension):
    """Rewrite reST simple tables in every docstring as Markdown tables."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and "==" in obj.docstring.value:
            obj.docstring.value = convert(obj.docstring.value)
