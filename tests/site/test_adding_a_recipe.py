"""An author adds a third recipe to a copy of the project, following source/adding-a-recipe.md:
validate → make recipe-page → write the guide → make intl-update → translate → make html-ko.
Every step passes; before the translation, the Korean page is reported clearly and the i18n gate
refuses it. (What the rest of the suite says about a site with more recipes: make test-batch,
which runs `make test` with the recipes of tests/batch added; no test runs the suite inside itself.)

The recipe (tests/third_recipe.py) is a prefill/decode one whose JSON option values are
written on one line, as llm-d writes them.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import polib
import pytest

from recipe_support import recipe_names
from recipebook_sphinx.i18n import intl_check
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
    assert f"{len(recipe_names(project / 'recipes'))} recipe(s) valid" in run(project, "make", "validate").stdout

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
    # gettext offers another recipe's title for the new one (fuzzy); the overview sentence is new
    assert stats.returncode != 0 and re.search(r"recipes.po: \d+ translated, 1 fuzzy, 1 untranslated.", stats.stdout)
    offered = next(e for e in polib.pofile(str(project / "locale/ko/LC_MESSAGES/recipes.po")) if "fuzzy" in e.flags)
    assert offered.msgid == f"Serving {NAME} on RBLN NPU"  # with another recipe's Korean title
    assert re.fullmatch(r"RBLN NPU에서 \S+ 서빙", offered.msgstr) and NAME not in offered.msgstr
    built = run(project, "make", "html-ko")  # an author's build still succeeds, with a note
    assert f"recipes/{NAME}: 2 message(s)" in built.stdout, built.stdout
    gate = intl_check.check(project / "locale", "ko")  # the i18n gate of tests/site/test_i18n.py
    assert any("recipes.po:" in problem and "untranslated" in problem for problem in gate), gate

    # 4. translate, as a translator does in the .po file
    path = project / "locale/ko/LC_MESSAGES/recipes.po"
    catalog = polib.pofile(str(path), wrapwidth=0)
    for entry in catalog:
        if entry.msgid in TRANSLATIONS:
            entry.msgstr = TRANSLATIONS[entry.msgid]
            entry.flags = [flag for flag in entry.flags if flag != "fuzzy"]
            entry.previous_msgid = None
    catalog.save()
    run(project, "make", "intl-stats")  # (that intl-update keeps translations: tests/site/test_i18n.py)
    assert not untranslated(project)

    assert intl_check.check(project / "locale", "ko") == []

    # 5. the Korean build, translated
    built = run(project, "make", "html-ko")
    assert "no translation" not in built.stdout and f"recipes/{NAME}:" not in built.stdout
    assert (project / "_build/html/ko/recipes" / f"{NAME}.html").is_file()
