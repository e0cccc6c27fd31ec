"""Ready-to-run files of any selection: the browser's writer and the command line's.

The site publishes static files only for the selection each target opens on; every
other selection's files are written in the reader's browser by
``static/recipebook-files.js`` from the recipe's API document. Here that script runs
in Node.js on the documents the engine publishes and must give, for every offered
selection of every recipe, byte for byte the files of the engine's ``files.py``, with
and without placeholder values; the scripts it writes pass ``bash -n`` and shellcheck.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from recipebook import expand, explorer, load, offered, portable, shell
from recipebook.expansion import expand_selection
from recipebook.files import selection_files

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "_ext" / "recipebook_sphinx" / "static" / "recipebook-files.js"
PATHS = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")

RUNNER = """
const files = require(process.argv[2]);
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const job = JSON.parse(input);
  const out = job.cases.map(([t, selection, values]) =>
    files.build({ recipe: job.recipe, target: job.targets[t] }, selection, values));
  process.stdout.write(JSON.stringify(out));
});
"""


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to run the browser's file writer; .ci/run installs nodejs")
    return node


def _cases(recipe):
    """Every offered selection of every target, with its index in the document."""
    templates = [explorer.build(recipe, s, t) for s, t in recipe.targets()]
    cases = []
    for t, (strategy, target) in enumerate(recipe.targets()):
        for selection in offered(target.grid):
            cases.append((t, strategy, target, selection))
    return templates, cases


def _values(recipe) -> dict[str, str]:
    """A value for every placeholder the recipe uses (host-like, as the explorer accepts)."""
    names = set()
    for _s, target in recipe.targets():
        for expansion in (expand_selection(recipe, _s, target, sel) for sel in offered(target.grid)):
            for command in expansion.commands:
                names.update(shell.placeholders(command.shell))
            for _node_name, cmd in expansion.router:
                names.update(shell.placeholders(cmd))
    return {name: f"10.0.0.{i + 5}" for i, name in enumerate(sorted(names))}


def _run_in_node(tmp_path: Path, recipe, document, cases) -> list[dict[str, str]]:
    runner = tmp_path / "runner.js"
    runner.write_text(RUNNER)
    job = {"recipe": recipe.name, "targets": document["targets"], "cases": cases}
    result = subprocess.run(
        [_node(), str(runner), str(SCRIPT)], input=json.dumps(job), capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_the_browser_writes_every_selections_files_as_the_engine_does(tmp_path, path):
    recipe = load(path)
    templates, cases = _cases(recipe)
    document = json.loads(json.dumps(portable.recipe_document(recipe, templates)))  # as published
    values = _values(recipe)
    jobs = [[t, selection, {}] for t, _s, _t, selection in cases]
    jobs += [[t, selection, values] for t, _s, _t, selection in cases]
    got = _run_in_node(tmp_path, recipe, document, jobs)
    expected = [selection_files(expand_selection(recipe, s, t, sel)) for _i, s, t, sel in cases]
    expected += [selection_files(expand_selection(recipe, s, t, sel), values) for _i, s, t, sel in cases]
    assert len(got) == len(expected) == 2 * len(cases)
    for job, mine, theirs in zip(jobs, got, expected, strict=True):
        assert list(mine) == list(theirs), job
        for name in theirs:
            assert mine[name] == theirs[name], (job, name)
    if values:  # placeholders filled in: no reference to them is left
        for files in got[len(cases) :]:
            for name in values:
                assert all(f"<{name}>" not in text for text in files.values())


def test_the_browsers_scripts_pass_bash_n_and_shellcheck(tmp_path):
    scripts: dict[str, str] = {}
    for path in PATHS:
        recipe = load(path)
        templates, cases = _cases(recipe)
        document = json.loads(json.dumps(portable.recipe_document(recipe, templates)))
        values = _values(recipe)
        jobs = [[t, sel, v] for t, _s, _t, sel in cases for v in ({}, values)]
        for files in _run_in_node(tmp_path, recipe, document, jobs):
            for name, text in files.items():
                if name.endswith((".sh", ".env")):
                    scripts.setdefault(text, name)
    folder = tmp_path / "scripts"
    folder.mkdir()
    written = []
    for n, (text, name) in enumerate(scripts.items()):
        target = folder / f"{n}-{name}"
        target.write_text(text)
        written.append(str(target))
        result = subprocess.run(["bash", "-n", str(target)], capture_output=True, text=True)
        assert result.returncode == 0, (name, result.stderr)
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck is installed by .ci/run"
    result = subprocess.run([shellcheck, "-s", "bash", *written], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[:3000]
    assert any(name == "serve.sh" for name in scripts.values())


def files_command(*args) -> subprocess.CompletedProcess:
    """python -m recipebook files ARGS, as an author runs it."""
    return subprocess.run(
        [sys.executable, "-m", "recipebook", "files", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "_ext"), "PATH": "/usr/bin:/bin"},
    )


def test_the_command_line_writes_a_selections_files(tmp_path):
    recipe = load(PATHS[0])
    strategy, target = list(recipe.targets())[-1]
    selection = list(offered(target.grid))[-1]
    sets = [arg for axis, value in selection.items() for arg in ("--set", f"{axis}={value}")]
    out = tmp_path / "files"
    result = files_command(PATHS[0], "--strategy", strategy.slug, "--target", target.target, *sets, "--out", str(out))
    assert result.returncode == 0, result.stderr
    expected = selection_files(expand_selection(recipe, strategy, target, selection))
    assert sorted(p.name for p in out.iterdir()) == sorted(expected)
    for name, text in expected.items():
        assert (out / name).read_text() == text
    assert (out / "serve.sh").stat().st_mode & 0o111


def test_the_command_line_names_an_unknown_choice_without_a_traceback(tmp_path):
    result = files_command(PATHS[0], "--strategy", "nope", "--target", "x", "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "unknown strategy 'nope'" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_the_published_selection_read_from_the_template_equals_its_expansion(path):
    recipe = load(path)
    for strategy, target in recipe.targets():
        template = explorer.build(recipe, strategy, target)
        published = portable.static_selection(recipe, template)
        expected = expand(recipe, strategy.slug, target.target)  # the selection the page opens on
        assert published.selection == expected.selection
        assert published.recommended == expected.recommended
        assert [(c.role, c.rank, c.envs, c.args, c.shell) for c in published.commands] == [
            (c.role, c.rank, c.envs, c.args, c.shell) for c in expected.commands
        ]
        assert selection_files(published) == selection_files(expected)
