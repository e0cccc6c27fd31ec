"""`make html` shows each recipe problem once, at the end of its output, in `make validate`'s words,
and still fails (each language's build fails on them without repeating them)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from conftest import ROOT, ROOTS
from recipe_support import GPT_NAME, fixture


def _broken(folder: Path) -> Path:
    folder.mkdir()
    data = fixture(GPT_NAME)
    data["strategies"][0]["options"][0]["grid"]["base"][0]["args"]["--max-num-seqs"] = "--max-num-seqs $SEQS"
    data["strategies"][0]["slugg"] = "typo"
    (folder / f"{GPT_NAME}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    return folder


def test_make_html_prints_each_recipe_problem_once_at_the_end(tmp_path):
    recipes = _broken(tmp_path / "recipes")
    source = tmp_path / "src"
    shutil.copytree(ROOTS / "test-recipes", source)
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
    made = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "html",
            f"BUILD={tmp_path / 'build'}",
            f"SOURCEDIR={source}",
            f"CONFDIR={source}",
            f"RECIPES={recipes}",
            f"SPHINXOPTS=-q -D recipebook_dir={recipes}",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        check=False,
    )
    assert made.returncode != 0  # a broken recipe still fails the build
    output = (made.stdout + made.stderr).splitlines()
    for problem in problems:  # once each, in validate's words
        assert output.count(problem) == 1, "\n".join(output)
    assert not any("[recipebook." in line for line in output), "\n".join(output)
    # at the end: nothing but validate's count and make's verdict come after the problems
    last = max(output.index(problem) for problem in problems)
    assert all("problem(s)" in line or line.startswith("make") for line in output[last + 1 :]), output[last:]
