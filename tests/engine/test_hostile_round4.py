"""Hostile input, round 4 (issue 41 items 1, 3, 5 and 6): each class closed at its cause.

1. Translations may add nothing their English does not have, in any form: a role or directive that
   reads a file, a link or an image however it is written (character references, autolinks,
   reference definitions), raw HTML, invisible letters (Unicode's default-ignorable and filler
   classes), format fields with other specs, conversions or attributes, plural rules outside
   gettext's grammar; catalogs that are not regular files of the locale folder are refused unread;
   the build refuses a bad catalog before it writes anything.
3. Shared grids: no recursion limit, a change that cannot take effect is an error, a misspelt key
   is named once.
5. Every argument of every subcommand: one line and exit 2, never a traceback or a hang.
6. The rest of round 2: JSON inside arguments read by the recipe's own JSON reader (duplicate keys,
   long numbers, look-alike letters), names that are not portable, a recipe linked from outside its
   folder, two targets archiving into one folder, `make recipe-page NAME=../x`.

The held-back probes of the same classes are in test_hostile_round4_heldback.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from recipe_support import in_process
from recipebook_sphinx.i18n import po, po_check

HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
)


def catalog(body: str, name: str = "reference.po", header: str = HEADER) -> list[str]:
    return [str(p) for p in po_check.check_text(header + body, name)]


def quoted(text: str) -> str:
    """A string as a catalog writes it: gettext's escapes, any other control as an octal escape."""
    escapes = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}
    return '"' + "".join(escapes.get(ch, f"\\{ord(ch):03o}" if ord(ch) < 32 else ch) for ch in text) + '"'


def message(english: str, translation: str, flags: str = "") -> str:
    return f"{flags}msgid {quoted(english)}\nmsgstr {quoted(translation)}\n"


# -- 1. translations: what a page reads, links, includes or shows --------------------------------

# (English, translation, fragment of the one problem; None: accepted)
ADDED = {
    # roles and directives that read files
    "download role": ("Get the file.", "{download}`파일 </etc/passwd>` 받기.", "{download}"),
    "download target changed": ("Get {download}`it <a.txt>`.", "{download}`받기 </etc/passwd>`.", "/etc/passwd"),
    "literalinclude fence": ("Example.", "예:\n\n```{literalinclude} /etc/passwd\n```", "literalinclude"),
    "include tilde fence": ("Example.", "예:\n\n~~~{include} /etc/passwd\n~~~", "include"),
    "include colon fence": ("Example.", "예:\n\n:::{include} /etc/passwd\n:::", "include"),
    "image directive": ("Example.", "예:\n\n```{image} /etc/passwd\n```", "image"),
    "figure directive": ("Example.", "예:\n\n```{figure} https://evil.example/a.png\n```", "figure"),
    "raw directive": ("Example.", "```{raw} html\n<script>x</script>\n```", "raw"),
    "eval-rst directive": ("Example.", "```{eval-rst}\n.. include:: /etc/passwd\n```", "eval-rst"),
    "indented code block": ("Example.", "예:\n\n    cat /etc/passwd", "code block"),
    "doc role added": ("See the guide.", "{doc}`안내 </translating>` 참고.", "{doc}"),
    "doc target changed": ("See {doc}`the guide </translating>`.", "{doc}`안내 </install>` 참고.", "/install"),
    "ref target changed": ("See {ref}`rule 9 <rule-9>`.", "{ref}`규칙 9 <rule-10>` 참고.", "rule-10"),
    "ref without title changed": ("See {ref}`rule-9`.", "{ref}`rule-10` 참고.", "rule-10"),
    "role with a domain": ("Call it.", "{py:func}`os.system` 호출.", "{py:func}"),
    "target label": ("Recipes", "(evil)=\n레시피", "myst target"),
    # links and images, however they are written
    "image": ("A picture.", "그림 ![x](https://evil.example/p.png)", "evil.example"),
    "image by decimal references": ("A picture.", "![x](https&#58;&#47;&#47;evil.example&#47;p.png)", "evil.example"),
    "image by named references": ("A picture.", "![x](https&colon;&sol;&sol;evil.example&sol;p.png)", "evil.example"),
    "link by hex references": ("Read.", "[읽기](https&#x3a;&#x2f;&#x2f;evil.example)", "evil.example"),
    "link with javascript": ("Read.", "[읽기](javascript:alert(1))", "javascript"),
    "link by reference definition": ("Read.", "[읽기][x]\n\n[x]: https://evil.example", "evil.example"),
    "autolink": ("Read.", "<https://evil.example> 읽기", "evil.example"),
    "email autolink": ("Write.", "<evil@evil.example> 에게", "evil@evil.example"),
    "relative link": ("Read.", "[읽기](../../../_static/x.js)", "_static/x.js"),
    "link of the English elsewhere": (
        "[Read](https://docs.rbln.ai/).",
        "[읽기](https://docs.rbln.ai.evil.example/).",
        "evil",
    ),
    "plain address by references": ("Read.", "https&#58;//evil.example 읽기", "evil.example"),
    "plain address escaped": ("Read.", "https:\\/\\/evil.example 읽기", "evil.example"),
    "www address": ("Read.", "www.evil.example 읽기", "www.evil.example"),
    # raw HTML
    "html inline": ("Recipes", "<img src=x onerror=alert(1)>레시피", "HTML"),
    "html by entity inside a link": ("Read.", "[읽기](<javascript&#x3A;alert(1)>)", "javascript"),
    "html comment": ("Recipes", "레시피<!-- x -->", "HTML"),
    # controls: what the English has, in another order or other words, is fine
    "same role, translated title": (
        "See {doc}`the guide </translating>`.",
        "{doc}`번역 안내 </translating>`를 보세요.",
        None,
    ),
    "same link, translated text": ("[Read](https://docs.rbln.ai/).", "[읽기](https://docs.rbln.ai/).", None),
    "same image": ("![logo](logo.png) Logo", "![로고](logo.png) 로고", None),
    "code span with braces": ("Use `{a}` here.", "여기서 `{a}`를 씁니다.", None),
    "emphasis and strong": ("A *very* **fine** day.", "*아주* **좋은** 날.", None),
    "entity the English has": ("Q&amp;A", "질문&amp;답변", None),
    "ampersand in text": ("Q & A", "질문 & 답변", None),
    "same address twice in the English": ("https://a.example/ or https://a.example/", "https://a.example/", None),
}


@pytest.mark.parametrize("case", list(ADDED))
def test_a_translation_adds_nothing_its_english_lacks(case):
    english, translation, fragment = ADDED[case]
    found = catalog(message(english, translation))
    if fragment is None:
        assert found == [], found
    else:
        assert len(found) == 1, found
        assert found[0].startswith("reference.po:7: msgstr: the translation "), found
        assert fragment in found[0], found


