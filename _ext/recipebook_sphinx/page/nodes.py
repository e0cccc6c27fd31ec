"""The explorer as a doctree node: ``recipe_explorer``.

The directive builds one node per strategy and target. The node carries the explorer's
view model (``node["view"]``, plain data: every label already translated) and, as its
children, a text form of the same explorer: each label and each command line as words of
their own. Builders use what suits them, as Sphinx's ``todo_node`` and sphinx-design's tab
nodes do:

- HTML renders ``templates/recipebook/explorer.html`` from the view model and skips the
  children (the selectors and commands work without JavaScript, see ``explorer_css``);
- every other builder (text, LaTeX, man, ...) falls back to ``visit_container`` and shows
  the text form, and Sphinx's search indexer (``WordCollector``) walks the same children,
  so no two labels are glued into one search term.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Iterator
from typing import Any

import jinja2
from docutils import nodes
from markupsafe import Markup

from recipebook import shell
from recipebook.explorer import Block, Product, Template
from recipebook.view import Axis, TargetView

from ..paths import TEMPLATES

Translate = Callable[[str], str]


class recipe_explorer(nodes.container):  # docutils names its node classes in lower case
    """One explorer grid; ``view`` is its view model, the children its text form."""


def hide_classes(product: Product, axes: tuple[tuple[str, tuple[str, ...]], ...]) -> list[str]:
    """The classes that hide an element outside its product of axis values."""
    classes = []
    for a, allowed in enumerate(product):
        if allowed is not None:
            classes += [f"h-{a}-{v}" for v in range(len(axes[a][1])) if v not in allowed]
    return classes


_JSON_BOUNDARY = re.compile(r"([,{\[])")


def code_markup(text: str) -> Markup:
    """Escaped shell text with a line-break opportunity (<wbr>) after each comma and opening
    brace or bracket: a JSON value written on one line wraps for display at its own
    boundaries, not inside a name. <wbr> adds no character, so what is copied is unchanged."""
    return Markup(_JSON_BOUNDARY.sub(r"\1<wbr>", html.escape(text, quote=False)))


def code_parts(text: str) -> list[tuple[str, bool]]:
    """Shell text split into runs, each flagged when it is a placeholder such as <POD_IP>."""
    parts, last = [], 0
    for match in shell.PLACEHOLDER.finditer(text):
        parts.append((text[last : match.start()], False))
        parts.append((match.group(), True))
        last = match.end()
    parts.append((text[last:], False))
    return [part for part in parts if part[0]]


def _line(text: str, classes: list[str]) -> dict[str, Any]:
    return {"classes": classes, "parts": code_parts(text), "mark": None}


def removed_copies(when: Product, axes: tuple[tuple[str, tuple[str, ...]], ...]) -> list[Product]:
    """Disjoint products covering exactly the selections where a line shown under ``when`` is hidden.

    The line is hidden when some axis leaves its allowed values; the copy for axis k covers
    the selections whose first such axis is k, so at most one copy shows at a time.
    """
    products = []
    for k, allowed in enumerate(when):
        if allowed is None:
            continue
        outside = frozenset(range(len(axes[k][1]))) - allowed
        if outside:
            products.append(tuple(when[a] if a < k else (outside if a == k else None) for a in range(len(when))))
    return products


def block_lines(block: Block, template: Template, base: tuple[int, ...] | None = None) -> list[dict[str, Any]]:
    """The lines of one command's <pre>: every variant once, conditions as classes.

    With a base selection, a line the base does not show is marked "add", and each line the
    base shows is followed by struck-through copies ("del") shown where the line is not.
    """
    out = []
    for kind in ("env", "arg"):
        if kind == "arg":
            out.append(_line(f"{block.launcher} {block.model}", []))
        for variant in (v for v in block.lines if v.kind == kind):
            classes = hide_classes(variant.when, template.axes)
            if variant.key in block.varies:
                classes.append("rb-var")
            text = shell.env_line(variant.text) if kind == "env" else shell.arg_line(variant.text)
            line = _line(text, classes)
            if base is not None and not variant.shown(base):
                line["mark"] = "add"
            out.append(line)
            if base is not None and variant.shown(base):
                for product in removed_copies(variant.when, template.axes):
                    copy = _line(text, [*hide_classes(product, template.axes), "rb-del"])
                    copy["mark"] = "del"
                    out.append(copy)
    return out


def role_title(role: str, _: Translate) -> str:
    titles = {"main": _("Server"), "prefill": _("Prefill server"), "decode": _("Decode server")}
    return titles.get(role, role)


def placeholder_text(meaning: str, _: Translate) -> str:
    """What a placeholder stands for, by the meaning key the engine gives it (view.PLACEHOLDER_MEANINGS)."""
    known = {
        "pod-ip": _("the IP address of the host or pod that runs this server, as the other servers reach it."),
        "epp-host": _("the host of the llm-d endpoint picker (EPP), which receives the KV-cache events."),
    }
    return known.get(meaning, _("a value of your deployment; replace it before running the command."))


def _selector(
    template: Template, axis_view: Axis, gid: str, a: int, title: str, labels: dict[str, str], _: Translate
) -> dict[str, Any]:
    axis, values = template.axes[a]
    chosen = template.default[a]
    rec = template.recommended[a] if template.recommended else None
    if axis_view.toggle:
        on, off = values.index("on"), values.index("off")
        hint = f"{_('recommended')}: {_('on') if rec == on else _('off')}" if rec is not None else ""
        return {
            "kind": "toggle",
            "axis": axis,
            "id": f"{gid}-{a}",
            "classes": f"i-{a}-{on} t-{a}-{off}",
            "checked": chosen == on,
            "title": title,
            "hint": hint,
        }
    choices = [
        {
            "id": f"{gid}-{a}-{v}",
            "name": f"{gid}-{a}",
            "classes": f"i-{a}-{v}",
            "value": value,
            "checked": v == chosen,
            "label": labels.get(value, value),
            "recommended": v == rec,
        }
        for v, value in enumerate(values)
    ]
    return {"kind": "radio", "axis": axis, "title": title, "choices": choices}


def view(
    target: TargetView,
    gid: str,
    axis_text: Callable[[Axis], tuple[str, dict[str, str]]],
    _: Translate,
    files_href: str = "",
    base: tuple[int, ...] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The explorer's view model: the engine's target view in words, as plain data."""
    template = target.template
    modes, toggles = [], []
    for a, axis in enumerate(target.axes):
        selector = _selector(template, axis, gid, a, *axis_text(axis), _)
        (modes if axis.mode else toggles).append(selector)
    if template.recommended is None:
        status = {
            "classes": ["rb-status"],
            "text": _("This target has no recommended selection; it opens on the base command."),
        }
    else:
        product = tuple(frozenset({v}) for v in template.recommended)
        status = {
            "classes": ["rb-status", "rb-isrec", *hide_classes(product, template.axes)],
            "text": _("This is the recommended selection."),
        }
    roles: dict[str, list[Block]] = {}
    for block in template.blocks:
        roles.setdefault(block.role, []).append(block)
    role_views, n = [], 0
    for role, blocks in roles.items():
        block_views = []
        for block in blocks:
            rank = None
            if block.rank is not None:
                rank = _("Rank {rank} of {count}").format(rank=block.rank, count=len(blocks))
            block_views.append(
                {
                    "rank_title": rank,
                    "pre_id": f"{gid}-c{n}",
                    "lines": block_lines(block, template, base),
                    "command": block.text(template.default),
                }
            )
            n += 1
        var_note = None
        if len(blocks) > 1 and blocks[0].varies:
            var_note = (_("Highlighted lines"), _("differ between ranks."))
        role_views.append({"title": role_title(role, _), "var_note": var_note, "blocks": block_views})
    router = None
    if template.router:
        router = {
            "title": _("Router"),
            "note": _("Run these steps in order once both servers are up."),
            "steps": [
                {
                    "title": _("Step {n}: {name}").format(n=step, name=node),
                    "pre_id": f"{gid}-r{step}",
                    "lines": [_line(cmd, [])],
                    "command": cmd,
                }
                for step, (node, cmd) in enumerate(template.router, start=1)
            ],
        }
    found = target.placeholders
    files = None
    if files_href:
        # without JavaScript the link lists every selection; the script points it at the chosen one
        files = {
            "href": files_href,
            "label": _("Ready-to-run files"),
            "note": _("(serve.sh, a vLLM config and an env file per command)"),
        }
    model = {
        "gid": gid,
        "strategy": template.strategy.slug,
        "target": template.target.target,
        "axes": [axis for axis, _v in template.axes],
        "aria_label": _("Feature selection"),
        "recommended_mark": _("recommended"),
        "options_legend": _("Options"),
        "modes": modes,
        "toggles": toggles,
        "status": status,
        "reset": _("Back to the recommended selection") if template.recommended else _("Back to the base command"),
        "excluded": [
            {
                "id": f"{gid}-x{k}",
                "text": _("The recipe does not offer this combination. Choose another value above."),
            }
            for k in range(len(template.excluded))
        ],
        "files": files,
        "roles": role_views,
        "router": router,
        "copy_texts": {"done": _("Copied!"), "title": _("Copy to clipboard"), "label": _("Copy")},
        "placeholders": {
            "title": _("Replace the placeholders before you run a command:"),
            "items": [{"name": p.text, "text": placeholder_text(p.meaning, _)} for p in found],
        }
        if found
        else None,
        "other_lines_title": _("Other selections add or change these lines:"),
        "other_lines": _other_lines(template),
        "has_base": base is not None,
        "serving": [],
        "serving_texts": {"added": "", "removed": ""},
        "report": None,
        "excluded_json": "[]",
        "nearest_label": "",
    }
    if extra:
        more = extra.pop("placeholder_items", [])
        model.update(extra)
        if more:
            items = (model["placeholders"] or {}).get("items", [])
            model["placeholders"] = {
                "title": _("Replace the placeholders before you run a command:"),
                "items": [*items, *more],
            }
    return model


