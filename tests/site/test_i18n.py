"""Korean and English: catalogs, the translation gate, the translator's workflow, both trees."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import polib
import pytest
import sphinx.builders.gettext
from bs4 import BeautifulSoup, SoupStrainer

import query_sets
from conftest import sphinx_here
from recipebook_sphinx.i18n import catalogs, intl_check, po
from recipebook_sphinx.i18n.catalogs import update as catalogs_update

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
SOURCE_DATE_EPOCH = "1767225600"  # as make gettext gives it
_SOURCE_DATE = time.gmtime(float(SOURCE_DATE_EPOCH))


def extract(project: Path, out: Path) -> None:
    """What `make gettext` does, for a project folder (source/ and conf.py): the templates into a
    new folder, the doctrees kept between runs in the project's .doctrees (as make gettext keeps
    them in _build/doctrees/gettext), so a second run reads only the pages that changed. Both of
    its steps run by their main in this process (sphinx-build's by conftest.sphinx_here, with the
    SOURCE_DATE_EPOCH make gives it; then the catalogs'), not as new processes: make intl-update
    runs them as processes in tests/site/test_adding_a_recipe.py."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        # the templates' POT-Creation-Date, which Sphinx's gettext builder reads from the variable
        # once, when first imported (its module's ctime), made from it as Sphinx makes it
        patch.setattr(sphinx.builders.gettext, "ctime", time.strftime("%Y-%m-%d %H:%M%z", _SOURCE_DATE))
        doctrees = project / ".doctrees"
        built = sphinx_here(
            ["-q", "-W", "-b", "gettext", "-c", str(project), "-d", str(doctrees), str(project / "source"), str(out)]
        )
    assert built.returncode == 0, built.stderr
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        status = catalogs.main([str(out)])
    assert status == 0, said.getvalue()


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of what the catalogs come from (source/, conf.py, recipes/) and of the catalogs
    (without compiled ones), as a translator's checkout: the source edits below are made in it."""
    copy = tmp_path_factory.mktemp("i18n") / "project"
    shutil.copytree(ROOT / "source", copy / "source")
    shutil.copy(ROOT / "conf.py", copy / "conf.py")
    shutil.copytree(ROOT / "recipes", copy / "recipes")
    _copy_locale(copy)
    return copy


@pytest.fixture(scope="module")
def pots(project) -> Path:
    """The templates of the project as it is (before any edit)."""
    out = project.parent / "pot"
    extract(project, out)
    return out


def test_catalogs_are_current(pots, tmp_path):
    """Regenerating the catalogs from the sources changes nothing that is committed."""
    locale = tmp_path / "locale"
    shutil.copytree(LOCALE, locale, ignore=shutil.ignore_patterns("*.mo"))
    catalogs_update(pots, locale, ("ko",))
    changed = [
        p.name
        for p in sorted((locale / "ko" / "LC_MESSAGES").glob("*.po"))
        if p.read_bytes() != (LOCALE / "ko" / "LC_MESSAGES" / p.name).read_bytes()
    ]
    new = {p.name for p in (locale / "ko" / "LC_MESSAGES").glob("*.po")} - {
        p.name for p in (LOCALE / "ko" / "LC_MESSAGES").glob("*.po")
    }
    assert not changed and not new, f"run `make intl-update` and commit: {changed or sorted(new)}"


def test_commands_and_code_blocks_never_enter_the_catalogs(pots):
    msgids = [e.msgid for pot in pots.glob("*.pot") for e in polib.pofile(str(pot))]
    assert msgids
    for msgid in msgids:
        assert not re.match(r"(pip install|make |vllm serve|curl |\$ )", msgid), msgid
        assert "\n    --" not in msgid, msgid


def test_directive_output_stays_out_of_the_page_catalogs(pots):
    """The extension translates what its directives render; texts a recipe gives in both languages never enter."""
    from recipebook import load

    msgids = {
        e.msgid
        for pot in pots.glob("*.pot")
        if pot.stem not in ("recipebook", "recipe-labels", "sphinx")
        for e in polib.pofile(str(pot))
    }
    for path in sorted((ROOT / "recipes").glob("*.json")):
        if path.name == "schema.json":
            continue
        recipe = load(path)
        for text in (recipe.text["en"].sub, recipe.text["en"].tag, recipe.text["en"].strategy_note):
            assert not any(text[:40] in m for m in msgids), text
    assert not msgids & {"Model", "Provider", "Strategy", "Install the compiler:"}


def test_korean_catalogs_pass_the_gate():
    assert intl_check.check(LOCALE, "ko") == []


def test_sphinx_lint_finds_nothing_in_the_catalogs():
    lint = [sys.executable, "-m", "sphinxlint"]
    ours = subprocess.run([*lint, "--ignore", "sphinx.po", str(LOCALE)], capture_output=True, text=True)
    assert ours.returncode == 0, ours.stdout + ours.stderr
    # the theme's own messages end in spaces that the translation must keep, so only that check is off
    theme = subprocess.run(
        [*lint, "--disable", "trailing-whitespace", str(LOCALE / "ko/LC_MESSAGES/sphinx.po")],
        capture_output=True,
        text=True,
    )
    assert theme.returncode == 0, theme.stdout + theme.stderr


def _copy_locale(tmp_path: Path) -> Path:
    locale = tmp_path / "locale"
    shutil.copytree(LOCALE, locale, ignore=shutil.ignore_patterns("*.mo"))
    return locale


def test_gate_fails_on_fuzzy_untranslated_and_broken_markup(tmp_path, capsys):
    locale = _copy_locale(tmp_path)
    path = locale / "ko" / "LC_MESSAGES" / "install.po"
    catalog = polib.pofile(str(path))
    entries = [e for e in catalog if e.msgid and not e.obsolete]
    entries[0].flags.append("fuzzy")
    entries[1].msgstr = ""
    with_code = next(e for e in entries[2:] if "`" in e.msgid)
    with_code.msgstr = with_code.msgstr.replace("`", "")
    catalog.save()
    problems = [p for p in intl_check.check(locale, "ko") if "/install.po:" in p]
    assert len(problems) == 3, problems
    assert "fuzzy" in problems[0] and "untranslated" in problems[1] and "markup differs" in problems[2]
    # the gate's command, by its main in this process: a real one exits 1 on a catalog's problem in
    # tests/engine/test_hostile_round3.py (the Latin-1 catalog), with no traceback
    capsys.readouterr()
    status = intl_check.main([str(locale), "ko"])
    assert status == 1 and "install.po" in capsys.readouterr().out


def test_gate_fails_on_a_catalog_that_does_not_compile(tmp_path):
    locale = _copy_locale(tmp_path)
    path = locale / "ko" / "LC_MESSAGES" / "index.po"
    path.write_text(path.read_text() + '\nmsgid "dangling"\n', encoding="utf-8")
    assert any(p.startswith("msgfmt:") for p in intl_check.check(locale, "ko"))


# A translator's source edits, made in one copy of the project and extracted once (`make intl-update`):
# in install.md, one sentence changed and one definition removed; in configuration.md, one word of
# the longest paragraph (over several lines) upper-cased. The two pages have catalogs of their own.
CHANGED = "The host needs the RBLN Driver. Check that the NPUs are visible before serving a\nmodel."
REMOVED = "Needed only for Suffix speculative decoding; not part of the base install."


@pytest.fixture(scope="module")
def source_edits(project, pots) -> dict:
    """The copy's catalogs before (``before``: install.po's translations by msgid,
    configuration.po's lines) and its locale folder after the edits were extracted (after the
    project's templates, ``pots``: the second run of make gettext reads the edited pages) and
    merged; ``word``: the upper-cased word of configuration.md."""
    locale = project / "locale"
    page = project / "source" / "install.md"
    text = page.read_text()
    assert CHANGED in text
    assert REMOVED in text
    assert f"`arctic-inference`\n: {REMOVED}\n" in text
    page.write_text(
        text.replace(CHANGED, CHANGED.replace("Check that", "First check that")).replace(
            f"`arctic-inference`\n: {REMOVED}\n",
            "",  # the whole definition goes
        )
    )
    page = project / "source" / "configuration.md"
    text = page.read_text()
    paragraph = max(text.split("\n\n"), key=len)  # the longest paragraph, over several lines
    assert paragraph.count("\n") >= 2
    word = re.search(r"\b[a-z]{5,}\b", paragraph).group()
    page.write_text(text.replace(paragraph, paragraph.replace(word, word.upper(), 1)))
    before = {
        "install": {e.msgid: e.msgstr for e in polib.pofile(str(locale / "ko/LC_MESSAGES/install.po")) if e.msgid},
        "configuration": (locale / "ko/LC_MESSAGES/configuration.po").read_text().splitlines(),
    }
    pot = project.parent / "pot-edited"
    extract(project, pot)
    catalogs_update(pot, locale, ("ko",))
    return {"before": before, "locale": locale, "word": word}


def test_intl_update_keeps_translations_after_a_source_edit(source_edits):
    """A changed sentence becomes fuzzy with its old translation; a removed one stays obsolete."""
    before, locale, changed, removed = source_edits["before"]["install"], source_edits["locale"], CHANGED, REMOVED
    after = polib.pofile(str(locale / "ko/LC_MESSAGES/install.po"))
    edited = next(e for e in after if e.msgid.startswith("The host needs the RBLN Driver. First check"))
    assert "fuzzy" in edited.flags
    assert edited.msgstr == before[changed.replace("\n", " ")]  # the old translation, kept for review
    assert edited.previous_msgid == changed.replace("\n", " ")  # and the English it translated (#| msgid)
    assert f'#| msgid "{changed.replace(chr(10), " ")}"' in (locale / "ko/LC_MESSAGES/install.po").read_text()
    gone = next(e for e in after if e.obsolete and e.msgid == removed)
    assert gone.msgstr == before[removed]
    for entry in after:
        if entry.msgid in before and not entry.obsolete:
            assert entry.msgstr == before[entry.msgid]  # untouched sentences keep their translation


def _pages(tree: Path) -> set[str]:
    return {str(p.relative_to(tree)) for p in tree.rglob("*.html")}


def test_both_trees_hold_the_same_pages(site):
    assert _pages(site / "en") == _pages(site / "ko")
    assert "recipes/A.X-K2.html" in _pages(site / "ko")


def test_language_switcher_links_resolve_and_pages_declare_their_language(site):
    for lang, other in (("en", "ko"), ("ko", "en")):
        for page in sorted((site / lang).rglob("*.html")):
            soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
            assert soup.html["lang"] == lang, page
            links = soup.select("a.rb-lang-link")
            assert [a["hreflang"] for a in links] == [other], page
            alternates = {link["hreflang"] for link in soup.select('link[rel="alternate"][hreflang]')}
            assert alternates == {"en", "ko"}, page
            if page.relative_to(site / lang).as_posix() == "404.html":
                # served at any missing address: the switch leads, absolutely, to the other start page
                assert links[0]["href"] == f"/{other}/index.html" and (site / other / "index.html").is_file()
                assert soup.select_one('link[rel="canonical"]') is None
                continue
            target = (page.parent / links[0]["href"]).resolve()
            assert target == (site / other / page.relative_to(site / lang)).resolve() and target.is_file()
            canonical = soup.select_one('link[rel="canonical"]')["href"]
            assert canonical.endswith(page.name) and "/" + other + "/" not in canonical


# Words that stay English on Korean pages: product, package and model names.
_KEEP = re.compile(
    r"\b(RBLN|NPU|CR13|vLLM|vllm|LMCache|llm-d|Kubernetes|Hugging Face|EAGLE-3|Sphinx|Furo|"
    r"MXFP4|NVFP4|FP8|MoE|MLA|SGA|OpenAI|Flash Attention|Mixture-of-Experts|gpt-oss|A\.X-K2)\b"
)


def test_korean_pages_have_no_untranslated_prose(site):
    """Visible text outside code on Korean pages holds no run of four English words."""
    for page in sorted((site / "ko").rglob("*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for hidden in soup.select('script, style, svg, pre, code, kbd, .rb-badge, [lang="en"]'):
            hidden.decompose()
        text = _KEEP.sub(" ", soup.get_text(" "))
        english = re.findall(r"(?:\b[A-Za-z][a-z]+\b[ ,.]+){4,}", text)
        assert not english, (page.name, english[:5])


@pytest.mark.browser
def test_korean_search_finds_stems_and_english_terms(browser, server):
    """The built Korean search page: a stem finds words with particles; English terms are found too."""
    page = browser.new_page()

    def search(query: str) -> list[str]:
        # every result, read once the page says the search has finished (the list fills item by
        # item: its first item is not the whole list)
        return [item["title"] for item in query_sets.browser_search(page, f"{server}/ko", query)]

    found = search("모델")
    assert "RBLN NPU에서 A.X-K2 서빙" in found and "RBLN NPU에서 gpt-oss-120b 서빙" in found
    assert "RBLN NPU에서 A.X-K2 서빙" in search("Kubernetes")
    page.close()


def test_gate_fails_on_a_translation_that_names_another_model(tmp_path):
    """gettext's fuzzy match offered A.X-K2's title for another model's; without the fuzzy mark it
    still fails, at the entry's file and line, because the model name and numbers are not kept."""
    locale = _copy_locale(tmp_path)
    path = locale / "ko" / "LC_MESSAGES" / "recipes.po"
    catalog = polib.pofile(str(path), wrapwidth=0)
    titles = {e.msgid: e for e in catalog if re.fullmatch(r"Serving \S+ on RBLN NPU", e.msgid)}
    other = titles["Serving gpt-oss-120b on RBLN NPU"]
    other.msgstr = titles["Serving A.X-K2 on RBLN NPU"].msgstr  # the wrong model, no fuzzy mark
    catalog.save()
    line = next(e.linenum for e in polib.pofile(str(path)) if e.msgid == other.msgid)
    problems = intl_check.check(locale, "ko")
    assert problems == [
        f"{path}:{line}: names, flags or numbers of the English are missing: gpt-oss-120b "
        "(is this the translation of another message?)"
    ]


@pytest.mark.parametrize(
    ("english", "korean", "missing"),
    [
        ("Use `--port` with 8 devices.", "디바이스 8개로 `--port`를 씁니다.", ""),
        ("With 8 devices and --max-model-len 4096.", "디바이스 여러 개와 --max-model-len으로.", "4096, 8"),
        ("A.X-K2 serves 262,144 tokens.", "A.X-K2는 토큰 131,072개를 서빙합니다.", "262,144"),
        ("Install vllm-rbln 0.12.0.", "vllm-rbln 0.12.0을 설치합니다.", ""),
    ],
)
def test_gate_compares_names_flags_and_numbers(english, korean, missing):
    text = f'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "{english}"\nmsgstr "{korean}"\n'
    found = intl_check.entry_problems(po.read_text(text, "x.po").messages[-1])  # as the gate reads a catalog
    assert [p for p in found if "missing" in p] == (
        [f"names, flags or numbers of the English are missing: {missing} (is this the translation of another message?)"]
        if missing
        else []
    )


# What untranslated_pages reads of a page: the elements of the class and all they hold; only these
# are made into a tree (the rest of the page is read and dropped), the same elements.
UNTRANSLATED = SoupStrainer(class_="untranslated")


def untranslated_pages(tree: Path) -> dict[str, list[str]]:
    """Pages of a built language tree that show a message with no translation (Sphinx's
    ``untranslated`` class, which the extension turns on), with those messages."""
    found = {}
    for page in sorted(tree.rglob("*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser", parse_only=UNTRANSLATED)
        shown = [" ".join(n.get_text(" ").split())[:80] for n in soup.select(".untranslated")]
        if shown:
            found[page.relative_to(tree).as_posix()] = shown
    return found


def test_no_korean_page_shows_a_message_with_no_translation(site):
    pages = untranslated_pages(site / "ko")
    assert not pages, "Korean pages show English; run `make intl-update` and translate:\n" + "\n".join(
        f"  {page}: {messages}" for page, messages in pages.items()
    )


def test_a_page_without_translations_is_a_note_not_a_warning(make_app, rootdir, tmp_path):
    """The test root has no Korean catalogs: a Korean build succeeds, notes every page, marks its text."""
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    app = make_app("html", srcdir=srcdir, confoverrides={"language": "ko"})
    app.build()
    assert "WARNING" not in app._warning.getvalue()
    status = app._status.getvalue()
    assert "page(s) in 'ko' show English where a message has no translation" in status, status
    assert (
        "  install: 2 message(s) of locale/ko/LC_MESSAGES/install.po: 'Install'; 'The installation matrix.'" in status
    )
    assert "install.html" in untranslated_pages(Path(app.outdir))


def test_a_one_line_source_change_is_a_small_catalog_diff(source_edits):
    """Catalogs are never rewrapped: editing one sentence of a long paragraph changes its entry only."""
    import difflib

    before, word = source_edits["before"]["configuration"], source_edits["word"]
    after = (source_edits["locale"] / "ko/LC_MESSAGES/configuration.po").read_text().splitlines()
    changed = [line for line in difflib.unified_diff(before, after, lineterm="", n=0) if line[:1] in "+-"]
    changed = [line for line in changed if not line.startswith(("+++", "---"))]
    # the edited msgid (new), its fuzzy mark, and the old entry kept as obsolete at the end
    assert len(changed) <= 8, "\n".join(changed)
    assert any(line.startswith("+msgid") and word.upper() in line for line in changed)


def test_the_note_names_every_recipe_label_a_korean_page_shows_in_english(make_app, rootdir, tmp_path):
    """A label with no entry in recipe-labels.po is shown in English: the note names it with that catalog."""
    import json

    folder = tmp_path / "recipes"
    folder.mkdir()
    source = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")[0]
    document = json.loads(source.read_text(encoding="utf-8"))
    axis = next(a for a in document["axes"] if a.get("title"))
    axis["title"] = "Zebra crossing mode"  # no catalog has it
    axis["options"][0]["label"] = "Striped value"
    (folder / source.name).write_text(json.dumps(document, ensure_ascii=False, indent=2), encoding="utf-8")
    shutil.copy(ROOT / "recipes" / "schema.json", folder / "schema.json")
    notes = {}
    for language in ("ko", "en"):
        srcdir = tmp_path / f"src-{language}"
        shutil.copytree(rootdir / "test-recipes", srcdir)
        app = make_app("html", srcdir=srcdir, confoverrides={"language": language, "recipebook_dir": str(folder)})
        app.build()
        warnings = [w for w in app._warning.getvalue().splitlines() if "already registered" not in w]
        assert not any("WARNING" in w for w in warnings), warnings
        notes[language] = app._status.getvalue()
    catalog = "locale/ko/LC_MESSAGES/recipe-labels.po"
    page = document["name"]
    for label in ("Zebra crossing mode", "Striped value"):
        assert f"  {page}: label {label!r}: msgid {label!r} in {catalog}" in notes["ko"], notes["ko"]
        assert label not in notes["en"]
    # a label the catalog translates is not named
    translated = polib.pofile(str(LOCALE / "ko/LC_MESSAGES/recipe-labels.po")).translated_entries()
    shown = {e.msgid for e in translated} & {
        o["label"] for a in document["axes"] for o in a.get("options", []) if a is not axis
    }
    assert shown, "the recipe shows some translated label"
    for label in shown:
        assert f"label {label!r}:" not in notes["ko"]
