"""HTML judged by the Nu Html Checker (vnu.jar from npm, pinned in package-lock.json; the
Java runtime comes from Debian, see tools/system-packages).

Every HTML file of the built site (both languages, the root, and the generated listings)
in one run of the checker (judge_support.vnu), beside a page of known errors that the same run
must report. The bar: no error on the site. Warnings (info messages) are not counted.
"""

from __future__ import annotations

from collections import Counter

from judge_support import html_pages, vnu

# A page with two errors the checker must report (a duplicate id, an element where it may not
# be), judged in the same run as the site: the run that passes the site is shown able to fail.
BROKEN = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>broken</title></head>
<body><p id="twice">one</p><p id="twice">two</p><ul><p>not a list item</p></ul></body></html>
"""


def test_no_html_errors_on_any_page(site, tmp_path):
    pages = html_pages(site)
    assert len(pages) > 18
    broken = tmp_path / "broken.html"
    broken.write_text(BROKEN, encoding="utf-8")
    found = vnu([*pages, str(broken)], site)
    planted = [m for m in found if m.get("url", "").endswith("/broken.html")]
    assert {m["message"].split("\u201c")[0].strip() for m in planted} >= {"Duplicate ID", "Element"}, planted
    errors = [m for m in found if m not in planted]
    kinds = Counter(m["message"] for m in errors)
    detail = [
        f"{m.get('url', '?').split(str(site))[-1]}:{m.get('lastLine', '?')}: {m['message']}  [{m.get('extract', '').strip()[:120]}]"
        for m in errors[:20]
    ]
    assert not errors, f"{len(errors)} error(s) in {len(pages)} files; by kind: {dict(kinds)}\n" + "\n".join(detail)
