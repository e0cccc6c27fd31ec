"""Drift: what another vLLM release breaks in recipes that are right for the pinned one.

Each recipe is checked twice, against the pinned vocabulary and against the other
release's (``data/vllm-<version>.json``, written by ``make vocabulary``). A problem
the other release has at a place where the pinned one has none is drift: a flag,
a value, a JSON field or an environment name that the release removed, renamed or
retyped. Where the releases say what to write instead, the line says it too:

* a flag or environment name whose help text reappears under a new name: renamed;
* a flag the pinned release already marked deprecated, with the flags its help names;
* a flag that is still there but now deprecated (it will go in a later release);
* a flag that is now only an alias of another name (a note: write the new name);
* a flag whose value type changed, even when today's value still passes (a note).

Everything is read from the two committed files: no network, no vLLM installed.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..problems import Kind, Problem, pointer_join
from ..reading.model import Recipe
from ..reading.source import Document
from ..reading.vocabulary import LAUNCHER, Vocabulary
from . import vocabulary
from .vocabulary import _mappings

_FLAG_IN_TEXT = re.compile(r"(?<![\w-])--[a-z0-9][a-z0-9-]*")


@dataclasses.dataclass(frozen=True, order=True)
class Change:
    """One line of the report: a problem, and whether it breaks the command or is a note."""

    problem: Problem
    breaks: bool = True

    def __str__(self) -> str:
        return str(self.problem) if self.breaks else f"{self.problem} (note)"


def _renamed(name: str, old: Mapping[str, Any], new: Mapping[str, Any], kind: str) -> str | None:
    """A flag of the new release with the help text the old one had under ``name``."""
    if kind != "args" or name not in old:
        return None
    help_text = old[name].get("help")
    if not help_text or len(help_text) < 20:
        return None
    same = [flag for flag, entry in new.items() if flag not in old and entry.get("help") == help_text]
    return same[0] if len(same) == 1 else None


def _advice(key: str, kind: str, old: Vocabulary, new: Vocabulary) -> str:
    """What to write instead, where the releases say it."""
    if kind != "args":
        return ""
    renamed = _renamed(key, old.flags, new.flags, kind)
    if renamed:
        return f"; renamed: write {renamed} (same help text in {new.release})"
    entry = old.flag_info(key)
    if entry is not None and (entry.get("deprecated") or "deprecat" in entry.get("help", "").lower()):
        named = [f for f in _FLAG_IN_TEXT.findall(entry["help"]) if f != key and f in new.options]
        instead = f"; it names {', '.join(dict.fromkeys(named))}" if named else ""
        return f"; {old.release} had marked it deprecated: {entry['help']!r}{instead}"
    return ""


def _notes(doc: Document, recipe: Recipe, old: Vocabulary, new: Vocabulary) -> Iterator[Change]:
    """Flags still accepted, but deprecated or converted differently in the other release."""
    for _, target in recipe.targets():
        for kind, pointer, mapping in _mappings(target.grid):
            if kind != "args":
                continue
            for key in mapping:
                before, after = old.flag_info(key), new.flag_info(key)
                if before is None or after is None:
                    continue
                where = pointer_join(pointer, key)
                canonical = new.options.get(key)
                if key in old.flags and canonical != key:
                    message = f"{key} is an alias of {canonical} in {new.versions}; write {canonical}"
                    yield Change(doc.problem(where, message, kind=Kind.VOCABULARY, key=True), breaks=False)
                if after.get("deprecated") and not before.get("deprecated"):
                    message = f"{key} is deprecated in {new.versions}: {after.get('help', '')!r}"
                    yield Change(doc.problem(where, message, kind=Kind.VOCABULARY, key=True))
                types = (before.get("type"), after.get("type"))
                if None not in types and types[0] != types[1]:
                    message = (
                        f"{key} takes {after.get('type')} values in {new.release} (was {before.get('type')} "
                        f"in {old.release}); the value still passes"
                    )
                    yield Change(doc.problem(where, message, kind=Kind.VOCABULARY), breaks=False)


def drift(recipe: Recipe, doc: Document, old: Vocabulary, new: Vocabulary) -> list[Change]:
    """Every change the other release makes to one recipe, sorted by place."""
    before = {p.pointer for p in vocabulary.check(recipe, doc, old)}
    kinds = {}
    for _, target in recipe.targets():
        for kind, pointer, mapping in _mappings(target.grid):
            for key in mapping:
                kinds[pointer_join(pointer, key)] = (kind, key)
        for per_role in target.grid.deltas.values():
            for delta in per_role.values():
                for i, key in enumerate(delta.del_args):
                    kinds[pointer_join(delta.ptr, "del_args", i)] = ("args", key)
    changes: set[Change] = set()
    for problem in vocabulary.check(recipe, doc, new):
        if problem.pointer in before:
            continue
        kind, key = kinds.get(problem.pointer, ("args", problem.pointer.rsplit("/", 1)[-1]))
        advice = _advice(key, kind, old, new) if "is not a flag" in problem.message else ""
        changes.add(Change(dataclasses.replace(problem, message=problem.message + advice)))
    changes.update(c for c in _notes(doc, recipe, old, new) if c.problem.pointer not in before)
    return sorted(changes)


__all__ = ["LAUNCHER", "Change", "drift"]
