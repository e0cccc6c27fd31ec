"""Problem levels (issue 39.2): every problem is an error (the recipe is wrong: not built, the
build fails) or a warning (a style the portal prefers: the documented dashed spelling of a flag
vLLM also accepts written with '_' or shortened). `validate` and `make html` print both, once,
each with its level; only errors fail unless the build is strict (`-W`, `STRICT=1`)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from test_cli import LOCATED, no_traceback, run

from recipe_support import GPT_NAME, fixture, in_process
from recipebook import check_file
from recipebook.pipeline import verdicts
from recipebook.problems import Level, errors, warnings

BASE = "/strategies/0/options/0/grid/base/0/args"
WARNED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<pointer>/\S*): warning: (?P<message>.+)$")


def _write(folder: Path, *, warning: bool = True, error: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = fixture(GPT_NAME)
    args = data["strategies"][0]["options"][0]["grid"]["base"][0]["args"]
    if warning:  # vLLM reads --max_num_seqs as --max-num-seqs: the command runs as shown
        args["--max_num_seqs"] = args.pop("--max-num-seqs").replace("--max-num-seqs", "--max_num_seqs")
    if error:
        args["--max-model-len"] = "--max-model-len eight"
    path = folder / f"{GPT_NAME}.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def test_a_spelling_vllm_accepts_is_a_warning_and_the_recipe_is_built(tmp_path):
    path = _write(tmp_path)
    recipe, problems = check_file(path)
    assert recipe is not None
    assert [p.level for p in problems] == [Level.WARNING]
    assert problems[0].pointer == f"{BASE}/--max_num_seqs"
    assert errors(problems) == [] and warnings(problems) == problems


def test_validate_prints_a_warning_with_its_level_and_passes(tmp_path, capsys):
    path = _write(tmp_path)
    result = in_process(capsys, "validate", path)
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    match = WARNED.match(lines[0])
    assert match and match["pointer"] == f"{BASE}/--max_num_seqs", lines[0]
    assert match["message"].startswith("write '--max-num-seqs'")
    assert lines[1] == "1 warning(s) in 1 of 1 recipe file(s)"
    assert result.stdout.startswith("1 recipe(s) valid")


@pytest.mark.parametrize("flag", ["-W", "--strict"])
def test_a_strict_validate_fails_on_a_warning(tmp_path, capsys, flag):
    """-W in a real process (its exit status as the shell sees it); its long form, the same option,
    by validate's main in this process."""
    path = _write(tmp_path)
    result = run("validate", flag, path) if flag == "-W" else in_process(capsys, "validate", flag, path)
    no_traceback(result)
    assert result.returncode == 1
    assert WARNED.match(result.stderr.splitlines()[0])
    assert result.stderr.splitlines()[-1] == "1 warning(s) in 1 of 1 recipe file(s) (strict: warnings fail)"


def test_errors_and_warnings_are_printed_once_each_and_errors_fail(tmp_path, capsys):
    path = _write(tmp_path, error=True)
    result = in_process(capsys, "validate", path)
    no_traceback(result)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    problems, summary = lines[:-1], lines[-1]
    warned = [line for line in problems if WARNED.match(line)]
    wrong = [line for line in problems if not WARNED.match(line)]
    assert len(warned) == 1 and len(wrong) == 1, result.stderr
    assert all(LOCATED.match(line) for line in problems)
    assert LOCATED.match(wrong[0])["pointer"] == f"{BASE}/--max-model-len"
    assert summary == "1 problem(s) in 1 of 1 recipe file(s); 1 warning(s) in 1 of 1 recipe file(s)"


def test_a_verdict_keeps_each_problem_level(tmp_path):
    path = _write(tmp_path / "recipes")
    folder = tmp_path / "verdicts"
    first = verdicts.verdict(path, folder)
    again = verdicts.verdict(path, folder)  # read back from the folder
    assert list(folder.glob("*.json")), "the verdict was not filed"
    assert again == first and again.name == GPT_NAME
    assert [p.level for p in again.problems] == [Level.WARNING]


def test_a_sphinx_build_on_its_own_warns_a_recipe_warning_and_fails_on_an_error(make_app, rootdir, tmp_path):
    recipes = tmp_path / "recipes"
    _write(recipes, error=True)
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    app = make_app("html", srcdir=srcdir, confoverrides={"recipebook_dir": str(recipes)})
    app.build()
    lines = [line for line in app._warning.getvalue().splitlines() if f"{GPT_NAME}.json:" in line]
    assert any("--max_num_seqs: warning: write '--max-num-seqs'" in line for line in lines), lines
    assert any("--max-model-len: " in line and ": warning:" not in line for line in lines), lines
    assert app.statuscode == 1  # the error fails the build, with or without -W


def test_an_environment_name_vllm_does_not_read_builds_and_fails_only_a_strict_validate(tmp_path, capsys):
    """vLLM starts with a VLLM_ name it does not read (it warns of it): a warning here, which only
    a strict run (-W, STRICT=1) refuses."""
    path = _write(tmp_path, warning=False)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["strategies"][0]["options"][0]["grid"]["base"][0]["envs"]["VLLM_USE_V1"] = "VLLM_USE_V1=1"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    lenient, strict = in_process(capsys, "validate", path), in_process(capsys, "validate", "-W", path)
    for result in (lenient, strict):
        no_traceback(result)
        warned = WARNED.match(result.stderr.splitlines()[0])
        assert warned and warned["pointer"] == f"{BASE.removesuffix('/args')}/envs/VLLM_USE_V1", result.stderr
        assert "the variable has no effect" in warned["message"]
    assert lenient.returncode == 0 and lenient.stdout.startswith("1 recipe(s) valid")
    assert strict.returncode == 1
