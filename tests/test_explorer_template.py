"""The explorer template and the build's recipe record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from recipebook import explorer, load, offered
from recipebook.explorer import Block
from recipebook_sphinx import store

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["gpt-oss-120b", "A.X-K2"])
def test_templates_reproduce_every_selection(name):
    recipe = load(ROOT / "recipes" / f"{name}.json")
    for strategy, target in recipe.targets():
        template, wrong = explorer.build_checked(recipe, strategy, target)
        assert wrong == []
        assert template.selections == sum(1 for _ in offered(target.grid))
        # each line is stored once per place it can take, far fewer than selections x lines
        lines = sum(len(block.lines) for block in template.blocks)
        assert lines < template.selections * len(template.blocks) * 5


def test_a_template_that_would_show_other_commands_is_caught(monkeypatch):
    recipe = load(ROOT / "recipes" / "gpt-oss-120b.json")
    strategy, target = next(recipe.targets())
    original = Block.text
    monkeypatch.setattr(Block, "text", lambda self, chosen: original(self, chosen).replace(" \\\n    --trust", ""))
    _template, wrong = explorer.build_checked(recipe, strategy, target)
    assert len(wrong) == 54  # every selection of the target


def test_unchanged_recipes_are_not_checked_again(make_app, rootdir, tmp_path, monkeypatch):
    folder = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", folder)
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    overrides = {"recipebook_dir": str(folder)}
    make_app("html", srcdir=srcdir, confoverrides=overrides).build()
    checked: list[str] = []
    real = store.check_file
    monkeypatch.setattr(store, "check_file", lambda path: checked.append(Path(path).name) or real(path))
    make_app("html", srcdir=srcdir, confoverrides=overrides, freshenv=False).build()
    assert checked == []  # the environment's record stands while the files are unchanged
    data = json.loads((folder / "A.X-K2.json").read_text())
    data["text"]["en"]["tag"] = "Edited."
    (folder / "A.X-K2.json").write_text(json.dumps(data, indent=2))
    app = make_app("html", srcdir=srcdir, confoverrides=overrides, freshenv=False)
    app.build()
    assert checked == ["A.X-K2.json"]
    assert "Edited." in Path(app.outdir, "A.X-K2.html").read_text()
