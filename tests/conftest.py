"""Shared fixtures: Sphinx's test app, the repository paths, a built site."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import gc
import http.server
import io
import json
import os
import runpy
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sphinx.locale
from sphinx.cmd.build import build_main

from browser_support import chromium_env as chromium_env_in

pytest_plugins = ("sphinx.testing.fixtures",)

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "recipes"
ROOTS = Path(__file__).resolve().parent / "roots"
CONF = runpy.run_path(str(ROOT / "conf.py"))  # the site's configuration
LANGUAGES = tuple(CONF["recipebook_languages"])  # the site's languages


# The order make test's workers take the test files in (pytest-xdist, --dist loadfile, with
# --no-loadscope-reorder): the longest first, so the last file a worker takes is a short one and
# neither worker waits for the other at the end. A file's weight is what its tests need: the
# hundred-recipe portal (built once, then opened in Chromium), Chromium, a site build of their own
# (marked slow), or none of these. Only the first file that needs the portal goes first: its worker
# builds the portal while the other starts on Chromium files (had both begun with the portal, one
# would only wait); the other files that need it come with the Chromium ones. Within a weight,
# files keep their collected order.
HEAVIEST_FIRST = ("portal_project", "browser", "slow")


def pytest_configure(config: pytest.Config) -> None:
    """Each pytest process (the controller and every make test worker) collects cycles as seldom as
    a site build (conf.py's GC_THRESHOLDS): the suite makes and drops millions of small objects
    too (recipes checked and expanded again and again, pages parsed), and nothing in it waits for
    garbage to be collected. Measured on the engine files (test_rules, test_kubernetes,
    test_properties, test_import): about 5% less processor time, alternating runs."""
    gc.set_threshold(*CONF["GC_THRESHOLDS"])


def _weight(item: pytest.Item) -> int:
    for rank, need in enumerate(HEAVIEST_FIRST):
        if need in item.fixturenames or item.get_closest_marker(need):
            return rank
    return len(HEAVIEST_FIRST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that drive Chromium are marked browser; files are ordered heaviest first (see
    HEAVIEST_FIRST)."""
    for item in items:
        if "browser" in item.fixturenames and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)
    weight: dict[str, int] = {}
    for item in items:
        path = item.nodeid.split("::")[0]
        weight[path] = min(weight.get(path, len(HEAVIEST_FIRST)), _weight(item))
    for later in [path for path, rank in weight.items() if rank == 0][1:]:
        weight[later] = 1
    items.sort(key=lambda item: weight[item.nodeid.split("::")[0]])


@pytest.fixture(scope="module", autouse=True)
def _no_catalogs_across_files() -> Iterator[None]:
    """Each test file starts and ends without the message catalogs an earlier build loaded: Sphinx
    keeps them for the rest of the process (sphinx.locale.translators; only sphinx.testing's apps
    drop them when cleaned up), so on a make test worker an English build in one file read the
    Korean a build in another file left (test_snapshots after test_sidebar's Korean build)."""
    sphinx.locale.translators.clear()
    yield
    sphinx.locale.translators.clear()


@pytest.fixture(scope="session")
def rootdir() -> Path:
    """Where sphinx.testing finds the test roots (tests/roots/test-*)."""
    return ROOTS


def _site_command(out: Path, language: str, *extra: str, project: Path = ROOT) -> list[str]:
    return [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-c",
        str(project),
        "-b",
        "html",
        "-d",
        str(out / "doctrees" / language),
        "-D",
        f"language={language}",
        *extra,
        str(project / "source"),
        str(out / "html" / language),
    ]


