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

from recipebook import expand, load, offered, shell
from recipebook.expanding.expansion import reference_role
from recipebook.expanding.page import expand_selection, expansion_at, page_of
from recipebook.rendering import files, portable
from recipebook.rendering.files import selection_files

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "_ext" / "recipebook_sphinx" / "static" / "recipebook-files.js"
# the shipped recipes, and a fixture of every shape of a role that spans nodes
PATHS = [
    *sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json"),
    *sorted((ROOT / "tests" / "data" / "multinode").glob("*.json")),
]

RUNNER = """
const files = require(process.argv[2]);
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const job = JSON.parse(input);
  const out = job.cases.map(([t, selection, values]) =>
    files.build({ recipe: job.recipe, target: job.targets[t] }, selection, values));
  if (job.archives) {
    // each case's files as the one download: the tar bytes, base64
    const tars = out.map((written, k) => Buffer.from(
      files.archive(files.folderName(job.recipe, job.targets[job.cases[k][0]]), written)).toString("base64"));
    process.stdout.write(JSON.stringify(tars));
    return;
  }
  process.stdout.write(JSON.stringify(out));
});
"""


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail(
            "Node.js is needed to run the browser's file writer; make test installs nodejs (tools/system-packages)"
        )
    return node


def _cases(recipe):
    """The recipe's API document as published, and every offered selection of every target
    with the target's index in the document."""
    document = json.loads(json.dumps(portable.recipe_document(page_of(recipe))))
    cases = []
    for t, (strategy, target) in enumerate(recipe.targets()):
        for selection in offered(target.grid):
            cases.append((t, strategy, target, selection))
    return document, cases


def _values(recipe) -> dict[str, str]:
    """A value for every placeholder the recipe uses (host-like, as the explorer accepts),
    and for one each node fills in, a value per node as well (NAME@NODE), all different."""
    names, nodes = set(), 1
    for target in page_of(recipe).targets:
        names.update(p.name for p in target.placeholders)
        nodes = max(nodes, len(target.nodes))
    values = {name: f"10.0.0.{i + 5}" for i, name in enumerate(sorted(names))}
    for name, scope in recipe.placeholder_scopes.items():
        if scope == "node":
            values.update({f"{name}@{n}": f"10.1.{n}.{len(values)}" for n in range(1, nodes + 1)})
    return values


