"""HTML judged by the Nu Html Checker (vnu.jar from npm, pinned in package-lock.json; the
Java runtime comes from Debian, see tools/system-packages).

Every HTML file of the built site (both languages, the root, and the generated listings)
in one run of the checker. The bar: no error. Warnings (info messages) are not counted.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter

import pytest

from judge_support import VNU_JAVA_OPTIONS, html_pages, node_tool


def test_no_html_errors_on_any_page(site):
    java = shutil.which("java")
    if java is None:
        pytest.fail("java is not installed; make test installs default-jre-headless (tools/system-packages)")
    jar = node_tool("vnu-jar/build/dist/vnu.jar")
    pages = html_pages(site)
    assert len(pages) > 18
    result = subprocess.run(
        [java, *VNU_JAVA_OPTIONS, "-jar", str(jar), "--errors-only", "--format", "json", "--exit-zero-always", *pages],
        capture_output=True,
        text=True,
        check=False,
        cwd=site,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stderr or result.stdout)  # vnu writes its report to stderr
    errors = [m for m in report["messages"] if m.get("type") in ("error", "non-document-error")]
    kinds = Counter(m["message"] for m in errors)
    detail = [
        f"{m.get('url', '?').split(str(site))[-1]}:{m.get('lastLine', '?')}: {m['message']}  [{m.get('extract', '').strip()[:120]}]"
        for m in errors[:20]
    ]
    assert not errors, f"{len(errors)} error(s) in {len(pages)} files; by kind: {dict(kinds)}\n" + "\n".join(detail)
