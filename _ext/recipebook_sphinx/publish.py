"""Site-level outputs, written after both languages are built.

- ``index.html``: sends a reader to their browser's language (links without JavaScript).
- ``api/``: the JSON API (an index, one file per recipe in the engine's matrix shape,
  the schema) and, per offered selection, ready-to-run files (serve.sh, a vLLM
  config and an env file per command) with a listing page per target.
- ``sitemap.xml`` with hreflang alternates, ``404.html``, and per language
  ``llms.txt`` and ``llms-full.txt``.

Usage: python -m recipebook_sphinx.publish OUTDIR [--site-url URL] LANG [LANG ...]
"""

from __future__ import annotations

import argparse
import gettext
import json
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from html import escape
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from recipebook import explorer, load, portable
from recipebook.expansion import API_VERSION, Expansion
from recipebook.files import selection_files, selection_key
from recipebook.model import Recipe
from recipebook.schema import SCHEMA_PATH

from . import i18n, landing, store

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
RECIPE_PAGE = "recipes/{name}"
SKIP_PAGES = {"search", "genindex", "404"}
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def recipes(directory: Path) -> list[Recipe]:
    return [load(path) for path in store.recipe_paths(directory)]


def files_dir(recipe: Recipe, strategy: str, target: str) -> str:
    return f"api/recipes/{recipe.name}/{strategy}/{target}"


def write_api(out: Path, all_recipes: list[Recipe], languages: list[str]) -> None:
    """The API, and the static ready-to-run files of the selection each target opens on.

    Any other selection's files are written in the browser from the recipe's document
    (static/recipebook-files.js) or by ``python -m recipebook files``: the output grows with
    recipes and their lines, not with the product of their axes.
    """
    api = out / "api"
    if api.exists():
        shutil.rmtree(api)
    (api / "recipes").mkdir(parents=True)
    shutil.copy(SCHEMA_PATH, api / "schema.json")
    index = {"version": API_VERSION, "schema": "schema.json", "recipes": []}
    for recipe in all_recipes:
        page = RECIPE_PAGE.format(name=recipe.name)
        index["recipes"].append(
            {
                "name": recipe.name,
                "provider": recipe.provider,
                "model": recipe.model,
                "strategies": [
                    {"slug": s.slug, "label": s.label, "targets": [t.target for t in s.targets]}
                    for s in recipe.strategies
                ],
                "pages": {lang: f"../{lang}/{page}.html" for lang in languages},
                "markdown": {lang: f"../{lang}/{page}.md" for lang in languages},
                "matrix": f"recipes/{recipe.name}.json",
            }
        )
        templates = [explorer.build(recipe, strategy, target) for strategy, target in recipe.targets()]
        static = {}
        for template in templates:
            expansion = portable.static_selection(recipe, template)
            target_dir = files_dir(recipe, expansion.strategy, expansion.target)
            folder = f"{target_dir}/{selection_key(expansion.selection)}"
            files = selection_files(expansion)
            for name, text in files.items():
                path = out / folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            write_file_index(out / folder / "index.html", recipe, expansion.selection, list(files))
            write_listing(out / target_dir / "index.html", recipe, expansion, template.selections)
            static[(expansion.strategy, expansion.target)] = f"{selection_key(expansion.selection)}/"
        document = portable.recipe_document(recipe, templates, static)
        (api / "recipes" / f"{recipe.name}.json").write_text(
            json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8"
        )
    (api / "index.json").write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_listing(path: Path, recipe: Recipe, expansion: Expansion, offered: int) -> None:
    """A target's page of files, reachable without JavaScript: the opening selection's, and
    how to get any other selection's."""
    key = selection_key(expansion.selection)
    pairs = ", ".join(f"{a}={v}" for a, v in expansion.selection.items())
    sets = " ".join(f"--set {shlex.quote(f'{a}={v}')}" for a, v in expansion.selection.items())
    command = (
        f"python -m recipebook files recipes/{recipe.name}.json --strategy {shlex.quote(expansion.strategy)} "
        f"--target {shlex.quote(expansion.target)} {sets} --out DIR"
    )
    title = f"{recipe.name}: {expansion.strategy} / {expansion.target}"
    path.write_text(
        f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}: ready-to-run files</title>
<style>pre {{ white-space: pre-wrap; overflow-wrap: anywhere; }}</style></head>
<body><main><h1>{escape(title)}</h1>
<p>Files of the selection the page opens on ({escape(pairs)}): <a href="{key}/serve.sh">serve.sh</a> ·
<a href="{key}/">all files</a>.</p>
<p>This target offers {offered} selections. The recipe page writes the files of the one you choose in your
browser (the "Ready-to-run files" link), and so does the command line, from a checkout of the recipes:</p>
<pre><code>{escape(command)}</code></pre>
<p>Each selection has a serve.sh (run ./serve.sh ROLE [RANK]), and for each command a vLLM config
(vllm serve MODEL --config FILE.yaml) with an env file to source first.</p>
</main></body></html>
""",
        encoding="utf-8",
    )


def write_file_index(path: Path, recipe: Recipe, selection: dict, names: list[str]) -> None:
    """The files of one selection, and how to use them."""
    pairs = ", ".join(f"{a}={v}" for a, v in selection.items())
    items = "\n".join(f'<li><a href="{escape(name)}">{escape(name)}</a></li>' for name in names)
    path.write_text(
        f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(recipe.name)}: {escape(pairs)}</title></head>
<body><main><h1>{escape(recipe.name)}</h1><p>{escape(pairs)}</p>
<p>Run <code>./serve.sh ROLE [RANK]</code>, or source a command's env file and pass its config:
<code>set -a; . NAME.env; set +a; vllm serve MODEL --config NAME.yaml</code>.</p>
<ul>
{items}
</ul>
<p><a href="../index.html">Every selection of this target</a></p></main></body></html>
""",
        encoding="utf-8",
    )


