"""The recipe directives: each renders part of a recipe's page model as docutils nodes.

``recipe-header``, ``recipe-install``, ``recipe-explorer`` and ``recipe-client`` take a
recipe's name; ``recipe-catalogue`` and ``recipe-flags`` read every recipe. No directive
writes raw HTML: what HTML needs beyond docutils' own nodes is a node of this extension
with a visitor per builder (``inline.py``, ``explorer/html.py``), so the Markdown view and the text builders get
the same content.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.locale import get_translation
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective
from sphinx_design.shared import create_component

from recipebook.checking import inline
from recipebook.expanding import results
from recipebook.expanding.page import Axis, RecipePage, StrategyPage, TargetPage, catalogue_of, flags_of
from recipebook.expanding.provenance import PACKAGES, Provenance
from recipebook.reading import vocabulary
from recipebook.reading.model import Recipe, Strategy, Texts
from recipebook.rendering import kubernetes

from .. import config, store
from ..config import site_config
from ..explorer import html as explorer_html
from ..explorer import results_panel
from ..explorer.view import explorer_view, setting_words
from ..i18n import untranslated
from ..warnings_ import Subtype, warn
from . import inline as rb_nodes

_ = get_translation("recipebook")
# The operator's page (source/kubernetes.md), which the Kubernetes panel links to.
OPERATOR_PAGE = "kubernetes"
# labels recipes give in English only; the build's note names those a translated page shows in English
label_ = untranslated.labels()


def slug(text: str) -> str:
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
    node = kind("", "", *children)
    if span.tag == "strong":
        node["rb_names"] = slug(inline.plain(span.children))  # may name a section of the page
    return node


class ExplorerTextForms(SphinxTransform):
    """Each explorer of the page its text form (``explorer.html.add_text_form``), kept out of
    the catalogs as all directive output is, right after the transforms that look for messages
    to translate: Sphinx's ``Locale`` (20) and ``i18n.untranslated.MarkUntranslated`` (24)."""

    default_priority = 25

    def apply(self, **kwargs: Any) -> None:
        for node in list(self.document.findall(explorer_html.recipe_explorer)):
            if not node.children:
                _untranslatable(explorer_html.add_text_form(node))


