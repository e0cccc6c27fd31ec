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

from collections.abc import Mapping, Sequence

from ..expanding import results
from ..expanding.expansion import API_VERSION
from ..expanding.page import RecipePage, TargetPage
from ..expanding.table import Product, TableLine
from .files import config_entry
from .kubernetes import line_fragment, target_files


def _product(product: Product) -> list[list[int] | None]:
    return [None if allowed is None else sorted(allowed) for allowed in product]


def _line(line: TableLine) -> dict[str, object]:
    entry: dict[str, object] = {"kind": line.kind, "key": line.key, "text": line.text, "when": _product(line.when)}
    entry["ranks"] = None if line.ranks is None else sorted(line.ranks)
    if line.kind == "arg":
        entry["config"] = list(config_entry(line.text))
    entry["k8s"] = line_fragment(line.kind, line.text)
    return entry


def _measured(
    target: TargetPage, measured: Sequence[results.Result], pinned: Mapping[str, str]
) -> list[dict[str, object]]:
    """The target's stored results as the page shows them, each with what makes it stale."""
    found = []
    for group in results.evidence(target, measured, pinned):
        for item in group.measured:
            found.append({**item.result.to_json(), "stale": list(item.stale)})
    return sorted(found, key=lambda r: (r["date"], r["file"]))


def target_document(
    target: TargetPage,
    files: str | None = None,
    recipe: str = "",
    measured: Sequence[results.Result] = (),
    pinned: Mapping[str, str] | None = None,
) -> dict[str, object]:
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
        # the hash of each offered selection's serve commands, in the table's order of selections:
        # the benchmark's metadata names it, and a stored result is stale once it differs
        "commands_hashes": [target.commands_hash(chosen) for chosen in target.table.offered],
        "roles": [
            {
                "role": role.role,
                "node": target.node_of(role.role),
                "nodes": list(role.nodes) if role.spans else None,  # a role that spans nodes: rank k on nodes[k]
                "launcher": role.launcher,
                "model": role.model,
                "ranks": role.ranks,
                "lines": [_line(line) for line in role.lines],
            }
            for role in target.table.roles
        ],
        "router": [{"node": name, "cmd": cmd} for name, cmd in target.router],
        "nodes": [{"node": node.number, "roles": list(node.roles)} for node in target.nodes],
        "placeholders": [
            {"name": p.name, "scope": p.scope, "meaning": p.meaning, **({"of": p.of} if p.of else {})}
            for p in target.placeholders
        ],
        "serving": [
            {
                "when": [_product(p) for p in group.when],
                "client": group.client,
                "bench": group.bench,
                # the benchmark script around each selection's metadata line (TargetPage.bench_line)
                "bench_head": list(group.bench_head),
                "bench_tail": list(group.bench_tail),
                "workloads": [
                    {
                        "input_len": w.input_len,
                        "output_len": w.output_len,
                        "concurrency": w.concurrency,
                        "prompts": w.prompts,
                    }
                    for w in group.runs
                ],
                "roles": [
                    {
                        "step": plan.step,
                        "role": plan.role,
                        "node": plan.node,
                        "servers": plan.servers,
                        "npus": list(plan.npus_per_server),
                        "ports": list(plan.ports),
                        "wait": list(plan.wait),
                        "nodes": list(plan.nodes),
                    }
                    for plan in group.roles
                ],
            }
            for group in target.serving
        ],
        "verified": target.provenance.to_json(),
        "memory": [{"when": [_product(p) for p in group.when], **group.fit.to_json()} for group in target.memory],
        "measured": _measured(target, measured, pinned or {}),
        "files": files,
        # the Kubernetes files of each set of selections, with a marker line per container's args
        # and env lines, which the lines' "k8s" fragments fill (kubernetes.fill)
        "kubernetes": [
            {"when": [_product(p) for p in when], "files": dict(texts)} for when, texts in target_files(target, recipe)
        ],
    }


def recipe_document(
    page: RecipePage,
    files: Mapping[tuple[str, str], str] | None = None,
    *,
    measured: Sequence[results.Result] = (),
    pinned: Mapping[str, str] | None = None,
) -> dict[str, object]:
    """The API document of one recipe (see the module's docstring): with its observations held
    against the memory figures and the stored results of its selections."""
    files = files or {}
    return {
        "version": API_VERSION,
        "recipe": page.recipe.name,
        "observations": [seen.to_json() for seen in page.observations],
        "settled": [settled.to_json() for settled in page.settled],
        "targets": [
            target_document(t, files.get((t.strategy.slug, t.target.target)), page.recipe.name, measured, pinned)
            for t in page.targets
        ],
    }
