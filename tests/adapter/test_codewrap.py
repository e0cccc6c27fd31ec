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


def test_a_flag_in_prose_is_kept_whole_and_only_prose_is_touched():
    body = (
        '<p>a larger --pipeline-parallel-size, or --data-parallel-size를 키웁니다. <a href="#--x" title="--y">--z</a></p>'
        "<p><code><span class=pre>--max-model-len</span></code> <pre>--tp 2</pre><script>f('--a')</script>"
        "<textarea>--b</textarea><!-- --c --> a--b, ---d, -- e</p>"
    )
    kept = codewrap.keep_flags(body)
    for flag in ("--pipeline-parallel-size", "--data-parallel-size를", "--z"):
        assert f'<span class="rb-nb">{flag}</span>' in kept
    assert kept.count('class="rb-nb"') == 3  # not in attributes, code, pre, scripts, textareas, comments
    assert codewrap._TAG.sub("", kept) == codewrap._TAG.sub("", body)  # what is read and copied is unchanged


def test_a_flag_too_long_for_a_phone_keeps_only_its_first_word_with_the_dashes():
    flag = "--" + "-".join(["word"] * 10)
    kept = codewrap.keep_flags(f"<p>set {flag}.</p>")
    assert kept == f'<p>set <span class="rb-nb">--word</span>-{flag[len("--word-") :]}.</p>'


def test_a_short_option_in_prose_is_kept_whole_and_a_hyphen_in_a_word_is_not_one():
    body = "<p>python -m recipebook, -D 옵션, -m을 (-m); non-English, a - b, -1, x-y, ---d, a--b</p>"
    kept = codewrap.keep_flags(body)
    assert kept.count('class="rb-nb"') == 4
    for flag in ("-m", "-D", "-m을"):
        assert f'<span class="rb-nb">{flag}</span>' in kept
    assert codewrap._TAG.sub("", kept) == codewrap._TAG.sub("", body)


def test_a_short_option_too_long_for_a_phone_keeps_only_its_first_word_with_the_dash():
    flag = "-" + "-".join(["word"] * 10)
    kept = codewrap.keep_flags(f"<p>set {flag}.</p>")
    assert kept == f'<p>set <span class="rb-nb">-word</span>-{flag[len("-word-") :]}.</p>'