INVISIBLE = {
    "hangul filler": "\u3164",
    "choseong filler": "\u115f",
    "jungseong filler": "\u1160",
    "halfwidth hangul filler": "\uffa0",
    "braille blank": "\u2800",
    "combining grapheme joiner": "\u034f",
    "khmer vowel inherent": "\u17b4",
    "mongolian vowel separator": "\u180e",
    "mongolian free variation selector": "\u180b",
    "word joiner": "\u2060",
    "invisible times": "\u2062",
    "reserved default ignorable": "\u2065",
    "left-to-right isolate": "\u2066",
    "variation selector 16": "\ufe0f",
    "variation selector 17": "\U000e0100",
    "reserved in specials": "\ufff0",
    "tag space": "\U000e0020",
    "language tag": "\U000e0001",
    "reserved tag": "\U000e0080",
    "soft hyphen": "\u00ad",
    "shorthand format control": "\U0001bca0",
    "musical begin beam": "\U0001d173",
    "byte order mark inside": "\ufeff",
    "line separator": "\u2028",
    "escape control": "\x1b",
}


@pytest.mark.parametrize("name", list(INVISIBLE))
def test_an_invisible_letter_is_named_by_its_code_point(name):
    ch = INVISIBLE[name]
    found = catalog(message("Recipes", f"레{ch}시피"))
    assert len(found) == 1 and f"U+{ord(ch):04X}" in found[0], found


@pytest.mark.parametrize(
    "reference", ["&#x3164;", "&#12644;", "&#x2800;", "&shy;", "&#8203;", "&zwj;", "&#xE0041;", "&#x115F;"]
)
def test_an_invisible_letter_written_as_a_character_reference(reference):
    found = catalog(message("Recipes", f"레{reference}시피"))
    assert len(found) == 1 and "a reader does not see" in found[0], found


def test_an_invisible_letter_the_english_has_may_stay():
    assert catalog(message("a\u00adb", "가\u00ad나")) == []


FIELDS = {
    "spec": ("Served: {variant}", "서빙: {variant:d}", "{variant:d}"),
    "padding": ("Served: {variant}", "서빙: {variant:>1000000}", "{variant:>1000000}"),
    "nested padding": ("Served: {variant}", "서빙: {variant:>{variant}}", "{variant:>{variant}}"),
    "attribute": ("Served: {variant}", "서빙: {variant.x}", "{variant.x}"),
    "dunder": ("Served: {variant}", "{variant.__class__.__init__.__globals__}", "__globals__"),
    "index": ("Served: {variant}", "서빙: {variant[0]}", "{variant[0]}"),
    "conversion": ("Served: {variant}", "서빙: {variant!a}", "{variant!a}"),
    "repeated": ("Served: {variant}", "{variant}{variant}{variant}", "more often"),
    "new field": ("Served: {variant}", "{variant} {names}", "{names}"),
    "positional": ("Served: {variant}", "{variant} {0}", "{0}"),
    "percent width": ("&#169; %(copyright)s.", "&#169; %(copyright)1000000s.", "%(copyright)1000000s"),
    "percent precision": ("%(count)d left", "%(count).900d 남음", "%(count).900d"),
    "percent star": ("%(count)d left", "%(count)*d 남음", "%"),
    "percent repeated": ("&#169; %(copyright)s.", "%(copyright)s%(copyright)s", "more often"),
    "percent new name": ("&#169; %(copyright)s.", "%(copyright)s %(project)s", "%(project)s"),
    "percent positional added": ("%(a)s left", "%(a)s %s 남음", "%-directive"),
    # controls
    "same fields reordered": ("{a} of {b}", "{b}의 {a}", None),
    "same spec": ("{count:,} recipes", "레시피 {count:,}개", None),
    "same percent": ("&#169; %(copyright)s.", "&#169; %(copyright)s.", None),
    "literal percent": ("100%% done", "100%% 완료", None),
}


@pytest.mark.parametrize("case", list(FIELDS))
def test_format_fields_are_kept_exactly(case):
    english, translation, fragment = FIELDS[case]
    for flags in ("", "#, python-format\n", "#, python-brace-format\n"):  # the flags do not decide
        found = catalog(message(english, translation, flags), name="sphinx.po" if "%" in english else "recipebook.po")
        if fragment is None:
            assert found == [], found
        else:
            assert len(found) == 1 and fragment in found[0], (flags, found)


PLURALS = {
    "division by zero": ("nplurals=2; plural=n/0;", "divides by zero"),
    "modulo by zero": ("nplurals=2; plural=n%(n-n);", "divides by zero"),
    "power": ("nplurals=2; plural=n**2;", "grammar"),
    "a call": ("nplurals=2; plural=__import__('os').system('id');", "grammar"),
    "a name": ("nplurals=2; plural=x;", "grammar"),
    "unary minus": ("nplurals=2; plural=-n;", "grammar"),
    "too deep": ("nplurals=1; plural=" + "(" * 40 + "0" + ")" * 40 + ";", "deep"),
    "too long": ("nplurals=2; plural=" + "n==1 || " * 130 + "0;", "characters long"),
    "form out of range": ("nplurals=2; plural=n;", "gives form 2"),
    "negative form": ("nplurals=2; plural=0-1;", "gives form -1"),
    "no expression": ("nplurals=1; plural=;", "empty"),
    "unbalanced": ("nplurals=2; plural=(n!=1;", "expected )"),
    "question without colon": ("nplurals=2; plural=n?1;", "expected :"),
    "zero forms": ("nplurals=0; plural=0;", "1 to 6"),
    "hundred forms": ("nplurals=99; plural=0;", "1 to 6"),
    "huge number": ("nplurals=2; plural=n>99999999999999999999;", "larger"),
    "not the form": ("nplurals=1", "write 'nplurals=N; plural=EXPRESSION;'"),
}


@pytest.mark.parametrize("case", list(PLURALS))
def test_a_plural_rule_is_gettext_s_grammar_and_gives_a_form(case):
    forms, fragment = PLURALS[case]
    header = HEADER.replace("nplurals=1; plural=0;", forms)
    found = catalog('msgid "a"\nmsgstr "b"\n', header=header)
    assert len(found) == 1 and found[0].startswith("reference.po:4: Plural-Forms") and fragment in found[0], found


@pytest.mark.parametrize(
    "forms",
    [
        "nplurals=1; plural=0;",
        "nplurals=2; plural=(n != 1);",
        "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : 2);",
        "nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);",
        "nplurals=2; plural=n > 1",
    ],
)
def test_the_plural_rules_of_real_languages_are_accepted(forms):
    header = HEADER.replace("nplurals=1; plural=0;", forms)
    assert catalog('msgid "a"\nmsgstr "b"\n', header=header) == []


