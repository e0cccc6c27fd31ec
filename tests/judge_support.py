"""Shared by the outside judges (tests/test_judges_*.py): the pages to judge, the engine's
own output for every selection, and where the npm-installed tools live.

The judges are tools nobody here wrote (Chromium, axe-core, the Nu Html Checker, bash,
shellcheck); this module only finds what to hand them.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag

from recipe_support import in_process

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "recipes"
NODE_MODULES = ROOT / "node_modules"
LANGUAGES = tuple(runpy.run_path(str(ROOT / "conf.py"))["recipebook_languages"])  # the site's languages
# Recipes with at most this many offered selections are walked in full in the browser;
# a larger one is walked through a spread sample of this size (every value still once).
WALK_ALL_UP_TO = 600


def node_tool(relative: str) -> Path:
    """A file of an npm-installed judge; make test installs them (npm ci) before pytest runs."""
    path = NODE_MODULES / relative
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `make test` (it runs npm ci from package-lock.json) or `npm ci`")
    return path


# How the Nu Html Checker's Java runs: its client compiler only (-XX:TieredStopAtLevel=1: one run
# over a few dozen files ends before the optimizing compiler's work would pay for itself; about
# half the processor time, measured on the site's pages), with the larger thread stack its schema
# evaluation then needs (vnu asks for at least 512k; under the client compiler 1m overflowed).
# The compiler changes how fast Java runs the checker, never what it finds.
VNU_JAVA_OPTIONS = ("-XX:TieredStopAtLevel=1", "-Xss16m")


def vnu(files: list[str], cwd: Path) -> list[dict]:
    """The errors the Nu Html Checker (vnu.jar from npm, run by Debian's Java) finds in HTML files
    (paths relative to cwd, or absolute), in one run: its error and non-document-error messages."""
    java = shutil.which("java")
    if java is None:
        pytest.fail("java is not installed; make test installs default-jre-headless (tools/system-packages)")
    jar = node_tool("vnu-jar/build/dist/vnu.jar")
    result = subprocess.run(
        [java, *VNU_JAVA_OPTIONS, "-jar", str(jar), "--errors-only", "--format", "json", "--exit-zero-always", *files],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stderr or result.stdout)  # vnu writes its report to stderr
    return [m for m in report["messages"] if m.get("type") in ("error", "non-document-error")]


def html_pages(site: Path) -> list[str]:
    """Every HTML file of the built site, relative to it, sorted."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def reader_pages(site: Path) -> list[str]:
    """The pages the browser judges open: every page of both language trees and the site
    root, and of the generated per-selection file listings (api/, hundreds of pages from
    one template) the first page at each folder depth, one of each kind."""
    pages, depths = [], set()
    for rel in html_pages(site):
        if rel.startswith("api/"):
            depth = rel.count("/")
            if depth in depths:
                continue
            depths.add(depth)
        pages.append(rel)
    return pages


def recipe_pages(site: Path) -> list[tuple[str, str]]:
    """(language, recipe name) of every recipe page of both languages."""
    found = []
    for language in LANGUAGES:
        for page in sorted((site / language / "recipes").glob("*.html")):
            found.append((language, page.stem))
    assert found, f"no recipe pages under {site}"
    return found


def engine_env() -> dict[str, str]:
    return dict(os.environ)  # the engine is installed in the venv (pip install -e .)


@functools.cache
def engine_matrix(name: str) -> tuple[dict, ...]:
    """What the engine prints for every offered selection of a recipe (`matrix --format json`,
    the same expansion `expand` prints one selection of), in page order."""
    result = subprocess.run(
        [sys.executable, "-m", "recipebook", "matrix", str(RECIPES / f"{name}.json"), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=engine_env(),
    )
    return tuple(json.loads(result.stdout)["selections"])


def engine_expand(capsys: Any, name: str, strategy: str, target: str, selection: dict[str, str]) -> dict:
    """One selection, asked of the engine's `expand` command itself (its ``main``, run in this
    process by recipe_support.in_process: what it prints is what a real process prints; the
    process itself, its exit status and output, is proved by test_cli's real runs of expand)."""
    sets = [arg for axis, value in selection.items() for arg in ("--set", f"{axis}={value}")]
    where = ["--strategy", strategy, "--target", target, *sets]
    result = in_process(capsys, "expand", RECIPES / f"{name}.json", *where, "--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def commands_of(entry: dict) -> list[str]:
    """The server commands of one engine selection, in page order (roles, then ranks)."""
    return [command["shell"] for role in entry["roles"] for command in role["commands"]]


def router_of(entry: dict) -> list[str]:
    return [step["cmd"] for step in entry["router"]]


def grids_of(name: str) -> dict[tuple[str, str], list[dict]]:
    """The engine's selections grouped by (strategy, target), in page order."""
    grouped: dict[tuple[str, str], list[dict]] = {}
    for entry in engine_matrix(name):
        grouped.setdefault((entry["strategy"], entry["target"]), []).append(entry)
    return grouped


def walked(name: str) -> dict[tuple[str, str], list[dict]]:
    """The selections the browser walks: all of them, or for a recipe with more than
    WALK_ALL_UP_TO a spread sample that still holds every value of every axis."""
    grouped = grids_of(name)
    total = sum(len(entries) for entries in grouped.values())
    if total <= WALK_ALL_UP_TO:
        return grouped
    sample: dict[tuple[str, str], list[dict]] = {}
    for key, entries in grouped.items():
        share = max(1, WALK_ALL_UP_TO * len(entries) // total)
        step = max(1, len(entries) // share)
        chosen = entries[::step]
        seen = {(a, v) for e in chosen for a, v in e["selection"].items()}
        for entry in entries:
            if any((a, v) not in seen for a, v in entry["selection"].items()):
                chosen.append(entry)
                seen |= set(entry["selection"].items())
        sample[key] = chosen
    return sample


def covering(entries: list[dict]) -> list[dict]:
    """A few selections that together show every value of every axis (a switch's off and on) at
    least once, in page order: each chosen in turn as the one that shows the most values not shown
    yet (the first of those in page order)."""
    every = {pair for entry in entries for pair in entry["selection"].items()}
    chosen: list[int] = []
    seen: set[tuple[str, str]] = set()
    while seen != every:
        best = max(range(len(entries)), key=lambda i: (len(set(entries[i]["selection"].items()) - seen), -i))
        chosen.append(best)
        seen |= set(entries[best]["selection"].items())
    return [entries[i] for i in sorted(chosen)]


# Every server command a grid shows, role by role and, for a role with ranks, rank by rank:
# each rank is picked on the role's rank picker and its block read (innerText leaves out what
# the stylesheet hides, as a reader's copy does); the picker is left as it was.
SHOWN_COMMANDS = """gid => {
  const commands = [];
  // the block shown: a role's one block, or the chosen node's of a role that spans nodes
  const shown = role => {
    const nodes = role.querySelectorAll('.rb-node');
    if (!nodes.length) return role.querySelector('pre');
    const picked = [...role.querySelectorAll('.rb-ranks input[type=radio]')].findIndex(r => r.checked);
    return nodes[picked].querySelector('pre');
  };
  for (const role of document.getElementById(gid).querySelectorAll('.rb-cmds .rb-role:not(.rb-router)')) {
    const ranks = [...role.querySelectorAll('.rb-ranks input[type=radio]')];
    if (!ranks.length) { commands.push(shown(role).innerText); continue; }
    const before = ranks.find(r => r.checked);
    for (const rank of ranks) { rank.checked = true; commands.push(shown(role).innerText); }
    before.checked = true;
  }
  return commands;
}"""


# What a page's explorer is once its words are set aside (same_explorer): the attributes that hold
# words a reader reads or hears (translated), and the elements compared byte for byte, whole (code
# a reader copies, scripts, styles), save the words in them that only a screen reader says
# (span.rb-sr: "added:", "removed:", which the stylesheet hides from sight and from copies).
# span.rb-nb only keeps a few words on one line (white-space: nowrap): the translation places
# them in its prose, so outside code they are set aside too.
WORDS_ATTRIBUTES = frozenset(
    {"aria-label", "title", "alt", "placeholder", "data-label", "data-done", "data-title", "data-body"}
    | {"data-words", "data-proxy", "data-one"}  # the Kubernetes panel's sentences
)
VERBATIM = frozenset({"pre", "script", "style", "textarea"})
# The files Sphinx writes per language (its language code and its own translated words).
LANGUAGE_FILES = frozenset({"documentation_options.js", "translations.js"})


def _markup(element: Tag, out: list[str]) -> None:
    """Every element under element, in document order: its name and attributes (words set
    aside), a VERBATIM one as its whole serialized HTML; text outside VERBATIM elements left out."""
    for child in element.children:
        if not isinstance(child, Tag):
            continue  # text: words, set aside (in code it is compared with its element, below)
        if child.name in VERBATIM:
            whole = copy.copy(child)
            for said in whole.select("span.rb-sr"):
                said.string = "(words)"
            for element in [whole, *whole.find_all(True)]:
                for key in WORDS_ATTRIBUTES & set(element.attrs):
                    element[key] = "(words)"
            out.append(str(whole))
            continue
        classes = child.get("class") or []
        if child.name == "span" and classes == ["rb-nb"]:
            _markup(child, out)  # a no-break run of prose: its elements count, it does not
            continue
        attributes = {key: "(words)" if key in WORDS_ATTRIBUTES else value for key, value in child.attrs.items()}
        out.append(
            f"<{child.name} {sorted((k, ' '.join(v) if isinstance(v, list) else v) for k, v in attributes.items())}>"
        )
        _markup(child, out)
        out.append(f"</{child.name}>")


def explorer_markup(soup: BeautifulSoup) -> list[str]:
    """The explorer of a recipe page (.rb-strategies: the strategy and target tabs, every grid)
    as _markup lists it."""
    out: list[str] = []
    for explorer in soup.select(".rb-strategies"):
        out.append("<explorer>")
        _markup(explorer, out)
    return out


def _loaded(page: Path, soup: BeautifulSoup) -> list[tuple[str, bytes | None]]:
    """The stylesheets and scripts a page loads, in its order: (reference, the file's bytes), or
    (inline style, None); Sphinx's per-language files (LANGUAGE_FILES) left out, and inline scripts
    (they hold the page's words: window.RB_STRINGS, Sphinx's translations)."""
    out: list[tuple[str, bytes | None]] = []
    for element in soup.select('link[rel~="stylesheet"][href], script[src], style'):
        reference = element.get("href") or element.get("src")
        if not isinstance(reference, str):
            out.append((str(element), None))
            continue
        path = (page.parent / reference.split("?")[0]).resolve()
        if path.name not in LANGUAGE_FILES:
            out.append((reference, path.read_bytes() if "://" not in reference else None))
    return out


def same_explorer(english: Path, other: Path) -> list[str]:
    """How a recipe page in another language differs from the English one in what its explorer
    does (nothing, when the list is empty): the explorer's markup with the words set aside
    (explorer_markup), every code block and inline stylesheet byte for byte, and every stylesheet
    and script both load, by reference and by content."""
    pages = {path: BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser") for path in (english, other)}
    found = []
    a, b = (explorer_markup(pages[path]) for path in (english, other))
    if not a:
        found.append(f"{english}: no explorer")
    if a != b:
        at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        found.append(f"{other}: the explorer differs at element {at}: {a[at : at + 1]} != {b[at : at + 1]}"[:2000])
    loaded = {path: _loaded(path, soup) for path, soup in pages.items()}
    if [ref for ref, _ in loaded[english]] != [ref for ref, _ in loaded[other]]:
        found.append(
            f"{other}: loads {[r for r, _ in loaded[other]]}, the English page {[r for r, _ in loaded[english]]}"
        )
    for (ref, x), (_ref, y) in zip(loaded[english], loaded[other], strict=False):
        if x != y:
            found.append(f"{other}: {ref} differs from the English page's")
    return found
