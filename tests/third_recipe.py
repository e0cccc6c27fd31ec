"""A third recipe for tests that add one: MiniMax-M2, prefill/decode disaggregated, derived from
the shipped A.X-K2 recipe with its JSON option values written on one line (as llm-d writes
them), and the project copied to a folder where the author's steps can run."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NAME = "MiniMax-M2"
# what a copy of the project needs to build, test and translate (no build output, no test caches;
# the compiled catalogs and their stamps are copied: its builds check and compile again only the
# catalogs that differ from what the stamps say passed, recipebook_sphinx/i18n/po_check.py). Python's
# compiled modules (__pycache__) are copied too: a build that imports the copy's own _ext (conftest's
# build_site of a copy) would otherwise compile the whole extension first, about 0.4 core-s. Python
# uses a module's compiled file only while its source has the size and time it was compiled from,
# which the copy keeps (copytree copies times), so a source a test edits is compiled again.
_IGNORE = shutil.ignore_patterns(".git", ".venv", "node_modules", "_build", ".pytest_cache", ".crosscheck")


def _one_line(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _one_line(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_one_line(item) for item in value]
    if isinstance(value, str) and "'{" in value:
        compact = lambda m: "'" + json.dumps(json.loads(m.group(1)), separators=(",", ":")) + "'"  # noqa: E731
        return re.sub(r"'(\{.*\})'", compact, value, flags=re.S)
    return value


def _keep_facts_of(data: dict) -> None:
    """The facts of the strategies kept: observations of another strategy go, and with them the
    checkpoints only they ran and the sources only they named (rules 20 and 24)."""
    facts = data.get("facts")
    if not facts:
        return
    slugs = {s["slug"] for s in data["strategies"]}
    facts["observations"] = [o for o in facts.get("observations", ()) if o["strategy"] in slugs]
    if not facts["observations"]:
        facts.pop("observations")
    served = {data["model"]} | {o["grid"]["model"] for s in data["strategies"] for o in s["options"]}
    served |= {o["model"] for o in facts.get("observations", ()) if o.get("model")}
    facts["checkpoints"] = [c for c in facts.get("checkpoints", ()) if c["model"] in served]
    named = set(facts["architecture"]["source"])
    for kind in ("checkpoints", "drafts", "observations"):
        named |= {source for entry in facts.get(kind, ()) for source in entry["source"]}
    facts["sources"] = {key: value for key, value in facts["sources"].items() if key in named}


def third_recipe_text() -> str:
    """The recipe file: A.X-K2's prefill/decode strategy only, renamed, one-line JSON values."""
    data = _one_line(json.loads((ROOT / "recipes" / "A.X-K2.json").read_text(encoding="utf-8")))
    data["strategies"] = [
        s for s in data["strategies"] if any(b["role"] == "decode" for b in s["options"][0]["grid"]["base"])
    ]
    assert data["strategies"], "A.X-K2 has no prefill/decode strategy any more"
    _keep_facts_of(data)
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return (
        text.replace("A.X-K2", NAME)
        .replace("skt/", "MiniMaxAI/")
        .replace('"provider": "skt"', '"provider": "MiniMaxAI"')
    )


def longest_line(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def copy_project(target: Path) -> Path:
    """The project, as an author's clone, with the test run's virtualenv and npm tools linked in."""
    shutil.copytree(ROOT, target, ignore=_IGNORE)
    for name in (".venv", "node_modules"):
        if (ROOT / name).exists():
            (target / name).symlink_to(ROOT / name)
    return target
