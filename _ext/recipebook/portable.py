"""A recipe's commands in a shape that grows with its lines, not with its selections.

The site's API (``api/recipes/NAME.json``) carries, per strategy and target, the
explorer template: every line any selection can show, with the axis values it shows
under, and for an argument its ``vllm --config`` entry. A reader's browser filters the
lines by a selection and writes that selection's ready-to-run files with the rules of
``files.py`` (``static/recipebook-files.js``); the tests prove both equal the engine for
every selection. Static files are published only for the selection each target opens on.
"""

from __future__ import annotations

from collections.abc import Mapping

from .expansion import API_VERSION, Command, Expansion, Line
from .explorer import Template
from .files import config_entry, selection_files
from .model import Recipe


def _line(variant, kind: str) -> dict:
    entry: dict = {"kind": kind, "key": variant.key, "text": variant.text}
    entry["when"] = [None if allowed is None else sorted(allowed) for allowed in variant.when]
    if kind == "arg":
        entry["config"] = list(config_entry(variant.text))
    return entry


def target_document(recipe: Recipe, template: Template, files: str | None = None) -> dict:
    """One strategy and target: its axes, the selection it opens on, and its template."""
    grid = template.target.grid
    axes = [[axis, list(values)] for axis, values in template.axes]
    return {
        "strategy": template.strategy.slug,
        "target": template.target.target,
        "axes": axes,
        "default": {axis: values[i] for (axis, values), i in zip(template.axes, template.default, strict=True)},
        "recommended": None if grid.recommended is None else dict(grid.recommended),
        "excluded": [dict(entry) for entry in grid.excluded],
        "selections": template.selections,
        "blocks": [
            {
                "role": block.role,
                "rank": block.rank,
                "launcher": block.launcher,
                "model": block.model,
                "lines": [_line(v, v.kind) for v in block.lines],
            }
            for block in template.blocks
        ],
        "router": [{"node": node, "cmd": cmd} for node, cmd in template.router],
        "files": files,
    }


def recipe_document(
    recipe: Recipe, templates: list[Template], files: Mapping[tuple[str, str], str] | None = None
) -> dict:
    """The API document of one recipe (see the module's docstring)."""
    files = files or {}
    return {
        "version": API_VERSION,
        "recipe": recipe.name,
        "targets": [target_document(recipe, t, files.get((t.strategy.slug, t.target.target))) for t in templates],
    }


def selection_index(target: Mapping, selection: Mapping[str, str]) -> list[int]:
    return [values.index(selection[axis]) for axis, values in target["axes"]]


def commands_of(target: Mapping, selection: Mapping[str, str]) -> list[dict]:
    """The commands of one selection read back from a target's document (what the browser does)."""
    chosen = selection_index(target, selection)
    commands = []
    for block in target["blocks"]:
        shown = [
            line
            for line in block["lines"]
            if all(allowed is None or chosen[a] in allowed for a, allowed in enumerate(line["when"]))
        ]
        commands.append(
            {
                "role": block["role"],
                "rank": block["rank"],
                "launcher": block["launcher"],
                "model": block["model"],
                "envs": [line["text"] for line in shown if line["kind"] == "env"],
                "args": [line["text"] for line in shown if line["kind"] == "arg"],
            }
        )
    return commands


def static_selection(recipe: Recipe, template: Template) -> Expansion:
    """The selection whose files are published as static files, the one the target opens on,
    read from the template (proved equal to its expansion when the template was built)."""
    chosen = template.default
    selection = {axis: values[i] for (axis, values), i in zip(template.axes, chosen, strict=True)}
    commands = []
    for block in template.blocks:
        shown = [v for v in block.lines if v.shown(chosen)]
        commands.append(
            Command(
                role=block.role,
                rank=block.rank,
                launcher=block.launcher,
                model=block.model,
                env_lines=tuple(Line(slot=v.slot, key=v.key, text=v.text) for v in shown if v.kind == "env"),
                arg_lines=tuple(Line(slot=v.slot, key=v.key, text=v.text) for v in shown if v.kind == "arg"),
            )
        )
    grid = template.target.grid
    return Expansion(
        recipe=recipe.name,
        strategy=template.strategy.slug,
        target=template.target.target,
        selection=selection,
        recommended=grid.recommended is not None and all(grid.recommended[a] == v for a, v in selection.items()),
        commands=tuple(commands),
        router=template.router,
    )


def files_from_document(recipe: str, target: Mapping, selection: Mapping[str, str], values=None) -> dict[str, str]:
    """A selection's files written from the document alone, with the engine's writers."""
    commands = tuple(
        Command(
            role=c["role"],
            rank=c["rank"],
            launcher=c["launcher"],
            model=c["model"],
            env_lines=tuple(Line(slot=(), key="", text=t) for t in c["envs"]),
            arg_lines=tuple(Line(slot=(), key="", text=t) for t in c["args"]),
        )
        for c in commands_of(target, selection)
    )
    expansion = Expansion(
        recipe=recipe,
        strategy=target["strategy"],
        target=target["target"],
        selection={axis: selection[axis] for axis, _values in target["axes"]},
        recommended=False,
        commands=commands,
        router=tuple((step["node"], step["cmd"]) for step in target["router"]),
    )
    return selection_files(expansion, values)