def test_the_plural_rules_of_sphinx_s_catalogs_are_accepted():
    """Real rules written by other people for some seventy languages (Sphinx's own catalogs), the
    longest Transifex's Ukrainian at about 250 characters: none is refused."""
    import re

    import sphinx

    catalogs = sorted(Path(sphinx.__file__).parent.glob("locale/*/LC_MESSAGES/sphinx.po"))
    assert len(catalogs) > 30
    for path in catalogs:
        header = path.read_text(encoding="utf-8")[:4000]  # the header: its Plural-Forms line
        found = re.search(r'^"Plural-Forms: (.*?)\\n"$', header, re.M)
        if found:
            assert po_check.plural_problem(found.group(1)) is None, path


def test_a_translation_may_not_grow_the_page():
    found = catalog(message("Off", "끔" * 200))
    assert len(found) == 1 and "characters long" in found[0], found
    assert catalog(message("Off", "꺼짐 (기본값: 켜짐이 아닌 상태)")) == []


def test_the_shipped_catalogs_have_no_problem():
    from recipebook_sphinx.paths import LOCALE

    assert po_check.check_language([LOCALE], "ko") == []


# -- 1. catalogs as files ---------------------------------------------------------------------


@pytest.fixture
def folder(tmp_path):
    found = tmp_path / "locale" / "ko" / "LC_MESSAGES"
    found.mkdir(parents=True)
    return found


def _checked(tmp_path) -> list[str]:
    return [str(p) for p in po_check.check_language([tmp_path / "locale"], "ko", relative_to=tmp_path)]


def test_a_fifo_named_po_is_refused_without_waiting(tmp_path, folder):
    os.mkfifo(folder / "index.po")
    assert _checked(tmp_path) == [
        "locale/ko/LC_MESSAGES/index.po:1: not a regular file but a FIFO (named pipe); a catalog is a text file"
    ]


@pytest.mark.parametrize(
    ("target", "words"), [("/dev/zero", "a character device"), ("/dev/full", "a character device")]
)
def test_a_device_named_po_is_refused(tmp_path, folder, target, words):
    (folder / "index.po").symlink_to(target)
    found = _checked(tmp_path)
    assert len(found) == 1 and found[0].startswith("locale/ko/LC_MESSAGES/index.po:1: ") and "outside" in found[0]


def test_a_directory_named_po_is_walked_not_read(tmp_path, folder):
    (folder / "index.po").mkdir()
    assert _checked(tmp_path) == []


def test_a_link_out_of_the_locale_folder_is_refused(tmp_path, folder):
    outside = tmp_path / "elsewhere.po"
    outside.write_text(HEADER + 'msgid "a"\nmsgstr "b"\n', encoding="utf-8")
    (folder / "index.po").symlink_to(outside)
    found = _checked(tmp_path)
    assert len(found) == 1 and "a symbolic link to" in found[0] and "outside the locale folder" in found[0], found


def test_a_linked_folder_out_of_the_locale_folder_is_refused_unread(tmp_path, folder):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "index.po").write_text(HEADER + 'msgid "a"\nmsgstr "b"\n', encoding="utf-8")
    (folder / "more").symlink_to(elsewhere)
    (folder / "root").symlink_to("/")  # never walked
    found = _checked(tmp_path)
    assert [line.split(": ", 1)[0] for line in found] == [
        "locale/ko/LC_MESSAGES/more:1",
        "locale/ko/LC_MESSAGES/root:1",
    ], found
    assert all("a symbolic link to the folder" in line for line in found)


def test_a_language_folder_linked_out_of_the_locale_folder_is_refused_unread(tmp_path):
    elsewhere = tmp_path / "elsewhere" / "ko" / "LC_MESSAGES"
    elsewhere.mkdir(parents=True)
    (elsewhere / "index.po").write_text(HEADER + message("Recipes", "레\u3164시피"), encoding="utf-8")
    (tmp_path / "locale").mkdir()
    (tmp_path / "locale" / "ko").symlink_to(tmp_path / "elsewhere" / "ko")
    found = _checked(tmp_path)
    assert len(found) == 1 and found[0].startswith("locale/ko/LC_MESSAGES:1: a symbolic link to the folder"), found


def test_a_link_inside_the_locale_folder_is_read(tmp_path, folder):
    (folder / "real.po").write_text(HEADER + 'msgid "a"\nmsgstr "b"\n', encoding="utf-8")
    (folder / "index.po").symlink_to(folder / "real.po")
    assert _checked(tmp_path) == []


def test_a_linked_folder_that_loops_ends(tmp_path, folder):
    (folder / "loop").symlink_to(folder)
    (folder / "index.po").write_text(HEADER + 'msgid "a"\nmsgstr "b"\n', encoding="utf-8")
    assert _checked(tmp_path) == []


def test_a_catalog_past_the_size_bound_is_refused_unread(tmp_path, folder):
    with (folder / "index.po").open("wb") as handle:
        handle.truncate(po.MAX_BYTES + 1)
    found = _checked(tmp_path)
    assert found == ["locale/ko/LC_MESSAGES/index.po:1: the file is larger than 4 MiB; a catalog is far smaller"]


def test_a_compiled_catalog_without_its_source_is_refused(tmp_path, folder):
    (folder / "index.mo").write_bytes(po.compiled(po.read_text(HEADER, "x")))
    found = _checked(tmp_path)
    assert len(found) == 1 and found[0].startswith("locale/ko/LC_MESSAGES/index.mo:1: a compiled catalog with no .po")


def test_a_translations_script_is_refused(tmp_path, folder):
    (folder / "sphinx.js").write_text("Documentation.addTranslations({});", encoding="utf-8")
    found = _checked(tmp_path)
    assert len(found) == 1 and "every page as a script" in found[0]


def test_a_catalog_in_a_subfolder_is_checked_as_sphinx_finds_it(tmp_path, folder):
    (folder / "sub").mkdir()
    (folder / "sub" / "page.po").write_text(HEADER + message("Recipes", "레\u3164시피"), encoding="utf-8")
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "page.po").write_text("not a catalog", encoding="utf-8")
    found = _checked(tmp_path)
    assert len(found) == 1 and found[0].startswith("locale/ko/LC_MESSAGES/sub/page.po:7: ") and "U+3164" in found[0]


def test_the_compiled_catalogs_replace_a_link_rather_than_write_through_it(tmp_path, folder):
    target = tmp_path / "victim"
    target.write_text("keep", encoding="utf-8")
    (folder / "index.po").write_text(HEADER + message("Recipes", "레시피"), encoding="utf-8")
    (folder / "index.mo").symlink_to(target)
    assert po_check.compile_language([tmp_path / "locale"], "ko") == []
    assert target.read_text(encoding="utf-8") == "keep"
    assert not (folder / "index.mo").is_symlink()