class SectionLinks(SphinxTransform):
    """A recipe text's bold name of a section of its own page ("See <strong>Configuration</strong>
    in the guide") becomes a link to that section. Section ids come from the English titles, so
    the link holds in every language."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        ids = {i for section in self.document.findall(nodes.section) for i in section["ids"]}
        for strong in list(self.document.findall(nodes.strong)):
            name = strong.get("rb_names")
            if name and name in ids and not isinstance(strong.parent, nodes.reference):
                link = nodes.reference("", "", refid=name, internal=True)
                strong.replace_self(link)
                link += strong


def _para(*children: nodes.Node | str, classes: tuple[str, ...] = ()) -> nodes.paragraph:
    return nodes.paragraph(
        "", "", *[nodes.Text(c) if isinstance(c, str) else c for c in children], classes=list(classes)
    )


def _table(
    headers: list[str],
    rows: Sequence[Sequence[nodes.Node | str | list[str] | list[nodes.Node]]],
    classes: tuple[str, ...] = (),
) -> nodes.table:
    """A table; a cell given as a list holds one line per item (cells do not wrap)."""
    table = nodes.table(classes=["rb-table", *classes])
    group = nodes.tgroup(cols=len(headers))
    table += group
    group.extend(nodes.colspec(colwidth=1) for _h in headers)
    head = nodes.thead()
    head += nodes.row("", *[nodes.entry("", _para(h)) for h in headers])
    body = nodes.tbody()
    for row in rows:
        body += nodes.row("", *[nodes.entry("", *_cell(cell)) for cell in row])
    group += [head, body]
    return table


def _cell(cell: nodes.Node | str | list[str] | list[nodes.Node]) -> list[nodes.Node]:
    if isinstance(cell, list):
        return [line if isinstance(line, nodes.Node) else _para(line) for line in cell]
    return [cell if isinstance(cell, nodes.paragraph) else _para(cell)]


def doc_link(docname: str, *children: nodes.Node) -> addnodes.pending_xref:
    """A checked link to another page (a missing page is a build warning)."""
    return addnodes.pending_xref(
        "", *children, refdomain="std", reftype="doc", reftarget="/" + docname, refexplicit=True, refwarn=True
    )


def recipe_link(directive: SphinxDirective, name: str) -> nodes.Node:
    """A link to a recipe's page; just its name while it has no page (the build says so once,
    with the command that makes one, see ``__init__._pages``)."""
    docname = site_config(directive.config).pages["recipe"].format(name=name)
    if docname in directive.env.found_docs:
        return doc_link(docname, nodes.inline("", name))
    return nodes.inline("", name)


def _badges(recipe: Recipe) -> nodes.paragraph:
    badges = _para(classes=("rb-badges",))
    for badge in recipe.badges:
        badges += nodes.inline(badge.text, badge.text, classes=["rb-badge", *(["rb-hl"] if badge.highlight else [])])
        badges += nodes.Text(" ")
    return badges


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
    return nodes.literal_block(text, text, language=language)


def _note(text: str) -> nodes.note:
    return nodes.note("", _para(text))


class RecipeDirective(SphinxDirective):
    """Base: one argument, the recipe name; the recipe file is a dependency."""

    required_arguments = 1
    has_content = False

    def load(self) -> Recipe | None:
        name = self.arguments[0]
        path = store.path_for(site_config(self.config).dir, name)
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

    def texts(self, recipe: Recipe) -> Texts:
        return recipe.text.get(self.lang) or recipe.text["en"]

    def run(self) -> list[nodes.Node]:
        recipe = self.load()
        if recipe is None:
            message = _("This recipe could not be shown: its file has errors (see the build log).")
            return _untranslatable([_para(message, classes=("rb-broken",))])
        return _untranslatable(self.render(store.page(self.env, recipe)))

    def render(self, page: RecipePage) -> list[nodes.Node]:
        raise NotImplementedError


class HeaderDirective(RecipeDirective):
    """Summary, badges, model facts and the facts of each target."""

    def render(self, page: RecipePage) -> list[nodes.Node]:
        recipe = page.recipe
        result: list[nodes.Node] = [_para(*inline_nodes(self.texts(recipe).sub), classes=("rb-sub",)), _badges(recipe)]
        facts = nodes.field_list(classes=["rb-facts"])

        def fact(name: str, *value: nodes.Node | str) -> None:
            facts.append(nodes.field("", nodes.field_name("", name), nodes.field_body("", _para(*value))))

        fact(_("Model"), nodes.reference(recipe.model, recipe.model, refuri=recipe.hf))
        if page.served:
            fact(_("Served checkpoint"), ", ".join(page.served))
        fact(_("Provider"), recipe.provider)
        fact(
            _("Precision"),
            ", ".join(recipe.variants)
            + ("" if len(recipe.variants) == 1 else " " + _("(served: {variant})").format(variant=recipe.variant)),
        )
        fact(_("Attention"), recipe.attn)
        if page.context_length:
            fact(_("Context length"), _("{tokens} tokens").format(tokens=f"{page.context_length:,}"))
        serves = [
            text
            for key, text in (("api", _("OpenAI-compatible API")), ("text", _("text")), ("mm", _("multimodal input")))
            if recipe.features.get(key)
        ]
        if serves:
            fact(_("Serves"), ", ".join(serves))
        fact(_("Verified strategies"), *inline_nodes(self.texts(recipe).tag))
        markdown = self.env.docname.rsplit("/", 1)[-1] + ".md"
        label = _("this page as Markdown")
        fact(_("Plain text"), rb_nodes.markdown_link(label, label, refuri=markdown))
        result.append(facts)
        rows: list[list[nodes.Node | str | list[str]]] = [
            [
                label_(s.strategy.label),
                t.target.label or label_(t.target.target),
                str(t.target.npus),
                ", ".join(t.target.skus),
                verified_lines(t.provenance),
            ]
            for s in page.strategies
            for t in s.targets
        ]
        result.append(
            _table([_("Strategy"), _("Target"), _("NPUs"), _("SKU"), _("Verified")], rows, classes=("rb-targets",))
        )
        return result


def verified_lines(found: Provenance) -> list[str]:
    """The targets table's Verified cell, one line each (table cells do not wrap): the date, each
    release the target was verified with, and the pinned releases it is not yet re-verified with."""
    lines = [found.date, *(found.releases_text(packages=(p,)) for p in PACKAGES)]
    if not found.current:
        lines += [_("not yet re-verified with:"), *(found.releases_text(found.pinned, (p,)) for p in found.newer)]
    return lines


def _para_with_link(text: str, link: nodes.Node) -> nodes.paragraph:
    """A translated sentence with a {link} placeholder, so translators can move the link."""
    before, _sep, after = text.partition("{link}")
    return _para(before, link, after)


class InstallDirective(RecipeDirective):
    """Prerequisites, install commands and the notes this recipe's features need."""

    def render(self, page: RecipePage) -> list[nodes.Node]:
        site = site_config(self.config)
        versions, install_page = site.versions, site.pages["install"]
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
            _code(page.recipe.install_line),
        ]
        needs = page.install
        if needs.connectors:
            if needs.offload and needs.disaggregated:
                what = _("The KV offload (LMCache) and prefill/decode commands of this recipe")
            elif needs.offload:
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


