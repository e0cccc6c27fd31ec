"""The recipe directives: header, install, explorer, client, catalogue."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.locale import get_translation
from sphinx.util.docutils import SphinxDirective
from sphinx_design.shared import create_component

from recipebook import inline, view, vocabulary
from recipebook.model import Recipe, Strategy, Target
from recipebook.view import Axis, TargetView

from .. import config, store
from ..warnings_ import Subtype, warn
from . import nodes as explorer_node
from . import serving as serving_view

_ = get_translation("recipebook")
label_ = get_translation("recipe-labels")  # labels recipes give in English only

RENDER_FULL, RENDER_RECOMMENDED = config.RENDER_FULL, config.RENDER_RECOMMENDED


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def inline_nodes(text: str) -> list[nodes.Node]:
    """Docutils nodes for a recipe text (validated to hold only allowed inline tags)."""
    spans, _errors = inline.parse(text)
    return [_span_node(span) for span in spans]


def _span_node(span: inline.Span) -> nodes.Node:
    if span.tag is None:
        return nodes.Text(span.text)
    children = [_span_node(c) for c in span.children]
    if span.tag == "a":
        return nodes.reference("", "", *children, refuri=span.href)
    kind = {"strong": nodes.strong, "em": nodes.emphasis, "code": nodes.literal}[span.tag]
    return kind("", "", *children)


def _para(*children: nodes.Node | str, classes: tuple[str, ...] = ()) -> nodes.paragraph:
    return nodes.paragraph(
        "", "", *[nodes.Text(c) if isinstance(c, str) else c for c in children], classes=list(classes)
    )


def _table(headers: list[str], rows: list[list[nodes.Node | str]], classes: tuple[str, ...] = ()) -> nodes.table:
    table = nodes.table(classes=["rb-table", *classes])
    group = nodes.tgroup(cols=len(headers))
    table += group
    group.extend(nodes.colspec(colwidth=1) for _h in headers)
    head = nodes.thead()
    head += nodes.row("", *[nodes.entry("", _para(h)) for h in headers])
    body = nodes.tbody()
    for row in rows:
        body += nodes.row("", *[nodes.entry("", _para(cell)) for cell in row])
    group += [head, body]
    return table


def doc_link(docname: str, *children: nodes.Node) -> addnodes.pending_xref:
    """A checked link to another page (a missing page is a build warning)."""
    ref = addnodes.pending_xref(
        "", *children, refdomain="std", reftype="doc", reftarget="/" + docname, refexplicit=True, refwarn=True
    )
    return ref


class RecipeDirective(SphinxDirective):
    """Base: one argument, the recipe name; the recipe file is a dependency."""

    required_arguments = 1
    has_content = False

    def load(self) -> Recipe | None:
        name = self.arguments[0]
        path = store.path_for(self.config.recipebook_dir, name)
        if not path.is_file():
            warn(
                f"no recipe named {name!r} (expected {path.name} in the recipes folder)",
                Subtype.MISSING,
                self.get_location(),
            )
            return None
        for dependency in store.dependencies(path):
            self.env.note_dependency(dependency)
        return store.recipe(self.env, path)  # problems were reported once, at the start of the build

    @property
    def lang(self) -> str:
        return config.language(self.config)

    def texts(self, recipe: Recipe):
        return recipe.text.get(self.lang) or recipe.text["en"]

    def run(self) -> list[nodes.Node]:
        recipe = self.load()
        if recipe is None:
            message = _("This recipe could not be shown: its file has errors (see the build log).")
            return _untranslatable([_para(message, classes=("rb-broken",))])
        return _untranslatable(self.render(recipe))

    def render(self, recipe: Recipe) -> list[nodes.Node]:
        raise NotImplementedError


class HeaderDirective(RecipeDirective):
    """Summary, badges, model facts and the facts of each target."""

    def render(self, recipe: Recipe) -> list[nodes.Node]:
        result: list[nodes.Node] = [_para(*inline_nodes(self.texts(recipe).sub), classes=("rb-sub",))]
        badges = _para(classes=("rb-badges",))
        for badge in recipe.badges:
            badges += nodes.inline(
                badge.text, badge.text, classes=["rb-badge", *(["rb-hl"] if badge.highlight else [])]
            )
            badges += nodes.Text(" ")
        result.append(badges)
        facts = nodes.field_list(classes=["rb-facts"])

        def fact(name: str, *value: nodes.Node | str) -> None:
            facts.append(nodes.field("", nodes.field_name("", name), nodes.field_body("", _para(*value))))

        fact(_("Model"), nodes.reference(recipe.model, recipe.model, refuri=recipe.hf))
        recipe_view = store.view(self.env, recipe)
        if recipe_view.served:
            fact(_("Served checkpoint"), ", ".join(recipe_view.served))
        fact(_("Provider"), recipe.provider)
        fact(
            _("Precision"),
            ", ".join(recipe.variants)
            + ("" if len(recipe.variants) == 1 else " " + _("(served: {variant})").format(variant=recipe.variant)),
        )
        fact(_("Attention"), recipe.attn)
        length = recipe_view.context_length
        if length:
            fact(_("Context length"), _("{tokens} tokens").format(tokens=f"{length:,}"))
        serves = [
            text
            for key, text in (("api", _("OpenAI-compatible API")), ("text", _("text")), ("mm", _("multimodal input")))
            if recipe.features.get(key)
        ]
        if serves:
            fact(_("Serves"), ", ".join(serves))
        fact(_("Verified strategies"), *inline_nodes(self.texts(recipe).tag))
        markdown = self.env.docname.rsplit("/", 1)[-1] + ".md"
        fact(
            _("Plain text"),
            nodes.raw(
                "",
                f'<a href="{escape(markdown)}" type="text/markdown">{escape(_("this page as Markdown"))}</a>',
                format="html",
            ),
        )
        result.append(facts)
        rows = [
            [label_(s.label), t.label or label_(t.target), str(t.npus), ", ".join(t.skus), t.verified]
            for s, t in recipe.targets()
        ]
        result.append(
            _table([_("Strategy"), _("Target"), _("NPUs"), _("SKU"), _("Verified")], rows, classes=("rb-targets",))
        )
        return result


class InstallDirective(RecipeDirective):
    """Prerequisites, install commands and the notes this recipe's features need."""

    def render(self, recipe: Recipe) -> list[nodes.Node]:
        versions = self.config.recipebook_versions
        install_page = self.config.recipebook_pages["install"]
        result: list[nodes.Node] = [
            _para_with_link(
                _(
                    "The host needs the RBLN Driver. Installing the RBLN Compiler (rebel-compiler) needs an "
                    "RBLN Portal account. Compatible package versions are listed in the {link}."
                ),
                doc_link(install_page, nodes.inline("", _("installation matrix"))),
            ),
            _para(_("Install the compiler:")),
            _code(
                f"pip install --extra-index-url {versions['rbln_index']} rebel-compiler=={versions['rebel-compiler']}"
            ),
            _para(_("Install the serving plugin, vllm-rbln, with the connectors for KV-cache transfer:")),
            _code(
                " \\\n    ".join(
                    [
                        "pip install",
                        f"--extra-index-url {versions['rbln_index']}",
                        f"--extra-index-url {versions['vllm_cpu_index']}",
                        f"--extra-index-url {versions['torch_cpu_index']}",
                        f'"vllm-rbln[kv_connectors]=={versions["vllm-rbln"]}"',
                    ]
                )
            ),
            _para(_("In short, once the package indexes are configured:")),
            _code(recipe.install_line),
        ]
        needs = store.view(self.env, recipe).install
        offload, disaggregated = needs.offload, needs.disaggregated
        if needs.connectors:
            if offload and disaggregated:
                what = _("The KV offload (LMCache) and prefill/decode commands of this recipe")
            elif offload:
                what = _("The KV offload (LMCache) commands of this recipe")
            else:
                what = _("The prefill/decode commands of this recipe")
            result.append(
                _note(
                    _(
                        "{what} need the kv_connectors extra, which installs lmcache-rbln and nixl-rbln. "
                        "Without it, such a server fails while starting."
                    ).format(what=what)
                )
            )
        if needs.suffix:
            result.append(
                _note(
                    _(
                        "Suffix speculative decoding needs arctic-inference=={version}, which the base "
                        "vllm-rbln install does not include. Without it, the server stops at start-up "
                        "with an ImportError."
                    ).format(version=versions["arctic-inference"])
                )
            )
            result.append(_code(f"pip install arctic-inference=={versions['arctic-inference']}"))
        return result


