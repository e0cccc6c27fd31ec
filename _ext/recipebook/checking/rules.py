"""Semantic rules: what the schema cannot say about a recipe.

Each rule is a function that yields problems; ``check`` runs them all. A rule's
docstring is its statement for readers, in Markdown, starting with its number: the site's
rules page lists them (``statements``; the ``recipe-rules`` directive), so each rule is
written once.
"""

from __future__ import annotations

import dataclasses
import datetime
import inspect
import itertools
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path

from .. import shell
from ..expanding import client
from ..expanding.expansion import (
    MAX_COMBINATIONS,
    MAX_SELECTIONS,
    all_selections,
    is_excluded,
    neutral_value,
    offered_count,
    reference_role,
    selection_count,
    walkable,
)
from ..expanding.page import grid_table
from ..expanding.table import Table
from ..memo import Memo, remembered
from ..problems import Problem, pointer_join
from ..reading import source
from ..reading.model import Grid, Recipe, Role
from ..reading.source import Document
from . import bounds, characters, commandtext, facts, helmcharts, inline, manifests, safety, sizing, spanning

# The most nodes a target runs on: the page asks for a node's values once per node (vLLM Recipes
# offer up to 16 nodes a deployment, and as many again per prefill/decode pool).
MAX_NODES = 64
# Option axes the site knows how to title without a catalogue entry.
KNOWN_OPTION_AXES = frozenset({"tool_calling", "reasoning_parser"})
_SCALE = re.compile(r"^(\d+) (rank|node)s?$")


def _duplicates(items: list[str]) -> set[str]:
    return {item for item, n in Counter(items).items() if n > 1}


def _last(items: list[str] | tuple[str, ...], item: str) -> int:
    """The index of the last occurrence of an item (where a repeat is reported)."""
    return max(i for i, x in enumerate(items) if x == item)


