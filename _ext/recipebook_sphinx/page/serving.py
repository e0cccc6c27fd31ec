"""The explorer's view model beyond the server commands: client and benchmark commands, roles
and nodes, the report link, what conflicts in an excluded combination, and the marks of the
"changes against the base" switch. The engine (recipebook.client) computes; this module only
puts its results in words and classes for templates/recipebook/explorer.html.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from recipebook import client
from recipebook.expansion import neutral_value, offered
from recipebook.explorer import Template, Variant
from recipebook.view import TargetView

Translate = Callable[[str], str]


@dataclasses.dataclass(frozen=True)
class _Shown:
    """The command of one block at one selection, as the client helpers read it."""

    role: str
    model: str
    args: tuple[str, ...]
    envs: tuple[str, ...]


def _commands(template: Template, chosen: Sequence[int], lines: Sequence[Sequence[Variant]]) -> tuple[_Shown, ...]:
    """Each block's command at a selection, with the given lines of each block (in order)."""
    return tuple(
        _Shown(
            role=block.role,
            model=block.model,
            args=tuple(v.text for v in variants if v.kind == "arg" and v.shown(chosen)),
            envs=tuple(v.text for v in variants if v.kind == "env" and v.shown(chosen)),
        )
        for block, variants in zip(template.blocks, lines, strict=True)
    )


def _grouped(commands: Sequence[_Shown]) -> list[tuple[str, list[_Shown]]]:
    out: dict[str, list[_Shown]] = {}
    for command in commands:
        out.setdefault(command.role, []).append(command)
    return list(out.items())


def selections(target_view: TargetView, only_default: bool) -> list[tuple[int, ...]]:
    """The index tuples of the selections the page can show."""
    template = target_view.template
    if only_default:
        return [template.default]
    return [template.index(s) for s in offered(target_view.target.grid)]


def exact(chosen: Sequence[int], axes: tuple[tuple[str, tuple[str, ...]], ...]) -> list[str]:
    """The classes that hide an element at every selection but one."""
    return [f"h-{a}-{v}" for a, (_axis, values) in enumerate(axes) for v in range(len(values)) if v != chosen[a]]


def _npus_text(plan: client.RolePlan, _: Translate) -> str:
    if plan.servers == 1 and plan.npus == 1:
        return _("one server process using one NPU")
    if plan.servers == 1:
        return _("one server process using {npus} NPUs").format(npus=plan.npus)
    per = set(plan.npus_per_server)
    if len(per) == 1:
        return _("{count} server processes, {npus} NPUs each: {total} NPUs in all").format(
            count=plan.servers, npus=per.pop(), total=plan.npus
        )
    return _("{count} server processes using {total} NPUs in all").format(count=plan.servers, total=plan.npus)


def _role_title(role: str, _: Translate) -> str:
    titles = {"main": _("Server"), "prefill": _("Prefill server"), "decode": _("Decode server")}
    return titles.get(role, role)


def _lines(text: str) -> list[dict[str, Any]]:
    from .nodes import code_parts  # the same placeholder marking as the commands

    return [{"classes": [], "parts": code_parts(text), "mark": None}]


def serving(
    target_view: TargetView,
    gid: str,
    nodes: int | None,
    _: Translate,
    *,
    only_default: bool,
) -> list[dict[str, Any]]:
    """Client, benchmark and roles, once per distinct text; classes pick the selections of each."""
    template = target_view.template
    router = bool(template.router)
    # the client helpers read only these lines, so selections showing the same ones share texts
    read = [tuple(v for v in block.lines if v.key in client.SERVING_FLAGS) for block in template.blocks]
    texts: dict[tuple[_Shown, ...], tuple] = {}
    groups: dict[tuple, list[tuple[int, ...]]] = {}
    for chosen in selections(target_view, only_default):
        commands = _commands(template, chosen, read)
        key = texts.get(commands)
        if key is None:
            key = texts[commands] = (
                client.client_for(commands[0], router),
                client.bench_for(commands[0], router),
                tuple(client.roles_for(_grouped(commands), router, nodes)),
            )
        groups.setdefault(key, []).append(chosen)
    out = []
    for g, ((client_text, bench_text, plans), members) in enumerate(groups.items()):
        copies = [[]] if len(groups) == 1 else [exact(m, template.axes) for m in members]
        for c, classes in enumerate(copies):
            steps = [
                {
                    "title": _("Step {n}: {role}, on node {node}").format(
                        n=plan.step, role=_role_title(plan.role, _), node=plan.node
                    ),
                    "npus": _npus_text(plan, _),
                    "wait_title": _("Before the next step, wait until each of these succeeds:"),
                    "pre_id": f"{gid}-w{g}-{c}-{plan.step}",
                    "lines": _lines("\n".join(plan.wait)),
                }
                for plan in plans
            ]
            final = (
                _("Step {n}: start the router (below) once the servers answer, then send requests to it.")
                if router
                else _("Step {n}: send requests to the server.")
            ).format(n=len(plans) + 1)
            out.append(
                {
                    "classes": classes,
                    "client_pre": f"{gid}-q{g}-{c}",
                    "client": _lines(client_text),
                    "bench_pre": f"{gid}-b{g}-{c}",
                    "bench": _lines(bench_text),
                    "steps": steps,
                    "final": final,
                }
            )
    return out