def test_the_compiled_catalogs_read_as_msgfmt_compiles_them(tmp_path):
    """Our .mo, loaded by Python's gettext as Sphinx loads it, holds what GNU msgfmt's holds."""
    import gettext
    import io

    from recipebook_sphinx.paths import LOCALE

    for path in sorted((LOCALE / "ko" / "LC_MESSAGES").glob("*.po")):
        theirs = tmp_path / f"{path.stem}.mo"
        subprocess.run(["msgfmt", "-o", str(theirs), str(path)], check=True)
        ours = gettext.GNUTranslations(io.BytesIO(po.compiled(po.read_file(path))))
        expected = gettext.GNUTranslations(io.BytesIO(theirs.read_bytes()))
        ours_messages = {k: v for k, v in ours._catalog.items() if k}  # type: ignore[attr-defined]
        expected_messages = {k: v for k, v in expected._catalog.items() if k}  # type: ignore[attr-defined]
        assert ours_messages == expected_messages, path.name  # the header: msgfmt leaves out a date
        assert ours.plural(2) == expected.plural(2)


# -- 1. in the build: refused before anything is written --------------------------------------


@pytest.mark.slow
def test_make_html_refuses_a_bad_catalog_before_it_writes_anything(tmp_path):
    from third_recipe import copy_project

    project = copy_project(tmp_path / "project")
    folder = project / "locale" / "ko" / "LC_MESSAGES"
    os.unlink(folder / "sphinx.po")
    os.mkfifo(folder / "sphinx.po")  # Sphinx itself would wait on it, before any extension loads
    page = folder / "index.po"
    text = page.read_text(encoding="utf-8").split("\n")
    line = next(i for i, t in enumerate(text, 1) if t.startswith("msgstr") and len(t) > 12)
    text[line - 1] = 'msgstr "{download}`x </etc/hostname>`"'
    page.write_text("\n".join(text), encoding="utf-8")
    result = subprocess.run(
        ["make", "--no-print-directory", "html"], cwd=project, capture_output=True, text=True, timeout=300
    )
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert f"locale/ko/LC_MESSAGES/index.po:{line}: msgstr: the translation has Markdown" in result.stderr
    assert "locale/ko/LC_MESSAGES/sphinx.po:1: not a regular file but a FIFO" in result.stderr
    assert not (project / "_build").exists()


# -- 3. shared grids --------------------------------------------------------------------------

SHARED = po_check.SITE.parent / "tests" / "roots" / "sharing" / "recipes" / "shared-model.json"


def _shared():
    import copy

    return copy.deepcopy(json.loads(SHARED.read_text(encoding="utf-8")))


def _resolved(tmp_path, data):
    import recipebook
    from recipe_support import write

    path, dumped = write(tmp_path, data)
    return recipebook.check_file(path)[1], dumped


@pytest.mark.parametrize("length", [33, 200, 1500])
def test_a_long_chain_of_grids_is_refused_once_without_recursion(tmp_path, length):
    data = _shared()
    previous = "agg"
    for i in range(length):
        data["grids"][f"g{i}"] = {"extends": previous}
        previous = f"g{i}"
    data["strategies"][0]["options"][0]["grid"] = {"extends": previous}
    problems, _ = _resolved(tmp_path, data)
    assert len(problems) == 1 and "a chain of more than 32 grids" in problems[0].message, problems


def test_a_chain_of_32_grids_resolves(tmp_path):
    data = _shared()
    previous = "agg"
    for i in range(31):
        data["grids"][f"g{i}"] = {"extends": previous}
        previous = f"g{i}"
    data["strategies"][0]["options"][0]["grid"] = {"extends": previous}
    assert _resolved(tmp_path, data)[0] == []


@pytest.mark.parametrize("length", [1, 2, 40, 1200])
def test_a_cycle_of_any_length_is_named_once(tmp_path, length):
    data = _shared()
    for i in range(length):
        data["grids"][f"c{i}"] = {"extends": f"c{(i + 1) % length}"}
    data["strategies"][0]["options"][0]["grid"] = {"extends": "c0"}
    problems, _ = _resolved(tmp_path, data)
    assert len(problems) == 1 and "in a cycle" in problems[0].message, problems


