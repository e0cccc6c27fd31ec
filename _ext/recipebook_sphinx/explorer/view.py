"""The explorer of one target in words: the engine's ``TargetPage`` as a typed view.

``explorer_view`` puts the page model into the reader's language (every label through
gettext) and into the classes the no-JavaScript selection works with
(``nojs``); nothing here computes a command, and what differs between a role's
ranks is the engine's (``recipebook.expanding.ranks``). Two renderings follow from the view, and only
from it:

- the HTML (``explorer.html``, see ``html.render_html``);
- the text form (``text.text_form``): the explorer as headings, paragraphs and
  code blocks, which are the node's children.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from collections.abc import Callable, Sequence
from typing import NamedTuple

from recipebook import shell
from recipebook.expanding import client, memory, results
from recipebook.expanding.client import RolePlan
from recipebook.expanding.page import Axis, Placeholder, Serving, TargetPage
from recipebook.expanding.ranks import rank_differences
from recipebook.expanding.table import Axes, Product, RoleTable, admits
from recipebook.rendering import kubernetes
from recipebook.rendering.files import selection_key

from . import memory_panel, results_panel
from .nojs import hide_classes, rank_classes, removed_copies
from .roles import role_title

Translate = Callable[[str], str]
AxisText = Callable[[Axis], tuple[str, dict[str, str]]]


# -- the view ------------------------------------------------------------------------------
# Small groups of words are named records (NamedTuple): the template and the text form read
# them by name, never by position.


class Run(NamedTuple):
    """A run of a code line's text, and whether it is a placeholder (``<POD_IP>``)."""

    text: str
    placeholder: bool


class Status(NamedTuple):
    classes: tuple[str, ...]
    text: str


class Marks(NamedTuple):
    """Screen-reader words of the change marks."""

    added: str
    removed: str


class Excluded(NamedTuple):
    """The message of one exclusion entry."""

    id: str
    text: str


class FilesLink(NamedTuple):
    href: str
    label: str
    note: str


class KubectlLine(NamedTuple):
    """The sentence under the files link: before the kubectl command, the command, after it."""

    before: str
    command: str
    after: str


class RankCommand(NamedTuple):
    """Text form: a rank's or node's title (None for a role with neither) and its command at the
    opening."""

    title: str | None
    command: str


class ServingStep(NamedTuple):
    title: str
    npus: str
    checks: Code  # the health checks to wait for
    text: str  # the same checks as text


class ServingTitles(NamedTuple):
    roles: str  # roles and nodes
    wait: str
    request: str
    bench: str


class ReportLink(NamedTuple):
    href: str  # the opening selection's pre-filled issue
    base: str  # a new issue, for the script to fill for another selection
    title: str
    body: str
    label: str
    note: str


class CopyTexts(NamedTuple):
    done: str
    title: str
    label: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class CodeLine:
    classes: tuple[str, ...]
    parts: tuple[Run, ...]
    mark: str | None = None  # "add": not in the base command; "del": a base line this selection removes
    lead: str = ""  # the continuation before an argument (left out of a change mark)
    trail: str = ""  # the continuation after an env assignment (likewise)
    varies: bool = False  # a key whose text differs between ranks (highlighted, without its continuation)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Code:
    pre_id: str
    lines: tuple[CodeLine, ...]
    node: int | None = None  # the node whose values fill its placeholders (None: values shared by all)
    long: bool = False  # shown in a box of its own height that scrolls (a long router values file)
    head: int | None = None  # a node of a role that spans nodes: its head, whose values fill head placeholders


@dataclasses.dataclass(frozen=True, kw_only=True)
class Choice:
    id: str
    name: str
    classes: str
    value: str
    checked: bool
    label: str
    recommended: bool = False


@dataclasses.dataclass(frozen=True, kw_only=True)
class Selector:
    kind: str  # "radio" or "toggle"
    axis: str
    title: str
    choices: tuple[Choice, ...] = ()  # radio
    id: str = ""  # toggle
    classes: str = ""  # toggle
    checked: bool = False  # toggle
    hint: str = ""  # toggle: "recommended: on"


@dataclasses.dataclass(frozen=True, kw_only=True)
class RankTable:
    caption: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class NodeCode:
    """The command of one node of a role that spans nodes, shown while its tab is chosen."""

    classes: tuple[str, ...]  # hidden while another node of the role is chosen (nojs.rank_classes)
    code: Code


