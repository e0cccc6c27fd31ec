"""Measured results on the pages: per selection in the explorer (its figures per workload, when
and with what they were measured, a stale mark; or that nothing was measured and the benchmark
below measures it), and one plot per recipe (``recipe-results``): output tokens/s per NPU against
the median time per output token, one series per strategy and target, drawn at build time by
matplotlib as an SVG image that needs no JavaScript, its labels in the page's language, with the
same figures in a table beside it. Nothing here measures or computes a figure: they are the
stored results (``recipebook.expanding.results``)."""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from docutils import nodes

from recipebook.expanding import results
from recipebook.expanding.page import RecipePage, TargetPage
from recipebook.expanding.table import admits

from .nojs import hide_classes

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

Translate = Callable[[str], str]
PLOTS = "_images"  # where the plots are written, beside the page's other images


@dataclasses.dataclass(frozen=True, kw_only=True)
class EvidenceRow:
    workload: str  # "1,024 in / 128 out, 8 at a time"
    per_npu: str  # output tokens/s per NPU
    ttft: str  # "p50 / p99 ms"
    tpot: str
    when: str  # date, SKU, versions, stale mark
    stale: bool


class EvidenceHeaders(NamedTuple):
    """The column headers of the measured results' table."""

    workload: str
    per_npu: str
    ttft: str
    tpot: str
    when: str


class RunLink(NamedTuple):
    """A link to a run that measured a result (a CI job, a log)."""

    label: str
    href: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class EvidenceView:
    classes: tuple[str, ...]
    opening: bool
    title: str
    summary: str
    headers: EvidenceHeaders
    rows: tuple[EvidenceRow, ...]
    links: tuple[RunLink, ...]  # the runs


