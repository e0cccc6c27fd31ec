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

import pytest

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
    "too long": ("nplurals=2; plural=" + "n==1 || " * 40 + "0;", "characters long"),
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
    import os

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


def test_a_linked_folder_out_of_the_locale_folder_is_refused(tmp_path, folder):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "index.po").write_text(HEADER + 'msgid "a"\nmsgstr "b"\n', encoding="utf-8")
    (folder / "more").symlink_to(elsewhere)
    found = _checked(tmp_path)
    assert len(found) == 1 and found[0].startswith("locale/ko/LC_MESSAGES/more/index.po:1: a symbolic link"), found


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
    import subprocess

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