def axis_text(axis: Axis) -> tuple[str, dict[str, str]]:
    """Translated title and value labels of an axis (the recipe's labels, else UI strings)."""
    if axis.title is None:
        known = {"tool_calling": _("Tool calling"), "reasoning_parser": _("Reasoning parser")}  # page.KNOWN_AXES
        return known.get(axis.name, axis.name), {"on": _("On"), "off": _("Off")}
    return label_(axis.title), {value: label_(text) for value, text in axis.labels.items()}


class ExplorerDirective(RecipeDirective):
    """Strategy tabs, target tabs, and in each target the selectors and commands."""

    def render(self, page: RecipePage) -> list[nodes.Node]:
        recipe = page.recipe
        result: list[nodes.Node] = [
            _para(*inline_nodes(self.texts(recipe).strategy_note), classes=("rb-strategy-note",))
        ]
        strategies = create_component("tab-set", classes=["sd-tab-set", "rb-strategies"])
        for si, strategy_page in enumerate(page.strategies):
            strategy = strategy_page.strategy
            content: list[nodes.Node] = [self._strategy_facts(strategy)]
            targets = create_component("tab-set", classes=["sd-tab-set", "rb-targets-tabs"])
            for ti, target in enumerate(strategy_page.targets):
                targets += self._tab(
                    [nodes.Text(label_(target.target.label or target.target.target))],
                    target.target.target,
                    f"rb-target-{slug(recipe.name)}-{si}",
                    [self._target_facts(target), self._explorer(recipe, target, si, ti)],
                )
            content.append(targets)
            strategies += self._tab(
                self._strategy_title(strategy_page), strategy.slug, f"rb-strategy-{slug(recipe.name)}", content
            )
        result.append(strategies)
        return result

    def _strategy_title(self, strategy_page: StrategyPage) -> list[nodes.Node]:
        title: list[nodes.Node] = [nodes.inline("", label_(strategy_page.strategy.label), classes=["rb-tab-label"])]
        if strategy_page.subtitle:
            title.append(nodes.inline("", label_(strategy_page.subtitle), classes=["rb-tab-tag"]))
        return title

    def _tab(self, title: list[nodes.Node], sync: str, group: str, content: list[nodes.Node]) -> nodes.container:
        item = create_component("tab-item", classes=["sd-tab-item"], selected=False)
        label = nodes.rubric("", "", *title, classes=["sd-tab-label"])
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

    def _target_facts(self, page: TargetPage) -> nodes.Element:
        target, found = page.target, page.provenance
        spanning = any(role.spans for role in page.table.roles)
        parts = [
            # a server that spans nodes uses its NPUs on several nodes: Roles and nodes gives each node's
            _("NPUs per server: {count}, across its nodes").format(count=target.npus)
            if spanning
            else _("NPUs per node: {count}").format(count=target.npus),
            ", ".join(target.skus),
            _("verified {date} with {releases}").format(date=found.date, releases=found.releases_text()),
            _("model implementation: {impl}").format(impl=target.model_impl),
        ]
        if not found.current:
            parts.append(_("not yet re-verified with {releases}").format(releases=found.pending_text()))
        para = _facts(parts, "rb-target-facts")
        if target.note:
            return nodes.container("", para, _para(*inline_nodes(target.note), classes=("rb-target-note",)))
        return para

    def _explorer(self, recipe: Recipe, target: TargetPage, si: int, ti: int) -> nodes.Node:
        if target.wrong:
            warn(
                f"the explorer would not show the expanded commands for: {target.wrong[0]}",
                Subtype.TEMPLATE,
                self.get_location(),
            )
        gid = f"rb-{slug(recipe.name)}-{si}-{ti}"
        table = target.table
        rank_roles = [r for r, role in enumerate(table.roles) if (role.ranks or 0) > 1]
        store.note_grid(
            self.env,
            gid,
            store.GridSize(
                axes=len(table.axes),
                values=max((len(v) for _a, v in table.axes), default=0),
                rank_roles=max(rank_roles, default=-1) + 1,
                ranks=max((role.ranks or 0 for role in table.roles), default=0),
                excluded=list(table.excluded),
            ),
        )
        up = "../" * (self.env.docname.count("/") + 1)  # from the language tree to the site root
        found, files = store.results(self.env, recipe.name)
        for file in files:
            self.env.note_dependency(file)
        evidence = results.evidence(target, found, dict(site_config(self.config).versions))
        view = explorer_view(
            target,
            measured=evidence,
            observations=store.page(self.env, recipe).observations,
            recipe=recipe.name,
            gid=gid,
            axis_text=axis_text,
            _=_,
            files_href=f"{up}api/recipes/{recipe.name}/{target.strategy.slug}/{target.target.target}/",
            repository_url=site_config(self.config).repository_url,
            versions=dict(site_config(self.config).versions),
            source=recipe,
            operator_href="../" * self.env.docname.count("/") + f"{OPERATOR_PAGE}.html",
            memo=store.engine_memo(self.env),  # the page model's memo: its targets' Kubernetes files kept with it
        )
        return explorer_html.make_explorer(
            view, rb_recipe=recipe.name, rb_strategy=target.strategy.slug, rb_target=target.target.target
        )


