"""The line table of each target (recipebook.expanding.table) and the build's recipe record.

The table is proved against the delta rules when it is built; these tests check the proof
from outside: every offered selection's commands read from the table equal the reference
expansion (expansion.reference_role, the rules applied step by step), and a table made
wrong in any of three ways is caught.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from recipe_support import recipe_names
from recipebook import load, offered
from recipebook.expanding import table
from recipebook.expanding.expansion import reference_role
from recipebook_sphinx import store

ROOT = Path(__file__).resolve().parents[1]
NAMES = recipe_names()


def lines_of(command) -> list[tuple]:
    return [(line.kind, line.slot, line.key, line.text) for line in (*command.env_lines, *command.arg_lines)]


@pytest.mark.parametrize("name", NAMES)
def test_each_selection_read_from_the_table_is_its_reference_expansion(name):
    """The slow way, independent of the proof's bit sets: every selection, every rank."""
    recipe = load(ROOT / "recipes" / f"{name}.json")
    for _strategy, target in recipe.targets():
        grid = target.grid
        lines, wrong = table.build(grid)
        assert wrong == []
        assert lines.selections == sum(1 for _ in offered(grid))
        for selection in offered(grid):
            got = lines.commands(lines.index(selection))
            expected = [c for role in grid.base for c in reference_role(grid, role, selection)]
            assert [lines_of(c) for c in got] == [lines_of(c) for c in expected]
            assert [c.shell for c in got] == [c.shell for c in expected]
        # each line is kept once per place it can take, far fewer than selections x lines
        kept = sum(len(role.lines) for role in lines.roles)
        assert kept < lines.selections * len(lines.roles) * 5


@pytest.mark.parametrize("name", NAMES)
def test_a_roles_ranks_share_its_lines(name):
    """Ranks lay their keys over the role's lines: only lines of keys the ranks set are held
    by some ranks; every other line is one for all ranks."""
    recipe = load(ROOT / "recipes" / f"{name}.json")
    for _s, target in recipe.targets():
        lines, _wrong = table.build(target.grid)
        for role, role_table in zip(target.grid.base, lines.roles, strict=True):
            rank_keys = {k for rank in role.ranks or () for k in (*rank.args, *rank.envs)}
            for line in role_table.lines:
                assert (line.ranks is not None) == (line.key in rank_keys)


def _target_with_conditional_lines():
    for name in NAMES:
        recipe = load(ROOT / "recipes" / f"{name}.json")
        for _s, target in recipe.targets():
            lines, _wrong = table.build(target.grid)
            if any(line.limits for role in lines.roles for line in role.lines):
                return target
    raise AssertionError("no target with a conditional line")


def test_a_line_shown_too_widely_is_caught(monkeypatch):
    target = _target_with_conditional_lines()
    original = table.decompose
    # every line's condition loses its restrictions: it would show in every selection
    monkeypatch.setattr(
        table, "decompose", lambda bits, universe: [tuple(None for _p in p) for p in original(bits, universe)]
    )
    _lines, wrong = table.build(target.grid)
    total = sum(1 for _ in offered(target.grid))
    assert 0 < len(wrong) <= total
    for selection in wrong:  # named as a whole selection
        assert set(selection) == set(target.grid.axes)


def test_a_line_missing_from_some_selections_is_caught(monkeypatch):
    target = _target_with_conditional_lines()
    original = table.decompose
    monkeypatch.setattr(table, "decompose", lambda bits, universe: original(bits, universe)[:-1] or [])
    _lines, wrong = table.build(target.grid)
    assert wrong


def test_lines_the_rules_would_write_out_of_slot_order_are_caught(monkeypatch):
    """If a delta appended a line with a slot before the lines already there, slot order would
    not be command order: the selections that take such a step are named."""
    target = _target_with_conditional_lines()
    original = table.apply_delta

    def early(args, envs, delta, prefix):
        new_args, new_envs = original(args, envs, delta, prefix)
        return {k: (((0, -1), v[1]) if k not in args else v) for k, v in new_args.items()}, new_envs

    monkeypatch.setattr(table, "apply_delta", early)
    _lines, wrong = table.build(target.grid)
    assert wrong


def test_a_delta_that_moves_a_rank_key_is_caught():
    """A rank's key must sit where the table puts it; a delta that touches it (rule 8) makes
    the table refuse the selections it would show wrongly."""
    recipe = load(ROOT / "recipes" / "A.X-K2.json")
    for _s, target in recipe.targets():
        role = next((r for r in target.grid.base if r.ranks and r.ranks[0].args), None)
        if role is None:
            continue
        key = next(iter(role.ranks[0].args))
        axis, values = next(iter(target.grid.axes.items()))
        data = json.loads((ROOT / "recipes" / "A.X-K2.json").read_text())
        grid_data = next(
            o["grid"]
            for s in data["strategies"]
            for o in s["options"]
            if o["target"] == target.target and any(r["role"] == role.role for r in o["grid"]["base"])
        )
        grid_data["deltas"].setdefault(f"{axis}={values[-1]}", {})[role.role] = {
            "add_args": {key: f"{key} 1"},
            "add_envs": {},
            "del_args": [],
            "del_envs": [],
        }
        from recipebook.reading.model import Grid

        _lines, wrong = table.build(Grid.from_json(grid_data, "/g"))
        assert wrong and all(s[axis] == values[-1] for s in wrong)
        return
    pytest.fail("no role with rank arguments")


def test_unchanged_recipes_are_not_checked_again(make_app, rootdir, tmp_path, monkeypatch):
    folder = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", folder)
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    overrides = {"recipebook_dir": str(folder)}
    make_app("html", srcdir=srcdir, confoverrides=overrides).build()
    checked: list[str] = []
    real = store.check_file
    monkeypatch.setattr(
        store, "check_file", lambda path, memo=None: checked.append(Path(path).name) or real(path, memo)
    )
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
    from recipebook_sphinx.explorer.html import code_markup

    text = """--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both","extra":[1,2]}'"""
    markup = str(code_markup(text))
    assert markup.replace("<wbr>", "") == text.replace('"', '"')  # nothing but break opportunities added
    pieces = markup.split("<wbr>")
    assert all(piece.endswith((",", "{", "[")) for piece in pieces[:-1])
    assert '"kv_connector":"NixlConnector",' in pieces  # a name and its value stay whole
    assert str(code_markup("a < b & c")) == "a &lt; b &amp; c"
