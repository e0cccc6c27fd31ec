"""What the engine remembers is in sight: a caller's Memo, and remembered functions that forget() empties."""

from __future__ import annotations

import ast
import json
import pickle
from pathlib import Path

import pytest

import recipebook
from recipebook import memo
from recipebook.expanding import page, table
from recipebook.memo import Memo
from recipebook.pipeline.load import check_file

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "_ext" / "recipebook"
# a fixture recipe whose targets share grids (extends): several grids, several tables
FIXTURE = ROOT / "tests" / "roots" / "sharing" / "recipes" / "shared-model.json"


def _recipe_file(tmp_path: Path) -> Path:
    """The fixture recipe, in a folder of its own."""
    source = FIXTURE
    path = tmp_path / source.name
    path.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def _engine_modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(ENGINE.rglob("*.py"))]


def test_no_cache_of_the_engine_is_written_outside_memo() -> None:
    # functools' caches would escape forget(); an object's __dict__ would hide state in a frozen object
    found = []
    for path, module in _engine_modules():
        if path.name == "memo.py":
            continue
        for node in ast.walk(module):
            if not isinstance(node, ast.Attribute):
                pass
            elif node.attr == "__dict__" or (
                node.attr in ("lru_cache", "cache")
                and isinstance(node.value, ast.Name)
                and node.value.id == "functools"
            ):
                found.append(f"{path.relative_to(ENGINE)}:{node.lineno}: {node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module == "functools":
                names = {alias.name for alias in node.names}
                if names & {"lru_cache", "cache"}:
                    found.append(f"{path.relative_to(ENGINE)}:{node.lineno}: from functools import {names}")
    assert found == []


def test_forget_empties_every_remembered_function(tmp_path: Path) -> None:
    recipe, problems = check_file(_recipe_file(tmp_path))
    assert problems == [] and recipe is not None
    list(page.matrix(recipe))
    before = memo.remembered_sizes()
    assert "recipebook.shell._words" in before  # the text caches of shell, rules, safety, vocabulary...
    assert sum(before.values()) > 0
    recipebook.forget()
    assert set(memo.remembered_sizes().values()) == {0}


def test_a_memo_keeps_what_its_owner_asks_for_and_nothing_without_one(tmp_path: Path) -> None:
    recipe, _problems = check_file(_recipe_file(tmp_path))
    assert recipe is not None
    kept = Memo()
    first = page.page_of(recipe, kept)
    assert page.page_of(recipe, kept) is first
    assert page.page_of(recipe, Memo()) is not first  # another owner, another model
    assert page.page_of(recipe) is not page.page_of(recipe)  # no memo: nothing kept anywhere
    kept.drop(recipe)
    assert page.page_of(recipe, kept) is not first


def test_the_page_model_reuses_the_tables_the_rules_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    real = table.build

    def counting(grid: object, **options: bool) -> object:
        built.append(grid)
        return real(grid, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(table, "build", counting)
    kept = Memo()
    recipe, problems = check_file(_recipe_file(tmp_path), kept)
    assert problems == [] and recipe is not None
    grids = [target.grid for _strategy, target in recipe.targets()]
    assert len(built) == len(grids)  # one table per grid while checking
    page.page_of(recipe, kept)
    list(page.matrix(recipe, kept))
    assert len(built) == len(grids)  # none built again for the page model and the matrix
    assert {id(grid) for grid in built} == {id(grid) for grid in grids}


def test_a_memo_is_read_back_empty(tmp_path: Path) -> None:
    kept = Memo()
    _recipe, _problems = check_file(_recipe_file(tmp_path), kept)
    assert len(kept) > 0
    again = pickle.loads(pickle.dumps({"memo": kept}))["memo"]
    assert isinstance(again, Memo) and len(again) == 0


def test_a_checked_recipe_file_leaves_nothing_behind_without_a_memo(tmp_path: Path) -> None:
    # the tables and page model the rules built were the check's own: a second check builds them again
    path = _recipe_file(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    first, _ = check_file(path)
    second, _ = check_file(path)
    assert first is not None and second is not None and first is not second
    assert first.name == second.name == data["name"]


def test_checking_works_out_no_memory_figures_and_the_page_model_still_has_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the rules read a page model's commands (serve.sh, NPUs): its memory figures are the page's
    # work, not the check's (a large recipe's are a fifth of its check)
    source = ROOT / "tests" / "data" / "recipes" / "gpt-oss-120b.json"
    path = tmp_path / source.name
    path.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    worked: list[object] = []
    real = page._memory

    def counting(*args: object) -> object:
        worked.append(args[2])
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(page, "_memory", counting)
    kept = Memo()
    recipe, problems = check_file(path, kept)
    assert problems == [] and recipe is not None
    assert worked == []
    model = page.page_of(recipe, kept)
    assert len(worked) == len(model.targets) and all(target.memory for target in model.targets)
    bare = page.page_of(recipe, kept, figures=False)
    assert bare is not model and all(target.memory == () for target in bare.targets)
    assert [t.opening for t in bare.targets] == [t.opening for t in model.targets]