def texts(_: Translate) -> dict[str, str]:
    return {
        "client_title": _("Send a request"),
        "bench_title": _("Benchmark"),
        "bench_note": _(
            "vllm bench serve sends {prompts} prompts of random tokens ({input} tokens in, up to {output} out) "
            "to the same endpoint; nothing is downloaded."
        ).format(prompts=client.BENCH_PROMPTS, input=client.BENCH_INPUT_LEN, output=client.BENCH_OUTPUT_LEN),
        "roles_title": _("Roles and nodes"),
        "diff_label": _("Mark the changes against the base command"),
        "added": _("added:"),
        "removed": _("removed:"),
    }


def endpoint_placeholders(router: bool, _: Translate) -> list[dict[str, str]]:
    if router:
        return [
            {
                "name": client.ROUTER_HOST,
                "text": _("the address of the router's gateway, where clients send their requests."),
            }
        ]
    return [
        {
            "name": client.SERVER_HOST,
            "text": _("the host that runs the server, as the client reaches it (localhost on the same machine)."),
        }
    ]


def report(
    target_view: TargetView, recipe: str, repository_url: str, versions: Mapping[str, str], _: Translate
) -> dict[str, str] | None:
    """The report link: the opening selection's URL, and the fields for the script to refill."""
    if not repository_url:
        return None
    template = target_view.template
    pairs = ", ".join(f"{a}={v}" for a, v in target_view.opening_selection().items())
    title, body = client.report_fields(recipe, template.strategy.slug, template.target.target, pairs, versions)
    generic_title, generic_body = client.report_fields(
        recipe, template.strategy.slug, template.target.target, client.REPORT_SELECTION, versions
    )
    return {
        "href": client.issue_url(repository_url, title, body),
        "base": repository_url.rstrip("/") + "/issues/new",
        "title": generic_title,
        "body": generic_body,
        "label": _("Report a result for this selection"),
        "note": _("(opens a pre-filled issue in the project's repository)"),
    }


def conflicts(target_view: TargetView, gid: str, axis_labels: Callable[[str, str], str], _: Translate) -> list[dict]:
    """One message per exclusion entry, naming the choices that conflict."""
    grid = target_view.target.grid
    out = []
    for k, entry in enumerate(grid.excluded):
        names = ", ".join(axis_labels(axis, value) for axis, value in entry.items())
        out.append(
            {
                "id": f"{gid}-x{k}",
                "text": _("The recipe does not offer this combination: {choices} do not go together.").format(
                    choices=names
                ),
            }
        )
    return out


def nearest_data(target_view: TargetView) -> str:
    """The exclusions as JSON, for the script that offers the nearest offered selection."""
    return json.dumps([dict(e) for e in target_view.target.grid.excluded], separators=(",", ":"))


def base_selection(target_view: TargetView) -> tuple[int, ...] | None:
    """The target's base selection (every axis at its neutral value), if it is offered."""
    grid = target_view.target.grid
    chosen = {}
    for axis in grid.axes:
        value = neutral_value(grid, axis)
        if value is None:
            return None
        chosen[axis] = value
    if any(all(chosen.get(a) == v for a, v in e.items()) for e in grid.excluded):
        return None
    return target_view.template.index(chosen)


__all__ = ["base_selection", "conflicts", "report", "serving", "texts"]
