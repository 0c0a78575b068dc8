"""MkDocs hooks of the docs site (``hooks:`` in mkdocs.yml).

1. The package as the API reference reads it. ``setup.py`` maps the top-level folders into the ``cardboard``
   namespace (``envs`` is ``cardboard.envs``), which griffe's static analysis cannot follow; the hook lays out
   ``cardboard/`` in a temporary folder as symbolic links (the files of ``cardboard/``, and each mapped folder
   under its dotted name) and hands that folder to mkdocstrings' python handler as its search path.
2. Links inside included files. A page includes a README with ``--8<-- "PATH"`` (pymdownx.snippets); that
   README's relative links are written from its own folder. Each of them is rewritten: to the page that
   includes the target where one does, else to the repository path as text when the target exists, and left
   alone otherwise (MkDocs then reports a broken link, which ``--strict`` turns into an error).
"""
from __future__ import annotations

import ast
import posixpath
import re
import shutil
import tempfile
from pathlib import Path

from markdown import Extension
from mkdocs.plugins import event_priority
from markdown.preprocessors import Preprocessor

INCLUDE = re.compile(r'^--8<-- "([^"]+)"\s*$')
BEGIN, END = "<!-- cardboard-include {} -->", "<!-- /cardboard-include -->"
MARKER = re.compile(r"^<!-- cardboard-include (.+) -->$")
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")

ROOT = Path(".")
INCLUDED: dict[str, str] = {}  # repository path of an included file -> the docs page (src uri) including it
PAGE = {"src": ""}  # the page being rendered
TREES: list[Path] = []  # the temporary package trees, removed at shutdown


def _roots(setup_py: Path) -> dict[str, str]:
    """``ROOTS`` of setup.py: package name -> folder."""
    for node in ast.parse(setup_py.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ROOTS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise RuntimeError(f"{setup_py}: no ROOTS mapping")


def build_source_tree(root: Path, out: Path) -> Path:
    """``out/cardboard``: the package laid out as one tree of symbolic links; returns ``out``."""
    for name, folder in sorted(_roots(root / "setup.py").items()):
        target = out.joinpath(*name.split("."))
        if name == "cardboard":
            target.mkdir(parents=True, exist_ok=True)
            for entry in (root / folder).iterdir():
                if entry.name != "__pycache__":
                    (target / entry.name).symlink_to(entry.resolve())
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to((root / folder).resolve(), target_is_directory=True)
    return out


@event_priority(100)  # before mkdocstrings reads its search paths
def on_config(config):
    global ROOT
    ROOT = Path(config.config_file_path).resolve().parent
    tree = build_source_tree(ROOT, Path(tempfile.mkdtemp(prefix="cardboard-docs-")))
    TREES.append(tree)
    python = config.plugins["mkdocstrings"].config.handlers.setdefault("python", {})
    python["paths"] = [str(tree)]
    snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
    snippets["base_path"] = [str(ROOT)]  # the repository root, whatever the working directory
    config.markdown_extensions.append(IncludedLinks())
    return config


def on_shutdown():
    while TREES:
        shutil.rmtree(TREES.pop(), ignore_errors=True)


def on_files(files, config):
    INCLUDED.clear()
    for file in files.documentation_pages():
        for line in Path(file.abs_src_path).read_text(encoding="utf-8").splitlines():
            match = INCLUDE.match(line.strip())
            if match:
                INCLUDED[match[1]] = file.src_uri
    return files


def on_page_markdown(markdown, page, config, files):
    PAGE["src"] = page.file.src_uri
    lines = []
    for line in markdown.splitlines():
        match = INCLUDE.match(line.strip())
        lines += [BEGIN.format(match[1]), line, END] if match else [line]
    return "\n".join(lines)


def _rewrite(source: str, match: re.Match) -> str:
    bang, text, url = match.groups()
    if re.match(r"^[a-z][a-z0-9+.-]*:", url) or url.startswith(("#", "/")):
        return match[0]
    path, _, anchor = url.partition("#")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    if target in INCLUDED:
        page = INCLUDED[target]
        relative = posixpath.relpath(page, posixpath.dirname(PAGE["src"]) or ".")
        return f"{bang}[{text}]({relative}{'#' + anchor if anchor else ''})"
    if not bang and (ROOT / target).exists():
        return f"{text} (`{target}`)"
    return match[0]


class _Rewriter(Preprocessor):
    def run(self, lines):
        out, source, fenced = [], None, False
        for line in lines:
            marker = MARKER.match(line)
            if marker:
                source = marker[1]
                continue
            if line == END:
                source = None
                continue
            if FENCE.match(line):
                fenced = not fenced
            if source and not fenced:
                line = LINK.sub(lambda m: _rewrite(source, m), line)
            out.append(line)
        return out


class IncludedLinks(Extension):
    """Rewrites the relative links of included files (runs right after pymdownx.snippets, priority 32)."""

    def extendMarkdown(self, md):
        md.preprocessors.register(_Rewriter(md), "cardboard_included_links", 31)

