"""Two clean builds of the site give byte-identical output.

The site built once for the whole test session (conftest.site: both languages side by side,
each read by one process, under a random hash seed) is compared with a second clean build by
`make html` into a folder of another name, with the languages one after the other
(LANGUAGE_JOBS=1), each read by parallel workers (-j auto), under hash seed 2: neither the build
folder, nor the order of Python sets and dicts, nor the scheduling of parallel workers may leak
into a page. Every file
of the two outputs is compared byte for byte (HTML, JavaScript, CSS, text, and the
rest).
"""

from __future__ import annotations

import difflib
import os
import subprocess
from pathlib import Path

import pytest

from judge_support import ROOT

pytestmark = pytest.mark.slow


def _make_html(build: Path, seed: str, *options: str) -> Path:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    env["PYTHONHASHSEED"] = seed
    result = subprocess.run(
        ["make", "--no-print-directory", "html", f"BUILD={build}", *options],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return build / "html"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_two_clean_builds_are_byte_identical(tmp_path, site):
    """The second build takes the languages one after the other: running them side by
    side (what `make html` does) must not change a byte either."""
    first = _files(site)
    second = _files(_make_html(tmp_path / "build-two", "2", "LANGUAGE_JOBS=1"))
    assert sorted(first) == sorted(second), set(first) ^ set(second)
    differ = [name for name in first if first[name] != second[name]]
    detail = ""
    if differ:
        a = first[differ[0]].decode("utf-8", "replace").splitlines()
        b = second[differ[0]].decode("utf-8", "replace").splitlines()
        detail = "\n".join(list(difflib.unified_diff(a, b, "first", "second", n=1, lineterm=""))[:40])
    assert not differ, f"{len(differ)} of {len(first)} files differ: {differ[:20]}\n{detail}"
    assert any(name.endswith(".html") for name in first) and len(first) > 50
