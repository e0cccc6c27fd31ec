"""Message templates that Sphinx's gettext builder does not write.

- ``recipebook.pot``: the extension's own strings (``_()`` in its Python code,
  ``_rb()`` in its templates).
- ``sphinx.pot``: strings of the theme's templates that Sphinx's own Korean
  catalog does not translate.
- ``recipe-labels.pot``: labels recipes give in English only (axis titles and
  value labels, strategy labels and tags, target names), so translators can
  translate them like any other page text.

The output is deterministic (fixed date, sorted, no locations), so regenerating
the catalogs changes nothing unless a string changed.  Templates and catalogs are
written without rewrapping (WIDTH = 0): a message stays on one line however long, so
editing one sentence changes one msgid/msgstr pair in the diff, not the paragraph around it.

``--update`` merges the templates into a language's catalogs, as ``sphinx-intl update``
does, with that same width, and keeps the previous English of a changed entry (``#| msgid``)
(``make intl-update``).
Usage: python -m recipebook_sphinx.i18n.catalogs OUTDIR | --update POTDIR LOCALEDIR LANG...
"""

from __future__ import annotations

import ast
import datetime
import io
import runpy
import sys
from pathlib import Path
from typing import Any

import furo
import sphinx
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import normalize, write_po
from sphinx.locale import init as init_locale

from recipebook import load

from .. import store
from ..paths import PACKAGE, ROOT
from . import po, po_check

FIXED_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
WIDTH = 0  # no wrapping (babel and sphinx-intl: 0 or less disables it)


def site_conf() -> dict[str, Any]:
    """The site's conf.py, read as Sphinx reads it (its project name is the site title)."""
    return runpy.run_path(str(ROOT / "conf.py"))


def _catalog(domain: str) -> Catalog:
    return Catalog(
        domain=domain,
        project=site_conf()["project"],
        version="",
        creation_date=FIXED_DATE,
        revision_date=FIXED_DATE,
        fuzzy=False,
        charset="utf-8",
    )


def python_messages(path: Path, names: frozenset[str] = frozenset({"_"})) -> list[str]:
    """Literal arguments of ``_("...")`` calls, f-strings included.

    Babel's Python extractor does not look inside f-strings on Python 3.11, where
    much of the explorer's markup is written; the syntax tree does.
    """
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in names
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(node.args[0].value)
    return found


def extension_catalog() -> Catalog:
    catalog = _catalog("recipebook")
    catalog.add(site_conf()["project"])  # the site title, translated by i18n.configure
    for path in sorted(PACKAGE.rglob("*.py")):
        # N_("..."): marked for the catalog, translated later in a language chosen then
        for message in python_messages(path, frozenset({"_", "N_"})):
            catalog.add(message)
    for folder in (PACKAGE / "templates", PACKAGE / "explorer"):  # the explorer's template is in its package
        for _file, _line, template_message, _comments, _context in extract_from_dir(
            folder, method_map=[("**.html", "jinja2.ext:babel_extract")], keywords={"_rb": None}
        ):
            catalog.add(template_message)
    return catalog


def theme_catalog() -> Catalog:
    """Strings of the theme's templates that Sphinx's own Korean catalog lacks."""
    translator, _has = init_locale([Path(sphinx.__file__).parent / "locale"], "ko", "sphinx")
    catalog = _catalog("sphinx")
    theme = Path(furo.__file__).parent / "theme"
    for _file, _line, message, _comments, _context in extract_from_dir(
        theme, method_map=[("**.html", "jinja2.ext:babel_extract")], keywords={"_": None, "gettext": None}
    ):
        if isinstance(message, str) and translator.gettext(message) == message:
            catalog.add(message)
    return catalog


def label_catalog(recipes: Path) -> Catalog:
    catalog = _catalog("recipe-labels")
    for path in store.recipe_paths(recipes):
        recipe = load(path)
        for info in recipe.axes.values():
            catalog.add(info.title)
            for label in info.labels.values():
                catalog.add(label)
        for strategy in recipe.strategies:
            catalog.add(strategy.label)
            catalog.add(strategy.tag)
            for target in strategy.targets:
                catalog.add(target.label or target.target)
    return catalog


def write(catalog: Catalog, path: Path) -> None:
    with path.open("wb") as handle:
        write_po(handle, catalog, width=WIDTH, no_location=True, sort_output=True, omit_header=False)


def _read(path: Path) -> Catalog:
    """A catalog or template, read by the project's one reader (``po``)."""
    return po.to_babel(po.read_file(path))


def _dump(path: Path, catalog: Catalog) -> None:
    """A catalog as the translators see it: unwrapped, and a fuzzy entry with the English it had
    before (``#| msgid``), so the translator sees what changed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=WIDTH)
    text = buffer.getvalue().decode("utf-8")
    # babel wraps a previous msgid at 76 columns like a comment, cutting the quoted string across
    # lines msgfmt cannot read; written here as xgettext does, one quoted line per line of the string
    for message in catalog:
        if message.id and message.fuzzy and message.previous_id and isinstance(message.id, str):
            entry = f"msgid {normalize(message.id, width=WIDTH)}\n"
            previous = "".join(
                f"#| {line}\n" for line in f"msgid {normalize(message.previous_id[0], width=WIDTH)}".split("\n")
            )
            at = text.find("\n" + entry)
            if at >= 0 and message.previous_id[0] != message.id:
                text = text[: at + 1] + previous + text[at + 1 :]
    path.write_bytes(text.encode("utf-8"))


def update(pot_dir: Path, locale_dir: Path, languages: tuple[str, ...]) -> list[str]:
    """Merge the templates into the catalogs, as ``sphinx-intl update`` does (translations kept, a
    changed message fuzzy, a removed one obsolete), unwrapped and keeping each fuzzy entry's
    previous English (``#| msgid``), which sphinx-intl drops. A catalog with a problem is not
    merged (a message its reader could not read would be lost): nothing is written, and the
    problems are returned."""
    problems = [str(p) for language in languages for p in po_check.check_language([locale_dir], language)]
    if problems:
        return problems
    for pot in sorted(pot_dir.rglob("*.pot")):
        template = _read(pot)
        for language in languages:
            po_path = Path(locale_dir, language, "LC_MESSAGES", pot.relative_to(pot_dir).with_suffix(".po"))
            if not po_path.exists():
                template.locale = language
                _dump(po_path, template)
                print(f"Create: {po_path}")
                continue
            before = po_path.read_bytes()
            catalog = _read(po_path)
            catalog.update(template)
            _dump(po_path, catalog)
            if po_path.read_bytes() != before:
                print(f"Update: {po_path}")
    return []


def main(argv: list[str]) -> int:
    if len(argv) >= 4 and argv[0] == "--update" and all(po_check.LANGUAGE.fullmatch(a) for a in argv[3:]):
        problems = update(Path(argv[1]), Path(argv[2]), tuple(argv[3:]))
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print(f"{len(problems)} problem(s) in the catalogs; fix them, then update again", file=sys.stderr)
        return 1 if problems else 0
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    write(extension_catalog(), out / "recipebook.pot")
    write(label_catalog(ROOT / "recipes"), out / "recipe-labels.pot")
    write(theme_catalog(), out / "sphinx.pot")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
