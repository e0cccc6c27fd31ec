"""Site-level files written by the build itself: under a site URL with a path, the sitemap
is absolute and the not-found page works there; whichever language's build writes the
site-level files, they are the same."""

from __future__ import annotations

import functools
import http.server
import io
import runpy
import shutil
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from browser_support import open_page
from conftest import LANGUAGES, ROOT, build_site, build_site_here

SITE_URL = "https://docs.example.com/recipes"
PREFIX = urlsplit(SITE_URL).path  # /recipes
REPOSITORY = "https://git.example.com/rbln/serving-recipes"


SITE_OPTIONS = ("-D", f"recipebook_site_url={SITE_URL}", "-D", f"recipebook_repository_url={REPOSITORY}")


@pytest.fixture(scope="module")
def alone(tmp_path_factory) -> dict[str, Path]:
    """Each language built alone into a folder of its own, for https://docs.example.com/recipes:
    its html folder, by language. The source language is built in this process (sphinx-build's
    main), the others each by a process of their own, as make html builds them: what each writes
    is compared below, so no language's build reads what another left in its process."""
    out = tmp_path_factory.mktemp("alone")
    built = {}
    for lang in LANGUAGES:
        build = build_site_here if lang == LANGUAGES[0] else build_site
        result = build(out / lang, lang, *SITE_OPTIONS)
        assert result.returncode == 0, result.stderr
        built[lang] = out / lang / "html"
    return built


@pytest.fixture(scope="module")
def prefixed_site(alone, tmp_path_factory) -> Path:
    """The site for https://docs.example.com/recipes as `make html` leaves it: each language's
    tree, and the site-level files, which each language's build writes the same
    (test_each_language_build_writes_the_same_site_files) and the source language's alone with
    the root not-found page."""
    site = tmp_path_factory.mktemp("prefixed") / "html"
    first, *others = LANGUAGES
    shutil.copytree(alone[first], site)
    for lang in others:
        shutil.copytree(alone[lang] / lang, site / lang)
    return site


def _docnames(site: Path, lang: str) -> set[str]:
    tree = site / lang
    return {str(p.relative_to(tree))[:-5] for p in tree.rglob("*.html")}


def test_the_sitemap_lists_every_page_by_its_absolute_url(prefixed_site):
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    root = ET.parse(prefixed_site / "sitemap.xml").getroot()
    urls = root.findall("s:url", ns)
    locs = [u.find("s:loc", ns).text for u in urls]
    assert len(locs) == len(set(locs))
    for loc in locs:
        assert loc.startswith(SITE_URL + "/"), loc
    expected = {
        f"{SITE_URL}/{lang}/{name}.html"
        for lang in LANGUAGES
        for name in _docnames(prefixed_site, lang) - {"search", "genindex", "404"}
    }
    assert set(locs) == expected
    for url in urls:
        alternates = {link.get("hreflang"): link.get("href") for link in url.findall("x:link", ns)}
        assert set(alternates) == set(LANGUAGES)
        assert all(href.startswith(SITE_URL + "/") for href in alternates.values())


class _PrefixedHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site under /recipes/ as a static host would: a missing page answers 404
    with the site's 404.html."""

    def translate_path(self, path: str) -> str:
        path = urlsplit(path).path
        if not path.startswith(PREFIX + "/"):
            return str(Path(self.directory) / "no-such-file")
        return super().translate_path(path[len(PREFIX) :])

    def send_head(self):
        if not Path(self.translate_path(self.path)).exists():
            body = (Path(self.directory) / "404.html").read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)
        return super().send_head()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def prefixed_server(prefixed_site):
    handler = functools.partial(_PrefixedHandler, directory=str(prefixed_site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


STYLED = """() => {
  const sheets = Array.from(document.styleSheets).filter(s => s.href && s.href.includes('furo'));
  return sheets.length > 0 && sheets.every(s => s.cssRules.length > 0);
}"""


@pytest.mark.browser
@pytest.mark.parametrize(
    "address,lang",
    [
        ("/en/no/such/page.html", "en"),  # a missing page deep in a tree: the site's 404.html
        ("/ko/없는-페이지.html", "en"),  # the host answers with the root page, in the source language
        ("/en/404.html", "en"),
        ("/ko/404.html", "ko"),
    ],
)
def test_the_not_found_page_works_under_the_sites_path(browser, prefixed_server, address, lang):
    page = browser.new_page()
    response = open_page(page, prefixed_server + PREFIX + address)
    assert response.status == (200 if address.endswith("/404.html") else 404)
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.evaluate(STYLED), "the theme's stylesheet did not load"
    links = page.eval_on_selector_all(
        "a[href]", "as => as.map(a => a.getAttribute('href')).filter(h => !h.startsWith('#') && !h.includes('://'))"
    )
    assert links and all(link.startswith(PREFIX + "/") for link in links), links
    for link in sorted(set(links)):
        status = page.request.get(prefixed_server + link).status
        assert status == 200, link
    other = next(code for code in LANGUAGES if code != lang)
    assert f"{PREFIX}/{other}/index.html" in links  # the language switch leads somewhere real
    page.close()


def test_each_language_build_writes_the_same_site_files(alone):
    """Built alone, each language writes the site-level files (landing page, api/, the sitemap)
    the same."""
    written = {}
    for lang, html in alone.items():
        files = [p for p in html.rglob("*") if p.is_file() and p.relative_to(html).parts[0] not in LANGUAGES]
        written[lang] = {p.relative_to(html).as_posix(): p.read_bytes() for p in files}
    first, *others = LANGUAGES
    for lang in others:
        mine = {k: v for k, v in written[lang].items() if k != "404.html"}
        theirs = {k: v for k, v in written[first].items() if k != "404.html"}
        assert sorted(mine) == sorted(theirs)
        assert [k for k in mine if mine[k] != theirs[k]] == []
    assert "index.html" in written[first] and "api/index.json" in written[first]
    assert "404.html" in written[first]  # the source language's build writes the root not-found page
    assert (ROOT / "source" / "404.md").is_file()


@pytest.mark.browser
def test_the_report_link_names_the_chosen_selection(browser, prefixed_server):
    """With a repository configured, each explorer offers a pre-filled new issue whose fields
    follow the reader's selection, with the pinned versions and an empty results form."""
    from urllib.parse import parse_qs

    from explorer_support import click_value, grid_id, open_tabs, other_value
    from recipebook import load

    versions = runpy.run_path(str(ROOT / "conf.py"))["recipebook_versions"]
    recipe = load(ROOT / "recipes" / "A.X-K2.json")
    strategy, target = "prefill-decode-disaggregated", "Latency"
    page = browser.new_page()
    open_page(page, f"{prefixed_server}{PREFIX}/en/recipes/A.X-K2.html")
    gid = grid_id(page, strategy, target)
    open_tabs(page, gid)
    default, axis, other = other_value(recipe, strategy, target)
    for value in [other, default[axis]]:
        click_value(page, gid, axis, value)
        chosen = {**default, axis: value}
        href = page.get_attribute(f"#{gid} a.rb-report-link", "href")
        assert href.startswith(REPOSITORY + "/issues/new?"), href
        fields = {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()}
        pairs = ", ".join(f"{a}={v}" for a, v in chosen.items())
        for text in ("A.X-K2", strategy, target, pairs):
            assert text in fields["title"] and text in fields["body"], (text, fields)
        assert versions["vllm"] in fields["body"] and versions["vllm-rbln"] in fields["body"]
        for blank in ("Hardware", "Throughput", "Latency", "Works (yes/no)"):  # the results form, to fill in
            assert blank in fields["body"]
    page.close()