@dataclasses.dataclass(frozen=True, kw_only=True)
class RoleView:
    title: str  # "Decode server, on node 2"
    note: str | None  # what the ranks (or nodes) share and how to pick one
    picker: Selector | None  # the rank (or node) picker (radio), for a role with several
    ranks: RankTable | None  # what differs between ranks (or nodes), one row each
    code: Code | None  # the command (the chosen rank's, for a role with ranks); None for a role that spans nodes
    commands: tuple[RankCommand, ...]  # text form: each rank's (or node's) command at the opening selection
    nodes: tuple[NodeCode, ...] = ()  # a role that spans nodes: each node's command, in a tab of its own


@dataclasses.dataclass(frozen=True, kw_only=True)
class Step:
    title: str
    code: Code
    text: str


class RouterView(NamedTuple):
    title: str
    note: str
    steps: tuple[Step, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ServingView:
    classes: tuple[str, ...]  # the selections it is for (hide classes)
    opening: bool  # whether the opening selection shows this copy
    steps: tuple[ServingStep, ...]
    final: str
    client: Code
    client_text: str
    bench: Code
    bench_text: str
    bench_note: str = ""  # what the benchmark runs (the standard workloads) and where its results go


@dataclasses.dataclass(frozen=True, kw_only=True)
class Input:
    """One value the reader fills in: a placeholder, for one node or for every command."""

    name: str  # POD_IP
    node: int | None
    label: str  # "<POD_IP> on node 2 (decode server)"
    text: str  # what it stands for
    of: str | None = None  # a head placeholder: the node placeholder it is filled from (no field of its own)


@dataclasses.dataclass(frozen=True, kw_only=True)
class ManifestFile:
    """One file of the selection's kubernetes/ folder in the manifests panel."""

    name: str  # kubernetes/decode.yaml
    href: str  # the opening selection's static copy (what a reader without JavaScript opens)
    code: Code  # empty: recipebook-files.js writes the selection's text into it


@dataclasses.dataclass(frozen=True, kw_only=True)
class ManifestsView:
    """The panel of the selection's Kubernetes manifests, next to its commands."""

    title: str
    note: str
    static_note: str  # shown until the script has written the selection's files
    apply: Code  # kubectl apply -f kubernetes/
    files: tuple[ManifestFile, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ExplorerView:
    gid: str
    strategy: str
    target: str
    axes: tuple[str, ...]
    aria_label: str
    recommended_mark: str
    options_legend: str
    modes: tuple[Selector, ...]
    toggles: tuple[Selector, ...]
    status: Status
    opening: str  # the opening selection in words, for the text form
    reset: str
    diff_label: str | None  # the "changes against the base" switch, when the base is offered
    marks: Marks
    excluded: tuple[Excluded, ...]  # what conflicts, per exclusion entry
    excluded_json: str  # value indices of each exclusion entry, for the nearest-selection button
    nearest_label: str
    inputs_title: str
    inputs: tuple[Input, ...]
    files: FilesLink | None
    kubernetes: KubectlLine | None = None  # under the files
    manifests: ManifestsView | None = None  # the selection's manifests, filled by recipebook-files.js
    roles: tuple[RoleView, ...]
    router: RouterView | None
    serving: tuple[ServingView, ...]
    serving_titles: ServingTitles
    report: ReportLink | None
    copy_texts: CopyTexts
    long_code_label: str  # names a code block that scrolls
    other_lines_title: str
    other_lines: tuple[str, ...]
    # the memory panel: a view per set of selections sharing figures; () without facts
    memory: tuple[memory_panel.FitView, ...] = ()
    # the measured results: a view per set of selections sharing them
    measured: tuple[results_panel.EvidenceView, ...] = ()


# -- code blocks ---------------------------------------------------------------------------


def code_parts(text: str) -> tuple[Run, ...]:
    """Shell text split into runs, each flagged when it is a placeholder such as <POD_IP>."""
    parts: list[Run] = []
    last = 0
    for match in shell.PLACEHOLDER.finditer(text):
        parts.append(Run(text[last : match.start()], False))
        parts.append(Run(match.group(), True))
        last = match.end()
    parts.append(Run(text[last:], False))
    return tuple(part for part in parts if part.text)


# A step longer than this many lines scrolls inside a box of about that height: a router's
# values file (sixty lines and more) would otherwise be most of the page.
LONG_LINES = 24


def plain_code(pre_id: str, text: str, node: int | None = None) -> Code:
    return Code(
        pre_id=pre_id,
        lines=(CodeLine(classes=(), parts=code_parts(text)),),
        node=node,
        long=text.count("\n") >= LONG_LINES,
    )


def role_code(
    role: RoleTable, role_index: int, axes: Axes, pre_id: str, node: int | None, base: tuple[int, ...] | None
) -> Code:
    """The lines of one role's <pre>: every line once, its conditions as classes.

    With a base selection, a line the base does not show is marked "add", and each line the
    base shows is followed by struck-through copies ("del") shown where the line is not.
    """
    out = []
    for kind in ("env", "arg"):
        if kind == "arg":
            out.append(CodeLine(classes=(), parts=code_parts(f"{role.launcher} {shlex.quote(role.model)}")))
        for line in (v for v in role.lines if v.kind == kind):
            classes = [*hide_classes(line.when, axes), *rank_classes(line, role_index, role.ranks)]
            varies = line.key in role.varies and line.ranks is not None
            # the continuations stay outside the change marks: only the line itself is marked
            lead, trail = ("", shell.CONTINUATION) if kind == "env" else (shell.CONTINUATION + shell.ARG_INDENT, "")
            parts = code_parts(line.text)
            shown_in_base = base is not None and line.shown(base)
            mark = "add" if base is not None and not shown_in_base else None
            out.append(CodeLine(classes=tuple(classes), parts=parts, mark=mark, lead=lead, trail=trail, varies=varies))
            if shown_in_base:
                for product in removed_copies(line.when, axes):
                    copy = [*hide_classes(product, axes), *rank_classes(line, role_index, role.ranks), "rb-del"]
                    out.append(CodeLine(classes=tuple(copy), parts=parts, mark="del", lead=lead, trail=trail))
    return Code(pre_id=pre_id, lines=tuple(out), node=node)


def node_codes(
    role: RoleTable, role_index: int, axes: Axes, gid: str, base: tuple[int, ...] | None
) -> tuple[NodeCode, ...]:
    """Each node's command of a role that spans nodes, in a <pre> of its own (its placeholders take
    that node's values): the role's lines that node holds, each with its axis classes; the block
    is hidden while another node of the role is chosen."""
    out = []
    whole = role_code(role, role_index, axes, "", None, base)
    count = role.ranks or 0
    for k, number in enumerate(role.nodes):
        hidden = {f"q-{role_index}-{k}"}
        lines = tuple(
            dataclasses.replace(line, classes=tuple(c for c in line.classes if not c.startswith("q-")))
            for line in whole.lines
            if not hidden & set(line.classes)
        )
        out.append(
            NodeCode(
                classes=tuple(f"q-{role_index}-{j}" for j in range(count) if j != k),
                code=Code(pre_id=f"{gid}-c{role_index}-n{k}", lines=lines, node=number, head=role.nodes[0]),
            )
        )
    return tuple(out)


# -- words ---------------------------------------------------------------------------------


def placeholder_text(placeholder: Placeholder, _: Translate) -> str:
    """What a placeholder stands for, by the meaning key the engine gives it."""
    known = {
        "pod-ip": _("the IP address of the host or pod that runs the server, as the other servers reach it."),
        "epp-host": _("the host of the llm-d endpoint picker (EPP), which receives the KV-cache events."),
        "router-host": _("the address of the router's gateway, where clients send their requests."),
    }
    return known.get(placeholder.meaning, _("a value of your deployment; replace it before running the command."))


def npus_text(plan: RolePlan, _: Translate) -> str:
    if plan.spans:
        per = set(plan.npus_per_server)
        if len(per) == 1:
            return _("{npus} NPUs on each of its {count} nodes, {total} in all").format(
                count=len(plan.nodes), npus=per.pop(), total=plan.npus
            )
        return _("{total} NPUs on its {count} nodes").format(count=len(plan.nodes), total=plan.npus)
    if plan.servers == 1 and plan.npus == 1:
        return _("one server process using one NPU")
    if plan.servers == 1:
        return _("one server process using {npus} NPUs").format(npus=plan.npus)
    per = set(plan.npus_per_server)
    if len(per) == 1:
        count = per.pop()
        if count == 1:
            return _("{count} server processes, one NPU each: {total} NPUs in all").format(
                count=plan.servers, total=plan.npus
            )
        return _("{count} server processes, {npus} NPUs each: {total} NPUs in all").format(
            count=plan.servers, npus=count, total=plan.npus
        )
    return _("{count} server processes using {total} NPUs in all").format(count=plan.servers, total=plan.npus)


def _node_roles(target: TargetPage, node: int, _: Translate) -> str:
    roles = next(n.roles for n in target.nodes if n.number == node)
    words = []
    for role in roles:
        spans = target.nodes_of(role)
        if len(spans) < 2:
            words.append(role_title(role, _))
        elif node == spans[0]:
            words.append(_("{role}, its head").format(role=role_title(role, _)))
        else:
            words.append(_("{role}, a follower").format(role=role_title(role, _)))
    return ", ".join(words)


def inputs(target: TargetPage, _: Translate) -> tuple[Input, ...]:
    """What the placeholder panel asks for: a node-scoped placeholder once per node of a
    multi-node target, labelled with the node and its roles; any other once."""
    items = []
    several = len(target.nodes) > 1
    for placeholder in target.placeholders:
        text = placeholder_text(placeholder, _)
        if placeholder.scope == "head" and placeholder.of:
            heads = [
                _("{of} on node {node} (the head of the {role})").format(
                    of=f"<{placeholder.of}>", node=role.nodes[0], role=role_title(role.role, _).lower()
                )
                for role in target.table.roles
                if role.spans and any(placeholder.text in line.text for line in role.lines)
            ]
            text = _("the address of the head node: filled in from {heads}.").format(heads=", ".join(heads))
            items.append(Input(name=placeholder.name, node=None, label=placeholder.text, text=text, of=placeholder.of))
            continue
        if placeholder.scope == "node" and several:
            for node in target.nodes:
                label = _("{name} on node {node} ({roles})").format(
                    name=placeholder.text, node=node.number, roles=_node_roles(target, node.number, _)
                )
                items.append(Input(name=placeholder.name, node=node.number, label=label, text=text))
        else:
            items.append(Input(name=placeholder.name, node=None, label=placeholder.text, text=text))
    return tuple(items)


def _selector(
    target: TargetPage, axis: Axis, gid: str, a: int, title: str, labels: dict[str, str], _: Translate
) -> Selector:
    chosen = target.opening[a]
    rec = target.recommended[a] if target.recommended else None
    if axis.toggle:
        on, off = axis.values.index("on"), axis.values.index("off")
        hint = f"{_('recommended')}: {_('on') if rec == on else _('off')}" if rec is not None else ""
        return Selector(
            kind="toggle",
            axis=axis.name,
            title=title,
            id=f"{gid}-{a}",
            classes=f"i-{a}-{on} t-{a}-{off}",
            checked=chosen == on,
            hint=hint,
        )
    choices = tuple(
        Choice(
            id=f"{gid}-{a}-{v}",
            name=f"{gid}-{a}",
            classes=f"i-{a}-{v}",
            value=value,
            checked=v == chosen,
            label=labels.get(value, value),
            recommended=v == rec,
        )
        for v, value in enumerate(axis.values)
    )
    return Selector(kind="radio", axis=axis.name, title=title, choices=choices)


def _rank_view(role: RoleTable, role_index: int, gid: str, _: Translate) -> tuple[Selector, RankTable]:
    """The rank picker and the table of what differs between ranks; for a role that spans
    nodes, the node tabs and what differs between its nodes."""
    if role.spans:
        names = tuple(
            _("Node {node} (head)").format(node=number) if k == 0 else _("Node {node}").format(node=number)
            for k, number in enumerate(role.nodes)
        )
        title, caption = _("Node"), _("What differs between the {count} nodes").format(count=role.ranks)
    else:
        names = tuple(str(k) for k in range(role.ranks or 0))
        title, caption = _("Rank"), _("What differs between the {count} ranks").format(count=role.ranks)
    choices = tuple(
        Choice(
            id=f"{gid}-k{role_index}-{k}",
            name=f"{gid}-k{role_index}",
            classes=f"k-{role_index}-{k}",
            value=str(k),
            checked=k == 0,
            label=label,
        )
        for k, label in enumerate(names)
    )
    picker = Selector(
        kind="radio", axis=f"{'node' if role.spans else 'rank'}:{role.role}", title=title, choices=choices
    )
    differences = rank_differences(role)
    rows = tuple(
        (names[k], *("—" if value is None else value for value in values))
        for k, values in enumerate(differences.values)
    )
    return picker, RankTable(caption=caption, headers=(title, *differences.keys), rows=rows)


def _spanning_role_view(role: RoleTable, r: int, target: TargetPage, gid: str, _: Translate) -> RoleView:
    """A role that spans nodes: a tab per node, each with that node's own command, and the order
    to start them in."""
    first, last = role.nodes[0], role.nodes[-1]
    picker, table = _rank_view(role, r, gid, _)
    note = _(
        "One server runs across nodes {first}–{last}, each node with its own command; they differ only in the "
        "highlighted lines. Start node {first}, the head, first, then the others: the server answers on the head "
        "once every node has joined. Pick a node to see and copy its command."
    ).format(first=first, last=last)
    commands = role.commands(target.opening)
    titles = [
        _("Node {node}, the head: start it first").format(node=c.node)
        if c.rank == 0
        else _("Node {node}").format(node=c.node)
        for c in commands
    ]
    return RoleView(
        title=_("{role}, on nodes {first}–{last}").format(role=role_title(role.role, _), first=first, last=last),
        note=note,
        picker=picker,
        ranks=table,
        code=None,
        commands=tuple(RankCommand(title, c.shell) for title, c in zip(titles, commands, strict=True)),
        nodes=node_codes(role, r, target.table.axes, gid, target.base),
    )


def bench_code(target: TargetPage, group: Serving, product: Product, pre_id: str) -> tuple[Code, str]:
    """The benchmark script of a serving group: its shared lines, and one metadata line per
    selection the group's product admits, each shown only for its selection (the no-JS
    classes); and the script's text at the first of them (the opening selection when admitted)."""
    axes = target.table.axes
    chosen = [c for c in target.table.offered if admits(product, c) and target.serving_at(c) is group]
    # each line after the first starts with its line break, inside the element the no-JS classes hide
    lines = [
        CodeLine(classes=(), parts=code_parts(text), lead="\n" if n else "") for n, text in enumerate(group.bench_head)
    ]
    for selection in chosen:
        full = tuple(frozenset({v}) for v in selection)
        text = target.bench_line(selection)
        lines.append(CodeLine(classes=tuple(hide_classes(full, axes)), parts=code_parts(text), lead="\n"))
    lines += [CodeLine(classes=(), parts=code_parts(text), lead="\n") for text in group.bench_tail]
    first = target.opening if target.opening in chosen else chosen[0]
    return Code(pre_id=pre_id, lines=tuple(lines), node=group.endpoint.node), target.bench_at(first)


def _serving_view(
    group: Serving, index: int, target: TargetPage, gid: str, router: bool, _: Translate
) -> tuple[ServingView, ...]:
    axes = target.table.axes
    products: list[Product] = list(group.when) or [(None,) * len(axes)]
    out = []
    for c, product in enumerate(products):
        classes = tuple(hide_classes(product, axes))
        steps = tuple(
            ServingStep(
                title=_("Step {n}: {role}, on nodes {first}–{last} (start node {first}, the head, first)").format(
                    n=plan.step, role=role_title(plan.role, _), first=plan.nodes[0], last=plan.nodes[-1]
                )
                if plan.spans
                else _("Step {n}: {role}, on node {node}").format(
                    n=plan.step, role=role_title(plan.role, _), node=plan.node
                ),
                npus=npus_text(plan, _),
                checks=plain_code(f"{gid}-w{index}-{c}-{plan.step}", "\n".join(plan.wait), plan.node),
                text="\n".join(plan.wait),
            )
            for plan in group.roles
        )
        final = (
            _("Step {n}: start the router (below) once the servers answer, then send requests to it.")
            if router
            else _("Step {n}: send requests to the server.")
        ).format(n=len(group.roles) + 1)
        bench, bench_text = bench_code(target, group, product, f"{gid}-b{index}-{c}")
        runs = "; ".join(
            _("{input} tokens in, {output} out, {concurrency} at a time").format(
                input=f"{w.input_len:,}", output=f"{w.output_len:,}", concurrency=w.concurrency
            )
            for w in group.runs
        )
        note = _(
            "The script runs vllm bench serve against the same endpoint once per standard workload ({runs}), "
            "with {per} prompts of random tokens per request at a time (nothing is downloaded). Each run writes a "
            "result file to {folder}/ that names the selection and the hash of its commands; python -m recipebook "
            "results add checks those files and stores them for the site."
        ).format(runs=runs, per=client.PROMPTS_PER_REQUEST, folder=client.RESULT_DIR)
        out.append(
            ServingView(
                classes=classes,
                opening=admits(product, target.opening),
                steps=steps,
                final=final,
                client=plain_code(f"{gid}-q{index}-{c}", group.client, group.endpoint.node),
                client_text=group.client,
                bench=bench,
                bench_text=bench_text,
                bench_note=note,
            )
        )
    return tuple(out)


def _report(
    target: TargetPage, recipe: str, repository_url: str, versions: dict[str, str], _: Translate
) -> ReportLink | None:
    """The report link: the opening selection's URL, and the fields for the script to refill."""
    if not repository_url:
        return None
    strategy, name = target.strategy.slug, target.target.target
    pairs = ", ".join(f"{a}={v}" for a, v in target.opening_selection().items())
    title, body = client.report_fields(recipe, strategy, name, pairs, versions)
    generic_title, generic_body = client.report_fields(recipe, strategy, name, client.REPORT_SELECTION, versions)
    return ReportLink(
        client.issue_url(repository_url, title, body),
        repository_url.rstrip("/") + "/issues/new",
        generic_title,
        generic_body,
        _("Report a result for this selection"),
        _("(opens a pre-filled issue in the project's repository)"),
    )


def _manifests_view(target: TargetPage, recipe: str, gid: str, files_href: str, _: Translate) -> ManifestsView:
    """The manifests panel: the file names (every selection of a target has the same files),
    each linking to the opening selection's static copy, and an empty block per file that
    recipebook-files.js fills with the selection's text, as it writes the download."""
    opening = target.opening
    names = next(
        files
        for when, files in kubernetes.target_files(target, recipe)
        if not when or any(admits(p, opening) for p in when)
    )
    static = f"{files_href}{selection_key(target.opening_selection())}/"
    return ManifestsView(
        title=_("Kubernetes manifests"),
        note=_(
            "The kubernetes/ folder of the ready-to-run files, for the selection above and the values you "
            "filled in: each file as it downloads. Apply the folder with:"
        ),
        static_note=_("Without JavaScript, the file names open the manifests of the opening selection."),
        apply=plain_code(f"{gid}-k8s", kubernetes.APPLY),
        files=tuple(
            ManifestFile(name=name, href=static + name, code=Code(pre_id=f"{gid}-k8s{k}", lines=(), long=True))
            for k, name in enumerate(names)
        ),
    )


def explorer_view(
    target: TargetPage,
    *,
    recipe: str,
    gid: str,
    axis_text: AxisText,
    _: Translate,
    files_href: str = "",
    repository_url: str = "",
    versions: dict[str, str] | None = None,
    measured: Sequence[results.Evidence] = (),
    observations: Sequence[memory.Seen] = (),
) -> ExplorerView:
    """The explorer's view: the target's page model in words."""
    axes = target.table.axes
    modes: list[Selector] = []
    toggles: list[Selector] = []
    labels: dict[str, tuple[str, dict[str, str]]] = {}
    for a, axis in enumerate(target.axes):
        title, values = labels[axis.name] = axis_text(axis)
        selector = _selector(target, axis, gid, a, title, values, _)
        (modes if axis.mode else toggles).append(selector)
    if target.recommended is None:
        status = Status(("rb-status",), _("This target has no recommended selection; it opens on the base command."))
        opening_words = _("The commands below are the base selection: {choices}.")
    else:
        product = tuple(frozenset({v}) for v in target.recommended)
        status = Status(
            ("rb-status", "rb-isrec", *hide_classes(product, axes)), _("This is the recommended selection.")
        )
        opening_words = _("The commands below are the recommended selection: {choices}.")

    def choice(axis: str, value: str) -> str:
        title, values = labels.get(axis, (axis, {}))
        return f"{title}: {values.get(value, value)}"

    opening = opening_words.format(choices="; ".join(choice(a, v) for a, v in target.opening_selection().items()))
    roles = []
    for r, role in enumerate(target.table.roles):
        if role.spans:
            roles.append(_spanning_role_view(role, r, target, gid, _))
            continue
        node = target.node_of(role.role)
        several = len(target.nodes) > 1
        title = (
            _("{role}, on node {node}").format(role=role_title(role.role, _), node=node)
            if several
            else role_title(role.role, _)
        )
        picker = table = note = None
        if role.ranks is not None and role.ranks > 1:
            picker, table = _rank_view(role, r, gid, _)
            note = _(
                "{count} ranks run this command; they differ only in the highlighted lines. Pick a rank to see and "
                "copy its own command."
            ).format(count=role.ranks)
        commands = role.commands(target.opening)
        rank_titles = [
            None
            if c.rank is None or role.ranks == 1
            else _("Rank {rank} of {count}").format(rank=c.rank, count=role.ranks)
            for c in commands
        ]
        roles.append(
            RoleView(
                title=title,
                note=note,
                picker=picker,
                ranks=table,
                code=role_code(role, r, axes, f"{gid}-c{r}", node if several else None, target.base),
                commands=tuple(
                    RankCommand(title, command.shell) for title, command in zip(rank_titles, commands, strict=True)
                ),
            )
        )
    router = None
    if target.router:
        steps = tuple(
            Step(
                title=_("Step {n}: {name}").format(n=n, name=name),
                code=plain_code(f"{gid}-r{n}", cmd),
                text=cmd,
            )
            for n, (name, cmd) in enumerate(target.router, start=1)
        )
        router = RouterView(_("Router"), _("Run these steps in order once the servers are up."), steps)
    serving = tuple(
        view
        for index, group in enumerate(target.serving)
        for view in _serving_view(group, index, target, gid, bool(target.router), _)
    )
    excluded = tuple(
        Excluded(
            f"{gid}-x{k}",
            _(
                "The recipe does not offer this combination: {choices} do not go together. Choose another value above."
            ).format(choices=", ".join(choice(a, v) for a, v in conflict.choices)),
        )
        for k, conflict in enumerate(target.conflicts)
    )
    files: FilesLink | None = None
    k8s: KubectlLine | None = None
    manifests: ManifestsView | None = None
    if files_href:
        files = FilesLink(
            files_href, _("Ready-to-run files"), _("(serve.sh, a vLLM config and an env file per command)")
        )
        k8s_versions = kubernetes.VERSIONS
        k8s = KubectlLine(
            _("Their kubernetes/ folder runs the same commands on a cluster:"),
            kubernetes.APPLY,
            _(
                "The manifests target Kubernetes {kubernetes}, NPUs as {resource} (RBLN device plugin {plugin} or "
                "later) and the llm-d router {llmd}."
            ).format(
                kubernetes=k8s_versions["kubernetes"],
                resource=k8s_versions["npu_resource"],
                plugin=k8s_versions["device_plugin"],
                llmd=k8s_versions["llm_d"],
            ),
        )
        manifests = _manifests_view(target, recipe, gid, files_href, _)
    return ExplorerView(
        gid=gid,
        strategy=target.strategy.slug,
        target=target.target.target,
        axes=tuple(axis for axis, _v in axes),
        aria_label=_("Feature selection"),
        recommended_mark=_("recommended"),
        options_legend=_("Options"),
        modes=tuple(modes),
        toggles=tuple(toggles),
        status=status,
        opening=opening,
        reset=_("Back to the recommended selection") if target.recommended else _("Back to the base command"),
        diff_label=_("Mark the changes against the base command") if target.base is not None else None,
        marks=Marks(_("added:"), _("removed:")),
        excluded=excluded,
        excluded_json=json.dumps(
            [[None if p is None else sorted(p) for p in c.product] for c in target.conflicts], separators=(",", ":")
        ),
        nearest_label=_("Switch to the nearest offered selection"),
        inputs_title=_("Replace the placeholders before you run a command:"),
        inputs=inputs(target, _),
        files=files,
        kubernetes=k8s,
        manifests=manifests,
        roles=tuple(roles),
        router=router,
        serving=serving,
        serving_titles=ServingTitles(
            _("Roles and nodes"),
            _("Before the next step, wait until each of these succeeds:"),
            _("Send a request"),
            _("Benchmark"),
        ),
        report=_report(target, recipe, repository_url, versions or {}, _),
        copy_texts=CopyTexts(_("Copied!"), _("Copy to clipboard"), _("Copy")),
        long_code_label=_("A long step, in a box that scrolls; the copy button copies all of it"),
        other_lines_title=_("Other selections add or change these lines:"),
        other_lines=target.other_lines,
        memory=memory_panel.fit_views(target, _, observations),
        measured=results_panel.evidence_views(target, measured, _),
    )
