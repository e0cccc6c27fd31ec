"""Verdicts filed on disk (recipebook.pipeline.verdicts): make html checks each recipe once and the
language builds read the verdicts; a changed file or engine, or an entry that is not a verdict,
is checked again, never trusted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, ROOTS
from recipe_support import GPT_NAME, NAMES, RECIPES, SHIPPED, fixture, in_process, recipe_names
from recipebook.pipeline import load, verdicts


def _folder_of_recipes(folder: Path) -> list[Path]:
    """The shipped recipes and a broken one (a placeholder no axis fills, a misspelt key)."""
    folder.mkdir()
    paths = [Path(shutil.copy(RECIPES / f"{name}.json", folder)) for name in NAMES]
    data = fixture(GPT_NAME)
    data["name"] = "broken"
    data["strategies"][0]["options"][0]["grid"]["base"][0]["args"]["--max-num-seqs"] = "--max-num-seqs $SEQS"
    data["strategies"][0]["slugg"] = "typo"
    broken = folder / "broken.json"
    broken.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return [*paths, broken]


class _Counted:
    """check_file, counting its calls (the real one runs)."""

    def __init__(self) -> None:
        self.calls: list[Path] = []

    def __call__(self, path):
        self.calls.append(Path(path))
        return load.check_file(path)


@pytest.fixture
def counted(monkeypatch) -> _Counted:
    spy = _Counted()
    monkeypatch.setattr(verdicts, "check_file", spy)
    return spy


def test_a_filed_verdict_is_the_checks_and_is_read_back_without_checking(tmp_path, counted):
    paths, folder = _folder_of_recipes(tmp_path / "recipes"), tmp_path / "verdicts"
    first = [verdicts.verdict(path, folder) for path in paths]
    assert counted.calls == paths
    assert len(list(folder.glob("*.json"))) == len(paths)
    for path, found in zip(paths, first, strict=True):
        recipe, problems = load.check_file(path)
        assert found.problems == problems
        assert (found.name is None) == (recipe is None)
    assert first[-1].problems and all(p.file == str(paths[-1]) for p in first[-1].problems)
    assert first[0].selections and first[0].selections > 1
    counted.calls.clear()
    again = [verdicts.verdict(path, folder) for path in paths]
    assert counted.calls == []
    assert again == first
    assert [p.kind for p in again[-1].problems] == [p.kind for p in first[-1].problems]


def test_a_changed_byte_or_engine_is_checked_again(tmp_path, counted, monkeypatch):
    paths, folder = _folder_of_recipes(tmp_path / "recipes"), tmp_path / "verdicts"
    valid = paths[0]
    assert verdicts.verdict(valid, folder).problems == []
    text = valid.read_text(encoding="utf-8")
    valid.write_text(text.replace('"--max-num-seqs', '"--max-num-seqz', 1), encoding="utf-8")
    counted.calls.clear()
    changed = verdicts.verdict(valid, folder)
    assert counted.calls == [valid]
    assert any("--max-num-seqz" in p.message for p in changed.problems)
    valid.write_text(text, encoding="utf-8")  # the old bytes: the old entry again, not a check
    counted.calls.clear()
    assert verdicts.verdict(valid, folder).problems == []
    assert counted.calls == []
    monkeypatch.setattr(verdicts, "engine_fingerprint", lambda: "another engine")
    assert verdicts.verdict(valid, folder).problems == []
    assert counted.calls == [valid]


def test_the_engines_fingerprint_covers_its_code_data_schema_and_libraries():
    fingerprint = verdicts.engine_fingerprint()
    assert len(fingerprint) == 64
    files = {p.name for p in verdicts.ENGINE.rglob("*") if p.suffix in (".py", ".json")}
    assert {"rules.py", "vllm-0.33.0.json", "verdicts.py"} <= files
    assert verdicts.SCHEMA_PATH.exists()


@pytest.mark.parametrize(
    "entry",
    [
        b"",
        b"{",
        b"[]",
        json.dumps({"problems": [], "name": None, "selections": None}).encode(),  # neither valid nor a problem
        json.dumps({"problems": [], "name": "broken", "selections": "many"}).encode(),
        json.dumps({"problems": [["f", 1, 1, "", "m", "NOT_A_KIND"]], "name": None, "selections": None}).encode(),
        json.dumps({"problems": [], "name": "broken", "selections": 3}).encode() + b" " * verdicts.LIMIT,
    ],
    ids=["empty", "cut", "list", "neither", "count-not-a-number", "unknown-kind", "oversized"],
)
def test_an_entry_that_is_not_a_verdict_is_checked_again(tmp_path, counted, entry):
    paths, folder = _folder_of_recipes(tmp_path / "recipes"), tmp_path / "verdicts"
    broken = paths[-1]
    expected = verdicts.verdict(broken, folder)
    (entry_path,) = folder.glob("*.json")
    entry_path.write_bytes(entry)
    counted.calls.clear()
    assert verdicts.verdict(broken, folder) == expected
    assert counted.calls == [broken]
    assert verdicts.verdict(broken, folder) == expected  # filed again, whole
    assert len(counted.calls) == 1


def test_a_fifo_is_refused_as_without_verdicts_and_never_filed(tmp_path):
    fifo, folder = tmp_path / "pipe.json", tmp_path / "verdicts"
    os.mkfifo(fifo)
    found = verdicts.verdict(fifo, folder)
    assert found.name is None
    assert ["a FIFO" in p.message for p in found.problems] == [True]
    assert not folder.exists() or not list(folder.iterdir())


def test_prune_keeps_the_named_files_verdicts_only(tmp_path):
    paths, folder = _folder_of_recipes(tmp_path / "recipes"), tmp_path / "verdicts"
    for path in paths:
        verdicts.verdict(path, folder)
    (folder / ".x.part").write_text("half", encoding="utf-8")
    (folder / "kept.txt").write_text("not ours", encoding="utf-8")
    verdicts.prune(folder, paths[:1])
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["kept.txt", f"{verdicts._key(paths[0], paths[0].read_bytes())}.json"]
    )


def _validate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-m", "recipebook", "validate", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        check=False,
    )


def test_validate_with_verdicts_says_the_same_and_files_them(tmp_path, capsys):
    """The runs with verdicts in real processes (each files or reads them afresh); what they are
    compared with, validate without verdicts, by its main in this process."""
    paths, folder = _folder_of_recipes(tmp_path / "recipes"), tmp_path / "verdicts"
    plain = in_process(capsys, "validate", *map(str, paths), cwd=ROOT)
    filed = _validate("--verdicts", str(folder), *map(str, paths))
    read = _validate("--verdicts", str(folder), *map(str, paths))
    assert plain.returncode == filed.returncode == read.returncode == 1
    assert plain.stdout == filed.stdout == read.stdout
    assert plain.stderr == filed.stderr == read.stderr
    assert "broken.json:" in plain.stderr
    assert len(list(folder.glob("*.json"))) == len(paths)
    valid = _validate("--verdicts", str(folder), *map(str, paths[:2]))
    assert (
        valid.returncode == 0 and valid.stdout == in_process(capsys, "validate", *map(str, paths[:2]), cwd=ROOT).stdout
    )
    assert len(list(folder.glob("*.json"))) == 2  # pruned to the files named


@pytest.fixture
def filed(tmp_path) -> Path:
    folder = tmp_path / "verdicts"
    for name in recipe_names():  # every recipe of the folder the test root builds: the shipped ones
        verdicts.verdict(SHIPPED / f"{name}.json", folder)
    return folder


def _build_counting(make_app, srcdir: Path, monkeypatch, **overrides) -> list[Path]:
    import recipebook_sphinx.store as store

    calls: list[Path] = []

    def spy(path, memo=None):
        calls.append(Path(path))
        return load.check_file(path, memo)

    monkeypatch.setattr(store, "check_file", spy)
    monkeypatch.setattr(verdicts, "check_file", spy)
    app = make_app("html", srcdir=srcdir, confoverrides=overrides, freshenv=True)
    app.build()
    assert app.statuscode == 0
    return calls


def test_a_build_given_the_verdicts_checks_no_recipe(make_app, tmp_path, filed, monkeypatch):
    source = tmp_path / "src"
    shutil.copytree(ROOTS / "test-recipes", source)
    assert _build_counting(make_app, source, monkeypatch, recipebook_verdicts=str(filed)) == []
    assert all((source / "_build" / "html" / f"{name}.html").exists() for name in recipe_names())
    # without the folder, the build checks each recipe itself
    checked = _build_counting(make_app, source, monkeypatch)
    assert sorted(p.stem for p in checked) == recipe_names()


def test_make_html_files_one_verdict_per_recipe(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOTS / "test-recipes", source)
    build = tmp_path / "build"
    made = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "html",
            f"BUILD={build}",
            f"SOURCEDIR={source}",
            f"CONFDIR={source}",
            "LANGUAGES=en",
            "SPHINXOPTS=-q",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        check=False,
    )
    assert made.returncode == 0, made.stderr
    assert "recipe(s) valid" in made.stdout
    assert len(list((build / "verdicts").glob("*.json"))) == len(recipe_names())
