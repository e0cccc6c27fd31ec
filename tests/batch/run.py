"""The whole test suite with the batch recipes added (issue 26.1): any valid recipe keeps `make test` green.

    make test-batch [PYTEST_ARGS="tests/test_x.py ..."]     (or: .venv/bin/python tests/batch/run.py [pytest args])

Copies the project (the working tree, without build output) into a temporary folder, adds the
recipes of tests/batch/recipes, their pages (tests/batch/source/recipes, written with
`make recipe-page` and filled in), the tests of tests/batch/tests (the larger real recipes, too
slow for make test) and their Korean entries (tests/batch/locale/ko/LC_MESSAGES),
as an author and a translator would: `make intl-update`, the translations, `make intl-update`
again. Then runs `make test` there (with the given pytest arguments, if any) and exits with its
status. The copy shares this project's .venv and node_modules (linked; never reinstalled from the
copy). The copy is deleted after a green run and kept, with its path printed, after a red one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parents[2]
BATCH = Path(__file__).resolve().parent
IGNORE = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "_build", "__pycache__", "*.mo", ".pytest_cache", ".crosscheck", ".hypothesis"
)
# make must not remake the linked folders from the copy (their stamps are older than the copied
# requirements): -o takes a file as up to date
MAKE = ["make", "--no-print-directory", "-o", ".venv/.installed", "-o", "node_modules/.installed"]


def run(project: Path, *arguments: str) -> None:
    print("+", " ".join(arguments), flush=True)
    subprocess.run(arguments, cwd=project, check=True)


def add_batch(project: Path) -> list[str]:
    """The batch's recipes, pages and catalog entries added to a project; returns the recipe names."""
    names = []
    for recipe in sorted((BATCH / "recipes").glob("*.json")):
        page = BATCH / "source" / "recipes" / f"{recipe.stem}.md"
        assert page.is_file(), f"{page}: the batch recipe {recipe.stem} has no page"
        assert not (project / "recipes" / recipe.name).exists(), f"{recipe.name} is a shipped recipe's name"
        shutil.copy(recipe, project / "recipes" / recipe.name)
        shutil.copy(page, project / "source" / "recipes" / page.name)
        names.append(recipe.stem)
    for test in sorted((BATCH / "tests").glob("test_*.py")):  # checks only the batch runs
        assert not (project / "tests" / test.name).exists(), f"{test.name} is a test file of make test"
        shutil.copy(test, project / "tests" / test.name)
    run(project, *MAKE, "intl-update")
    for batch_catalog in sorted((BATCH / "locale" / "ko" / "LC_MESSAGES").glob("*.po")):
        translations = {e.msgid: e.msgstr for e in polib.pofile(str(batch_catalog)) if e.msgid}
        path = project / "locale" / "ko" / "LC_MESSAGES" / batch_catalog.name
        catalog = polib.pofile(str(path), wrapwidth=0)
        for entry in catalog:
            if entry.msgid in translations and not entry.obsolete:
                entry.msgstr = translations.pop(entry.msgid)
                entry.flags = [flag for flag in entry.flags if flag != "fuzzy"]
                entry.previous_msgid = None
        assert not translations, (
            f"{batch_catalog.name}: not in the catalog after make intl-update: {list(translations)}"
        )
        catalog.save()
    run(project, *MAKE, "intl-update")  # leaves the translated catalogs as the project writes them
    run(project, *MAKE, "intl-stats")  # fails on anything untranslated or fuzzy
    return names


def main(pytest_args: list[str]) -> int:
    folder = Path(tempfile.mkdtemp(prefix="recipebook-batch-"))
    project = folder / "project"
    shutil.copytree(ROOT, project, ignore=IGNORE, symlinks=True)
    for name in (".venv", "node_modules"):
        (project / name).symlink_to((ROOT / name).resolve())
    try:
        names = add_batch(project)
    except subprocess.CalledProcessError as error:
        step = " ".join(error.cmd[len(MAKE) :] if list(error.cmd[: len(MAKE)]) == MAKE else error.cmd)
        print(
            f"adding the batch failed at {step!r} (exit status {error.returncode}); the copy is kept in {project}",
            file=sys.stderr,
        )
        return error.returncode or 1
    print(f"batch recipes added: {', '.join(names)}; the project copy is {project}", flush=True)
    command = [*MAKE, "test"]
    if pytest_args:
        command.append("PYTEST_ARGS=" + " ".join(pytest_args))
    status = subprocess.run(command, cwd=project, check=False).returncode
    if status == 0:
        shutil.rmtree(folder)
    else:
        print(f"make test failed with the batch recipes; the copy is kept in {project}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
