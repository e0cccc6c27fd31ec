"""Shell judged by bash itself (`bash -n`) and by shellcheck, on everything the site asks a
reader to paste into a shell:

- every command of every offered selection of every recipe: each role and each rank;
- every router step;
- every bash/sh code block of every page of both languages (install, client, guides).

Identical texts are judged once. shellcheck runs once over all files, as bash
(`-s bash`), with every optional check enabled (`--enable=all`) and no exclusion: none
has been needed. An exclusion, if one ever is, goes into EXCLUDE with its reason, and into
the list of judges (docs/develop/testing.md).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from judge_support import LANGUAGES, commands_of, engine_matrix, html_pages, router_of

# shellcheck codes left out, each with its reason: none.
EXCLUDE: dict[str, str] = {}
SHELL_BLOCKS = "div.highlight-bash pre, div.highlight-sh pre, div.highlight-shell pre"


@pytest.fixture(scope="module")
def scripts(site: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[Path, str]:
    """One file per distinct text, and where it comes from."""
    folder = tmp_path_factory.mktemp("shell")
    texts: dict[str, str] = {}
    for page in sorted((site / "en" / "recipes").glob("*.html")):
        for entry in engine_matrix(page.stem):
            where = f"{page.stem} {entry['strategy']}/{entry['target']} {entry['selection']}"
            for i, text in enumerate(commands_of(entry)):
                texts.setdefault(text, f"{where} command {i + 1}")
            for i, text in enumerate(router_of(entry)):
                texts.setdefault(text, f"{where} router step {i + 1}")
    for rel in html_pages(site):
        if not rel.startswith(LANGUAGES):
            continue
        soup = BeautifulSoup((site / rel).read_text(encoding="utf-8"), "html.parser")
        for i, pre in enumerate(soup.select(SHELL_BLOCKS)):
            texts.setdefault(pre.get_text(), f"{rel} code block {i + 1}")
    files = {}
    for n, (text, where) in enumerate(texts.items()):
        path = folder / f"{n:05d}.sh"
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        files[path] = where
    return files


def test_the_texts_are_many(scripts):
    assert len(scripts) > 500


def test_bash_parses_every_command(scripts):
    # one bash runs the checks; each file gets its own `bash -n`, so one error cannot hide another
    loop = 'for f in "$@"; do bash -n "$f" 2>&1 || echo "FAILED $f"; done'
    result = subprocess.run(["bash", "-c", loop, "bash", *map(str, scripts)], capture_output=True, text=True)
    failed = [line.split(" ", 1)[1] for line in result.stdout.splitlines() if line.startswith("FAILED ")]
    detail = [f"{scripts[Path(f)]}" for f in failed[:10]]
    assert result.returncode == 0 and not failed, result.stdout[:3000] + "\n" + "\n".join(detail)


def test_shellcheck_finds_nothing(scripts):
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.fail("shellcheck is not installed; make test installs it (tools/system-packages)")
    options = ["-s", "bash", "--enable=all", "-f", "json1"]
    if EXCLUDE:
        options += ["-e", ",".join(EXCLUDE)]
    result = subprocess.run([shellcheck, *options, *map(str, scripts)], capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    comments = json.loads(result.stdout)["comments"]
    detail = [
        f"{scripts[Path(c['file'])]}: line {c['line']}: SC{c['code']} {c['level']}: {c['message']}"
        for c in comments[:20]
    ]
    assert not comments, f"{len(comments)} finding(s):\n" + "\n".join(detail)
