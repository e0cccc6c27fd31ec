"""The explorer template and the build's recipe record."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from recipebook import expansion, explorer, load, offered
from recipebook.expansion import expand_selection
from recipebook_sphinx import store

ROOT = Path(__file__).resolve().parents[1]
RECIPES = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")


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


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.stem)
def test_filtering_the_template_gives_each_selection_its_expansion(path):
    """The slow way, independent of the proof's bit sets: filter every block's lines."""
    recipe = load(path)
    for strategy, target in recipe.targets():
        template = explorer.build(recipe, strategy, target)
        for selection in offered(target.grid):
            index = template.index(selection)
            commands = expand_selection(recipe, strategy, target, selection).commands
            assert [block.text(index) for block in template.blocks] == [c.shell for c in commands]


def _targets_with_conditional_lines():
    recipe = load(ROOT / "recipes" / "gpt-oss-120b.json")
    for strategy, target in recipe.targets():
        template = explorer.build(recipe, strategy, target)
        if any(v.when != (None,) * len(template.axes) for b in template.blocks for v in b.lines):
            return recipe, strategy, target
    raise AssertionError("no target with a conditional line")


def test_a_line_shown_too_widely_is_caught(monkeypatch):
    recipe, strategy, target = _targets_with_conditional_lines()
    original = explorer._decompose
    # every line's condition loses its restrictions: it would show in every selection
    monkeypatch.setattr(
        explorer, "_decompose", lambda chosen, universe: [tuple(None for _p in p) for p in original(chosen, universe)]
    )
    _template, wrong = explorer.build_checked(recipe, strategy, target)
    total = sum(1 for _ in offered(target.grid))
    assert 0 < len(wrong) <= total
    for text in wrong:  # named as axis=value pairs of a real selection
        pairs = dict(pair.split("=", 1) for pair in text.split(", "))
        assert set(pairs) == set(target.grid.axes)


def test_a_line_missing_from_some_selections_is_caught(monkeypatch):
    recipe, strategy, target = _targets_with_conditional_lines()
    original = explorer._decompose
    monkeypatch.setattr(explorer, "_decompose", lambda chosen, universe: original(chosen, universe)[:-1] or [])
    _template, wrong = explorer.build_checked(recipe, strategy, target)
    assert wrong


def test_commands_whose_lines_leave_slot_order_are_caught(monkeypatch):
    recipe = load(ROOT / "recipes" / "gpt-oss-120b.json")
    strategy, target = next(recipe.targets())
    original = expansion.role_commands

    def reversed_lines(grid, role, args, envs):
        return [dataclasses.replace(c, arg_lines=c.arg_lines[::-1]) for c in original(grid, role, args, envs)]

    monkeypatch.setattr(expansion, "role_commands", reversed_lines)
    _template, wrong = explorer.build_checked(recipe, strategy, target)
    assert len(wrong) == sum(1 for _ in offered(target.grid))  # every selection of the target


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


def test_json_values_break_for_display_only_at_their_own_boundaries():
    from recipebook_sphinx.page.nodes import code_markup

    text = """--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both","extra":[1,2]}'"""
    markup = str(code_markup(text))
    assert markup.replace("<wbr>", "") == text.replace('"', '"')  # nothing but break opportunities added
    pieces = markup.split("<wbr>")
    assert all(piece.endswith((",", "{", "[")) for piece in pieces[:-1])
    assert '"kv_connector":"NixlConnector",' in pieces  # a name and its value stay whole
    assert str(code_markup("a < b & c")) == "a &lt; b &amp; c"
