"""An imported recipe written with shared grids: what the targets of one strategy have in common is
written once, in the recipe's ``grids``, and each target extends it with what differs (its hardware's
parallel size and environment, its own deltas).

The factoring is proved by the engine's own reading of shared grids (``sharing.written_out``): a
target whose grid does not come out exactly as it was written in full keeps its full grid.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..reading import sharing

FIELDS = ("model", "base", "modes", "options", "option_base", "deltas", "excluded", "recommended", "router")


def diff(base: Sequence[tuple[str, str]], after: Sequence[tuple[str, str]]) -> tuple[list[str], dict[str, str]] | None:
    """(keys removed, keys set) that turn ``base`` into ``after`` by the delta rules (removed keys go,
    a set key already there is replaced where it stands, a new one is appended), or None when
    no delta does."""
    index = {key: n for n, (key, _) in enumerate(base)}
    texts = dict(base)
    kept, last = 0, -1
    while kept < len(after) and after[kept][0] in index and index[after[kept][0]] > last:
        last = index[after[kept][0]]
        kept += 1
    keep = {key for key, _ in after[:kept]}
    removed = [key for key, _ in base if key not in keep]
    added = {key: text for key, text in after[:kept] if texts[key] != text}
    for key, text in after[kept:]:
        if key in added:
            return None
        added[key] = text
    if apply(base, removed, added) != list(after):
        return None
    return removed, added


def apply(lines: Sequence[tuple[str, str]], removed: Iterable[str], added: Mapping[str, str]) -> list[tuple[str, str]]:
    """The delta rules (expansion.apply_delta) on plain lines."""
    gone = set(removed)
    out = {key: text for key, text in lines if key not in gone}
    for key, text in added.items():
        out[key] = text
    return list(out.items())


def _part_name(slug: str, taken: set[str]) -> str:
    name = re.sub(r"[^a-z0-9_]+", "_", slug.lower()).strip("_") or "grid"
    if not name[0].isalpha():
        name = f"g_{name}"
    name = name[:60]
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    return candidate


def _change_base(shared: list[dict[str, Any]], own: list[dict[str, Any]]) -> dict[str, Any] | None:
    """change_base turning the shared roles into these, or None when it cannot (other roles, an
    order the delta rules do not give)."""
    if [r["role"] for r in shared] != [r["role"] for r in own]:
        return None
    changes: dict[str, Any] = {}
    for before, after in zip(shared, own, strict=True):
        if any(before[k] != after[k] for k in ("launcher", "ranks", "scale", "varies")):
            return None
        change: dict[str, Any] = {}
        for kind in ("args", "envs"):
            found = diff(list(before[kind].items()), list(after[kind].items()))
            if found is None:
                return None  # no change gives this order: the role is given whole
            removed, added = found
            if removed:
                change[f"del_{kind}"] = removed
            if added:
                change[f"add_{kind}"] = added
        if change:
            changes[before["role"]] = change
    return changes


def _extending(part: Mapping[str, Any], grid: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A target's grid written as what it changes of the shared part."""
    out: dict[str, Any] = {"extends": name}
    for field in FIELDS:
        if field in ("base", "deltas") or grid[field] == part[field]:
            continue
        out[field] = copy.deepcopy(grid[field])
    if grid["base"] != part["base"]:
        change = _change_base(part["base"], grid["base"])
        if change is None:
            out["base"] = copy.deepcopy(grid["base"])
        elif change:
            out["change_base"] = change
    if grid["deltas"] != part["deltas"]:
        removed = [k for k in part["deltas"] if k not in grid["deltas"]]
        added = {k: v for k, v in grid["deltas"].items() if part["deltas"].get(k) != v}
        if removed:
            out["del_deltas"] = removed
        if added:
            out["add_deltas"] = copy.deepcopy(added)
    return out


def _written_size(part: Mapping[str, Any], grids: list[Mapping[str, Any]], name: str) -> int:
    """How much the targets write when they extend this part."""
    return sum(len(json.dumps(_extending(part, grid, name))) for grid in grids)


def factor(document: dict[str, Any]) -> dict[str, Any]:
    """The document with each strategy's targets extending one shared grid (the target's grid the
    others differ least from), where the engine reads them back exactly as written in full."""
    full = copy.deepcopy(document)
    out = copy.deepcopy(document)
    grids: dict[str, Any] = {}
    for s, strategy in enumerate(out["strategies"]):
        targets = strategy["options"]
        if len(targets) < 2:
            continue
        name = _part_name(strategy["slug"], set(grids))
        own = [full["strategies"][s]["options"][t]["grid"] for t in range(len(targets))]
        part = copy.deepcopy(min(own, key=lambda candidate: _written_size(candidate, own, name)))
        grids[name] = part
        for target, grid in zip(targets, own, strict=True):
            target["grid"] = _extending(part, grid, name)
    if not grids:
        return full
    out = {**{k: v for k, v in out.items() if k != "strategies"}, "grids": grids, "strategies": out["strategies"]}
    resolved = sharing.written_out(copy.deepcopy(out))
    for s, strategy in enumerate(resolved["strategies"]):
        for t, target in enumerate(strategy["options"]):
            # compared with the order of every key: an argument's place is part of its command
            if json.dumps(target["grid"]) != json.dumps(full["strategies"][s]["options"][t]["grid"]):
                out["strategies"][s]["options"][t]["grid"] = full["strategies"][s]["options"][t]["grid"]
    used = {target["grid"].get("extends") for strategy in out["strategies"] for target in strategy["options"]}
    out["grids"] = {k: v for k, v in grids.items() if k in used}
    if not out["grids"]:
        del out["grids"]
    return out