def number(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def workload_text(w: results.Workload, _: Translate) -> str:
    return _("{input} in / {output} out, {concurrency} at a time").format(
        input=f"{w.input_len:,}", output=f"{w.output_len:,}", concurrency=w.concurrency
    )


def stale_text(why: Sequence[str], _: Translate) -> str:
    words = {
        "commands": _("the selection's commands changed since"),
        "versions": _("the site now pins other releases"),
    }
    return _("stale: {why}").format(why="; ".join(words[w] for w in why))


def evidence_views(target: TargetPage, groups: Sequence[results.Evidence], _: Translate) -> tuple[EvidenceView, ...]:
    """One view per set of selections that share their results (the no-JS classes choose it)."""
    axes = target.table.axes
    headers = EvidenceHeaders(
        _("Workload"),
        _("Output tokens/s per NPU"),
        _("TTFT p50 / p99 (ms)"),
        _("TPOT p50 / p99 (ms)"),
        _("Measured"),
    )
    views = []
    for group in groups:
        products = list(group.when) or [(None,) * len(axes)]
        if group.measured:
            rows = tuple(
                EvidenceRow(
                    workload=workload_text(m.result.workload, _),
                    per_npu=number(m.result.per_npu),
                    ttft=f"{number(m.result.ttft_ms['p50'])} / {number(m.result.ttft_ms['p99'])}",
                    tpot=f"{number(m.result.tpot_ms['p50'], 2)} / {number(m.result.tpot_ms['p99'], 2)}",
                    when=_("{date} on {npus} × {sku}, vLLM {vllm}, vllm-rbln {rbln}").format(
                        date=m.result.date.replace("T", " "),
                        npus=m.result.npus,
                        sku=m.result.sku,
                        vllm=m.result.vllm,
                        rbln=m.result.vllm_rbln,
                    )
                    + ("; " + stale_text(m.stale, _) if m.stale else ""),
                    stale=bool(m.stale),
                )
                for m in group.measured
            )
            summary = _("Measured with vllm bench serve, random prompts, each request run to its full output length.")
            links = tuple(
                RunLink(_("run of {date}").format(date=m.result.date[:10]), m.result.run)
                for m in group.measured
                if m.result.run
            )
        else:
            rows, links = (), ()
            summary = _(
                "Nothing has been measured for this selection yet: no throughput or latency is shown, because none "
                "is known. The benchmark below measures it and writes the result files."
            )
        for product in products:
            views.append(
                EvidenceView(
                    classes=tuple(hide_classes(product, axes)),
                    opening=admits(product, target.opening),
                    title=_("Measured performance"),
                    summary=summary,
                    headers=headers,
                    rows=rows,
                    links=links,
                )
            )
    return tuple(views)


def llms_lines(
    page: RecipePage, measured: Sequence[results.Result], strategy_label: Callable[[str], str], _: Translate
) -> list[str]:
    """Per target, what was measured (best output tokens/s per NPU, with its workload), or that nothing was."""
    out = []
    for target in page.targets:
        mine = results.of_target(measured, target.strategy.slug, target.target.target)
        if mine:
            best = max(mine, key=lambda r: r.per_npu)
            text = _("measured: {value} output tokens/s per NPU at {workload} ({date}); {count} run(s)").format(
                value=number(best.per_npu),
                workload=workload_text(best.workload, _),
                date=best.date[:10],
                count=len(mine),
            )
        else:
            text = _("not measured yet")
        out.append(f"  - {strategy_label(target.strategy.label)} / {target.target.target}: {text}")
    return out


# -- the plot ------------------------------------------------------------------------------


def plot_svg(
    page: RecipePage, measured: Sequence[results.Result], strategy_label: Callable[[str], str], _: Translate
) -> str | None:
    """The recipe's plot as SVG text (its labels translated, its text kept as text), or None
    when nothing was measured: an empty chart would pretend."""
    if not measured:
        return None
    # matplotlib is imported here, when a plot is drawn, not when the extension loads: importing it
    # costs about half a second of processor time in every process that loads the extension (each
    # sphinx-build, each catalog tool), and only a page with measured results draws a plot
    import matplotlib  # noqa: PLC0415
    import matplotlib.figure  # noqa: PLC0415

    # Text stays text (the reader's browser draws it in the page's fonts); matplotlib only measures
    # it, with a CJK font when the machine has one, and says nothing of glyphs it cannot measure.
    style: dict[RcKeyType, Any] = {
        "svg.fonttype": "none",
        "svg.hashsalt": "recipebook",
        "font.family": ["DejaVu Sans", "Noto Sans CJK KR", "Noto Sans CJK JP"],
        "font.size": 10,
    }
    quiet = logging.getLogger("matplotlib.font_manager")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        with matplotlib.rc_context(style), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            warnings.filterwarnings("ignore", message="findfont")
            return _draw(matplotlib.figure.Figure(figsize=(7.2, 4.2), dpi=100), page, measured, strategy_label, _)
    finally:
        quiet.setLevel(level)


def _draw(
    figure: Figure,
    page: RecipePage,
    measured: Sequence[results.Result],
    strategy_label: Callable[[str], str],
    _: Translate,
) -> str:
    axes = figure.subplots()
    markers = "osD^v<>P*X"
    for n, target in enumerate(page.targets):
        mine = [r for r in results.of_target(measured, target.strategy.slug, target.target.target)]
        if not mine:
            continue
        points = sorted(mine, key=lambda r: r.tpot_ms["p50"])
        # points only: runs of different workloads are not a curve
        axes.plot(
            [r.tpot_ms["p50"] for r in points],
            [r.per_npu for r in points],
            marker=markers[n % len(markers)],
            linestyle="none",
            label=f"{strategy_label(target.strategy.label)} / {target.target.target}",
        )
        for r in points:
            w = r.workload
            axes.annotate(
                f"{w.input_len:,}/{w.output_len:,} ×{w.concurrency}",
                (r.tpot_ms["p50"], r.per_npu),
                textcoords="offset points",
                xytext=(4, 4),
                fontsize=7,
            )
    axes.set_xlabel(_("Median time per output token (ms), lower is faster"))
    axes.set_ylabel(_("Output tokens/s per NPU"))
    axes.set_title(_("Throughput against latency, measured (labels: input/output tokens ×concurrency)"))
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    out = io.StringIO()
    figure.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    return out.getvalue()


class recipe_plot(nodes.General, nodes.Element):
    """The plot of a recipe: an image in HTML (``node["file"]``, ``node["alt"]``); nothing in
    other builders, whose readers get the table beside it."""


def visit_plot_html(translator: Any, node: recipe_plot) -> None:
    up = "../" * node["depth"]
    translator.body.append(
        f'<figure class="rb-plot"><img src="{up}{PLOTS}/{node["file"]}" alt="{translator.attval(node["alt"])}" '
        f'width="720" height="420" loading="lazy"></figure>'
    )
    raise nodes.SkipNode


def skip(translator: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


def write_plots(app: Any, exception: BaseException | None) -> None:
    """build-finished: write the plots the pages of this build drew."""
    if exception is not None or app.builder.format != "html":
        return
    plots = {
        file: text for drawn in app.env.get_domain("recipebook").data["plots"].values() for file, text in drawn.items()
    }
    folder = Path(app.outdir) / PLOTS
    for name, text in sorted(plots.items()):
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            temporary = path.with_suffix(".tmp")
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, path)