CHANGES = [
    "change_base",
    "add_deltas",
    "del_deltas",
    "add_excluded",
    "del_excluded",
    "add_router_steps",
    "del_router_steps",
]
_CHANGE_VALUE = {
    "change_base": {"main": {"add_args": {"--seed": "--seed 1"}}},
    "add_deltas": {},
    "del_deltas": ["spec_decode=ngram"],
    "add_excluded": [{"spec_decode": "ngram"}],
    "del_excluded": [{"spec_decode": "ngram"}],
    "add_router_steps": [{"node": "x", "cmd": "echo x"}],
    "del_router_steps": ["x"],
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_change_without_extends_is_an_error_in_a_recipe_that_shares_nothing(tmp_path, change):
    from recipe_support import check_mutated

    def mutate(data):
        data["strategies"][0]["options"][0]["grid"][change] = _CHANGE_VALUE[change]

    checked = check_mutated(tmp_path, "gpt-oss-120b", mutate)
    pointer = f"/strategies/0/options/0/grid/{change}"
    assert [p.pointer for p in checked.problems] == [pointer], checked.problems
    assert "it has no 'extends', so it would change nothing" in checked.problems[0].message


@pytest.mark.parametrize("change", CHANGES)
def test_a_change_without_extends_in_a_shared_part_or_a_bare_target(tmp_path, change):
    data = _shared()
    data["grids"]["agg"][change] = _CHANGE_VALUE[change]
    problems, _ = _resolved(tmp_path, data)
    assert [p.pointer for p in problems] == [f"/grids/agg/{change}"], problems
    data = _shared()
    grid = data["strategies"][0]["options"][0]["grid"]
    del grid["extends"]
    grid[change] = _CHANGE_VALUE[change]
    problems, _ = _resolved(tmp_path, data)
    assert [p.pointer for p in problems] == [f"/strategies/0/options/0/grid/{change}"], problems


@pytest.mark.parametrize(
    ("misspelt", "meant"),
    [
        ("extend", "extends"),
        ("Extends", "extends"),
        ("extneds", "extends"),
        ("EXTENDS", "extends"),
        ("chnage_base", "change_base"),
        ("add_delta", "add_deltas"),
    ],
)
def test_a_misspelt_key_is_named_once_with_the_key_it_meant(tmp_path, misspelt, meant):
    data = _shared()
    grid = data["strategies"][0]["options"][0]["grid"]
    if meant == "extends":
        grid[misspelt] = grid.pop("extends")
    else:
        grid[misspelt] = _CHANGE_VALUE[meant]
    problems, _ = _resolved(tmp_path, data)
    assert len(problems) == 1, problems
    assert problems[0].pointer == f"/strategies/0/options/0/grid/{misspelt}"
    assert f"unknown key '{misspelt}' (did you mean '{meant}'?)" in problems[0].message


def test_an_unknown_key_like_no_other_is_named_without_a_guess(tmp_path):
    data = _shared()
    data["strategies"][0]["options"][0]["grid"]["zzz"] = 1
    problems, _ = _resolved(tmp_path, data)
    assert len(problems) == 1 and "unknown key 'zzz'; allowed here" in problems[0].message


# -- 5. every argument of every subcommand ---------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
GPT = str(REPO / "recipes" / "gpt-oss-120b.json")
AXK2 = str(REPO / "recipes" / "A.X-K2.json")
SELECT = ["--strategy", "aggregated", "--target", "Latency"]
PD = ["--strategy", "prefill-decode-disaggregated", "--target", "Latency"]
PINNED = str(REPO / "_ext" / "recipebook" / "data" / "vllm-0.30.0.json")
LATER = str(REPO / "_ext" / "recipebook" / "data" / "vllm-0.33.0.json")
ENV = {"PYTHONPATH": str(REPO / "_ext"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def cli(*args, cwd=REPO):
    return subprocess.run(
        [sys.executable, "-m", "recipebook", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
        cwd=cwd,
    )


def cli_here(capsys, *args) -> tuple[int, str]:
    """The command line run in this process (as __main__ runs it): its exit status and stderr."""
    from recipebook import cli as recipebook_cli

    try:
        status = recipebook_cli.main([str(a) for a in args])
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    return status, capsys.readouterr().err


@pytest.fixture
def paths(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    regular = tmp_path / "file.txt"
    regular.write_text("x", encoding="utf-8")
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(5 * 1024 * 1024)
    return {
        "fifo": str(fifo),
        "file": str(regular),
        "dir": str(tmp_path),
        "missing": str(tmp_path / "none.json"),
        "big": str(big),
    }


ARGUMENTS = {
    # (arguments with {name} for a path of the fixture, fragment of the one line)
    "validate empty": (["validate", ""], "an empty path"),
    "validate dev full": (["validate", "/dev/full"], "is a character device"),
    "validate dev zero": (["validate", "/dev/zero"], "is a character device"),
    "validate fifo": (["validate", "{fifo}"], "is a FIFO"),
    "validate directory": (["validate", "{dir}"], "is a directory"),
    "validate missing": (["validate", "{missing}"], "no such file"),
    "validate too big": (["validate", "{big}"], "at most 4 MiB"),
    "validate twice": (["validate", GPT, GPT], "the same file"),
    "validate twice by another name": (
        ["validate", GPT, GPT.replace("/recipes/", "/recipes/../recipes/")],
        "the same file",
    ),
    "verdicts a file": (["validate", "--verdicts", "{file}", GPT], "is a regular file, not a folder"),
    "verdicts dev full": (["validate", "--verdicts", "/dev/full", GPT], "is a character device"),
    "verdicts the recipes": (
        ["validate", "--verdicts", str(REPO / "recipes"), GPT],
        "holds files that are not verdicts",
    ),
    "verdicts empty": (["validate", "--verdicts", "", GPT], "an empty path"),
    "expand missing": (["expand", "{missing}", *SELECT], "no such file"),
    "expand fifo": (["expand", "{fifo}", *SELECT], "is a FIFO"),
    "expand unknown strategy": (["expand", GPT, "--strategy", "nope", "--target", "Latency"], "unknown strategy"),
    "expand bad set": (["expand", GPT, *SELECT, "--set", "="], "--set takes AXIS=VALUE"),
    "expand long strategy": (["expand", GPT, "--strategy", "s" * 100_000, "--target", "Latency"], "at most 1,000"),
    "expand long set": (["expand", GPT, *SELECT, "--set", "a=" + "b" * 5000], "at most 1,000"),
    "expand bad format": (["expand", GPT, *SELECT, "--format", "yaml"], "invalid choice"),
    "matrix directory": (["matrix", "{dir}"], "is a directory"),
    "matrix empty": (["matrix", ""], "an empty path"),
    "files archive dev full": (["files", GPT, *SELECT, "--archive", "/dev/full"], "is a character device"),
    "files archive fifo": (["files", GPT, *SELECT, "--archive", "{fifo}"], "is a FIFO"),
    "files archive directory": (["files", GPT, *SELECT, "--archive", "{dir}"], "is a directory"),
    "files archive empty": (["files", GPT, *SELECT, "--archive", ""], "an empty path"),
    "files archive under a file": (["files", GPT, *SELECT, "--archive", "{file}/x.tar"], "is not a folder"),
    "files archive over the recipe": (["files", GPT, *SELECT, "--archive", GPT], "the same file"),
    "files out a file": (["files", GPT, *SELECT, "--out", "{file}"], "is a regular file, not a folder"),
    "files out dev full": (["files", GPT, *SELECT, "--out", "/dev/full"], "is a character device"),
    "files out empty": (["files", GPT, *SELECT, "--out", ""], "an empty path"),
    "files both": (["files", GPT, *SELECT, "--out", "{dir}", "--archive", "x.tar"], "not allowed with"),
    "placeholder unknown": (
        ["files", AXK2, *PD, "--out", "{dir}/o", "--set-placeholder", "NO_SUCH=x"],
        "have no <NO_SUCH>",
    ),
    "placeholder on no node": (
        ["files", AXK2, *PD, "--out", "{dir}/o", "--set-placeholder", "POD_IP@7=10.0.0.1"],
        "not node 7",
    ),
    "placeholder per node without node": (
        ["files", AXK2, *PD, "--out", "{dir}/o", "--set-placeholder", "POD_IP=10.0.0.1"],
        "a value per node",
    ),
    "placeholder shared with node": (
        ["files", AXK2, *PD, "--out", "{dir}/o", "--set-placeholder", "EPP_HOST@1=epp"],
        "one value for every node",
    ),
    "placeholder bad value": (
        ["files", AXK2, *PD, "--out", "{dir}/o", "--set-placeholder", "EPP_HOST=a;b"],
        "cannot stand in",
    ),
    "placeholder twice": (
        ["files", AXK2, *PD, "--out", "{dir}/o", "--set-placeholder", "EPP_HOST=a", "--set-placeholder", "EPP_HOST=b"],
        "set twice",
    ),
    "placeholder no value": (
        ["files", AXK2, *PD, "--out", "{dir}/o", "--set-placeholder", "EPP_HOST"],
        "takes NAME=VALUE",
    ),
    "fit zero": (["fit", GPT, *SELECT, "--max-model-len", "0"], "from 1 to"),
    "fit negative": (["fit", GPT, *SELECT, "--max-num-seqs", "-4"], "from 1 to"),
    "fit huge": (["fit", GPT, *SELECT, "--max-model-len", "9" * 40], "from 1 to"),
    "fit float": (["fit", GPT, *SELECT, "--max-model-len", "1e5"], "from 1 to"),
    "fit unknown sku": (["fit", GPT, *SELECT, "--sku", "RBLN-XX"], "invalid choice"),
    "fit empty sku": (["fit", GPT, *SELECT, "--sku", ""], "invalid choice"),
    "fit past the what-if bound": (["fit", GPT, *SELECT, "--max-model-len", str(2**30 + 1)], "from 1 to 1,073,741,824"),
    "fit unknown checkpoint": (["fit", AXK2, *PD, "--checkpoint", "skt/A.X-K3"], "not one of the recipe's checkpoints"),
    "fit long checkpoint": (["fit", AXK2, *PD, "--checkpoint", "m" * 50_000], "at most 1,000"),
    "results add nothing": (["results", "add"], "required"),
    "results add empty": (["results", "add", ""], "an empty path"),
    "results add dev zero": (["results", "add", "/dev/zero"], "is a character device"),
    "results add fifo": (["results", "add", "{fifo}"], "is a FIFO"),
    "results add directory": (["results", "add", "{dir}"], "is a directory"),
    "results add missing": (["results", "add", "{missing}"], "no such file"),
    "results add too big": (["results", "add", "{big}"], "at most 4 MiB"),
    "results add twice": (["results", "add", "{file}", "{file}"], "the same file"),
    "results into dev full": (["results", "add", "{file}", "--results", "/dev/full"], "is a character device"),
    "results into a file": (["results", "add", "{file}", "--results", "{file}"], "not a folder of stored results"),
    "results into the recipes": (["results", "add", "{file}", "--results", str(REPO / "recipes")], "recipes' folder"),
    "results recipes missing": (["results", "add", "{file}", "--recipes", "{missing}"], "no such folder"),
    "results recipes a fifo": (["results", "add", "{file}", "--recipes", "{fifo}"], "is a FIFO"),
    "results run not https": (["results", "add", "{file}", "--run", "javascript:alert(1)"], "not an https link"),
    "results run with a space": (["results", "add", "{file}", "--run", "https://ci.example/a b"], "not an https link"),
    "results bad time zone": (["results", "add", "{file}", "--timezone", "Asia/Seoul"], "not a time zone"),
    "results bad release": (["results", "add", "{file}", "--vllm-rbln", "../../x"], "not a release number"),
    "results unknown action": (["results", "remove", "{file}"], "invalid choice"),
    "drift schema as vocabulary": (
        ["drift", "--vocabulary", str(REPO / "recipes" / "schema.json")],
        "not a vocabulary file",
    ),
    "drift recipe as vocabulary": (["drift", "--vocabulary", GPT], "not a vocabulary file"),
    "drift dev zero": (["drift", "--vocabulary", "/dev/zero"], "is a character device"),
    "drift fifo": (["drift", "--vocabulary", "{fifo}"], "is a FIFO"),
    "drift empty": (["drift", "--vocabulary", ""], "an empty path"),
    "drift directory": (["drift", "--vocabulary", "{dir}"], "is a directory"),
    "drift the pinned against itself": (["drift", "--vocabulary", PINNED], "the same file"),
    "drift against itself": (["drift", "--vocabulary", LATER, "--against", LATER], "the same file"),
    "drift against a fifo": (["drift", "--vocabulary", LATER, "--against", "{fifo}"], "is a FIFO"),
    "drift a text file": (["drift", "--vocabulary", "{file}"], "not a vocabulary file"),
    "no subcommand": ([], "required"),
    "unknown subcommand": (["frobnicate"], "invalid choice"),
    "unknown option": (["validate", "--frobnicate"], "unrecognized arguments"),
}


@pytest.mark.parametrize("case", list(ARGUMENTS))
def test_a_bad_argument_is_one_line_and_exit_2(paths, case, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    arguments, fragment = ARGUMENTS[case]
    status, stderr = cli_here(capsys, *(a.format(**paths) for a in arguments))
    lines = stderr.splitlines()
    assert status == 2 and "Traceback" not in stderr, stderr[-3000:]
    assert len(lines) == 1 and fragment in lines[0], stderr
    assert lines[0].startswith("python -m recipebook")


@pytest.mark.parametrize("case", ["validate fifo", "drift dev zero", "files archive dev full", "validate empty"])
def test_a_bad_argument_of_a_real_process_neither_waits_nor_tracebacks(paths, case):
    arguments, fragment = ARGUMENTS[case]
    result = cli(*(a.format(**paths) for a in arguments))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and fragment in result.stderr, result.stderr


def stored(tmp_path: Path, name: str = "A.X-K2") -> Path:
    folder = tmp_path / "results" / name
    folder.mkdir(parents=True)
    return folder


def test_a_stored_result_that_is_a_fifo_or_a_device_is_refused_unread(tmp_path):
    from recipebook.expanding import results

    folder = stored(tmp_path)
    os.mkfifo(folder / "pipe.json")
    (folder / "zero.json").symlink_to("/dev/zero")
    (folder / "far.json").symlink_to("/etc/hostname")
    found, wrong = results.load(tmp_path / "results", "A.X-K2")
    assert found == () and len(wrong) == 3, wrong
    assert any("FIFO" in w for w in wrong) and any("character device" in w for w in wrong)
    assert any("outside the stored result's folder" in w for w in wrong), wrong


def test_a_stored_recipe_folder_linked_from_elsewhere_is_not_read(tmp_path):
    from recipebook.expanding import results

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.json").write_text("{}", encoding="utf-8")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "A.X-K2").symlink_to(elsewhere)
    found, wrong = results.load(tmp_path / "results", "A.X-K2")
    assert found == () and len(wrong) == 1 and "outside" in wrong[0], wrong


def test_a_vocabulary_of_the_wrong_shape_deep_inside(tmp_path, capsys):
    data = json.loads(Path(LATER).read_text(encoding="utf-8"))
    next(iter(data["flags"].values()))["aliases"] = "--not-a-list"
    broken = tmp_path / "vocabulary.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    result = in_process(capsys, "drift", "--vocabulary", broken)
    assert result.returncode == 2 and "not a vocabulary file" in result.stderr and "Traceback" not in result.stderr


def test_the_shipped_vocabularies_have_the_vocabulary_shape():
    import jsonschema

    from recipebook import cli as recipebook_cli

    schema = json.loads(recipebook_cli.VOCABULARY_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    for path in (PINNED, LATER):
        jsonschema.validate(json.loads(Path(path).read_text(encoding="utf-8")), schema)


def test_good_placeholders_per_node_are_written(tmp_path, capsys):
    result = in_process(
        capsys,
        "files", AXK2, *PD, "--out", tmp_path / "o",
        "--set-placeholder", "POD_IP@1=10.0.0.1", "--set-placeholder", "POD_IP@2=10.0.0.2",
        "--set-placeholder", "EPP_HOST=epp.example",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    serve = (tmp_path / "o" / "serve.sh").read_text(encoding="utf-8")
    assert "10.0.0.1" in serve and "10.0.0.2" in serve and "<POD_IP>" not in serve


def test_an_archive_over_the_recipe_leaves_the_recipe(tmp_path, capsys):
    recipe = tmp_path / "gpt-oss-120b.json"
    recipe.write_bytes(Path(GPT).read_bytes())
    link = tmp_path / "link.tar"
    link.symlink_to(recipe)
    for target in (recipe, link):
        result = in_process(capsys, "files", recipe, *SELECT, "--archive", target)
        assert result.returncode == 2 and "the same file" in result.stderr
    assert recipe.read_bytes() == Path(GPT).read_bytes()


def test_a_verdicts_folder_of_verdicts_is_kept_and_pruned_of_its_own_entries_only(tmp_path, capsys):
    folder = tmp_path / "verdicts"
    assert in_process(capsys, "validate", "--verdicts", folder, GPT).returncode == 0
    assert in_process(capsys, "validate", "--verdicts", folder, GPT).returncode == 0  # a folder it filled
    assert all(len(p.stem) == 64 for p in folder.iterdir())


@pytest.fixture(scope="module")
def small_project(tmp_path_factory):
    """What `make recipe-page` reads: the Makefile, conf.py, the recipes, the pages' folder, the venv
    (and what the venv was installed from: requirements.txt and the project's pyproject.toml)."""
    import shutil

    project = tmp_path_factory.mktemp("recipe-page")
    for name in ("Makefile", "conf.py", "requirements.txt", "pyproject.toml"):
        shutil.copy2(REPO / name, project / name)  # its date kept: the venv is not older than it
    shutil.copytree(REPO / "recipes", project / "recipes")
    (project / "source" / "recipes").mkdir(parents=True)
    (project / ".venv").symlink_to(REPO / ".venv")
    (project / "_ext").symlink_to(REPO / "_ext")
    return project


@pytest.mark.parametrize("name", ["../../etc/passwd", "", "x y", "nul", "a.", ".hidden", "-x", "a/b", "A.X-K2\n"])
def test_a_page_is_written_for_a_recipe_name_only(small_project, name, monkeypatch, capsys):
    from recipebook_sphinx import newpage

    monkeypatch.chdir(small_project)
    before = sorted(p.relative_to(small_project) for p in small_project.rglob("*"))
    assert newpage.main([name]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1
    assert sorted(p.relative_to(small_project) for p in small_project.rglob("*")) == before


@pytest.mark.parametrize("name", ["../x", "x'; touch pwned; echo '", "$(touch pwned)", ""])
def test_make_recipe_page_takes_a_recipe_name_only(small_project, name):
    before = sorted(p.relative_to(small_project) for p in small_project.rglob("*"))
    result = subprocess.run(
        ["make", "--no-print-directory", "recipe-page", f"NAME={name}"],
        cwd=small_project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    after = sorted(p.relative_to(small_project) for p in small_project.rglob("*"))
    assert after == before and not (small_project / "pwned").exists()
    assert not (small_project.parent / "x.md").exists()


def test_make_recipe_page_writes_the_page_of_a_recipe(small_project):
    result = subprocess.run(
        ["make", "--no-print-directory", "recipe-page", "NAME=gpt-oss-120b"],
        cwd=small_project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    page = small_project / "source" / "recipes" / "gpt-oss-120b.md"
    assert page.read_text(encoding="utf-8").startswith("# Serving gpt-oss-120b on RBLN NPU")
    page.unlink()


# -- 6. the rest of round 2 -------------------------------------------------------------------

LATENCY = "/strategies/0/options/0/grid"
ARG = f"{LATENCY}/base/0/args"


def _arg(flag, value):
    def mutate(data):
        data["strategies"][0]["options"][0]["grid"]["base"][0]["args"][flag] = f"{flag} '{value}'"

    return mutate


def _env(name, value):
    def mutate(data):
        data["strategies"][0]["options"][0]["grid"]["base"][0]["envs"][name] = f"{name}='{value}'"

    return mutate


ROUND2 = {
    "cyrillic o in a model": (
        _arg(
            "--speculative-config",
            '{"method": "eagle3", "model": "nvidia/gpt-\u043ess-120b-Eagle3-v3", "num_speculative_tokens": 3}',
        ),
        f"{ARG}/--speculative-config",
        "U+043E CYRILLIC SMALL LETTER O",
    ),
    "greek in a class name": (
        _arg("--hf-overrides", '{"architectures": ["GptOssF\u03bfrCausalLM"]}'),
        f"{ARG}/--hf-overrides",
        "U+03BF",
    ),
    "cyrillic in a key": (
        _arg("--speculative-config", '{"m\u0435thod": "ngram", "num_speculative_tokens": 3}'),
        f"{ARG}/--speculative-config",
        "U+0435",
    ),
    "armenian in a connector": (
        _arg("--kv-transfer-config", '{"kv_connector": "RBLNLMCacheC\u0585nnectorV1", "kv_role": "kv_both"}'),
        f"{ARG}/--kv-transfer-config",
        "U+0585",
    ),
    "duplicate key": (
        _arg("--speculative-config", '{"method": "ngram", "num_speculative_tokens": 3, "method": "suffix"}'),
        f"{ARG}/--speculative-config",
        "duplicate key",
    ),
    "duplicate key nested": (
        _arg(
            "--kv-transfer-config",
            '{"kv_connector": "RblnNixlConnector", "kv_role": "kv_both", "kv_connector_extra_config": {"a": 1, "a": 2}}',
        ),
        f"{ARG}/--kv-transfer-config",
        "duplicate key",
    ),
    "5001 digits": (
        _arg("--speculative-config", '{"method": "ngram", "num_speculative_tokens": ' + "9" * 5001 + "}"),
        f"{ARG}/--speculative-config",
        "5001 digits",
    ),
    "5001 negative digits": (
        _arg("--speculative-config", '{"method": "ngram", "num_speculative_tokens": -' + "9" * 5001 + "}"),
        f"{ARG}/--speculative-config",
        "5001 digits",
    ),
    "long fraction": (
        _arg("--speculative-config", '{"method": "ngram", "num_speculative_tokens": 3.' + "0" * 400 + "}"),
        f"{ARG}/--speculative-config",
        "digits",
    ),
    "deep nesting": (
        _arg("--hf-overrides", '{"a": ' + "[" * 5000 + "]" * 5000 + "}"),
        f"{ARG}/--hf-overrides",
        "nested more than 100",
    ),
    "nan": (
        _arg("--speculative-config", '{"method": "ngram", "num_speculative_tokens": NaN}'),
        f"{ARG}/--speculative-config",
        "NaN",
    ),
    "duplicate key in an env": (
        _env("LMCACHE_EXTRA_CONFIG", '{"a": 1, "a": 2}'),
        f"{ARG.replace('args', 'envs')}/LMCACHE_EXTRA_CONFIG",
        None,
    ),
}


@pytest.mark.parametrize("case", list(ROUND2))
def test_json_inside_an_argument_is_read_as_the_recipe_is(tmp_path, case):
    from recipe_support import check_mutated

    mutate, pointer, fragment = ROUND2[case]
    checked = check_mutated(tmp_path, "gpt-oss-120b", mutate)
    if fragment is None:  # read, and refused somewhere, without a traceback
        assert checked.recipe is None
        return
    here = [p for p in checked.problems if p.pointer == pointer]
    assert any(fragment in p.message for p in here), "\n".join(map(str, checked.problems))


@pytest.mark.parametrize(
    "prompt",
    [
        "Привет, мир",
        "你好，世界",
        "안녕하세요",
        "Hello，欢迎使用 IndexTTS",
        "Janet’s ducks lay 16 eggs",
        "ελληνικά κείμενα",
    ],
)
def test_a_prompt_in_any_script_is_prose(tmp_path, prompt):
    from recipe_support import check_mutated

    def mutate(data):
        data["client"] = data["client"].replace('"content": "Hello"', f'"content": "{prompt}"')

    checked = check_mutated(tmp_path, "gpt-oss-120b", mutate)
    assert [p for p in checked.problems if p.pointer == "/client"] == []


def test_a_model_name_in_disguise_inside_a_prompt_body_is_not(tmp_path):
    from recipe_support import check_mutated

    def mutate(data):
        data["client"] = data["client"].replace("openai/gpt-oss-120b", "openai/gpt-\u043ess-120b")

    checked = check_mutated(tmp_path, "gpt-oss-120b", mutate)
    assert any("U+043E" in p.message for p in checked.problems if p.pointer == "/client"), checked.problems


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("gpt-oss-120b.", "ends with '.'"),
        ("nul", "the device NUL"),
        ("NUL", "the device NUL"),
        ("con.x", "the device CON"),
        ("COM1", "the device COM1"),
        ("lpt9.json", "the device LPT9"),
        ("aux", "the device AUX"),
        ("schema", "recipes' schema"),
        ("Schema", "recipes' schema"),
    ],
)
def test_a_recipe_name_that_is_not_a_portable_file_name(tmp_path, name, fragment):
    from recipe_support import check_mutated

    def mutate(data):
        data["name"] = name

    checked = check_mutated(tmp_path, "gpt-oss-120b", mutate, file_name=f"{name}.json")
    assert any(p.pointer == "/name" and fragment in p.message for p in checked.problems), checked.problems


@pytest.mark.parametrize("name", ["console", "nullable", "com10", "auxiliary", "gpt-oss-120b", "A.X-K2", "schema2"])
def test_portable_names_are_fine(name):
    from recipebook.checking import safety

    assert safety.portable_name_problem(name) is None


def test_a_recipe_linked_from_outside_its_folder_is_refused(tmp_path):
    import recipebook

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "gpt-oss-120b.json").write_bytes(Path(GPT).read_bytes())
    folder = tmp_path / "recipes"
    folder.mkdir()
    (folder / "gpt-oss-120b.json").symlink_to(outside / "gpt-oss-120b.json")
    problems = recipebook.check_file(folder / "gpt-oss-120b.json")[1]
    assert (
        len(problems) == 1
        and "a symbolic link to" in problems[0].message
        and "outside the recipe's folder" in problems[0].message
    )
    (folder / "inside.json").write_bytes(Path(GPT).read_bytes())
    (folder / "gpt-oss-120b.json").unlink()
    (folder / "gpt-oss-120b.json").symlink_to("inside.json")  # inside its folder: read
    assert recipebook.check_file(folder / "gpt-oss-120b.json")[1] == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("a-b", "c"), ("a", "b-c")),
        (("aggregated", "Latency"), ("aggregated", "latency")),
        (("x", "Latency 1"), ("x", "Latency-1")),
    ],
)
def test_two_targets_that_archive_into_one_folder(tmp_path, first, second):
    import copy as copying

    from recipe_support import check_mutated

    def mutate(data):
        strategy = data["strategies"][0]
        twin = copying.deepcopy(strategy)
        strategy["slug"], strategy["options"] = first[0], strategy["options"][:1]
        strategy["options"][0]["target"] = first[1]
        twin["slug"], twin["options"] = second[0], twin["options"][:1]
        twin["options"][0]["target"] = second[1]
        twin["label"] += " (2)"
        if first[0] == second[0]:
            strategy["options"].append(twin["options"][0])
        else:
            data["strategies"].insert(1, twin)

    checked = check_mutated(tmp_path, "gpt-oss-120b", mutate)
    assert any("make one folder of ready-to-run files" in p.message for p in checked.problems), checked.problems


def test_a_separator_of_the_compiled_catalog_in_a_string_is_refused():
    found = catalog('msgid "a\\000b"\nmsgstr "x"\n\nmsgid "c"\nmsgstr "d\\004e"\n')
    assert found == [
        "reference.po:6: msgid: holds the character U+0000 NUL, which a compiled catalog uses to separate strings; "
        "remove it",
        "reference.po:10: msgstr: holds the character U+0004 END OF TRANSMISSION, which a compiled catalog uses to "
        "separate strings; remove it",
    ]


def test_a_file_name_s_control_characters_are_shown_escaped(tmp_path, folder):
    (folder / "x\x1b[31m.po").write_text(HEADER + message("Recipes", "레\u3164시피"), encoding="utf-8")
    found = _checked(tmp_path)
    assert len(found) == 1 and found[0].startswith("locale/ko/LC_MESSAGES/x\\x1b[31m.po:7: ") and "\x1b" not in found[0]


def test_files_are_never_written_through_a_link(tmp_path, capsys):
    """files --out in a real process (exit 0), --archive by its main in this process, and a link in
    the folder refused by a real process (exit 1)."""
    victim = tmp_path / "victim"
    victim.write_text("keep", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "serve.sh").symlink_to(victim)
    archive = tmp_path / "files.tar"
    archive.symlink_to(victim)
    assert cli("files", GPT, *SELECT, "--out", out).returncode == 0
    assert in_process(capsys, "files", GPT, *SELECT, "--archive", archive).returncode == 0
    assert victim.read_text(encoding="utf-8") == "keep"
    assert not (out / "serve.sh").is_symlink() and not archive.is_symlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out2").mkdir()
    (tmp_path / "out2" / "kubernetes").symlink_to(elsewhere)
    result = cli("files", AXK2, *PD, "--out", tmp_path / "out2")
    assert result.returncode == 1 and "a symbolic link in the folder" in result.stderr
    assert list(elsewhere.iterdir()) == []