class ClientDirective(RecipeDirective):
    """The client request against the OpenAI-compatible server."""

    def render(self, page: RecipePage) -> list[nodes.Node]:
        return [_para(_("Once the server is up, send it a request:")), _code(page.recipe.client)]


def every_recipe(directive: SphinxDirective) -> Iterator[Recipe]:
    """Every valid recipe of the recipes folder, each file noted as a dependency of the page
    (what a listing shows of each comes from the recipe alone: no page model is built)."""
    directory = Path(site_config(directive.config).dir)
    directive.env.note_dependency(str(directory))
    store.note_listing(directive.env)
    for path in store.recipe_paths(directory):
        for dependency in store.dependencies(path):
            directive.env.note_dependency(dependency)
        recipe = store.recipe(directive.env, path)
        if recipe is not None:
            yield recipe


# each column's class: the catalogue's filters (recipebook.js) read the provider, SKU and NPU cells
CATALOGUE_COLUMNS = ("model", "provider", "facts", "strategies", "npus", "sku", "verified")


class CatalogueDirective(SphinxDirective):
    """Every recipe in the recipes folder, linking its page."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        rows: list[list[nodes.Node | str | list[nodes.Node]]] = []
        row_classes: list[list[str]] = []
        for recipe in every_recipe(self):
            entry = catalogue_of(recipe)
            row_classes.append([f"rb-kind-{kind}" for kind in entry.kinds] + [f"rb-has-{f}" for f in entry.features])
            rows.append(
                [
                    _para(recipe_link(self, recipe.name)),
                    recipe.provider,
                    _badges(recipe),
                    ", ".join(label_(label) for label in entry.strategies),
                    ", ".join(map(str, entry.npus)),
                    ", ".join(entry.skus),
                    entry.verified,
                ]
            )
        if not rows:
            return _untranslatable([_para(_("No recipes yet."))])
        headers = [_("Model"), _("Provider"), _("Facts"), _("Strategies"), _("NPUs"), _("SKU"), _("Verified")]
        table = _table(headers, rows, classes=("rb-catalogue",))
        body_rows = [row for row in table.findall(nodes.row) if isinstance(row.parent, nodes.tbody)]
        for row, classes in zip(body_rows, row_classes, strict=True):
            row["classes"] += classes
            for cell, header, column in zip(row.children, headers, CATALOGUE_COLUMNS, strict=True):
                assert isinstance(cell, nodes.entry)
                cell["rb_label"] = header
                cell["classes"].append(f"rb-col-{column}")
        return _untranslatable([table])


class FlagsDirective(SphinxDirective):
    """Every flag the recipes use, with vLLM's help text and the recipes that use it."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        users: dict[str, list[str]] = {}
        helps: dict[str, str | None] = {}
        for recipe in every_recipe(self):
            for used_flag in flags_of(recipe):
                users.setdefault(used_flag.name, []).append(recipe.name)
                helps[used_flag.name] = used_flag.help
        info = vocabulary.vocabulary_info()
        intro = _para(
            _(
                "Descriptions come from the help of vLLM {vllm} (with vllm-rbln {plugin}) and are shown in English."
            ).format(vllm=info["vllm"], plugin=info["vllm_rbln"])
        )
        rows: list[list[nodes.Node | str | list[nodes.Node]]] = []
        for flag in sorted(users):
            used = _para()
            for i, name in enumerate(sorted(users[flag], key=str.lower)):
                if i:
                    used += nodes.Text(", ")
                used += recipe_link(self, name)
            help_text = helps[flag] or _("(vLLM gives no help for this flag)")
            rows.append([_para(nodes.literal(flag, flag)), _para(rb_nodes.make_flag_help(help_text)), used])
        table = _table([_("Flag"), _("What it does (vLLM help)"), _("Used by")], rows, classes=("rb-flags",))
        return _untranslatable([intro, table])