def pages(out: Path, lang: str) -> list[str]:
    """Page names (without .html) of one language tree, sorted."""
    tree = out / lang
    names = [str(p.relative_to(tree))[:-5] for p in tree.rglob("*.html")]
    return sorted(n for n in names if n not in SKIP_PAGES and not n.startswith("_"))


def write_sitemap(out: Path, languages: list[str], site_url: str) -> None:
    base = site_url.rstrip("/")
    entries = []
    for lang in languages:
        for name in pages(out, lang):
            alternates = "".join(
                f'\n    <xhtml:link rel="alternate" hreflang="{other}" href="{xml_escape(f"{base}/{other}/{name}.html")}"/>'
                for other in languages
            )
            entries.append(f"  <url>\n    <loc>{xml_escape(f'{base}/{lang}/{name}.html')}</loc>{alternates}\n  </url>")
    (out / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
        + "\n".join(entries)
        + "\n</urlset>\n",
        encoding="utf-8",
    )


def title_of(path: Path) -> str:
    match = _TITLE.search(path.read_text(encoding="utf-8"))
    return re.sub(r"\s+", " ", match.group(1)).split(" — ")[0].split(" &#8212; ")[0].strip() if match else path.stem


def translator(lang: str) -> Callable[[str], str]:
    """The extension's catalog for one language, as the Sphinx build uses it."""
    i18n.compile_catalogs(LOCALE, ("recipebook",))
    return gettext.translation("recipebook", LOCALE, [lang], fallback=True).gettext


def write_llms(out: Path, lang: str, all_recipes: list[Recipe]) -> None:
    """llms.txt (an index of the Markdown views) and llms-full.txt (all of them)."""
    tree = out / lang
    _ = translator(lang)
    site_title = title_of(tree / "index.html")
    summary = _(
        "Tested vllm serve commands for large language models on RBLN NPUs, per deployment strategy, "
        "target and feature."
    )
    lines = [f"# {site_title}", "", f"> {summary}", ""]
    names = {RECIPE_PAGE.format(name=r.name): r for r in all_recipes}
    lines.append(f"## {_('Recipes')}")
    for page, recipe in names.items():
        texts = recipe.text.get(lang) or recipe.text["en"]
        lines.append(f"- [{title_of(tree / (page + '.html'))}]({page}.md): {re.sub('<[^>]+>', '', texts.sub)}")
    lines += ["", f"## {_('Guides')}"]
    for page in pages(out, lang):
        if page not in names and (tree / f"{page}.md").exists():
            lines.append(f"- [{title_of(tree / (page + '.html'))}]({page}.md)")
    (tree / "llms.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    full = [f"# {site_title}", "", f"> {summary}"]
    for page in [*names, *[p for p in pages(out, lang) if p not in names]]:
        markdown = tree / f"{page}.md"
        if markdown.exists():
            full += ["", "---", "", f"Source: {page}.html", "", markdown.read_text(encoding="utf-8").strip()]
    (tree / "llms-full.txt").write_text("\n".join(full) + "\n", encoding="utf-8")


def write_404(out: Path, languages: list[str]) -> None:
    links = "".join(
        f'<li><a href="/{lang}/index.html" hreflang="{lang}" lang="{lang}">{escape(landing.TITLES.get(lang, lang))}'
        f"</a></li>"
        for lang in languages
    )
    (out / "404.html").write_text(
        f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Page not found · 페이지를 찾을 수 없습니다</title></head>
<body><main>
<h1>Page not found</h1>
<p lang="ko">페이지를 찾을 수 없습니다.</p>
<p>The page you asked for is not here. Start again from the recipes:</p>
<ul>{links}</ul>
</main></body></html>
""",
        encoding="utf-8",
    )


def publish(out: Path, languages: list[str], site_url: str = "", recipes_dir: Path = ROOT / "recipes") -> None:
    all_recipes = recipes(recipes_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text(landing.page(languages), encoding="utf-8")
    write_api(out, all_recipes, languages)
    write_sitemap(out, languages, site_url)
    write_404(out, languages)
    for lang in languages:
        write_llms(out, lang, all_recipes)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m recipebook_sphinx.publish")
    parser.add_argument("outdir", type=Path)
    parser.add_argument("languages", nargs="+")
    parser.add_argument("--site-url", default="")
    parser.add_argument("--recipes-dir", type=Path, default=ROOT / "recipes")
    args = parser.parse_args(argv)
    publish(args.outdir, args.languages, args.site_url, args.recipes_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
