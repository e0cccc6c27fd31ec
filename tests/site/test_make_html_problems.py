"""`make html` shows each recipe problem once, at the end of its output, in `make validate`'s words,
and still fails (each language's build fails on them without repeating them)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, make_html
from recipe_support import GPT_NAME, fixture

WARNED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<pointer>/\S*): warning: (?P<message>.+)$")


def _broken(folder: Path) -> Path:
    folder.mkdir()
    data = fixture(GPT_NAME)
    data["strategies"][0]["options"][0]["grid"]["base"][0]["args"]["--max-num-seqs"] = "--max-num-seqs $SEQS"
    data["strategies"][0]["slugg"] = "typo"
    (folder / f"{GPT_NAME}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    return folder


def _warned(folder: Path) -> Path:
    """A recipe whose one problem is a warning: vLLM reads --max_num_seqs as --max-num-seqs."""
    folder.mkdir()
    data = fixture(GPT_NAME)
    args = data["strategies"][0]["options"][0]["grid"]["base"][0]["args"]
    args["--max_num_seqs"] = args.pop("--max-num-seqs").replace("--max-num-seqs", "--max_num_seqs")
    (folder / f"{GPT_NAME}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    return folder


def test_make_html_prints_each_recipe_problem_once_at_the_end(tmp_path):
    recipes = _broken(tmp_path / "recipes")
    validate = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-m", "recipebook", "validate", str(recipes / f"{GPT_NAME}.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        check=False,
    )
    problems = [line for line in validate.stderr.splitlines() if f"{GPT_NAME}.json:" in line]
    assert validate.returncode == 1 and problems
    made = make_html(tmp_path, recipes)
    assert made.returncode != 0  # a broken recipe still fails the build
    output = (made.stdout + made.stderr).splitlines()
    for problem in problems:  # once each, in validate's words
        assert output.count(problem) == 1, "\n".join(output)
    assert not any("[recipebook." in line for line in output), "\n".join(output)
    # at the end: nothing but validate's count and make's verdict come after the problems
    last = max(output.index(problem) for problem in problems)
    assert all("problem(s)" in line or line.startswith("make") for line in output[last + 1 :]), output[last:]


@pytest.mark.slow
def test_make_html_prints_a_warning_once_builds_the_page_and_fails_only_when_strict(tmp_path):
    recipes = tmp_path / "recipes"
    _warned(recipes)
    strict = make_html(tmp_path, recipes, "STRICT=1")
    assert strict.returncode != 0, strict.stdout + strict.stderr
    made = make_html(tmp_path, recipes)
    output = (made.stdout + made.stderr).splitlines()
    assert made.returncode == 0, "\n".join(output)
    warned = [line for line in output if WARNED.match(line)]
    assert len(warned) == 1, "\n".join(output)
    assert "1 warning(s) in 1 of 1 recipe file(s)" in output
    assert not any("[recipebook." in line for line in output), "\n".join(output)
    for language in ("en", "ko"):
        page = tmp_path / "build" / "html" / language / f"{GPT_NAME}.html"
        assert "--max_num_seqs" in page.read_text(encoding="utf-8")
