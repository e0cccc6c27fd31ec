"""The explorer as text: headings, paragraphs and code blocks, in the order the HTML shows
them, made from the same ``ExplorerView``. They are the ``recipe_explorer`` node's children:
Sphinx's search indexer, the text builder and the Markdown view (``publishing/markdown.py``)
read them.
"""

from __future__ import annotations

from collections.abc import Sequence

from docutils import nodes

from .memory_panel import FitView
from .results_panel import EvidenceView
from .view import ExplorerView, RankTable


def _para(*texts: str, classes: tuple[str, ...] = ()) -> nodes.paragraph:
    """A paragraph of separate Text nodes, so the indexer never joins two of them."""
    para = nodes.paragraph("", "", classes=list(classes))
    for i, text in enumerate(texts):
        para += nodes.Text((" " if i else "") + text)
    return para


def _code(text: str) -> nodes.literal_block:
    return nodes.literal_block(text, text, language="bash")


def _heading(text: str) -> nodes.rubric:
    """A heading inside the explorer: one level below the target's (the Markdown view nests it)."""
    rubric = nodes.rubric(text, text)
    rubric["rb_heading"] = 1
    return rubric


def _list(items: Sequence[str]) -> nodes.bullet_list:
    listing = nodes.bullet_list()
    for item in items:
        listing += nodes.list_item("", _para(item))
    return listing


ABSENT = "—"  # a rank's cell without a line of that key (view.py)


def _literal_para(text: str) -> nodes.paragraph:
    """A key or value of a command as code: no typography (``--node-rank`` keeps both dashes)."""
    return nodes.paragraph("", "", nodes.literal(text, text))


def _table(caption: str, table: RankTable) -> list[nodes.Element]:
    grid = nodes.table(classes=["rb-ranks-text"])
    group = nodes.tgroup(cols=len(table.headers))
    grid += group
    group.extend(nodes.colspec(colwidth=1) for _h in table.headers)
    head = nodes.thead()
    head += nodes.row(
        "", *[nodes.entry("", _para(h) if not i else _literal_para(h)) for i, h in enumerate(table.headers)]
    )
    body = nodes.tbody()
    for row in table.rows:
        body += nodes.row(
            "",
            *[
                nodes.entry("", _para(cell) if not i or cell == ABSENT else _literal_para(cell))
                for i, cell in enumerate(row)
            ],
        )
    group += [head, body]
    return [_para(caption), grid]


def text_form(v: ExplorerView) -> list[nodes.Element]:
    """The explorer as text, in the order the HTML shows it: selectors, the opening selection,
    the placeholders, each role's commands (every rank), the router, roles and nodes, the
    client request, the benchmark, and the lines other selections add or change."""
    out: list[nodes.Element] = []
    for s in v.modes:
        labels = [c.label + (f" ({v.recommended_mark})" if c.recommended else "") for c in s.choices]
        out.append(_para(f"{s.title}:", ", ".join(labels)))
    if v.toggles:
        out.append(
            _para(
                f"{v.options_legend}:",
                "; ".join(s.title + (f" ({s.hint})" if s.hint else "") for s in v.toggles),
            )
        )
    out.append(_para(v.opening))
    out += _memory_text(v.memory)
    out += _measured_text(v.measured)
    if v.inputs:
        out.append(_para(v.inputs_title))
        out.append(_list([f"{item.label}: {item.text}" for item in v.inputs]))
    if v.files:
        link = v.files
        para = nodes.paragraph()
        para += [nodes.reference(link.label, link.label, refuri=link.href), nodes.Text(" " + link.note)]
        out.append(para)
    if v.kubernetes:
        line = v.kubernetes
        para = nodes.paragraph()
        para += [
            nodes.Text(line.before + " "),
            nodes.literal(line.command, line.command),
            nodes.Text(". " + line.after),
        ]
        out.append(para)
    for role in v.roles:
        out.append(_heading(role.title))
        if role.note:
            out.append(_para(role.note))
        if role.ranks:
            out += _table(role.ranks.caption, role.ranks)
        for rank in role.commands:
            if rank.title:
                out.append(_para(rank.title))
            out.append(_code(rank.command))
    if v.router:
        out.append(_heading(v.router.title))
        out.append(_para(v.router.note))
        for step in v.router.steps:
            out.append(_para(step.title))
            out.append(_code(step.text))
    for sv in (s for s in v.serving if s.opening):
        titles = v.serving_titles
        out.append(_heading(titles.roles))
        for serving_step in sv.steps:
            out.append(_para(f"{serving_step.title}: {serving_step.npus}.", titles.wait))
            out.append(_code(serving_step.text))
        out.append(_para(sv.final))
        out.append(_heading(titles.request))
        out.append(_code(sv.client_text))
        out.append(_heading(titles.bench))
        out.append(_para(sv.bench_note))
        out.append(_code(sv.bench_text))
        break
    if v.report:
        report = v.report
        para = nodes.paragraph()
        para += nodes.reference(report.label, report.label, refuri=report.href)
        out.append(para)
    if v.other_lines:
        out.append(_para(v.other_lines_title))
        out.append(_code("\n".join(v.other_lines)))
    return out


# -- the memory panel ------------------------------------------------------------------------


def _plain(node: nodes.Element) -> nodes.Element:
    """Flags stay as written: no smart quotes or dashes (``--max-model-len`` is not an en dash)."""
    for element in node.findall(nodes.Element):
        element["support_smartquotes"] = False
    return node


def _memory_text(views: Sequence[FitView]) -> list[nodes.Element]:
    """The opening selection's panel as text: a heading, the summary, one line per rank, the notes."""
    for view in views:
        if not view.opening:
            continue
        out: list[nodes.Element] = [_heading(view.title), _para(view.summary)]
        if view.rows:
            h = view.headers
            out.append(
                _list(
                    [
                        f"{row.label}: {h.weights} {row.weights}; {h.kv_cache} {row.kv_cache}; {h.free} {row.free}; "
                        f"{row.verdict_text}"
                        for row in view.rows
                    ]
                )
            )
        if view.notes:
            out.append(_list(view.notes))
        if view.observations:
            out.append(_list(view.observations))
        return [_plain(node) for node in out]
    return []


def _measured_text(views: Sequence[EvidenceView]) -> list[nodes.Element]:
    """The opening selection's measured results as text: heading, summary, one line per run."""
    for view in views:
        if not view.opening:
            continue
        out: list[nodes.Element] = [_heading(view.title), _para(view.summary)]
        if view.rows:
            h = view.headers
            out.append(
                _list(
                    [
                        f"{r.workload}: {h.per_npu} {r.per_npu}; {h.ttft} {r.ttft}; {h.tpot} {r.tpot}; {r.when}"
                        for r in view.rows
                    ]
                )
            )
        return [_plain(node) for node in out]
    return []
