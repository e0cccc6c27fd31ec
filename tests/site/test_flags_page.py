"""Issue 6 on the site: the configuration guide lists every flag the recipes use; a wrong flag fails the build."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from bs4 import BeautifulSoup

from recipebook.reading import sharing, vocabulary

ROOT = Path(__file__).resolve().parents[2]
RECIPES = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")


def arg_keys(data: object) -> set[str]:
    """The keys of every "args" and "add_args" mapping in a recipe's JSON, read without the engine."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("args", "add_args") and isinstance(value, dict):
                found.update(value)
            found |= arg_keys(value)
    elif isinstance(data, list):
        for item in data:
            found |= arg_keys(item)
    return found


def vllm_grids(data: dict) -> list[dict]:
    """The grids of a recipe written out in full, but those whose commands vLLM hands to
    vLLM-Omni (--omni): their flags are vLLM-Omni's, not vLLM's."""
    grids = [option["grid"] for strategy in sharing.written_out(data)["strategies"] for option in strategy["options"]]
    return [grid for grid in grids if not any("--omni" in role["args"] for role in grid["base"])]


def test_configuration_guide_lists_every_flag_with_help_and_users(site):
    used: dict[str, set[str]] = {}
    for path in RECIPES:
        data = json.loads(path.read_text(encoding="utf-8"))
        for flag in arg_keys(vllm_grids(data)):
            used.setdefault(flag, set()).add(data["name"])
    assert used
    for lang in ("en", "ko"):
        page = site / lang / "configuration.html"
        soup = BeautifulSoup(page.read_text(), "html.parser")
        rows = soup.select("table.rb-flags tbody tr")
        shown = {}
        for row in rows:
            cells = row.select("td")
            flag = cells[0].get_text(strip=True)
            help_cell = cells[1].select_one('[lang="en"]')
            # vLLM's help text, its backticked flags and values shown as inline code
            quoted = re.findall(r"`([^`\s]+)`", vocabulary.flag_help(flag))
            assert help_cell.get_text() == re.sub(r"`([^`\s]+)`", r"\1", vocabulary.flag_help(flag)), flag
            assert [code.get_text() for code in help_cell.select("code")] == quoted, flag
            assert help_cell.get_text(), flag
            links = cells[2].select("a")
            for link in links:
                assert (page.parent / link["href"]).resolve().is_file()
            shown[flag] = {a.get_text(strip=True) for a in links}
        assert shown == used


def test_a_misspelt_flag_fails_the_build_with_a_suggestion(make_app, rootdir, tmp_path):
    folder = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", folder)
    path = folder / "gpt-oss-120b.json"
    data = json.loads(path.read_text())
    delta = data["strategies"][0]["options"][0]["grid"]["deltas"]["spec_decode=eagle3"]["main"]["add_args"]
    delta["--speculative_config"] = delta.pop("--speculative-config").replace(
        "--speculative-config", "--speculative_config"
    )
    path.write_text(json.dumps(data, indent=2))
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    app = make_app("html", srcdir=srcdir, confoverrides={"recipebook_dir": str(folder)})
    app.build()
    warnings = app._warning.getvalue()
    assert "[recipebook.vocabulary]" in warnings
    assert "--speculative-config" in warnings and "gpt-oss-120b.json:" in warnings
