"""Code blocks keep short hyphenated tokens whole (codewrap.py); the browser side is in
test_typography.py."""

from __future__ import annotations

import html

from recipebook_sphinx.page import codewrap


def test_only_text_is_touched_and_tags_stay_as_they_are():
    inner = '<span class="rb-line h-0-1">--max-num-seqs 8</span> <span class="s2">&quot;vllm-rbln&quot;</span>'
    kept = codewrap.keep_hyphenated(inner)
    assert '<span class="rb-line h-0-1">' in kept  # an attribute's hyphen is not text
    assert '<span class="rb-nb">--max-num-seqs</span> 8' in kept
    assert '<span class="rb-nb">&quot;vllm-rbln&quot;</span>' in kept
    assert html.unescape(codewrap._TAG.sub("", kept)) == html.unescape(codewrap._TAG.sub("", inner))


def test_a_run_longer_than_a_narrow_block_may_still_break():
    long_run = "a-" * codewrap.KEEP_UP_TO
    assert codewrap.keep_hyphenated(long_run) == long_run
    assert codewrap.keep_hyphenated("-- x - y") == "-- x - y"  # a lone hyphen is no token


def test_only_pre_blocks_of_a_body_change():
    body = "<p>mixture-of-experts</p><pre>rebel-compiler</pre><p>a-b</p>"
    assert codewrap.in_pre_blocks(body) == (
        '<p>mixture-of-experts</p><pre><span class="rb-nb">rebel-compiler</span></pre><p>a-b</p>'
    )
