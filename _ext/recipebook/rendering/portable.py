"""The site API's document of a recipe: its page model in a shape that grows with its lines,
not with its selections.

``api/recipes/NAME.json`` carries, per strategy and target, the line table of each role:
every line any selection shows, with the axis values (``when``) and ranks (``ranks``) it
shows under, and for an argument its ``vllm --config`` entry; the nodes and what runs on
each; the placeholders and whether each node fills one in itself; the serving groups. A
reader's browser filters the lines by a selection and writes that selection's ready-to-run
files with the rules of ``files.py`` (``static/recipebook-files.js``); the tests prove both
equal the engine for every selection. Static files are published only for the selection
each target opens on.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..expanding.expansion import API_VERSION
from ..expanding.page import RecipePage, TargetPage
from ..expanding.table import Product, TableLine
from .files import config_entry
from .kubernetes import line_fragment, target_files


def _product(product: Product) -> list[list[int] | None]:
    return [None if allowed is None else sorted(allowed) for allowed in product]


def _line(line: TableLine) -> dict:
    entry: dict = {"kind": line.kind, "key": line.key, "text": line.text, "when": _product(line.when)}
    entry["ranks"] = None if line.ranks is None else sorted(line.ranks)
    if line.kind == "arg":
        entry["config"] = list(config_entry(line.text))
    entry["k8s"] = line_fragment(line.kind, line.text)
    return entry


def target_document(target: TargetPage, files: str | None = None, recipe: str = "") -> dict:
    """One strategy and target: its axes, selections, line tables, nodes and serving groups,
    and with which releases it was verified (``verified.current`` false: not yet re-verified
    with the pinned ones)."""
    grid = target.target.grid
    return {
        "strategy": target.strategy.slug,
        "target": target.target.target,
        "axes": [[axis, list(values)] for axis, values in target.table.axes],
        "default": target.opening_selection(),
        "recommended": None if grid.recommended is None else dict(grid.recommended),
        "excluded": [dict(conflict.choices) for conflict in target.conflicts],
        "selections": target.table.selections,
        "roles": [
            {
                "role": role.role,
                "node": target.node_of(role.role),
                "launcher": role.launcher,
                "model": role.model,
                "ranks": role.ranks,
                "lines": [_line(line) for line in role.lines],
            }
            for role in target.table.roles
        ],
        "router": [{"node": name, "cmd": cmd} for name, cmd in target.router],
        "nodes": [{"node": node.number, "roles": list(node.roles)} for node in target.nodes],
        "placeholders": [{"name": p.name, "scope": p.scope, "meaning": p.meaning} for p in target.placeholders],
        "serving": [
            {
                "when": [_product(p) for p in group.when],
                "client": group.client,
                "bench": group.bench,
                "roles": [
                    {
                        "step": plan.step,
                        "role": plan.role,
                        "node": plan.node,
                        "servers": plan.servers,
                        "npus": list(plan.npus_per_server),
                        "ports": list(plan.ports),
                        "wait": list(plan.wait),
                    }
                    for plan in group.roles
                ],
            }
            for group in target.serving
        ],
        "verified": target.provenance.to_json(),
        "memory": [{"when": [_product(p) for p in group.when], **group.fit.to_json()} for group in target.memory],
        "files": files,
        # the Kubernetes files of each set of selections, with a marker line per container's args
        # and env lines, which the lines' "k8s" fragments fill (kubernetes.fill)
        "kubernetes": [
            {"when": [_product(p) for p in when], "files": dict(texts)} for when, texts in target_files(target, recipe)
        ],
    }


def recipe_document(page: RecipePage, files: Mapping[tuple[str, str], str] | None = None) -> dict:
    """The API document of one recipe (see the module's docstring)."""
    files = files or {}
    return {
        "version": API_VERSION,
        "recipe": page.recipe.name,
        "targets": [
            target_document(t, files.get((t.strategy.slug, t.target.target)), page.recipe.name) for t in page.targets
        ],
    }