def _para_with_link(text: str, link: nodes.Node) -> nodes.paragraph:
    """A translated sentence with a {link} placeholder, so translators can move the link."""
    before, _sep, after = text.partition("{link}")
    return _para(before, link, after)


def _untranslatable(result: list[nodes.Node]) -> list[nodes.Node]:
    """Keep directive output out of the page catalogs: it is translated by the extension."""
    for node in result:
        for element in node.findall(nodes.TextElement):
            # inline nodes are never extracted, and Sphinx unwraps any inline that carries the flag
            if not isinstance(element, nodes.Inline):
                element["translatable"] = False
    return result


def _facts(parts: list[str], cls: str) -> nodes.paragraph:
    """Facts separated by dots; each fact (a date, a SKU) stays on one line, lines break between them."""
    para = _para(classes=(cls,))
    for i, part in enumerate(parts):
        if i:
            para += nodes.Text(" · ")
        para += nodes.inline(part, part, classes=["rb-fact"])
    return para


def _code(text: str, language: str = "bash") -> nodes.literal_block:
    block = nodes.literal_block(text, text, language=language)
    return block


def _note(text: str) -> nodes.note:
    return nodes.note("", _para(text))


class ExplorerDirective(RecipeDirective):
    """Strategy tabs, target tabs, and in each target the selectors and commands."""

    def render(self, recipe: Recipe) -> list[nodes.Node]:
        texts = self.texts(recipe)
        recipe_view = store.view(self.env, recipe)
        result: list[nodes.Node] = [_para(*inline_nodes(texts.strategy_note), classes=("rb-strategy-note",))]
        strategies = create_component("tab-set", classes=["sd-tab-set", "rb-strategies"])
        for si, strategy in enumerate(recipe.strategies):
            content = [self._strategy_facts(strategy)]
            targets = create_component("tab-set", classes=["sd-tab-set", "rb-targets-tabs"])
            for ti, target in enumerate(strategy.targets):
                targets += self._tab(
                    label_(target.label or target.target),
                    target.target,
                    f"rb-target-{_slug(recipe.name)}-{si}",
                    [
                        self._target_facts(target),
                        *self._grid(recipe, recipe_view.target(strategy.slug, target.target), si, ti),
                    ],
                )
            content.append(targets)
            title = [
                nodes.inline("", label_(strategy.label), classes=["rb-tab-label"]),
                nodes.inline("", label_(strategy.tag), classes=["rb-tab-tag"]),
            ]
            strategies += self._tab(title, strategy.slug, f"rb-strategy-{_slug(recipe.name)}", content)
        result.append(strategies)
        return result

    def _tab(self, title, sync: str, group: str, content: list[nodes.Node]) -> nodes.container:
        item = create_component("tab-item", classes=["sd-tab-item"], selected=False)
        children = [nodes.Text(title)] if isinstance(title, str) else title
        label = nodes.rubric("", "", *children, classes=["sd-tab-label"])
        label["sync_id"], label["sync_group"] = sync, group
        body = create_component("tab-content", classes=["sd-tab-content"])
        body.extend(content)
        item += [label, body]
        return item

    def _strategy_facts(self, strategy: Strategy) -> nodes.paragraph:
        parts = [_("Precision: {variant}").format(variant=strategy.variant)]
        if strategy.nodes:
            parts.append(_("Nodes: {count}").format(count=strategy.nodes))
        return _facts(parts, "rb-strategy-facts")

    def _target_facts(self, target: Target) -> nodes.paragraph:
        parts = [
            _("NPUs per node: {count}").format(count=target.npus),
            ", ".join(target.skus),
            _("verified {date}").format(date=target.verified),
            _("model implementation: {impl}").format(impl=target.model_impl),
        ]
        para = _facts(parts, "rb-target-facts")
        if target.note:
            para = nodes.container("", para, _para(*inline_nodes(target.note), classes=("rb-target-note",)))
        return para

    def _grid(self, recipe: Recipe, target_view: TargetView, si: int, ti: int) -> list[nodes.Node]:
        strategy, target = target_view.strategy, target_view.target
        template, wrong = target_view.template, target_view.wrong
        if wrong:
            warn(
                f"the explorer would not show the expanded commands for: {wrong[0]}",
                Subtype.TEMPLATE,
                self.get_location(),
            )
        gid = f"rb-{_slug(recipe.name)}-{si}-{ti}"
        store.state(self.env).grids.setdefault(self.env.docname, {})[gid] = store.GridSize(
            len(template.axes), max((len(v) for _a, v in template.axes), default=0), list(template.excluded)
        )
        up = "../" * (self.env.docname.count("/") + 1)  # from the language tree to the site root
        files = f"{up}api/recipes/{recipe.name}/{strategy.slug}/{target.target}/"
        base = serving_view.base_selection(target_view)
        only_default = self.env.config.recipebook_render == RENDER_RECOMMENDED
        labels = {a.name: axis_text(a) for a in target_view.axes}

        def choice(axis: str, value: str) -> str:
            title, values = labels.get(axis, (axis, {}))
            return f"{title}: {values.get(value, value)}"

        extra = {
            "serving": serving_view.serving(target_view, gid, strategy.nodes, _, only_default=only_default),
            "serving_texts": serving_view.texts(_),
            "report": serving_view.report(
                target_view,
                recipe.name,
                self.env.config.recipebook_repository_url,
                self.env.config.recipebook_versions,
                _,
            ),
            "excluded": serving_view.conflicts(target_view, gid, choice, _),
            "excluded_json": serving_view.nearest_data(target_view),
            "nearest_label": _("Switch to the nearest offered selection"),
            "placeholder_items": serving_view.endpoint_placeholders(bool(template.router), _),
        }
        model = explorer_node.view(target_view, gid, axis_text, _, files, base, extra)
        # where the grid comes from, for views that show its commands as text (mdview)
        node = explorer_node.make_node(model, rb_recipe=recipe.name, rb_strategy=strategy.slug, rb_target=target.target)
        return [node]