def _other_lines(template: Template) -> list[str]:
    """Every line some selection shows that the opening selection does not (for text and search)."""
    shown = {v.text for block in template.blocks for v in block.lines if v.shown(template.default)}
    others = (v.text for block in template.blocks for v in block.lines if not v.shown(template.default))
    return list(dict.fromkeys(text for text in others if text not in shown))


# -- the text form: the node's children -----------------------------------------------


def _para(*texts: str, classes: tuple[str, ...] = ()) -> nodes.paragraph:
    """A paragraph of separate Text nodes, so the indexer never joins two of them."""
    para = nodes.paragraph("", "", classes=list(classes))
    for i, text in enumerate(texts):
        para += nodes.Text((" " if i else "") + text)
    return para


def _code(text: str) -> nodes.literal_block:
    return nodes.literal_block(text, text, language="bash")


def text_form(v: dict[str, Any]) -> Iterator[nodes.Element]:
    """The explorer as paragraphs and code blocks: labels as words, commands as lines."""
    selectors = [*v["modes"], *([v["options_legend"]] if v["toggles"] else []), *v["toggles"]]
    for s in selectors:
        if isinstance(s, str):
            yield _para(s)
        elif s["kind"] == "toggle":
            yield _para(f"{s['title']}:", *([f"({s['hint']})"] if s["hint"] else []))
        else:
            labels = [
                c["label"] + (f" ({v['recommended_mark']})" if c["recommended"] else "") + "," for c in s["choices"]
            ]
            labels[-1] = labels[-1].rstrip(",")
            yield _para(f"{s['title']}:", *labels)
    yield _para(v["status"]["text"])
    if v.get("has_base"):
        yield _para(v["serving_texts"]["diff_label"])
    for role in v["roles"]:
        yield _para(role["title"])
        for block in role["blocks"]:
            if block["rank_title"]:
                yield _para(block["rank_title"])
            yield _code(block["command"])
    if v["other_lines"]:
        yield _para(v["other_lines_title"])
        yield _code("\n".join(v["other_lines"]))
    if v["router"]:
        yield _para(v["router"]["title"], v["router"]["note"])
        for step in v["router"]["steps"]:
            yield _para(step["title"])
            yield _code(step["command"])
    if v["placeholders"]:
        yield _para(v["placeholders"]["title"])
        for item in v["placeholders"]["items"]:
            yield _para(f"{item['name']}:", item["text"])
    texts = v.get("serving_texts", {})
    for sv in v.get("serving", ()):
        yield _para(texts["roles_title"])
        for step in sv["steps"]:
            yield _para(f"{step['title']}:", f"{step['npus']}.", step["wait_title"])
            yield _code(_joined(step["lines"]))
        yield _para(sv["final"])
        yield _para(texts["client_title"])
        yield _code(_joined(sv["client"]))
        yield _para(texts["bench_title"], texts["bench_note"])
        yield _code(_joined(sv["bench"]))


