"""The Markdown views and llms-full.txt say what the HTML page says.

Read with markdown-it (CommonMark), as an agent reading the site would: each recipe view has
one title, its strategies' headings hold their targets' headings and those their roles', no
fact is left empty, the opening selection's commands, the client request and the benchmark
are there in code blocks that close where they should; a recipe with markup in every plain
field gives no HTML outside code. Expectations come from the recipe JSON and the engine's
commands, so a third recipe is covered too.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

import recipebook
from conftest import LANGUAGES, ROOT, build_site
from recipe_support import in_process, recipe_names
from recipebook.expanding.page import page_of
from recipebook_sphinx.publishing.markdown import code_block, escape, inline_code
from third_recipe import copy_project

MD = MarkdownIt("commonmark").enable("table")
NAMES = recipe_names()


def tokens(text: str):
    return MD.parse(text)


def headings(text: str) -> list[tuple[int, str]]:
    """Each heading's level and its text as a reader sees it (escapes resolved)."""
    out, stream = [], tokens(text)
    for i, token in enumerate(stream):
        if token.type == "heading_open":
            inline = stream[i + 1]
            words = "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))
            out.append((int(token.tag[1]), words))
    return out


def fences(text: str) -> list[str]:
    return [token.content.rstrip("\n") for token in tokens(text) if token.type == "fence"]


def html_outside_code(text: str) -> list[str]:
    found = []
    for token in tokens(text):
        if token.type == "html_block":
            found.append(token.content)
        for child in token.children or ():
            if child.type == "html_inline":
                found.append(child.content)
    return found