def axis_text(axis: Axis) -> tuple[str, dict[str, str]]:
    """Translated title and value labels of an axis (the recipe's labels, else UI strings)."""
    if axis.title is None:
        known = {"tool_calling": _("Tool calling"), "reasoning_parser": _("Reasoning parser")}  # view.KNOWN_AXES
        return known.get(axis.name, axis.name), {"on": _("On"), "off": _("Off")}
    return label_(axis.title), {value: label_(text) for value, text in axis.labels.items()}


class ClientDirective(RecipeDirective):
    """The client request against the OpenAI-compatible server."""

    def render(self, recipe: Recipe) -> list[nodes.Node]:
        return [_para(_("Once the server is up, send it a request:")), _code(recipe.client)]


def every_recipe(directive: SphinxDirective) -> Iterator[Recipe]:
    """Every valid recipe of the recipes folder, each noted as a dependency of the page."""
    directory = Path(directive.config.recipebook_dir)
    directive.env.note_dependency(str(directory))
    for path in store.recipe_paths(directory):
        for dependency in store.dependencies(path):
            directive.env.note_dependency(dependency)
        recipe = store.recipe(directive.env, path)
        if recipe is not None:
            yield recipe


class CatalogueDirective(SphinxDirective):
    """Every recipe in the recipes folder, linking its page."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        rows = []
        for recipe in every_recipe(self):
            docname = self.config.recipebook_pages["recipe"].format(name=recipe.name)
            link = doc_link(docname, nodes.inline("", recipe.name))
            badges = _para(classes=("rb-badges",))
            for badge in recipe.badges:
                badges += nodes.inline(
                    badge.text, badge.text, classes=["rb-badge", *(["rb-hl"] if badge.highlight else [])]
                )
                badges += nodes.Text(" ")
            strategies = ", ".join(label_(s.label) for s in recipe.strategies)
            npus = sorted({t.npus for _s, t in recipe.targets()})
            skus = sorted({sku for _s, t in recipe.targets() for sku in t.skus})
            verified = max(t.verified for _s, t in recipe.targets())
            rows.append(
                [link, recipe.provider, badges, strategies, ", ".join(map(str, npus)), ", ".join(skus), verified]
            )
        if not rows:
            return _untranslatable([_para(_("No recipes yet."))])
        table = _table(
            [_("Model"), _("Provider"), _("Facts"), _("Strategies"), _("NPUs"), _("SKU"), _("Verified")],
            [],
            classes=("rb-catalogue",),
        )
        body = table[0][-1]
        for row in rows:
            body += nodes.row(
                "", *[nodes.entry("", cell if isinstance(cell, nodes.paragraph) else _para(cell)) for cell in row]
            )
        return _untranslatable([table])


class FlagsDirective(SphinxDirective):
    """Every flag the recipes use, with vLLM's help text and the recipes that use it."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        users: dict[str, list[str]] = {}
        for recipe in every_recipe(self):
            for flag in view.flags_in_use(recipe):
                users.setdefault(flag, []).append(recipe.name)
        info = vocabulary.vocabulary_info()
        intro = _para(
            _(
                "Descriptions come from the help of vLLM {vllm} (with vllm-rbln {plugin}) and are shown in English."
            ).format(vllm=info["vllm"], plugin=info["vllm_rbln"])
        )
        rows = []
        pattern = self.config.recipebook_pages["recipe"]
        for flag in sorted(users):
            help_text = vocabulary.flag_help(flag) or ""
            help_cell = nodes.raw("", f'<span lang="en">{escape(help_text)}</span>', format="html")
            used = _para()
            for i, name in enumerate(sorted(users[flag], key=str.lower)):
                if i:
                    used += nodes.Text(", ")
                used += doc_link(pattern.format(name=name), nodes.inline("", name))
            rows.append([_para(nodes.literal(flag, flag)), help_cell, used])
        table = _table([_("Flag"), _("What it does (vLLM help)"), _("Used by")], [], classes=("rb-flags",))
        body = table[0][-1]
        for row in rows:
            body += nodes.row("", *[nodes.entry("", cell) for cell in row])
        return _untranslatable([intro, table])