def _joined(lines: list[dict[str, Any]]) -> str:
    """The text of code lines as the template shows them (their parts, placeholders included)."""
    return "".join(text for line in lines for text, _placeholder in line["parts"])


def make_node(v: dict[str, Any], **attributes: str) -> recipe_explorer:
    node = recipe_explorer("", *text_form(v), classes=["rb-explorer-text"], view=v, **attributes)
    return node


# -- HTML ------------------------------------------------------------------------------


class _CollapsingLoader(jinja2.FileSystemLoader):
    """Drops the line breaks and indentation of a template: the HTML has no whitespace between tags."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        return "".join(line.strip() for line in source.splitlines()), filename, uptodate


def _attribute(value: Any) -> Markup:
    return value if isinstance(value, Markup) else Markup(html.escape(str(value)))


@functools.cache
def templates() -> jinja2.Environment:
    """The extension's template environment (read-only, shared by every build)."""
    environment = jinja2.Environment(
        loader=_CollapsingLoader(TEMPLATES), autoescape=True, finalize=_attribute, undefined=jinja2.StrictUndefined
    )
    environment.filters["code"] = code_markup
    return environment


def render_html(v: dict[str, Any]) -> str:
    return templates().get_template("recipebook/explorer.html").render(view=v)


def visit_html(translator: Any, node: recipe_explorer) -> None:
    translator.body.append(render_html(node["view"]))
    raise nodes.SkipNode


def explorer_css(max_axes: int, max_values: int, exclusions: dict[str, list[Product]]) -> str:
    """Rules that show each selection's lines, for grids up to the given size."""
    rules = []
    for a in range(max_axes):
        for v in range(max_values):
            rules.append(
                f".rb-grid:has(.i-{a}-{v}:checked) .h-{a}-{v},"
                f".rb-grid:has(.t-{a}-{v}:not(:checked)) .h-{a}-{v}{{display:none}}"
            )
    for gid, products in sorted(exclusions.items()):
        for k, product in enumerate(products):
            # a value is chosen when its radio is checked, or (for "off") its checkbox is not
            has = "".join(
                ":has(" + ",".join(f".i-{a}-{v}:checked,.t-{a}-{v}:not(:checked)" for v in sorted(p)) + ")"
                for a, p in enumerate(product)
                if p is not None
            )
            rules.append(f"#{gid}{has} .rb-cmds{{display:none}}")
            # no link to files that do not exist, no client or report for a selection not offered
            rules.append(f"#{gid}{has} .rb-files,#{gid}{has} .rb-serving{{display:none}}")
            rules.append(f"#{gid}{has} #{gid}-x{k}{{display:block}}")
    return "\n".join(rules) + "\n"
