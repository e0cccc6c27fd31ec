"""An author adds a third recipe to a copy of the project, following source/adding-a-recipe.md:
validate → make recipe-page → write the guide → make intl-update → translate → make html → the
checks. Every step passes; before the translation, the Korean page is reported clearly.

The recipe (tests/third_recipe.py) is a prefill/decode one whose JSON option values are
written on one line, as llm-d writes them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import polib
import pytest

from third_recipe import NAME, copy_project, longest_line, third_recipe_text

pytestmark = pytest.mark.slow

GUIDE = {
    "TODO: what the model is and how it is served on RBLN NPUs.": (
        f"{NAME} is a mixture-of-experts model, served here with prefill and decode on separate servers."
    ),
    "TODO: the verified devices and what the strategies' engine arguments do.": (
        "The recipe was verified on RBLN-CR13, with 8 devices per server."  # a sentence the catalog already has
    ),
    "TODO: limits a reader must know before serving.": (
        "- Verified on RBLN-CR13; serving arguments may change in later releases."
    ),
}
# what the translator writes: the messages of the new page that the catalogs do not have yet
TRANSLATIONS = {
    f"Serving {NAME} on RBLN NPU": f"RBLN NPU에서 {NAME} 서빙",
    f"{NAME} is a mixture-of-experts model, served here with prefill and decode on separate servers.": (
        f"{NAME}는 mixture-of-experts 모델로, 여기서는 prefill 서버와 decode 서버를 나누어 서빙합니다."
    ),
}
# the checks an author's change can break, from the project's own tests (the whole
# `make test` also runs the outside judges, which take minutes)
CHECKS = [
    "tests/test_cli.py",
    "tests/test_flags_page.py",
    "tests/test_outputs.py",
    "tests/test_i18n.py",
    "tests/test_site_build.py",
    "tests/test_search_queries.py",
    # the reader query sets name pages by what they are: another recipe keeps them green
    "tests/test_search_pipeline.py",
    "tests/test_search_sets.py",
    "tests/test_typography.py",
    "tests/test_judges_axe.py",
    # every selection shown and copied exactly, the one-line JSON values included
    "tests/test_judges_browser.py::test_every_selection_shows_and_copies_the_engine_commands[en-js]",
    "tests/test_judges_browser.py::test_no_page_scrolls_sideways_on_a_phone",
]


def run(project: Path, *command: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=900)
    if check:
        assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result


def untranslated(project: Path) -> dict[str, str]:
    found = {}
    for path in sorted((project / "locale/ko/LC_MESSAGES").glob("*.po")):
        for entry in polib.pofile(str(path)):
            if entry.msgid and not entry.obsolete and (not entry.msgstr or "fuzzy" in entry.flags):
                found[entry.msgid] = path.name
    return found


def test_an_author_adds_a_prefill_decode_recipe_and_everything_passes(tmp_path):
    project = copy_project(tmp_path / "project")
    recipe = third_recipe_text()
    assert longest_line(recipe) > 200  # the one-line JSON values
    (project / "recipes" / f"{NAME}.json").write_text(recipe, encoding="utf-8")

    # 1. validate
    assert "3 recipe(s) valid" in run(project, "make", "validate").stdout

    # 2. the page, and the guide's prose
    run(project, "make", "recipe-page", f"NAME={NAME}")
    page = project / "source" / "recipes" / f"{NAME}.md"
    text = page.read_text(encoding="utf-8")
    for todo, prose in GUIDE.items():
        assert todo in text
        text = text.replace(todo, prose)
    page.write_text(text, encoding="utf-8")

    # 3. the catalogs; before translating, the Korean page is reported, clearly
    run(project, "make", "intl-update")
    assert untranslated(project) == dict.fromkeys(TRANSLATIONS, "recipes.po")
    stats = run(project, "make", "intl-stats", check=False)
    # gettext offers A.X-K2's title for the new one (fuzzy); the overview sentence is new
    assert stats.returncode != 0 and re.search(r"recipes.po: \d+ translated, 1 fuzzy, 1 untranslated.", stats.stdout)
    offered = next(e for e in polib.pofile(str(project / "locale/ko/LC_MESSAGES/recipes.po")) if "fuzzy" in e.flags)
    assert offered.msgid == f"Serving {NAME} on RBLN NPU" and "A.X-K2" in offered.msgstr
    built = run(project, "make", "html-ko")  # an author's build still succeeds, with a note
    assert f"recipes/{NAME}: 2 message(s)" in built.stdout, built.stdout
    gate = run(project, sys.executable, "-m", "pytest", "-q", "-x", "tests/test_i18n.py", check=False)
    assert gate.returncode != 0
    assert "recipes.po:" in gate.stdout and "untranslated" in gate.stdout, gate.stdout[-3000:]

    # 4. translate, as a translator does in the .po file
    path = project / "locale/ko/LC_MESSAGES/recipes.po"
    catalog = polib.pofile(str(path), wrapwidth=0)
    for entry in catalog:
        if entry.msgid in TRANSLATIONS:
            entry.msgstr = TRANSLATIONS[entry.msgid]
            entry.flags = [flag for flag in entry.flags if flag != "fuzzy"]
            entry.previous_msgid = None
    catalog.save()
    run(project, "make", "intl-update")  # leaves translated catalogs as they are
    run(project, "make", "intl-stats")
    assert not untranslated(project)

    # 5. build both languages, then the checks
    built = run(project, "make", "html")
    assert "no translation" not in built.stdout
    assert (project / "_build/html/ko/recipes" / f"{NAME}.html").is_file()
    checks = run(project, sys.executable, "-m", "pytest", "-q", *CHECKS, check=False)
    assert checks.returncode == 0, checks.stdout[-6000:]
