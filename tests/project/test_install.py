"""Issue 42.4: the project is a package (pyproject.toml's [project], sources in _ext/).

In a new virtual environment that has the dependencies but not the project: the built wheel
installs a `recipebook` command that validates recipes from any folder, and an extension that a
tiny Sphinx project elsewhere lists in `extensions` and builds, in English and Korean, with
the package's own data, templates and static files; `pip install -e` of a copy of the
sources gives the same command, running those sources. Nothing is downloaded: pip builds and
installs with --no-index, from what make's venv step installed (setuptools is pinned in
requirements.txt).
"""

from __future__ import annotations

import json
import runpy
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "recipes" / "gpt-oss-120b.json"
PIP = ["-m", "pip", "--disable-pip-version-check", "--quiet"]  # after the Python that runs it
CLEAN = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}  # no PYTHONPATH, no venv on PATH

pytestmark = pytest.mark.slow

TINY_CONF = """
project = "Tiny"
extensions = ["recipebook_sphinx"]
recipebook_pages = {{"recipe": "{{name}}", "install": "index", "configuration": "index"}}
recipebook_versions = {versions!r}
"""
TINY_INDEX = """Recipes
=======

.. recipe-catalogue::

.. toctree::

   {name}
"""
# a project's own catalog of the extension's words (Sphinx's default locale_dirs: locales/)
TINY_CATALOG = """msgid ""
msgstr ""
"Language: ko\\n"
"Plural-Forms: nplurals=1; plural=0;\\n"
"Content-Type: text/plain; charset=utf-8\\n"

msgid "Feature selection"
msgstr "작은 프로젝트의 기능 선택"
"""
TINY_PAGE = """{name}
============

.. recipe-explorer:: {name}
"""


def _sources(folder: Path) -> Path:
    """What a clone holds of the package: pyproject.toml, README.md and _ext/ (without caches)."""
    folder.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, folder / name)
    shutil.copytree(ROOT / "_ext", folder / "_ext", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return folder


def _new_venv(folder: Path) -> Path:
    """A virtual environment with the dependencies (this one's site-packages on its path, whose
    own .pth files, the project's editable install among them, it does not run) but not the project.
    Its Python runs pip to install into it (pip is among those dependencies): what `pip --python`
    does, without first starting this environment's pip only to start that one."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    absent = subprocess.run([str(python), "-c", "import recipebook"], capture_output=True, env=CLEAN, check=False)
    assert absent.returncode != 0, "the new environment already imports recipebook"
    return python


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=CLEAN, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def _validate_elsewhere(venv: Path, tmp_path: Path) -> str:
    """`recipebook validate` in a folder of its own: its recipes/ folder, then a file named."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "recipes").mkdir(parents=True)
    shutil.copy(RECIPE, elsewhere / "recipes" / RECIPE.name)
    command = str(venv / "bin" / "recipebook")
    found = _run([command, "validate"], elsewhere).stdout
    assert _run([command, "validate", str(RECIPE)], tmp_path).stdout == found
    return found


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new environment with the project installed from its wheel (not editable): the extension
    it imports, from a folder of its own, is the installed package, not this checkout (once for the
    tests of this file, which build with it)."""
    base = tmp_path_factory.mktemp("wheel")
    sources = _sources(base / "sources")
    _run(
        [
            sys.executable,
            *PIP,
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(base / "dist"),
            str(sources),
        ],
        base,
    )
    (wheel,) = (base / "dist").glob("*.whl")
    python = _new_venv(base / "venv")
    _run([str(python), *PIP, "install", "--no-deps", "--no-index", str(wheel)], base)
    elsewhere = tmp_path_factory.mktemp("wheel-elsewhere")
    where = _run([str(python), "-c", "import recipebook_sphinx; print(recipebook_sphinx.__file__)"], elsewhere).stdout
    assert str(base / "venv") in where  # the installed package, not this checkout
    return base / "venv"


def test_the_wheel_gives_a_recipebook_command_that_runs_from_any_folder(wheel_venv, tmp_path):
    name = json.loads(RECIPE.read_text(encoding="utf-8"))["name"]
    found = _validate_elsewhere(wheel_venv, tmp_path)
    assert found.startswith("1 recipe(s) valid, ") and f"({name} " in found, found


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_sphinx_project_elsewhere_lists_the_extension(wheel_venv, tmp_path, language):
    name = RECIPE.stem
    project = tmp_path / "tiny"
    (project / "recipes").mkdir(parents=True)
    shutil.copy(RECIPE, project / "recipes" / RECIPE.name)
    versions = runpy.run_path(str(ROOT / "conf.py"))["recipebook_versions"]
    (project / "conf.py").write_text(TINY_CONF.format(versions=versions), encoding="utf-8")
    (project / "index.rst").write_text(TINY_INDEX.format(name=name), encoding="utf-8")
    (project / f"{name}.rst").write_text(TINY_PAGE.format(name=name), encoding="utf-8")
    catalogs = project / "locales" / "ko" / "LC_MESSAGES"
    catalogs.mkdir(parents=True)
    (catalogs / "recipebook.po").write_text(TINY_CATALOG, encoding="utf-8")
    python = str(wheel_venv / "bin" / "python")
    out = project / "_build" / language
    _run(
        [python, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-D", f"language={language}", ".", str(out)],
        project,
    )
    page = (out / f"{name}.html").read_text(encoding="utf-8")
    assert 'class="rb-grid"' in page and "vllm serve" in page
    selection = {"en": "Feature selection", "ko": "작은 프로젝트의 기능 선택"}[language]  # the project's catalog
    assert f'aria-label="{selection}"' in page
    static = {path.name for path in (out / "_static").iterdir()}
    assert {"recipebook.css", "recipebook.js", "recipebook-files.js", "recipebook-search.js"} <= static


def test_pip_install_editable_gives_the_command_running_those_sources(tmp_path):
    sources = _sources(tmp_path / "checkout")
    python = _new_venv(tmp_path / "venv")
    _run(
        [
            str(python),
            *PIP,
            "install",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-e",
            str(sources),
        ],
        tmp_path,
    )
    where = _run([str(python), "-c", "import recipebook; print(recipebook.__file__)"], tmp_path).stdout
    assert where.strip() == str(sources / "_ext" / "recipebook" / "__init__.py")
    assert f"({RECIPE.stem} " in _validate_elsewhere(tmp_path / "venv", tmp_path)