def html_outline(page: Path) -> list[tuple[int, str]]:
    """The explorer's sections as the HTML page shows them, in order, each with its depth:
    a strategy tab (0), its target tabs (1), each target's memory panel, measured results, roles,
    router, serving and Kubernetes titles (2)."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    out = []
    for strategies in soup.select("div.rb-strategies"):
        for label in strategies.find_all("label", class_="sd-tab-label", recursive=False):
            parts = [s.get_text(" ", strip=True) for s in label.select(".rb-tab-label, .rb-tab-tag")]
            out.append((0, " — ".join(parts)))
            panel = label.find_next_sibling("div", class_="sd-tab-content")
            for target in panel.select("div.rb-targets-tabs > label.sd-tab-label"):
                out.append((1, target.get_text(" ", strip=True)))
                grid = target.find_next_sibling("div", class_="sd-tab-content").select_one("form.rb-grid")
                seen = []
                # a memory panel per set of selections, all with one title; the view shows the opening one
                selector = (
                    ".rb-fit .rb-fit-title, .rb-measured .rb-fit-title, .rb-cmds .rb-role-title, "
                    ".rb-serving .rb-role-title, .rb-k8s-panel > .rb-role-title"
                )
                for title in grid.select(selector):
                    copies = (
                        title.find_parent(class_="rb-serving")
                        or title.find_parent(class_="rb-fit")
                        or title.find_parent(class_="rb-measured")
                    )
                    if not copies or title.get_text() not in seen:
                        seen.append(title.get_text())
                out += [(2, text) for text in dict.fromkeys(seen)]
    return out


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_a_recipes_view_nests_and_holds_what_the_page_shows(site: Path, name: str, language: str) -> None:
    text = (site / language / "recipes" / f"{name}.md").read_text(encoding="utf-8")
    found = headings(text)
    assert [level for level, _t in found].count(1) == 1 and found[0][0] == 1
    # the explorer's sections in the HTML's order, a strategy's targets one level under it and
    # a target's roles one level under the target
    outline = html_outline(site / language / "recipes" / f"{name}.html")
    assert outline
    start = next(i for i, (_level, title) in enumerate(found) if title == outline[0][1])
    base = found[start][0]
    shown = [(level - base, title) for level, title in found[start:]]
    shown = [(depth, title) for depth, title in shown if depth >= 0][: len(outline)]
    assert shown == outline
    # no fact without its value
    for line in text.splitlines():
        if line.startswith("- ") and line.rstrip().endswith(":"):
            pytest.fail(f"an empty fact: {line!r}")
    model = page_of(recipebook.load(ROOT / "recipes" / f"{name}.json"))
    blocks = fences(text)
    for target in model.targets:
        for command in target.opening_commands():  # every rank's command of the opening selection
            assert command.shell in blocks
        group = target.serving_at(target.opening)
        assert group.client in blocks and target.bench_at(target.opening) in blocks
        for _name, step in target.router:
            assert step in blocks
    assert any("\n  vllm bench serve \\\n" in block and "--save-result" in block for block in blocks)
    assert html_outside_code(text) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_flag_row_of_the_configuration_guide_says_what_the_flag_does(site: Path, language: str) -> None:
    text = (site / language / "configuration.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `--")]
    flags = {flag.name for name in NAMES for flag in page_of(recipebook.load(ROOT / "recipes" / f"{name}.json")).flags}
    assert len(rows) == len(flags)
    for row in rows:
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]]
        assert len(cells) == 3 and all(cells), row


@pytest.mark.parametrize("language", LANGUAGES)
def test_llms_full_holds_every_view(site: Path, language: str) -> None:
    full = (site / language / "llms-full.txt").read_text(encoding="utf-8")
    views = sorted(p for p in (site / language).rglob("*.md") if p.name != "404.md")
    assert views
    for view in views:
        assert view.read_text(encoding="utf-8").strip() in full, view
    index = (site / language / "llms.txt").read_text(encoding="utf-8")
    assert html_outside_code(index) == [] and html_outside_code(full) == []


# -- hostile text ----------------------------------------------------------------------------

MARKUP = "<script>alert(1)</script> &lt;img src=x onerror=alert(1)&gt; *x* _y_ [z](javascript:alert(1)) | `q`"


def hostile_recipe() -> dict:
    data = json.loads((ROOT / "recipes" / "gpt-oss-120b.json").read_text(encoding="utf-8"))
    data["provider"] = "prov" + MARKUP
    data["attn"] = "attn" + MARKUP
    data["variants"] = [*data.get("variants", [data["variant"]]), "var" + MARKUP]
    data["badges"] = [*data["badges"], "badge" + MARKUP]
    for language in ("en", "ko"):
        # markup spelled with character references is refused outside <code> (rule 9); inside, it is code
        data["text"][language]["sub"] = "sub <code>&lt;script&gt;alert(1)&lt;/script&gt;</code> <code>a`b``c</code>"
        data["text"][language]["tag"] = "tag &amp;lt;b&amp;gt; <em>e</em> # not a heading"
    for strategy in data["strategies"]:
        strategy["label"] = strategy["label"] + " <b>bold</b> |"
        strategy["tag"] = "tag <i>" + strategy["tag"]
        for option in strategy["options"]:
            option["label"] = "target <u>" + option["target"]
            option["modelImpl"] = option["modelImpl"] + "<br>"
    return data


def test_markup_in_every_plain_field_stays_text_in_the_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    copy_project(project)  # no build output, caches or the crosscheck's vLLM
    data = hostile_recipe()
    # a router step whose here-document holds a line of three backquotes (it passes bash -n)
    grid = data["strategies"][0]["options"][0]["grid"]
    grid["router"] = {
        "role": "router",
        "nodes": [{"node": "notes", "cmd": "cat > notes.md <<'EOF'\n```\nnot a fence end\n````\nEOF"}],
    }
    (project / "recipes" / "gpt-oss-120b.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    # validate of the copy's recipes by its main in this process (the copy's engine is this one): a
    # real validate exits 0 in test_cli.py's test_validate_shipped_recipes_prints_a_summary
    checked = in_process(capsys, "validate", cwd=project)
    assert checked.returncode == 0, checked.stderr
    result = build_site(tmp_path / "out", "en", project=project)
    assert result.returncode == 0, result.stderr
    tree = tmp_path / "out" / "html" / "en"
    for path in [tree / "recipes" / "gpt-oss-120b.md", tree / "index.md", tree / "llms-full.txt", tree / "llms.txt"]:
        text = path.read_text(encoding="utf-8")
        assert html_outside_code(text) == [], path.name
        for token in tokens(text):
            for child in token.children or ():
                if child.type == "link_open":
                    assert not child.attrs["href"].startswith("javascript:"), path.name
    view = (tree / "recipes" / "gpt-oss-120b.md").read_text(encoding="utf-8")
    step = grid["router"]["nodes"][0]["cmd"]
    assert step in fences(view)  # the fence is longer than the backquotes inside: it closes after the step
    rendered = MD.render(view)
    assert "<script>" not in rendered and "&lt;script&gt;" in rendered  # the text, shown as text
    assert "<code>a`b``c</code>" in rendered  # a backquote inside inline code


@pytest.mark.parametrize(
    "text",
    ["plain", "a*b*c", "_x_", "<b>", "&lt;", "# h", "- item", "1. one", "[l](u)", "| t |", "a\\b", "`", "x_y_z"],
)
def test_escaped_text_renders_as_itself(text: str) -> None:
    html = MD.render(escape(text)).strip()
    assert html.startswith("<p>") and html.endswith("</p>")
    assert unescape(html[3:-4]) == text


@pytest.mark.parametrize("text", ["a", "a`b", "``", "`x`", " lead", "x ``` y"])
def test_inline_code_holds_any_text(text: str) -> None:
    code = re.fullmatch(r"<p><code>(.*)</code></p>", MD.render(inline_code(text)).strip(), re.S)
    assert code is not None and unescape(code.group(1)) == text


@pytest.mark.parametrize("text", ["x", "```", "a\n````\nb", "~~~\n```"])
def test_a_code_block_closes_where_it_should(text: str) -> None:
    assert fences(code_block(text, "bash")) == [text]