def _breakable_literal(text: str) -> list[nodes.Node]:
    """A long value (an image reference) as code that may break after each '/' only: one code
    span per part, a <wbr> between (no character added, so what is copied is the value)."""
    parts = [part for part in re.split(r"(?<=/)", text) if part]
    out: list[nodes.Node] = []
    for i, part in enumerate(parts):
        if i:
            out.append(nodes.raw("", "<wbr>", format="html"))
        out.append(nodes.literal(part, part))
    return out


class KubernetesSettingsDirective(SphinxDirective):
    """Every choice an operator makes for the Kubernetes files (``kubernetes.SETTINGS``): its
    name on the command line, what it does, its default."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        words = setting_words(_)
        versions = dict(site_config(self.config).versions)
        rows: list[list[nodes.Node | str | list[nodes.Node]]] = []
        for setting in kubernetes.SETTINGS:
            label, text = words[setting.name]
            text = text.format(vllm=versions.get("vllm", ""), vllm_rbln=versions.get("vllm-rbln", ""))
            if setting.default:
                default: nodes.Node = _para(*_breakable_literal(setting.default))
            elif setting.name in kubernetes.UNSET and setting.name != "server-image":
                default = _para(
                    _("from the recipe's checkpoint facts; without them, {unset}").format(
                        unset=kubernetes.UNSET[setting.name]
                    )
                )
            elif setting.empty:
                default = _para(_("the cluster's default"))
            else:
                default = _para(
                    _("none: the files hold {unset} until you set it").format(unset=kubernetes.UNSET[setting.name])
                )
            name = f"--set-k8s {setting.name}=..."
            rows.append([[_para(label), _para(nodes.literal(name, name))], _para(text), default])
        table = _table([_("Setting"), _("What it does"), _("Default")], rows, classes=("rb-k8s-settings-table",))
        return _untranslatable([table])


class ResultsDirective(RecipeDirective):
    """``recipe-results NAME``: the recipe's measured results: the plot and the same figures in
    a table, or that nothing was measured (and how to measure it)."""

    def run(self) -> list[nodes.Node]:
        recipe = self.load()
        if recipe is None:
            return []
        name = recipe.name
        measured, files = store.results(self.env, name)
        for file in files:
            self.env.note_dependency(file)
        page = store.page(self.env, recipe)
        pinned = dict(site_config(self.config).versions)

        def label(text: str) -> str:
            return str(label_(text))

        if not measured:
            text = _(
                "No results have been measured for this recipe yet, so this page shows no throughput or latency. "
                "Each explorer above shows the benchmark that measures its selection; python -m recipebook results "
                "add stores what it writes, and this section then plots it."
            )
            return _untranslatable([nodes.paragraph(text, text, classes=["rb-results-empty"])])
        out: list[nodes.Node] = []
        svg = results_panel.plot_svg(page, measured, label, _)
        if svg is not None:
            lang = self.lang
            file = f"recipebook-{hashlib.sha256((name + lang + svg).encode()).hexdigest()[:12]}.svg"
            store.data(self.env)["plots"].setdefault(self.env.docname, {})[file] = svg
            alt = _(
                "Output tokens/s per NPU against the median time per output token, per strategy and target; "
                "the table below gives the same figures."
            )
            out.append(results_panel.recipe_plot("", file=file, alt=alt, depth=self.env.docname.count("/")))
        table = nodes.table(classes=["rb-table", "rb-results-table"])
        group = nodes.tgroup(cols=6)
        table += group
        for _n in range(6):
            group += nodes.colspec(colwidth=1)
        headers = (
            _("Strategy / target"),
            _("Workload"),
            _("Output tokens/s per NPU"),
            _("TTFT p50 / p99 (ms)"),
            _("TPOT p50 / p99 (ms)"),
            _("Measured"),
        )
        head = nodes.thead()
        head += nodes.row("", *(nodes.entry("", nodes.paragraph(h, h)) for h in headers))
        group += head
        body = nodes.tbody()
        for target in page.targets:
            current = {}
            for r in results.of_target(measured, target.strategy.slug, target.target.target):
                try:
                    chosen = target.index(r.selection)
                    current[r.key] = target.commands_hash(chosen) if target.offers(chosen) else None
                except (KeyError, ValueError):
                    current[r.key] = None
                why = results.stale(r, current[r.key], pinned)
                cells = (
                    f"{label(target.strategy.label)} / {target.target.target}",
                    results_panel.workload_text(r.workload, _),
                    results_panel.number(r.per_npu),
                    f"{results_panel.number(r.ttft_ms['p50'])} / {results_panel.number(r.ttft_ms['p99'])}",
                    f"{results_panel.number(r.tpot_ms['p50'], 2)} / {results_panel.number(r.tpot_ms['p99'], 2)}",
                    f"{r.date.replace('T', ' ')}, {r.npus} × {r.sku}, vLLM {r.vllm}, vllm-rbln {r.vllm_rbln}"
                    + ("; " + results_panel.stale_text(why, _) if why else ""),
                )
                body += nodes.row("", *(nodes.entry("", nodes.paragraph(c, c)) for c in cells))
        group += body
        out.append(table)
        return _untranslatable(out)