def unique_names(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """1. Strategy slugs are unique in a recipe, targets within a strategy, roles within a grid
    (deltas and the commands name them)."""
    seen: set[str] = set()
    for strategy in recipe.strategies:
        if strategy.slug in seen:
            yield doc.problem(pointer_join(strategy.ptr, "slug"), f"strategy slug {strategy.slug!r} is used twice")
        seen.add(strategy.slug)
        targets: set[str] = set()
        for target in strategy.targets:
            if target.target in targets:
                yield doc.problem(
                    pointer_join(target.ptr, "target"),
                    f"target {target.target!r} appears twice in strategy {strategy.slug!r}",
                )
            targets.add(target.target)
            roles: set[str] = set()
            for role in target.grid.base:
                if role.role in roles:
                    yield doc.problem(pointer_join(role.ptr, "role"), f"role {role.role!r} appears twice in grid.base")
                roles.add(role.role)


def file_name(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """The file name is the recipe's `name` plus `.json`, so that its page and links can be
    found."""
    stem = Path(recipe.path).name.removesuffix(".json")
    if stem != recipe.name:
        yield doc.problem("/name", f"name {recipe.name!r} must match the file name {stem!r}.json")


def dates(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """`verified` is a real calendar date."""
    for _, target in recipe.targets():
        try:
            datetime.date.fromisoformat(target.verified)
        except ValueError:
            yield doc.problem(pointer_join(target.ptr, "verified"), f"{target.verified!r} is not a calendar date")


def delta_keys(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """2. A delta key is `axis=value` with an axis of that grid and one of its values, and it
    names only roles that are in `grid.base`."""
    for _, target in recipe.targets():
        grid = target.grid
        axes, roles = grid.axes, {r.role for r in grid.base}
        for key, per_role in grid.deltas.items():
            pointer = pointer_join(grid.ptr, "deltas", key)
            axis, _, value = key.partition("=")
            if axis not in axes:
                yield doc.problem(
                    pointer,
                    f"delta names unknown axis {axis!r}; this target's axes: {', '.join(axes) or 'none'}",
                    key=True,
                )
            elif value not in axes[axis]:
                yield doc.problem(
                    pointer,
                    f"delta names unknown value {value!r} of axis {axis!r}; choose from: {', '.join(axes[axis])}",
                    key=True,
                )
            for role in per_role:
                if role not in roles:
                    yield doc.problem(
                        pointer_join(pointer, role),
                        f"delta names role {role!r}, which is not in grid.base (roles: {', '.join(sorted(roles))})",
                        key=True,
                    )


def deleted_keys(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """3. `del_args` and `del_envs` name keys that are in that role's base command."""
    for _, target in recipe.targets():
        roles = {r.role: r for r in target.grid.base}
        for per_role in target.grid.deltas.values():
            for role_name, delta in per_role.items():
                role = roles.get(role_name)
                if role is None:
                    continue
                for kind, keys, present in (
                    ("del_args", delta.del_args, role.args),
                    ("del_envs", delta.del_envs, role.envs),
                ):
                    for i, key in enumerate(keys):
                        if key not in present:
                            yield doc.problem(
                                pointer_join(delta.ptr, kind, i),
                                f"{key!r} is not in the base of role {role_name!r}, so it cannot be removed",
                            )


def _args_and_envs(recipe: Recipe) -> Iterator[tuple[str, str, Mapping[str, str]]]:
    """Every args and envs mapping of the recipe, with its pointer and kind."""
    for _, target in recipe.targets():
        for kind, pointer, _role, mapping in target.grid.mappings():
            yield kind, pointer, mapping


def _json_value_error(value: str) -> str | None:
    """What the recipe's JSON reader (``source``) refuses in a quoted JSON value: its syntax, a
    repeated key (vLLM would keep the last one), NaN, a number of more than 100 digits, nesting
    deeper than 100 levels; the first problem, at its line and column of the value."""
    if value.lstrip().startswith(("{", "[")):
        found = source.value_problems(value)
        if found:
            first = found[0]
            message = first.message.removeprefix("invalid JSON: ")
            where = f" at {first.pointer}" if first.pointer else ""
            return f"its JSON value does not parse: {message}{where} (line {first.line}, column {first.column} of the value)"
    return None


_SHELL_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def _with_placeholder_hint(reason: str, text: str) -> str:
    """A '$' problem: single quotes would pass the literal '$NAME' to vLLM; offer the placeholder."""
    if not reason.startswith("'$'"):
        return reason
    found = _SHELL_VARIABLE.search(text)
    name = found.group(1).upper() if found else "NAME"
    return (
        f"{reason.split(';')[0]}; for a value the reader fills in, write the placeholder '<{name}>' "
        "in single quotes (highlighted on the page, asked for by serve.sh); for a literal '$', "
        "quote the value with single quotes"
    )


@remembered(maxsize=1 << 14)
def text_error(kind: str, key: str, text: str) -> str | None:
    """What is wrong with one arg or env text, or None (remembered: targets repeat their texts)."""
    if kind == "args":
        if not (text == key or text.startswith((key + " ", key + "="))):
            return f"text must start with its key {key!r} (as {key}, {key} VALUE or {key}=VALUE)"
    elif not text.startswith(key + "="):
        return f"text must be {key}=VALUE"
    reason = shell.unsafe_reason(text)
    if reason:
        return _with_placeholder_hint(reason, text)
    try:
        parts = shell.words(text)
    except ValueError as error:
        return f"does not split into shell words: {error}"
    if kind == "envs":
        if len(parts) != 1:
            return f"must be one shell word {key}=VALUE; quote the value (it splits into {len(parts)} words)"
        values = [parts[0].partition("=")[2]]
    elif parts[0] != key and parts[0].startswith(key + "="):
        values = [parts[0].partition("=")[2], *parts[1:]]
    else:
        values = parts[1:]
    for value in values:
        found = _json_value_error(value)
        if found:
            return found
    return None


def texts(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """4. An arg's text starts with its key (`--flag`, `--flag value` or `--flag=value`); an
    env's text is `KEY=value`, one shell word. Every text splits into shell words, and a quoted
    JSON object or array parses as JSON. Outside quotes a text holds no shell operators, `$`,
    comments, file-name patterns (`*`, `?`, `[`), braces or a leading `~`; `!` only inside
    single quotes; inside double quotes no `$` or backquote. Single quotes are the safe way to
    write any value."""
    for kind, pointer, mapping in _args_and_envs(recipe):
        for key, text in mapping.items():
            error = text_error(kind, key, text)
            if error:
                yield doc.problem(pointer_join(pointer, key), error)


def labels(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """5. Every mode axis and each of its values has a label in `axes`; the values of an axis
    are non-empty and unique; an axis is a mode or an option, not both."""
    data_axes = doc.data["axes"]
    for axis in _duplicates([a["axis"] for a in data_axes]):
        index = max(i for i, a in enumerate(data_axes) if a["axis"] == axis)
        yield doc.problem(f"/axes/{index}/axis", f"axis {axis!r} is catalogued twice")
    for i, entry in enumerate(data_axes):
        values = [o["value"] for o in entry["options"]]
        for value in _duplicates(values):
            yield doc.problem(
                f"/axes/{i}/options/{_last(values, value)}/value",
                f"value {value!r} of axis {entry['axis']!r} is labelled twice",
            )
    for _, target in recipe.targets():
        grid = target.grid
        for group in ("modes", "options"):
            for axis, values in getattr(grid, group).items():
                pointer = pointer_join(grid.ptr, group, axis)
                for value in _duplicates(list(values)):
                    yield doc.problem(pointer_join(pointer, _last(values, value)), f"value {value!r} is listed twice")
                info = recipe.axes.get(axis)
                if info is None:
                    if group == "modes" or axis not in KNOWN_OPTION_AXES:
                        yield doc.problem(
                            pointer, f"axis {axis!r} has no title and labels in the recipe's axes", key=True
                        )
                    continue
                for i, value in enumerate(values):
                    if value not in info.labels:
                        yield doc.problem(
                            pointer_join(pointer, i),
                            f"value {value!r} of axis {axis!r} has no label in the recipe's axes",
                        )
        overlap = set(grid.modes) & set(grid.options)
        for axis in sorted(overlap):
            yield doc.problem(
                pointer_join(grid.ptr, "options", axis), f"axis {axis!r} is both a mode and an option", key=True
            )


def _selection_problems(
    doc: Document, grid: Grid, pointer: str, chosen: Mapping[str, str], *, complete: bool
) -> Iterator[Problem]:
    axes = grid.axes
    for axis, value in chosen.items():
        if axis not in axes:
            yield doc.problem(
                pointer_join(pointer, axis), f"unknown axis {axis!r}; this target's axes: {', '.join(axes)}", key=True
            )
        elif value not in axes[axis]:
            yield doc.problem(
                pointer_join(pointer, axis),
                f"{value!r} is not a value of axis {axis!r}; choose from: {', '.join(axes[axis])}",
            )
    if complete:
        missing = [a for a in axes if a not in chosen]
        if missing:
            yield doc.problem(pointer, f"must give a value for every axis; missing: {', '.join(missing)}")


def recommendation(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """6. `recommended` (when not null) gives a valid value for every axis and is not
    excluded; `option_base` gives a valid value for every option axis; `excluded` entries name
    valid axes and values. With `recommended: null` every mode axis needs a value that leaves
    the base command unchanged, and that base selection must not be excluded."""
    for _, target in recipe.targets():
        grid = target.grid
        for i, entry in enumerate(grid.excluded):
            yield from _selection_problems(doc, grid, pointer_join(grid.ptr, "excluded", i), entry, complete=False)
        option_base = pointer_join(grid.ptr, "option_base")
        for axis, value in grid.option_base.items():
            if axis not in grid.options:
                yield doc.problem(
                    pointer_join(option_base, axis), f"{axis!r} is not an option axis of this target", key=True
                )
            elif value not in grid.options[axis]:
                yield doc.problem(pointer_join(option_base, axis), f"{value!r} is not a value of option {axis!r}")
        for axis in grid.options:
            if axis not in grid.option_base:
                yield doc.problem(option_base, f"option axis {axis!r} needs its base value")
        pointer = pointer_join(grid.ptr, "recommended")
        if grid.recommended is not None:
            found = list(_selection_problems(doc, grid, pointer, grid.recommended, complete=True))
            yield from found
            if not found and is_excluded(grid, grid.recommended):
                yield doc.problem(pointer, "the recommended selection is excluded by grid.excluded")
        else:
            neutral = {}
            for axis in grid.modes:
                neutral[axis] = neutral_value(grid, axis)
                if neutral[axis] is None:
                    yield doc.problem(
                        pointer,
                        f"recommended is null, but axis {axis!r} has no value that leaves "
                        "the base command unchanged; give a recommendation",
                    )
            neutral.update(grid.option_base)
            complete = {axis: value for axis, value in neutral.items() if value is not None}
            if len(complete) == len(neutral) == len(grid.axes) and is_excluded(grid, complete):
                yield doc.problem(pointer, "recommended is null and the base command's selection is excluded")


def cap(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """11. A target offers at most 4096 selections (after exclusions)."""
    for _, target in recipe.targets():
        grid = target.grid
        count = offered_count(grid)
        if count is None:
            yield doc.problem(
                grid.ptr,
                f"the axes combine into {selection_count(grid)} selections, more than the {MAX_COMBINATIONS} "
                f"that can be checked (at most {MAX_SELECTIONS} may be offered); check grid.modes and "
                "grid.options for a typo",
            )
        elif count > MAX_SELECTIONS:
            yield doc.problem(
                grid.ptr,
                f"{count} offered selections is more than the limit of {MAX_SELECTIONS}; "
                "check grid.modes and grid.options for a typo, or exclude combinations",
            )


def conflicts(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """7. No offered selection has two axes that set or remove the same key of a role."""
    for _, target in recipe.targets():
        grid = target.grid
        if not walkable(grid):
            continue
        touched = {
            (axis, value): {role: d.touched() for role, d in grid.delta(axis, value).items()}
            for axis, values in grid.axes.items()
            for value in values
        }
        axes = list(grid.axes)
        for i, first in enumerate(axes):
            for second in axes[i + 1 :]:
                for a, b in itertools.product(
                    [(first, v) for v in grid.axes[first]], [(second, v) for v in grid.axes[second]]
                ):
                    clashes = [
                        (role, kind, key)
                        for role, keys in touched[b].items()
                        for kind, key in sorted(keys & touched[a].get(role, set()))
                    ]
                    if not clashes or not _offered_together(grid, a, b):
                        continue
                    for role, kind, key in clashes:
                        yield doc.problem(
                            grid.delta(*b)[role].ptr,
                            f"{a[0]}={a[1]} and {b[0]}={b[1]} both change {kind[:-1]} "
                            f"{key!r} of role {role!r} in an offered selection; exclude the "
                            "combination or move the key to one axis",
                        )


def _offered_together(grid: Grid, a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether some offered selection chooses both axis values."""
    return any(s[a[0]] == a[1] and s[b[0]] == b[1] and not is_excluded(grid, s) for s in all_selections(grid))


def _deltas_named_well(grid: Grid) -> bool:
    for key in grid.deltas:
        axis, _, value = key.partition("=")
        if value not in grid.axes.get(axis, ()):
            return False
    return True


def _digests(table: Table) -> list[int]:
    """A hash of the commands of each of a table's selections, in its order: equal hashes,
    equal commands. Each role's lines are hashed once per choice of its own axes."""
    known: list[dict[tuple[int, ...], int]] = [{} for _role in table.roles]
    digests = []
    for chosen in table.offered:
        parts = []
        for role, seen in zip(table.roles, known, strict=True):
            key = tuple(chosen[a] for a in role.relevant)
            found = seen.get(key)
            if found is None:
                found = seen[key] = role.digest(chosen)
            parts.append(found)
        digests.append(hash(tuple(parts)))
    return digests


def same_commands(recipe: Recipe, doc: Document, memo: Memo | None = None) -> Iterator[Problem]:
    """12. Two values of one axis never give identical commands in an offered selection (a
    forgotten or copied delta: "Prefix Caching: Off" showing `--enable-prefix-caching`).

    The problem is at the second value in `grid.modes` or `grid.options`, names both values
    and the selection of the other axes, and is reported once per pair. Each selection's
    commands are read from the target's line table (`page.grid_table`) and compared by a hash
    of their lines."""
    for _, target in recipe.targets():
        grid = target.grid
        if not walkable(grid) or not _deltas_named_well(grid):
            continue  # a misnamed delta is reported by rule 2; its value would seem to lack one
        table, wrong = grid_table(grid, memo)
        if wrong:
            continue  # a delta changes a key the ranks set, or two axes the same key: rules 7 and 8 say so
        varied = [i for i, (_axis, values) in enumerate(table.axes) if len(values) > 1]
        # per axis: the other axes' values -> {digest: first value giving it}
        seen: dict[int, dict[tuple[int, ...], dict[int, int]]] = {i: {} for i in varied}
        reported: set[tuple[int, int, int]] = set()
        for chosen, digest in zip(table.offered, _digests(table), strict=True):
            for i in varied:
                value = chosen[i]
                group = seen[i].setdefault(chosen[:i] + chosen[i + 1 :], {})
                first = group.setdefault(digest, value)
                if first == value or (i, first, value) in reported:
                    continue
                reported.add((i, first, value))
                axis, values = table.axes[i]
                kind = "modes" if axis in grid.modes else "options"
                selection = table.selection(chosen)
                pairs = ", ".join(f"{a}={v}" for a, v in selection.items() if a != axis)
                yield doc.problem(
                    pointer_join(grid.ptr, kind, axis, value),
                    f"{axis}={values[first]} and {axis}={values[value]} give identical commands in the offered "
                    f"selection {pairs or '(no other axes)'}; a delta is missing or repeats the other value's",
                )


def _rank_keys(role: Role) -> tuple[set[str], set[str]]:
    ranks = role.ranks or ()
    return {k for r in ranks for k in r.args}, {k for r in ranks for k in r.envs}


def _value_at(data: object, pointer: str) -> object:
    """The value at a JSON pointer of a document's data (None where there is none)."""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(data, dict):
            data = data.get(token)
        elif isinstance(data, list) and token.isdigit() and int(token) < len(data):
            data = data[int(token)]
        else:
            return None
    return data


def ranks(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """8. A role with ranks has a `scale` equal to its number of ranks (`"8 ranks"`), a role
    that spans nodes one equal to its number of nodes (`"2 nodes"`) and no ranks, and `varies`
    is exactly the set of keys whose text differs between its ranks (or nodes); a delta does
    not change a key that the ranks (or nodes) set. A role of one command has `scale` and
    `varies` null."""
    for _, target in recipe.targets():
        grid = target.grid
        for role in grid.base:
            if role.ranks is None:
                for field in ("scale", "varies"):
                    if getattr(role, field) is not None:
                        yield doc.problem(
                            pointer_join(role.ptr, field), f"{field} must be null for a role without ranks"
                        )
                continue
            unit = "nodes" if role.span is not None else "ranks"
            if role.span is not None and _value_at(doc.data, pointer_join(role.ptr, "ranks")) is not None:
                yield doc.problem(
                    pointer_join(role.ptr, "ranks"),
                    "a role that spans nodes runs one command per node, from its nodes; it has no ranks: "
                    "write ranks null",
                )
            match = _SCALE.match(role.scale or "")
            if match is None or match.group(2) != unit[:-1]:
                yield doc.problem(
                    pointer_join(role.ptr, "scale"), f'a role with {unit} needs scale "{len(role.ranks)} {unit}"'
                )
            elif int(match.group(1)) != len(role.ranks):
                yield doc.problem(
                    pointer_join(role.ptr, "scale"),
                    f"scale says {match.group(1)} but the role has {len(role.ranks)} {unit}",
                )
            yield from _varies(doc, grid, role, unit)
            arg_keys, env_keys = _rank_keys(role)
            for per_role in grid.deltas.values():
                delta = per_role.get(role.role)
                if delta is None:
                    continue
                for kind, key in sorted(delta.touched()):
                    if key in (arg_keys if kind == "args" else env_keys):
                        yield doc.problem(
                            delta.ptr,
                            f"changes {kind[:-1]} {key!r}, which the {unit} of role "
                            f"{role.role!r} set; the {unit[:-1]}'s value would always win",
                        )


def _varies(doc: Document, grid: Grid, role: Role, unit: str) -> Iterator[Problem]:
    selection = {axis: values[0] for axis, values in grid.axes.items()}
    commands = reference_role(grid, role, selection)
    texts: dict[str, set[str | None]] = {}
    for command in commands:
        present = {line.key: line.text for line in (*command.arg_lines, *command.env_lines)}
        for key in {line.key for c in commands for line in (*c.arg_lines, *c.env_lines)}:
            texts.setdefault(key, set()).add(present.get(key))
    differing = {key for key, seen in texts.items() if len(seen) > 1}
    declared = set(role.varies or ())
    pointer = pointer_join(role.ptr, "varies")
    for key in sorted(differing - declared):
        yield doc.problem(pointer, f"{key!r} differs between {unit} but is not listed in varies")
    for key in sorted(declared - differing):
        yield doc.problem(pointer, f"{key!r} is listed in varies but is the same in every {unit[:-1]}")


def markup(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """9. `text` has `en` and `ko` with the same fields. Texts (and target notes) hold only
    inline `<strong>`, `<em>`, `<code>` and `<a href>`; any other element, attribute or
    comment is an error.

    A link is `http://` or `https://` with a host, or a path on the site (`install.html#gpu`,
    `/guide`): `//host/path`, other schemes (`javascript:`, `data:`, `mailto:`), a backslash,
    white space or a control character in it are errors. A text is judged as it is read, with
    its character references decoded: `&lt;script&gt;` is the markup `<script>` (refused
    outside `<code>`), and `&#106;avascript:` is `javascript:`."""
    text = doc.data["text"]
    languages = sorted(text)
    for lang in languages:
        for other in languages:
            for key in sorted(set(text[other]) - set(text[lang])):
                yield doc.problem(pointer_join("/text", lang), f"missing {key!r}, which text.{other} has")
    fields = [(pointer_join("/text", lang, key), value) for lang in languages for key, value in text[lang].items()]
    fields += [(pointer_join(t.ptr, "note"), t.note) for _, t in recipe.targets() if t.note]
    for pointer, value in fields:
        for error in inline.parse(value)[1]:
            yield doc.problem(pointer, error)


def router(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """10. Router steps pass `bash -n`, without warnings."""
    for _, target in recipe.targets():
        for step in target.grid.router:
            error = shell.bash_syntax_error(step.cmd)
            if error:
                yield doc.problem(pointer_join(step.ptr, "cmd"), f"does not pass bash -n: {error}")


def router_chart(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """13. A router's Helm steps match the chart they install, as the committed vocabulary
    of that chart (`data/chart-*.json`, `helmcharts.py`) records it.

    The chart reference resolves (`oci://ghcr.io/llm-d/charts/llm-d-router-gateway`, not a
    bare name that names no repository) and `--version` is the release the vocabulary is of.
    Every key of each values file a step writes (`cat > FILE <<'EOF'`) and of each `--set` is
    one the chart reads, with a "did you mean" that names the chart's key; a key the chart
    refuses gets the chart's own message; required values are given, and each value has the
    type of the chart's default. The chart has no `values.schema.json`, so Helm itself would
    drop an unknown key silently. Each problem points at the key inside the step's text and
    names the line of the values file."""
    for _, target in recipe.targets():
        steps = target.grid.router
        if any(shell.bash_syntax_error(step.cmd) for step in steps):
            continue  # rule 10 reports it; the words are not what bash would run
        for finding in helmcharts.check_steps(tuple(step.cmd for step in steps)):
            yield doc.problem_inside(pointer_join(steps[finding.step].ptr, "cmd"), finding.index, finding.message)


def roles_fill_the_nodes(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """23. The roles of each target run on exactly the strategy's nodes. Roles take nodes in
    recipe order: a role on one node takes the next node, a role that spans nodes (its
    `nodes`) the next ones, each of its own; on several nodes, a role on one node beyond the
    last shares it. So a strategy of one node (`nodes` null) has no role that spans nodes; a
    target whose roles need fewer nodes than the strategy's would leave a node with nothing to
    run, and one whose role that spans nodes would reach past the last node (or share one) runs
    on more. Either is refused at the strategy's `nodes`, with the count its roles need. A target
    runs on at most 64 nodes (the page asks for a node's values once per node)."""
    for strategy in recipe.strategies:
        total = strategy.nodes if strategy.nodes and strategy.nodes > 1 else 1
        for target in strategy.targets:
            roles = target.grid.base
            need = sum(role.nodes for role in roles)
            spanning = [role for role in roles if role.span is not None]
            if max(need, total) > MAX_NODES:
                yield doc.problem(
                    pointer_join(strategy.ptr, "nodes"),
                    f"target {target.target!r} would run on {max(need, total)} nodes; a target runs on at most "
                    f"{MAX_NODES}",
                )
                break
            where = client.placement([role.nodes for role in roles], strategy.nodes)
            used = {node for nodes in where for node in nodes}
            plan = "; ".join(
                f"{role.role} on node{'s' if len(nodes) > 1 else ''} {_node_range(nodes)}"
                for role, nodes in zip(roles, where, strict=True)
            )
            if spanning and (total == 1 or max(used) > total):
                words = "null (one node)" if total == 1 else f'"{total}"'
                yield doc.problem(
                    pointer_join(strategy.ptr, "nodes"),
                    f"the strategy's nodes is {words}, but target {target.target!r} needs {need}: "
                    f"role {spanning[0].role!r} spans {spanning[0].nodes} nodes of its own ({plan}); "
                    f'set nodes to "{need}"',
                )
                break
            if len(used) < total:
                fewer = f'"{len(used)}"' if len(used) > 1 else "null (one node)"
                yield doc.problem(
                    pointer_join(strategy.ptr, "nodes"),
                    f"the strategy spans {total} nodes but target {target.target!r} runs on {len(used)} ({plan}): "
                    f"a node beyond its roles would run nothing; give a role more nodes (its nodes, one entry "
                    f"per node), another role, or set nodes to {fewer}",
                )
                break


def _node_range(nodes: tuple[int, ...]) -> str:
    return str(nodes[0]) if len(nodes) == 1 else f"{nodes[0]}-{nodes[-1]}"


def placeholder_scopes(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """14. A placeholder named in `placeholders` appears in some command or router step; one
    that each node fills in (`"scope": "node"`) appears in no router step, which runs on no
    node. A head placeholder (`"scope": "head"`) names in `of` a node placeholder, and appears
    only in the commands of roles that span nodes: on each of their nodes it is the value
    `of` has on the role's head."""
    used: set[str] = set()
    heads = recipe.placeholder_heads
    for _, target in recipe.targets():
        grid = target.grid
        spanning = {role.role for role in grid.base if role.span is not None}
        for _kind, pointer, role, mapping in grid.mappings():
            for key, text in mapping.items():
                found = shell.placeholders(text)
                used.update(found)
                for name in found:
                    if name in heads and role not in spanning:
                        yield doc.problem(
                            pointer_join(pointer, key),
                            f'<{name}> is the address of a head (placeholders/{name}/scope is "head"), but role '
                            f"{role!r} spans no nodes: write <{heads[name]}> or a placeholder of its own",
                        )
        for step in grid.router:
            found = shell.placeholders(step.cmd)
            used.update(found)
            for name in found:
                scope = recipe.placeholder_scopes.get(name)
                if scope in ("node", "head"):
                    yield doc.problem(
                        pointer_join(step.ptr, "cmd"),
                        f'<{name}> has a value per node (placeholders/{name}/scope is "{scope}"), but a router step '
                        "runs on no node of the target; give the router its own placeholder",
                    )
    for name, of in heads.items():
        if recipe.placeholder_scopes.get(of) != "node":
            yield doc.problem(
                pointer_join("/placeholders", name, "of"),
                f"<{name}> takes the value of <{of}> on the head node, but <{of}> is not a node placeholder: "
                f'list it in placeholders with "scope": "node"',
            )
    for name in recipe.placeholder_scopes:
        if name not in used:
            yield doc.problem(
                pointer_join("/placeholders", name), f"<{name}> appears in no command or router step", key=True
            )


RULES = (
    unique_names,
    file_name,
    dates,
    delta_keys,
    deleted_keys,
    texts,
    labels,
    recommendation,
    cap,
    conflicts,
    same_commands,
    ranks,
    markup,
    router,
    router_chart,
    placeholder_scopes,
    *manifests.RULES,
    roles_fill_the_nodes,
    spanning.check,
)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Statement:
    """A rule as readers read it: its number (None for the unnumbered ones) and its text."""

    number: int | None
    text: str


_NUMBERED = re.compile(r"(\d+)\.\s+")


def statements() -> tuple[Statement, ...]:
    """Every rule a recipe keeps, numbered ones in order and then the others, each the
    docstring of the function that checks it (rules 15-18 are checked in characters.py and
    safety.py, 20 in facts.py, 21 in commandtext.py, 22 in bounds.py, 25-27 in sizing.py, 24 in spanning.py)."""
    checkers = (
        *RULES,
        characters.check,
        *safety.RULES,  # rule 18's folder half, names_differ_in_more_than_case, is stated with it
        facts.check,
        commandtext.check,
        bounds.check,
        sizing.facts_bounds,
        sizing.npus_agree,
        sizing.served_sizes,
    )
    found = []
    for checker in checkers:
        text = inspect.cleandoc(checker.__doc__ or "")
        match = _NUMBERED.match(text)
        number = int(match.group(1)) if match else None
        found.append(Statement(number=number, text=text[match.end() :] if match else text))
    return tuple(sorted(found, key=lambda s: (s.number is None, s.number or 0)))


# The rules that read the targets' line tables: they keep them in the caller's memo.
TABLE_RULES = (same_commands, *manifests.RULES, spanning.check)


def check(recipe: Recipe, doc: Document, memo: Memo | None = None) -> list[Problem]:
    """Every semantic problem of a schema-valid recipe (the line tables the rules read are
    kept in ``memo``, for the page model built after them)."""
    found = {p for rule in TABLE_RULES for p in rule(recipe, doc, memo)}
    found.update(p for rule in RULES if rule not in TABLE_RULES for p in rule(recipe, doc))
    return sorted(found)