def _site_env(project: Path = ROOT) -> dict[str, str]:
    return {"PYTHONPATH": str(project / "_ext"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


_SITE_ENV = _site_env()


def build_site(out: Path, language: str, *extra: str, project: Path = ROOT) -> subprocess.CompletedProcess:
    """Build the site of a project (the real one unless given) in one language into out, as
    `make html` does (warnings are errors)."""
    command = _site_command(out, language, *extra, project=project)
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=project, env=_site_env(project))


def sphinx_here(argv: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """sphinx-build ARGV from ``cwd`` by its main in this process instead of a new one (no Python
    start-up, no imports again): its exit status and what it printed. For a build a test reads,
    not one whose process it checks, and only of an extension this process imported (the real
    project's; a copy's own _ext is not it). Main builds in Sphinx's own namespace for docutils'
    directives, roles and nodes (gone after it); the message catalogs it loaded, which Sphinx
    keeps for the rest of the process, are dropped after it, as sphinx.testing's apps drop theirs."""
    said, warned = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(said), contextlib.redirect_stderr(warned):
        try:
            status = build_main(argv)
        finally:
            sphinx.locale.translators.clear()
    return subprocess.CompletedProcess(["sphinx-build", *argv], status, said.getvalue(), warned.getvalue())


def build_site_here(out: Path, language: str, *extra: str) -> subprocess.CompletedProcess:
    """build_site's build of the real project, by sphinx-build's main in this process
    (sphinx_here): its pages are byte for byte a process's."""
    return sphinx_here(_site_command(out, language, *extra)[3:])  # after python -m sphinx


def build_languages(out: Path, languages: tuple[str, ...] = ("en", "ko"), *extra: str) -> None:
    """Build several languages side by side, as `make html` does; fails on any warning."""
    running = [
        subprocess.Popen(
            _site_command(out, language, *extra),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=_SITE_ENV,
        )
        for language in languages
    ]
    for language, process in zip(languages, running, strict=True):
        _stdout, stderr = process.communicate()
        assert process.returncode == 0, f"{language}: {stderr}"


def make_html(tmp_path: Path, recipes: Path, *extra: str) -> subprocess.CompletedProcess:
    """`make html` of the test-recipes root (copied once into tmp_path/src) with the recipes of a
    folder, into tmp_path/build, as a reader's checkout runs it (extra: more make variables)."""
    source = tmp_path / "src"
    if not source.exists():
        shutil.copytree(ROOTS / "test-recipes", source)
    return subprocess.run(
        [
            "make",
            "--no-print-directory",
            "html",
            f"BUILD={tmp_path / 'build'}",
            f"SOURCEDIR={source}",
            f"CONFDIR={source}",
            f"RECIPES={recipes}",
            f"SPHINXOPTS=-q -D recipebook_dir={recipes}",
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        check=False,
    )


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """A folder that `build` fills once per test session, shared by make test's workers: the
    first worker to ask builds it (under a lock on the session's temporary folder, which every
    pytest-xdist worker's own folder sits in), the others wait for it and read it."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder, done = shared / name, shared / f"{name}.done"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole site built once in both languages (side by side) for the whole session; returns
    the html folder."""
    return built_once(tmp_path_factory, "site", lambda out: build_languages(out, LANGUAGES)) / "html"


# The hash seed of the quick bench's processes: its make html LANGUAGE_JOBS=1 build of the site is
# test_reproducible's second clean build, read under another seed than the session's site.
BENCH_SEED = "2"


def _run_quick_bench(folder: Path, portal: Path) -> None:
    command = [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--keep", str(folder / "work")]
    command += ["--portal-built", str(portal)]
    command += ["--json", str(folder / "bench.json"), "--markdown", str(folder / "bench.md")]
    env = {**os.environ, "PYTHONHASHSEED": BENCH_SEED}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "Traceback" not in result.stderr, result.stderr[-4000:]


@pytest.fixture(scope="session")
def quick_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One quick run of the bench (bench/run.py --quick, as make bench runs it) for the whole
    session, its work folder kept: bench.json (its figures), bench.md (its table) and work/ (what
    each step built: the site by make html, one language after the other, in work/sequential; the
    quick run builds it once). Its portal of the shipped kind is the session's portal (the
    suite's, portal_project, built first by make test's workers; --portal-built: its figures are
    those of that make html), which it does not build again."""
    portal = _portal(tmp_path_factory)
    return built_once(tmp_path_factory, "bench", lambda folder: _run_quick_bench(folder, portal))


# the catalogue's and search's portal: real recipes of every shape and generated ones (bench/portal.py)
PORTAL_COUNT = 100


def _build_portal(folder: Path) -> None:
    """The suite's portal written and built with `make html` in folder/project, measured as the
    bench measures a step (bench/run.py's measured: its seconds and the peak of its processes,
    written to folder/build.json): the quick bench reads them as its portal's (--portal-built)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import portal
    import run as bench

    project = folder / "project"
    portal.suite(project, PORTAL_COUNT)
    step = "the suite's portal: make html"
    try:
        command = ["make", "-s", "html", "SPHINXOPTS=", f"BUILD={project / '_build'}"]
        seconds, _errors = bench.measured(command, step, cwd=project, env=dict(os.environ))
    except SystemExit as failed:  # the command and the end of its errors
        pytest.fail(str(failed))
    figures = {"seconds": seconds, "peak": bench.PEAKS[step]}
    (folder / "build.json").write_text(json.dumps(figures) + "\n", encoding="utf-8")


def _portal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the suite's portal (built once per session: built_once)."""
    return built_once(tmp_path_factory, "portal", _build_portal)


@pytest.fixture(scope="session")
def portal_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project copy with the suite's portal (bench/portal.py's suite: real recipes of every shape
    imported from vLLM Recipes, tests/data/portal-recipes, and generated ones), built in both
    languages once for the whole session (its html under _build/html). The quick bench shares it:
    its portal figures are this build's (quick_bench)."""
    return _portal(tmp_path_factory) / "project"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def served(tree: Path) -> Iterator[str]:
    """A folder served over HTTP on a loopback port (for the tests and the search report); yields its base URL."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(tree)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()


@pytest.fixture(scope="session")
def server(site: Path):
    """The built site served over HTTP on a loopback port; yields its base URL."""
    with served(site) as base:
        yield base


# Debian's build of Chromium's headless shell (package chromium-headless-shell): the same Blink
# as the chromium package without the browser's window layers, which is what Playwright itself
# runs for headless Chromium. A walk of every selection costs it about half the processor time.
CHROMIUM = shutil.which("chromium-headless-shell") or "/usr/bin/chromium-headless-shell"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment every Chromium of the tests runs in: the fonts the project installs and no
    other (browser_support.chromium_env)."""
    return chromium_env_in(tmp_path_factory.mktemp("fonts"))


@pytest.fixture(scope="session")
def browser(chromium_env: dict[str, str]):
    """Debian's Chromium (its headless shell) driven by Playwright, with the tests' own fonts;
    make test installs it (tools/system-packages), so it is never skipped."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium's headless shell is not installed at {CHROMIUM}; run make test (tools/system-packages) "
            "or apt-get install chromium-headless-shell"
        )
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, env=chromium_env)
        yield instance
        instance.close()
