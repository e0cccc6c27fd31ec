"""A Korean particle glued to a closing mark stays on its line (particles.py); the browser side
is test_typography.py, which finds no word broken on any page at 375 and 1280 px."""

from __future__ import annotations

import re

from recipebook_sphinx.page import particles


def _text(html: str) -> str:
    return re.sub(r"<[^>]*>", "", html)


def test_a_closing_mark_and_the_hangul_after_it_are_kept_together():
    body = "<p>링크는 이슈)를 엽니다. 5%의 여유, ‘값’은 [선택]과 「주의」를</p>"
    kept = particles.keep_glued(body)
    for glued in (")를", "%의", "’은", "]과", "」를"):
        assert f'<span class="rb-nb">{glued}</span>' in kept
    assert _text(kept) == _text(body)


def test_code_tags_scripts_and_english_stay_as_they_are():
    body = (
        '<p><code class="docutils literal"><span class="pre">f(x)는</span></code>)는 '
        '<a title="(a)를" href="#x">x</a></p><pre>echo (a)는</pre><script>let s = "(a)는";</script>'
        "<p>(this) is English (50%) and stays</p>"
    )
    kept = particles.keep_glued(body)
    assert kept.count('class="rb-nb"') == 1 and '</code><span class="rb-nb">)는</span> ' in kept
    assert 'title="(a)를"' in kept and "<pre>echo (a)는</pre>" in kept and '"(a)는";</script>' in kept
    assert "<p>(this) is English (50%) and stays</p>" in kept


def test_a_mark_without_hangul_after_it_or_hangul_after_a_space_is_left():
    body = "<p>이슈) 를 (a) 나 100% 다</p>"
    assert particles.keep_glued(body) == body