def _run_in_node(tmp_path: Path, recipe, document, cases, archives: bool = False) -> list:
    runner = tmp_path / "runner.js"
    runner.write_text(RUNNER)
    job = {"recipe": recipe.name, "targets": document["targets"], "cases": cases, "archives": archives}
    result = subprocess.run(
        [_node(), str(runner), str(SCRIPT)], input=json.dumps(job), capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def browser_written(tmp_path_factory):
    """Per recipe path: every offered selection of every target (``_cases``) and the files the
    browser's writer gives for each, first with no value (one job per case, in order), then with
    a value for every placeholder (``_values``), from one Node.js run per recipe. The files test
    compares them all with the engine's, and the scripts among them are judged by bash -n and
    shellcheck."""
    folder = tmp_path_factory.mktemp("browser-written")
    written = {}
    for path in PATHS:
        recipe = load(path)
        document, cases = _cases(recipe)
        values = _values(recipe)
        jobs = [[t, selection, {}] for t, _s, _t, selection in cases]
        jobs += [[t, selection, values] for t, _s, _t, selection in cases]
        written[path] = (recipe, cases, values, jobs, _run_in_node(folder, recipe, document, jobs))
    return written


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_the_browser_writes_every_selections_files_as_the_engine_does(browser_written, path):
    recipe, cases, values, jobs, got = browser_written[path]
    expansions = [expand_selection(recipe, s, t, sel) for _i, s, t, sel in cases]
    expected = [selection_files(expansion) for expansion in expansions]
    expected += [selection_files(expansion, values) for expansion in expansions]
    assert len(got) == len(expected) == 2 * len(cases)
    for job, mine, theirs in zip(jobs, got, expected, strict=True):
        assert list(mine) == list(theirs), job
        for name in theirs:
            assert mine[name] == theirs[name], (job, name)
    if values:  # placeholders filled in: no reference to them is left
        for files in got[len(cases) :]:
            for name in values:
                assert all(f"<{name}>" not in text for text in files.values())


def test_the_browsers_scripts_pass_bash_n_and_shellcheck(tmp_path, browser_written):
    scripts: dict[str, str] = {}
    for path in PATHS:
        for written in browser_written[path][-1]:
            for name, text in written.items():
                if name.endswith((".sh", ".env")):
                    scripts.setdefault(text, name)
    folder = tmp_path / "scripts"
    folder.mkdir()
    written = []
    for n, (text, name) in enumerate(scripts.items()):
        target = folder / f"{n}-{name.replace('/', '-')}"
        target.write_text(text)
        written.append(str(target))
        result = subprocess.run(["bash", "-n", str(target)], capture_output=True, text=True)
        assert result.returncode == 0, (name, result.stderr)
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck is installed by make test (tools/system-packages)"
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
        env={"PATH": "/usr/bin:/bin"},
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
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == sorted(expected)
    for name, text in expected.items():
        assert (out / name).read_text() == text
    assert (out / "serve.sh").stat().st_mode & 0o111


def test_the_command_line_names_an_unknown_choice_without_a_traceback(tmp_path):
    result = files_command(PATHS[0], "--strategy", "nope", "--target", "x", "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "unknown strategy 'nope'" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_the_published_selection_is_the_opening_selections_expansion(path):
    recipe = load(path)
    for target in page_of(recipe).targets:
        published = expansion_at(recipe, target, target.opening)
        expected = expand(recipe, target.strategy.slug, target.target.target)  # the selection the page opens on
        assert published.selection == expected.selection
        grid = target.target.grid
        reference = [c for role in grid.base for c in reference_role(grid, role, expected.selection)]
        assert [c.shell for c in published.commands] == [c.shell for c in reference]
        assert selection_files(published) == selection_files(expected)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_each_node_fills_in_its_own_values(path):
    """A placeholder each node fills in takes, in every command, health check and file, the
    value of the node that runs the command (each node of a role that spans nodes its own); a
    head placeholder the value its node placeholder has on the role's head; a shared one the
    same value everywhere."""
    recipe = load(path)
    values = _values(recipe)
    for target in page_of(recipe).targets:
        expansion = expansion_at(recipe, target, target.opening)
        written = selection_files(expansion, values)
        for command in expansion.commands:
            node = command.node or target.node_of(command.role)
            head = target.node_of(command.role)
            text = written[f"{command.name}.env"] + written[f"{command.name}.yaml"]
            used = [p for p in target.placeholders if p.text in command.shell]
            wanted = {}
            for placeholder in used:
                own = values.get(f"{placeholder.name}@{node}") if placeholder.scope == "node" else None
                if placeholder.scope == "head":
                    assert command.node is not None, "a head placeholder outside a role that spans nodes"
                    own = values[f"{placeholder.of}@{head}"]
                wanted[placeholder.name] = own or values[placeholder.name]
            for placeholder in used:
                expected = wanted[placeholder.name]
                # no value of this placeholder but the expected one (nor one another placeholder shows)
                others = {
                    v for k, v in values.items() if k.split("@")[0] == placeholder.name and v not in wanted.values()
                }
                assert expected in text or placeholder.text not in (*command.envs, *command.args)
                assert not any(other in text for other in others), (command.name, placeholder.name)


HOSTILE = ["'; echo INJECTED >&2; : '", "$(id)", "a b", "`id`", "10.0.0.5\nid", "", "x" * 300, "\u200b10.0.0.5"]


def test_the_browser_and_the_command_line_check_a_value_alike(tmp_path):
    """files.value_problem and recipebook-files.js valueProblem give the same verdict."""
    names = ["POD_IP", "EPP_HOST", "TOKEN", "ROUTER_ADDR"]
    samples = [*HOSTILE, "10.0.0.5", "pod-1.example.com", "1.2.3", "256.1.1.1", "a_b", "-x", "host:8080", "x.y/z"]
    script = (
        f"const f = require({json.dumps(str(SCRIPT))});"
        f"const names = {json.dumps(names)}; const samples = {json.dumps(samples)};"
        "process.stdout.write(JSON.stringify(names.map((n) => samples.map((s) => f.valueProblem(n, s)))));"
    )
    result = subprocess.run([_node(), "-e", script], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == [[files.value_problem(n, s) for s in samples] for n in names]
    assert all(files.value_problem("POD_IP", s) for s in HOSTILE)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_hostile_stored_values_never_reach_the_files(tmp_path, path):
    """Values that would change a command (as any script could leave them in localStorage) are
    dropped by the browser's writer: its files are those with no value at all."""
    recipe = load(path)
    document, cases = _cases(recipe)
    hostile = {}
    for target in page_of(recipe).targets:
        for placeholder in target.placeholders:
            hostile[placeholder.name] = HOSTILE[len(hostile) % len(HOSTILE)]
            hostile[f"{placeholder.name}@2"] = {"object": "value"}
    picked = cases[:: max(1, len(cases) // 12)]
    got = _run_in_node(tmp_path, recipe, document, [[t, sel, hostile] for t, _s, _t, sel in picked])
    for files_written, (_t, strategy, target, selection) in zip(got, picked, strict=True):
        assert files_written == selection_files(expand_selection(recipe, strategy, target, selection))


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_the_one_download_is_the_command_lines_archive(tmp_path, path):
    """The browser's tar of a selection's files is byte for byte the archive of
    ``python -m recipebook files --archive``, and tar reads it back to the same files."""
    import base64
    import io
    import tarfile

    recipe = load(path)
    document, cases = _cases(recipe)
    values = _values(recipe)
    picked = cases[:: max(1, len(cases) // 8)]
    got = _run_in_node(tmp_path, recipe, document, [[t, sel, values] for t, _s, _t, sel in picked], archives=True)
    for encoded, (_t, strategy, target, selection) in zip(got, picked, strict=True):
        expansion = expand_selection(recipe, strategy, target, selection)
        written = selection_files(expansion, values)
        expected = files.archive(files.folder_name(expansion), written)
        assert base64.b64decode(encoded) == expected
        with tarfile.open(fileobj=io.BytesIO(expected)) as archive:
            members = archive.getmembers()
            assert [m.name for m in members] == [f"{files.folder_name(expansion)}/{name}" for name in written]
            for member in members:
                assert archive.extractfile(member).read().decode() == written[member.name.split("/", 1)[1]]
                assert bool(member.mode & 0o111) == member.name.endswith(".sh")


def test_the_command_line_writes_the_archive_with_each_nodes_values(tmp_path):
    recipe = load(PATHS[0])
    model = page_of(recipe)
    target = max(model.targets, key=lambda t: len(t.nodes))
    archive = tmp_path / "files.tar"
    # the command line takes the placeholders of this selection's files only (a value for another
    # would be ignored), and one each node fills in per node only
    opening = expansion_at(recipe, target, target.opening)
    held = set(shell.placeholders("\n".join(selection_files(opening).values())))
    wanted = {
        key: value
        for key, value in _values(recipe).items()
        if key.split("@")[0] in held and ("@" in key or recipe.placeholder_scopes.get(key) != "node")
    }
    sets = [arg for key, value in wanted.items() for arg in ("--set-placeholder", f"{key}={value}")]
    result = files_command(
        PATHS[0], "--strategy", target.strategy.slug, "--target", target.target.target, *sets, "--archive", archive
    )
    assert result.returncode == 0, result.stderr
    expansion = expansion_at(recipe, target, target.opening)
    assert archive.read_bytes() == files.archive(
        files.folder_name(expansion), selection_files(expansion, _values(recipe))
    )
    refused = files_command(
        PATHS[0],
        "--strategy",
        target.strategy.slug,
        "--target",
        target.target.target,
        "--set-placeholder",
        "POD_IP@1=$(id)",
        "--archive",
        tmp_path / "no.tar",
    )
    assert refused.returncode == 2 and "cannot stand in for <POD_IP>" in refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "no.tar").exists()


def test_each_arguments_config_entry_is_written_once_and_forgotten_with_the_rest():
    from recipebook import forget

    forget()
    recipe = load(PATHS[0])
    target = page_of(recipe).targets[0]
    first = [selection_files(expansion_at(recipe, target, chosen)) for chosen in target.table.offered[:4]]
    written = files.config_entry.cache_info()
    assert written.hits > written.misses  # the selections share most of their arguments
    again = [selection_files(expansion_at(recipe, target, chosen)) for chosen in target.table.offered[:4]]
    assert again == first
    assert files.config_entry.cache_info().misses == written.misses
    forget()
    assert files.config_entry.cache_info().currsize == 0
