"""The README stays an entry point: short, nothing generated, and every place it sends a reader exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def test_the_readme_is_at_most_150_lines():
    assert len(README.splitlines()) <= 150


def test_the_readme_holds_the_two_commands():
    assert "make html" in README and "make test" in README


def test_every_file_the_readme_names_exists():
    named = set(re.findall(r"`((?:source|docs)/[^`]+\.md)`", README))
    assert named, "the README names no page to read on"
    missing = sorted(path for path in named if not (ROOT / path).is_file())
    assert not missing, missing


def test_every_make_target_the_readme_names_exists():
    phony = set(re.search(r"^\.PHONY:(.*)$", MAKEFILE, re.M).group(1).split())
    named = set(re.findall(r"`make ([a-z-]+)", README))
    assert named and named <= phony, named - phony


def _recipe(target: str) -> str:
    """The lines of a Makefile target's recipe."""
    match = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", MAKEFILE, re.M)
    assert match, target
    return match.group(1)


def test_generated_figures_go_under_build_not_into_the_readme():
    assert "<!--" not in README  # no markers for a tool to write between
    for target, out in (("bench", "$(BUILD)/bench.md"), ("search-report", "$(BUILD)/search-report.md")):
        recipe = _recipe(target)
        assert out in recipe and "README" not in recipe
    for script in ("bench/run.py", "bench/search_report.py"):
        assert '"README.md"' not in (ROOT / script).read_text(encoding="utf-8")


DEVELOP = ROOT / "docs" / "develop"


def test_the_developer_pages_are_listed_and_their_links_and_paths_resolve():
    """docs/develop/ (English only, not on the site): its README lists every page, and every
    relative link and every repository path a page names exists."""
    pages = sorted(path.name for path in DEVELOP.glob("*.md") if path.name != "README.md")
    index = (DEVELOP / "README.md").read_text(encoding="utf-8")
    assert pages and all(f"]({name})" in index for name in pages), pages
    for page in DEVELOP.glob("*.md"):
        text = page.read_text(encoding="utf-8")
        for link in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (page.parent / link).exists(), f"{page.name}: {link}"
        for path in re.findall(r"`((?:source|docs|tests|bench|tools|_ext)/[^` ]+\.(?:md|py|js))`", text):
            assert (ROOT / path).exists(), f"{page.name}: {path}"
        assert "{doc}" not in text and "{ref}" not in text  # not Sphinx pages: plain Markdown links
    assert not list((ROOT / "source").rglob("testing.md")) and not list((ROOT / "source").rglob("benchmarks.md"))
