"""Translation catalogs are checked before a build reads them (recipebook_sphinx.i18n.po_check):
what msgfmt --check refuses, {placeholders} the English has, HTML the English does not have.
Every problem is FILE:LINE: message; a Korean build with a broken catalog stops with those lines
and no traceback; JSON in inline scripts cannot close the script."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import build_site
from recipebook_sphinx.i18n import po_check
from recipebook_sphinx.i18n.languages import script_json
from third_recipe import copy_project

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
)


def problems(body: str, header: str = HEADER) -> list[str]:
    return [str(p) for p in po_check.check_text(header + body, "ko.po")]


def test_the_shipped_catalogs_have_no_problem():
    assert po_check.check_language([LOCALE], "ko") == []


# (catalog body after the header, the problems; the header is lines 1-4, the body starts at line 6)
CASES = {
    "unclosed msgstr": (
        'msgid "Recipes"\nmsgstr "레시\n\nmsgid "Next"\nmsgstr "다음"\n',
        ["ko.po:7: msgstr: unclosed string: no closing double quote before the end of the line"],
    ),
    "escape gettext does not have": (
        'msgid "a"\nmsgstr "b\\qc"\n',
        [
            "ko.po:7: msgstr: '\\q' is not an escape gettext knows (\\n, \\t, \\\\, \\\" and a few more); "
            "write '\\\\' for a backslash"
        ],
    ),
    "unknown keyword": (
        'msgid "a"\nmsgstrr "b"\n',
        ["ko.po:7: unknown keyword 'msgstrr'; a catalog knows msgctxt, msgid, msgid_plural, msgstr and msgstr[N]"],
    ),
    "text after the string": (
        'msgid "a"\nmsgstr "b" junk\n',
        ["ko.po:7: msgstr: 'junk' is not a string: after a keyword, a line holds only strings in double quotes"],
    ),
    "msgid without msgstr": (
        'msgid "a"\n\nmsgid "b"\nmsgstr "c"\n',
        ['ko.po:6: msgid without msgstr; add msgstr "" for a message not translated yet'],
    ),
    "message defined twice": (
        'msgid "a"\nmsgstr "b"\n\nmsgid "a"\nmsgstr "c"\n',
        ["ko.po:9: message defined twice (first at line 6); keep one of them"],
    ),
    "newline the English does not end with": (
        'msgid "a"\nmsgstr "b\\n"\n',
        [
            "ko.po:7: msgstr: msgid and msgstr do not both end with '\\n'; give the translation the English's line breaks"
        ],
    ),
    "unbalanced placeholder": (
        'msgid "(served: {variant})"\nmsgstr "(서빙: {variant)"\n',
        [
            "ko.po:7: msgstr: the translation is not a valid format string (expected '}' before end of string), "
            "so formatting it would stop the build; keep {variant} of the English whole, and write '{{' and '}}' "
            "for a literal brace"
        ],
    ),
    "renamed placeholder": (
        'msgid "Rank {rank} of {count}"\nmsgstr "랭크 {rank}/{total}"\n',
        [
            "ko.po:7: msgstr: the translation loses {count} of the English and has {total}, which the English "
            "does not have; keep the English's placeholders exactly"
        ],
    ),
    "python-format directive lost": (
        '#, python-format\nmsgid "Copyright %(copyright)s and %(x)s"\nmsgstr "저작권 %(copyright)s"\n',
        ["ko.po:8: msgstr: the translation loses %(x)s; keep the English's directives exactly"],
    ),
    "a script after the UI string": (
        'msgid "Copied!"\nmsgstr "복사했습니다!</script><script>alert(document.domain)</script>"\n',
        [
            "ko.po:7: msgstr: the translation has HTML the English does not have: </script>, <script>; a page or "
            "a theme template would use it as markup (or run it): keep only the English's markup"
        ],
    ),
    "a link of the English pointed elsewhere": (
        'msgid "<a href=\\"%(path)s\\">Copyright</a>"\nmsgstr "<a href=\\"javascript:alert(1)\\">저작권</a>"\n',
        [
            'ko.po:7: msgstr: the translation changes the English\'s HTML tag(s) <a href="javascript:alert(1)">; '
            "keep each tag exactly as in the English",
            # another cause: the English decides that it is a %-format string, whatever the flags say
            "ko.po:7: msgstr: the translation loses %(path)s; keep the English's directives exactly",
        ],
    ),
    "plural forms the header does not have": (
        'msgid "one"\nmsgid_plural "many"\nmsgstr[0] "하나"\nmsgstr[1] "여럿"\n',
        ["ko.po:9: 2 plural form(s) where the header's Plural-Forms has nplurals=1"],
    ),
}


def test_a_quotation_mark_may_not_end_an_attribute_of_a_theme_template():
    """sphinx.po and recipebook.po are written into attributes unescaped (title="{{ _('Search') }}")."""
    body = 'msgid "Search"\nmsgstr "검색\\" onfocus=\\"alert(1)"\n'
    expected = (
        'msgstr: the translation has a " the English does not have: a theme template writes this message into an '
        "HTML attribute, where it would end the attribute; use “ ” or ‘ ’ instead"
    )
    assert [str(p) for p in po_check.check_text(HEADER + body, "sphinx.po")] == [f"sphinx.po:7: {expected}"]
    assert po_check.check_text(HEADER + body, "index.po") == []  # a page's prose is escaped by docutils


@pytest.mark.parametrize("case", list(CASES))
def test_each_mistake_is_reported_at_its_line(case):
    body, expected = CASES[case]
    assert problems(body) == expected


# what msgfmt --check also refuses (the others are this project's rules: placeholders, HTML)
MSGFMT_REFUSES = [
    "unclosed msgstr",
    "escape gettext does not have",
    "unknown keyword",
    "text after the string",
    "msgid without msgstr",
    "message defined twice",
    "newline the English does not end with",
    "python-format directive lost",
    "plural forms the header does not have",
]


@pytest.mark.parametrize("case", MSGFMT_REFUSES)
def test_msgfmt_refuses_the_same_catalogs(case, tmp_path):
    """The outside judge agrees: each of these catalogs fails msgfmt --check as well."""
    path = tmp_path / "ko.po"
    path.write_text(HEADER + CASES[case][0], encoding="utf-8")
    result = subprocess.run(["msgfmt", "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True)
    assert result.returncode != 0, result.stderr


def test_a_placeholder_of_the_english_may_not_become_a_brace_error():
    """{placeholders} are compared whatever the flags say; a message with a lone brace (no format
    string) still keeps its MyST roles."""
    assert problems('msgid "Copied!"\nmsgstr "복사{됨"\n') == [
        "ko.po:7: msgstr: the translation is not a valid format string (expected '}' before end of string), so "
        "formatting it would stop the build; write '{{' and '}}' for a literal brace"
    ]
    lone_brace_and_role = 'msgid "An object opens with `{`; see {doc}`install`."\nmsgstr "객체는 `{`로 시작합니다. {doc}`install` 참고."\n'
    assert problems(lone_brace_and_role) == []
    lost_role = lone_brace_and_role.replace("{doc}`install` 참고", "`install` 참고")
    assert problems(lost_role) == [
        "ko.po:7: msgstr: the translation loses {doc} of the English; keep the English's placeholders exactly"
    ]


def test_what_is_not_used_is_not_judged_but_must_still_read():
    """Fuzzy and untranslated entries are not used by the build (the gate reports them); an obsolete
    entry is not used either, but a line the reader cannot read is reported wherever it is."""
    assert problems('#, fuzzy\nmsgid "{a}"\nmsgstr "{b"\n\nmsgid "{c}"\nmsgstr ""\n') == []
    assert problems('#~ msgid "a"\n#~ msgstr "b\n') == [
        "ko.po:7: msgstr: unclosed string: no closing double quote before the end of the line"
    ]


def test_the_header_is_checked():
    assert problems('msgid "a"\nmsgstr "b"\n', header="") == [
        'ko.po:1: no header (msgid "" with its Content-Type); `make intl-update` writes one'
    ]
    latin = HEADER.replace("UTF-8", "ISO-8859-1")
    assert problems('msgid "a"\nmsgstr "b"\n', header=latin) == [
        "ko.po:3: the header's charset is 'ISO-8859-1'; catalogs are read as UTF-8: write charset=UTF-8"
    ]


def test_a_file_that_is_not_utf8_is_located(tmp_path):
    path = tmp_path / "ko.po"
    path.write_bytes((HEADER + 'msgid "a"\nmsgstr "').encode() + "레시피".encode("euc-kr") + b'"\n')
    assert [str(p) for p in po_check.check_file(path, "ko.po")] == [
        "ko.po:7: not UTF-8 text (invalid start byte at byte 122); save the file as UTF-8"
    ]


def test_the_command_line_prints_every_problem_of_every_catalog(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "locale" / "ko" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "recipebook.po").write_text(HEADER + CASES["unbalanced placeholder"][0], encoding="utf-8")
    (folder / "index.po").write_text(HEADER + CASES["unclosed msgstr"][0], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert po_check.main(["locale", "ko"]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert [line.split(": ", 1)[0] for line in printed] == [
        "locale/ko/LC_MESSAGES/index.po:7",
        "locale/ko/LC_MESSAGES/recipebook.po:7",
    ]


# -- in the build ---------------------------------------------------------------------------------


def _break(path: Path, replacements: dict[str, str]) -> dict[str, int]:
    """Replace whole msgstr lines; returns the line number of each replacement."""
    lines = path.read_text(encoding="utf-8").split("\n")
    where = {}
    for old, new in replacements.items():
        index = lines.index(old)
        lines[index] = new
        where[new] = index + 1
    path.write_text("\n".join(lines), encoding="utf-8")
    return where


@pytest.mark.slow
def test_a_korean_build_with_broken_catalogs_stops_with_each_problem_and_no_traceback(tmp_path):
    project = copy_project(tmp_path / "project")
    catalog = project / "locale/ko/LC_MESSAGES/recipebook.po"
    compiled = catalog.with_suffix(".mo")
    before = compiled.read_bytes() if compiled.exists() else None  # (the copy's, as the checkout left it)
    lines = _break(
        catalog,
        {
            'msgstr "(서빙: {variant})"': 'msgstr "(서빙: {variant)"',
            'msgstr "레시피"': 'msgstr "레시',
            'msgstr "복사했습니다!"': 'msgstr "복사했습니다!</script><script>document.title=1</script>"',
        },
    )
    page = project / "locale/ko/LC_MESSAGES/404.po"  # a page's catalog: its role loses a brace
    text = page.read_text(encoding="utf-8").split("\n")
    page_line = next(i for i, line in enumerate(text, 1) if line.startswith("msgstr") and "{doc}`" in line)
    text[page_line - 1] = text[page_line - 1].replace("{doc}`", "{doc`")
    page.write_text("\n".join(text), encoding="utf-8")

    result = build_site(tmp_path / "out", "ko", project=project)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "Error" not in result.stderr.replace("ERROR", ""), result.stderr
    reported = [line for line in result.stderr.splitlines() if line.startswith("locale/")]
    assert [line.split(": ", 1)[0] for line in reported] == [
        f"locale/ko/LC_MESSAGES/404.po:{page_line}",
        *sorted(
            (f"locale/ko/LC_MESSAGES/recipebook.po:{n}" for n in lines.values()), key=lambda s: int(s.rsplit(":")[1])
        ),
    ]
    assert "4 problem(s) in the translation catalogs; the build stops before it reads them" in result.stderr
    assert (compiled.read_bytes() if compiled.exists() else None) == before  # the broken catalog never compiled
    assert not (tmp_path / "out").exists()  # nothing written: refused when the extension loads

    # the English build reads the Korean catalogs too (its landing page names each language in its
    # own words): refused alike
    english = build_site(tmp_path / "out", "en", project=project)
    assert english.returncode != 0 and "Traceback" not in english.stderr
    assert "4 problem(s) in the translation catalogs" in english.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.browser
def test_json_in_an_inline_script_cannot_close_it(browser):
    """What add_ui_strings writes: a translation ending in </script><script>... stays a string."""
    hostile = {
        "Copied!": "복사했습니다!</script><script>window.injected = 1</script><!--",
        "Copy": "a\u2028b\u2029c & <b>d</b>",
    }
    page = browser.new_page()
    page.set_content(
        f"<!DOCTYPE html><html><head><script>window.RB_STRINGS = {script_json(hostile)};</script>"
        "<script>window.after = true;</script></head><body></body></html>"
    )
    assert page.evaluate("() => window.injected") is None
    assert page.evaluate("() => window.after") is True
    assert page.evaluate("() => window.RB_STRINGS") == hostile
    page.close()


# -- the stamp: a catalog checked and compiled as it is now is not checked again -----------------

GOOD = HEADER + 'msgid "Recipes"\nmsgstr "레시피"\n'


def _locale(tmp_path: Path) -> Path:
    messages = tmp_path / "locale" / "ko" / "LC_MESSAGES"
    messages.mkdir(parents=True)
    (messages / "index.po").write_text(GOOD, encoding="utf-8")
    (messages / "recipes.po").write_text(GOOD, encoding="utf-8")
    return tmp_path / "locale"


def _checks(monkeypatch) -> list[str]:
    """The catalogs check_catalog is asked to check from now on, by file name."""
    seen: list[str] = []
    real = po_check.check_catalog

    def counted(catalog, extensions=None):
        seen.append(Path(catalog.path).name)
        return real(catalog, extensions)

    monkeypatch.setattr(po_check, "check_catalog", counted)
    return seen


def test_an_unchanged_catalog_is_checked_and_compiled_once(tmp_path, monkeypatch):
    locale = _locale(tmp_path)
    seen = _checks(monkeypatch)
    assert po_check.compile_language([locale], "ko") == []
    assert sorted(seen) == ["index.po", "recipes.po"]
    mo = locale / "ko" / "LC_MESSAGES" / "index.mo"
    compiled = mo.read_bytes()
    seen.clear()
    assert po_check.compile_language([locale], "ko") == []
    assert seen == []
    assert mo.read_bytes() == compiled
    # one catalog edited: that one alone is checked again, and compiled with the new text
    edited = locale / "ko" / "LC_MESSAGES" / "recipes.po"
    edited.write_text(GOOD.replace("레시피", "레시피 목록"), encoding="utf-8")
    assert po_check.compile_language([locale], "ko") == []
    assert seen == ["recipes.po"]
    assert "레시피 목록".encode() in edited.with_suffix(".mo").read_bytes()


def test_a_stamp_never_hides_a_problem_or_keeps_a_changed_compiled_catalog(tmp_path, monkeypatch):
    locale = _locale(tmp_path)
    messages = locale / "ko" / "LC_MESSAGES"
    assert po_check.compile_language([locale], "ko") == []
    compiled = (messages / "index.mo").read_bytes()
    # a problem added after a clean compile is found, at its line
    (messages / "index.po").write_text(GOOD.replace("레시피", "<b>레시피</b>"), encoding="utf-8")
    found = [str(p) for p in po_check.compile_language([locale], "ko", relative_to=messages)]
    assert len(found) == 1 and found[0].startswith("index.po:7: msgstr: the translation has HTML"), found
    (messages / "index.po").write_text(GOOD, encoding="utf-8")
    seen = _checks(monkeypatch)
    # a compiled catalog changed by something else is checked and written again (index.po is as
    # it was compiled, its .mo untouched by the refused run: its stamp holds)
    (messages / "recipes.mo").write_bytes(b"not a catalog")
    assert po_check.compile_language([locale], "ko") == []
    assert seen == ["recipes.po"]
    assert (messages / "recipes.mo").read_bytes() == compiled
    # the checker changed (its code, a parser's version): every catalog is checked again
    seen.clear()
    monkeypatch.setattr(po_check, "_checker", lambda: b"another checker")
    assert po_check.compile_language([locale], "ko") == []
    assert sorted(seen) == ["index.po", "recipes.po"]
    # other MyST extensions read a message differently: checked again
    seen.clear()
    assert po_check.compile_language([locale], "ko", extensions=frozenset({"colon_fence"})) == []
    assert sorted(seen) == ["index.po", "recipes.po"]
    # the site's builds and a test root's (other extensions) take turns: each check is kept
    seen.clear()
    for extensions in (None, frozenset({"colon_fence"})) * 2:  # (None: the site's)
        assert po_check.compile_language([locale], "ko", extensions=extensions) == []
    assert seen == []
    # one catalog edited: its stamp's other keys go with its old compiled catalog
    (messages / "index.po").write_text(GOOD.replace("레시피", "레시피 목록"), encoding="utf-8")
    assert po_check.compile_language([locale], "ko") == []
    assert po_check.compile_language([locale], "ko", extensions=frozenset({"colon_fence"})) == []
    assert seen == ["index.po", "index.po"]


def _make_catalogs(locale: Path, *options: str) -> subprocess.CompletedProcess:
    """`make catalogs` (make html's first step) on a locale folder; with -q, make only says whether
    it would run the check (1) or has nothing to run (0: no Python starts). (LANGUAGES given: make
    does not read conf.py for them.)"""
    return subprocess.run(
        ["make", "--no-print-directory", *options, "catalogs", f"LOCALEDIR={locale}", "LANGUAGES=ko"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    )


def test_make_checks_the_catalogs_again_only_when_what_they_are_checked_with_changed(tmp_path):
    """make html checks the catalogs first only when what the check reads differs from what last
    passed it: by content, not by time (an edit of the same size with the old time is seen), a
    compiled catalog missing, a file added beside the catalogs; a refused check leaves no stamp.
    (make -q answers without running anything: each change is shown so, and the check runs three
    times.)"""
    locale = _locale(tmp_path)
    messages = locale / "ko" / "LC_MESSAGES"
    index = messages / "index.po"
    assert _make_catalogs(locale, "-q").returncode == 1  # never checked
    assert _make_catalogs(locale).returncode == 0 and (messages / "index.mo").exists()
    assert _make_catalogs(locale, "-q").returncode == 0  # unchanged: nothing to run
    # an edit of the same size, its file's time put back
    times = index.stat()
    index.write_text(GOOD.replace("레시피", "피시레"), encoding="utf-8")
    os.utime(index, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert _make_catalogs(locale, "-q").returncode == 1
    index.write_text(GOOD, encoding="utf-8")
    assert _make_catalogs(locale, "-q").returncode == 0  # as it passed
    # a compiled catalog missing
    compiled = (messages / "recipes.mo").read_bytes()
    (messages / "recipes.mo").unlink()
    assert _make_catalogs(locale, "-q").returncode == 1
    (messages / "recipes.mo").write_bytes(compiled)
    assert _make_catalogs(locale, "-q").returncode == 0
    # a file added beside the catalogs; with a problem in a catalog: both refused, and again next time
    (messages / "sphinx.js").write_text("", encoding="utf-8")
    assert _make_catalogs(locale, "-q").returncode == 1
    index.write_text(GOOD.replace("레시피", "<b>레시피</b>"), encoding="utf-8")
    refused = _make_catalogs(locale)
    assert refused.returncode != 0 and "index.po:7: msgstr: the translation has HTML" in refused.stderr
    assert "sphinx.js:1: Sphinx would copy this file" in refused.stderr
    assert _make_catalogs(locale, "-q").returncode == 1
    # fixed, with a compiled catalog missing: checked, compiled, then nothing to run
    (messages / "sphinx.js").unlink()
    index.write_text(GOOD, encoding="utf-8")
    (messages / "recipes.mo").unlink()
    assert _make_catalogs(locale).returncode == 0 and (messages / "recipes.mo").read_bytes() == compiled
    assert _make_catalogs(locale, "-q").returncode == 0
    assert len(list(locale.glob(".catalogs-*.checked"))) == 1  # one stamp: the last that passed


def test_a_catalog_that_is_a_link_is_checked_every_time(tmp_path, monkeypatch):
    locale = _locale(tmp_path)
    messages = locale / "ko" / "LC_MESSAGES"
    (tmp_path / "kept.po").write_text(GOOD, encoding="utf-8")
    (messages / "index.po").unlink()
    (messages / "index.po").symlink_to(tmp_path / "kept.po")
    first = po_check.compile_language([locale], "ko")
    seen = _checks(monkeypatch)
    assert [str(p) for p in po_check.compile_language([locale], "ko")] == [str(p) for p in first]
    assert "index.po" in seen or first  # refused (a link out of the folder) or checked again, never passed by a stamp
    assert not (messages / ".index.checked").exists()
