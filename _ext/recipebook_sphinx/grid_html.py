"""HTML of one explorer grid: selectors, command blocks, notes.

Plain string rendering, no Sphinx: the adapter passes in a translator. Every
selection works without JavaScript: selectors are radio buttons and checkboxes,
and a line carrying the class ``h-A-V`` is hidden by the stylesheet while value V
of axis A is chosen (see ``explorer_css``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from html import escape

from recipebook import shell
from recipebook.explorer import Block, Product, Template
from recipebook.model import Recipe

Translate = Callable[[str], str]
ON_OFF = frozenset({"on", "off"})


def toggle(values: tuple[str, ...]) -> bool:
    """Option axes with exactly the values on and off show as one checkbox."""
    return len(values) == 2 and set(values) == ON_OFF


def hide_classes(product: Product, axes: tuple[tuple[str, tuple[str, ...]], ...]) -> list[str]:
    """The classes that hide an element outside its product of axis values."""
    classes = []
    for a, allowed in enumerate(product):
        if allowed is not None:
            classes += [f"h-{a}-{v}" for v in range(len(axes[a][1])) if v not in allowed]
    return classes


def code_html(text: str) -> str:
    """Escape shell text and make placeholders such as <POD_IP> stand out."""
    parts, last = [], 0
    for match in shell.PLACEHOLDER.finditer(text):
        parts.append(escape(text[last : match.start()], quote=False))
        parts.append(f'<span class="rb-ph">{escape(match.group(), quote=False)}</span>')
        last = match.end()
    parts.append(escape(text[last:], quote=False))
    return "".join(parts)


def _line(text: str, classes: list[str]) -> str:
    body = code_html(text)
    return f'<span class="{" ".join(classes)}">{body}</span>' if classes else body


def block_pre(block: Block, template: Template) -> str:
    """The <pre> of one command: every variant once, conditions as classes."""
    out = []
    for kind in ("env", "arg"):
        if kind == "arg":
            out.append(code_html(f"{block.launcher} {block.model}"))
        for variant in (v for v in block.lines if v.kind == kind):
            classes = hide_classes(variant.when, template.axes)
            if variant.key in block.varies:
                classes.append("rb-var")
            text = shell.env_line(variant.text) if kind == "env" else shell.arg_line(variant.text)
            out.append(_line(text, classes))
    return "".join(out)


def _copy_button(_: Translate) -> str:
    return (
        f'<button type="button" class="rb-copy" hidden data-done="{escape(_("Copied!"))}" '
        f'title="{escape(_("Copy to clipboard"))}">{escape(_("Copy"))}</button>'
    )


def _code(pre_id: str, body: str, _: Translate) -> str:
    return f'<div class="rb-code"><div class="highlight"><pre id="{pre_id}">{body}</pre></div>{_copy_button(_)}</div>'


def _selector(template: Template, gid: str, axis_index: int, title: str, labels: dict[str, str], _: Translate) -> str:
    axis, values = template.axes[axis_index]
    chosen = template.default[axis_index]
    rec = template.recommended[axis_index] if template.recommended else None
    mark = f' <span class="rb-recmark">{escape(_("recommended"))}</span>'
    if toggle(values) and axis in template.target.grid.options:
        on, off = values.index("on"), values.index("off")
        checked = " checked" if chosen == on else ""
        state = escape(_("on") if rec == on else _("off"))
        hint = f' <span class="rb-recmark">{escape(_("recommended"))}: {state}</span>' if rec is not None else ""
        return (
            f'<span class="rb-toggle"><input type="checkbox" id="{gid}-{axis_index}" '
            f'class="i-{axis_index}-{on} t-{axis_index}-{off}" data-axis="{escape(axis)}"{checked}>'
            f'<label for="{gid}-{axis_index}">{escape(title)}{hint}</label></span>'
        )
    items = []
    for v, value in enumerate(values):
        checked = " checked" if v == chosen else ""
        items.append(
            f'<input type="radio" id="{gid}-{axis_index}-{v}" name="{gid}-{axis_index}" '
            f'class="i-{axis_index}-{v}" value="{escape(value)}" data-axis="{escape(axis)}"{checked}>'
            f'<label for="{gid}-{axis_index}-{v}">{escape(labels.get(value, value))}'
            f"{mark if v == rec else ''}</label>"
        )
    return (
        f'<fieldset class="rb-axis"><legend>{escape(title)}</legend>'
        f'<div class="rb-choices">{"".join(items)}</div></fieldset>'
    )


def _status(template: Template, _: Translate) -> str:
    if template.recommended is None:
        text = _("This target has no recommended selection; it opens on the base command.")
        return f'<p class="rb-status">{escape(text)}</p>'
    product = tuple(frozenset({v}) for v in template.recommended)
    classes = " ".join(["rb-status", "rb-isrec", *hide_classes(product, template.axes)])
    return f'<p class="{classes}">{escape(_("This is the recommended selection."))}</p>'


def _excluded(template: Template, gid: str, _: Translate) -> str:
    return "".join(
        f'<p class="rb-excluded" id="{gid}-x{k}" role="status">'
        f"{escape(_('The recipe does not offer this combination. Choose another value above.'))}</p>"
        for k in range(len(template.excluded))
    )


def _block_title(block: Block, count: int, _: Translate) -> str:
    if block.rank is None:
        return ""
    text = _("Rank {rank} of {count}").format(rank=block.rank, count=count)
    return f'<p class="rb-rank">{escape(text)}</p>'


def role_title(role: str, _: Translate) -> str:
    titles = {"main": _("Server"), "prefill": _("Prefill server"), "decode": _("Decode server")}
    return titles.get(role, role)


def placeholders(template: Template) -> list[str]:
    texts = [v.text for block in template.blocks for v in block.lines] + [cmd for _, cmd in template.router]
    return [f"<{name}>" for name in shell.placeholders("\n".join(texts))]


def placeholder_text(name: str, _: Translate) -> str:
    known = {
        "<POD_IP>": _("the IP address of the host or pod that runs this server, as the other servers reach it."),
        "<EPP_HOST>": _("the host of the llm-d endpoint picker (EPP), which receives the KV-cache events."),
    }
    return known.get(name, _("a value of your deployment; replace it before running the command."))


def grid(
    recipe: Recipe,
    template: Template,
    gid: str,
    axis_text: Callable[[str], tuple[str, dict[str, str]]],
    _: Translate,
    files_href: str = "",
) -> str:
    """The whole explorer of one strategy and target."""
    selectors = [_selector(template, gid, a, *axis_text(axis), _) for a, (axis, _v) in enumerate(template.axes)]
    modes = [
        s
        for s, (axis, _v) in zip(selectors, template.axes, strict=True)
        if axis in template.target.grid.modes or not toggle(_v)
    ]
    toggles = [
        s
        for s, (axis, _v) in zip(selectors, template.axes, strict=True)
        if axis not in template.target.grid.modes and toggle(_v)
    ]
    parts = [
        f'<form class="rb-grid" id="{gid}" data-strategy="{escape(template.strategy.slug)}" '
        f'data-target="{escape(template.target.target)}" '
        f'data-axes="{escape(" ".join(axis for axis, _v in template.axes))}" '
        f'aria-label="{escape(_("Feature selection"))}">',
        '<div class="rb-selectors">',
        *modes,
    ]
    if toggles:
        parts.append(
            f'<fieldset class="rb-axis rb-toggles"><legend>{escape(_("Options"))}</legend>'
            f'<div class="rb-choices">{"".join(toggles)}</div></fieldset>'
        )
    reset = _("Back to the recommended selection") if template.recommended else _("Back to the base command")
    parts += [
        "</div>",
        f'<div class="rb-bar">{_status(template, _)}'
        f'<button type="reset" class="rb-reset">{escape(reset)}</button></div>',
        _excluded(template, gid, _),
        '<div class="rb-cmds">',
    ]
    if files_href:
        # without JavaScript the link lists every selection; the script points it at the chosen one
        parts.insert(
            -1,
            f'<p class="rb-files"><a class="rb-dl" href="{escape(files_href)}index.html" '
            f'data-base="{escape(files_href)}">{escape(_("Ready-to-run files"))}</a> '
            f"{escape(_('(serve.sh, a vLLM config and an env file per command)'))}</p>",
        )
    parts += list(_blocks(template, gid, _))
    parts.append("</div>")
    found = placeholders(template)
    if found:
        items = "".join(
            f'<dt><code class="rb-ph">{escape(p)}</code></dt><dd>{escape(placeholder_text(p, _))}</dd>' for p in found
        )
        parts.append(
            f'<p class="rb-ph-title">{escape(_("Replace the placeholders before you run a command:"))}</p>'
            f'<dl class="rb-ph-notes">{items}</dl>'
        )
    parts.append("</form>")
    return "".join(parts)


def _blocks(template: Template, gid: str, _: Translate) -> Iterator[str]:
    roles: dict[str, list[Block]] = {}
    for block in template.blocks:
        roles.setdefault(block.role, []).append(block)
    n = 0
    for role, blocks in roles.items():
        yield f'<div class="rb-role"><p class="rb-role-title">{escape(role_title(role, _))}</p>'
        if len(blocks) > 1 and blocks[0].varies:
            yield (
                f'<p class="rb-var-note"><span class="rb-var">{escape(_("Highlighted lines"))}</span> '
                f"{escape(_('differ between ranks.'))}</p>"
            )
        for block in blocks:
            yield _block_title(block, len(blocks), _)
            yield _code(f"{gid}-c{n}", block_pre(block, template), _)
            n += 1
        yield "</div>"
    if template.router:
        yield (
            f'<div class="rb-role rb-router"><p class="rb-role-title">{escape(_("Router"))}</p>'
            f'<p class="rb-router-note">{escape(_("Run these steps in order once both servers are up."))}</p>'
        )
        for step, (node, cmd) in enumerate(template.router, start=1):
            yield f'<p class="rb-rank">{escape(_("Step {n}: {name}").format(n=step, name=node))}</p>'
            yield _code(f"{gid}-r{step}", code_html(cmd), _)
        yield "</div>"


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
            rules.append(f"#{gid}{has} #{gid}-x{k}{{display:block}}")
    return "\n".join(rules) + "\n"
