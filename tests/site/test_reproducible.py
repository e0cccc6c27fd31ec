"""Two clean builds of the site give byte-identical output.

The site built once for the whole test session (conftest.site: both languages side by side,
each read by one process, under a random hash seed) is compared with a second clean build by
`make html` into a folder of another name, with the languages one after the other
(LANGUAGE_JOBS=1), each read by parallel workers (-j auto), under hash seed 2: the one the quick
bench makes (conftest.quick_bench, its step "shipped site: make html LANGUAGE_JOBS=1", run under
conftest.BENCH_SEED), so the suite builds the site once less. Neither the build folder, nor the
order of Python sets and dicts, nor the scheduling of parallel workers may leak into a page.
Every file of the two outputs is compared byte for byte (HTML, JavaScript, CSS, text, and the
rest). (Not marked slow: it builds nothing of its own, so make test's workers take it late, when
the bench has long run.)
"""

from __future__ import annotations

import difflib
from pathlib import Path


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_two_clean_builds_are_byte_identical(site, quick_bench):
    """The second build takes the languages one after the other: running them side by
    side (what `make html` does) must not change a byte either."""
    first = _files(site)
    second = _files(quick_bench / "work" / "sequential" / "html")
    assert sorted(first) == sorted(second), set(first) ^ set(second)
    differ = [name for name in first if first[name] != second[name]]
    detail = ""
    if differ:
        a = first[differ[0]].decode("utf-8", "replace").splitlines()
        b = second[differ[0]].decode("utf-8", "replace").splitlines()
        detail = "\n".join(list(difflib.unified_diff(a, b, "first", "second", n=1, lineterm=""))[:40])
    assert not differ, f"{len(differ)} of {len(first)} files differ: {differ[:20]}\n{detail}"
    assert any(name.endswith(".html") for name in first) and len(first) > 50
