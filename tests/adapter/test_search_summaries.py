"""The summary files (search/summaries.py): the text a result's summary is cut from, bounded.

A recipe page of many strategies and targets holds megabytes of commands; its summary file
keeps the page as it opens (the first tab of each tab set, a closed <details>'s summary line),
each command cut short, and never more than ``summaries.LIMIT`` bytes of text, so a query that
fetches ten summaries downloads well under a megabyte whatever the pages hold.
"""

from __future__ import annotations

import html

from hypothesis import given, settings
from hypothesis import strategies as st

from recipebook_sphinx.search import summaries


def _tabs(names: list[str], body: str) -> str:
    """A sphinx-design tab set as the site writes it: radio, label, content per tab, the first checked."""
    parts = []
    for n, name in enumerate(names):
        checked = ' checked="checked"' if n == 0 else ""
        parts.append(
            f'<input{checked} id="t-{name}" name="set" type="radio">'
            f'<label class="sd-tab-label" for="t-{name}">{name}</label>'
            f'<div class="sd-tab-content docutils">{body.format(name=name)}'
            # a feature form's radios inside a tab do not open or close the next tab
            f'<input type="radio" name="f-{name}" value="a" checked><input type="radio" name="f-{name}" value="b">'
            "</div>"
        )
    return '<div class="sd-tab-set docutils">' + "".join(parts) + "</div>"


def test_only_the_tab_each_set_opens_with_is_read():
    page = _tabs(["Alpha", "Beta", "Gamma"], "<p>text of {name}</p><pre>vllm serve {name}</pre>")
    text = summaries.page_text(page)["text"]
    assert "text of Alpha" in text and "vllm serve Alpha" in text
    assert "text of Beta" not in text and "vllm serve Gamma" not in text
    assert all(name in text for name in ("Alpha", "Beta", "Gamma"))  # every tab's label stays


def test_nested_tab_sets_keep_their_own_first_tab():
    inner = _tabs(["H200", "MI300X"], "<p>target {name}</p>").replace("{", "{{").replace("}", "}}")
    page = _tabs(["Tensor", "Expert"], "<p>strategy {name}</p>" + inner)
    text = summaries.page_text(page)["text"]
    assert "strategy Tensor" in text and "target H200" in text
    assert "target MI300X" not in text and "strategy Expert" not in text


def test_a_closed_details_keeps_its_summary_line_and_an_open_one_everything():
    page = (
        "<details><summary>Kubernetes manifests</summary><pre>kind: Deployment</pre><p>closed note</p></details>"
        "<details open><summary>Shown</summary><p>open note</p></details>"
    )
    text = summaries.page_text(page)["text"]
    assert "Kubernetes manifests" in text and "Shown" in text and "open note" in text
    assert "Deployment" not in text and "closed note" not in text


def test_a_long_command_is_cut_and_marked_as_code():
    page = "<p>before</p><pre>" + "vllm serve --flag \\\n" * 1000 + "</pre><p>after</p>"
    found = summaries.page_text(page)
    ((start, end),) = found["code"]
    assert end - start <= summaries.CODE_LIMIT
    assert found["text"].endswith("after")


BLOCK = st.text(alphabet=st.sampled_from([*"abc XYZ 텐서병렬설정 .,:", "\u00b7"]), min_size=0, max_size=3000)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["p", "pre", "h2", "li", "section"]), BLOCK), max_size=60))
def test_the_text_never_passes_the_bound_and_its_ranges_stay_inside(blocks):
    page = "".join(
        f'<section id="s{n}"><h2>{html.escape(text)}</h2></section>'
        if tag == "section"
        else f"<{tag}>{html.escape(text)}</{tag}>"
        for n, (tag, text) in enumerate(blocks)
    )
    found = summaries.page_text(page)
    text = found["text"]
    assert len(text.encode()) <= summaries.LIMIT
    for start, end in found["code"]:
        assert 0 <= start < end <= len(text)
    for start, end in found["sections"].values():
        assert 0 <= start <= end <= len(text)


def test_a_page_past_the_bound_keeps_its_opening():
    page = "".join(f"<p>문단 {n} 텐서 병렬 설정을 바꾸는 방법입니다.</p>" for n in range(20_000))
    text = summaries.page_text(page)["text"]
    assert text.startswith("문단 0 ")
    assert summaries.LIMIT - 200 < len(text.encode()) <= summaries.LIMIT


def test_the_tabs_a_page_does_not_open_with_are_emptied_before_reading_and_the_text_is_the_same():
    inner = _tabs(["H200", "MI300X"], "<p>target {name}</p><pre>vllm serve {name}</pre>")
    page = _tabs(["Tensor", "Expert"], "<p>strategy {name}</p>" + inner.replace("{", "{{").replace("}", "}}"))
    emptied = summaries.opening_tabs_only(page)
    assert "strategy Tensor" in emptied and "target H200" in emptied  # the tabs it opens with
    assert "strategy Expert" not in emptied and "target MI300X" not in emptied  # the others: emptied
    assert summaries.page_text(page) == summaries.read(page)


def test_a_hidden_tab_with_text_that_is_not_markup_is_left_to_the_reader():
    # a "<div" in a script, a style or a comment is not a tag: counting it would cut past the tab
    for raw in ("<script>let x = '<div>';</script>", "<style>/* <div */</style>", "<!-- <div -->"):
        page = _tabs(["Alpha", "Beta"], f"<p>text of {{name}}</p>{raw}") + "<p>after the tabs</p>"
        assert "text of Beta" in summaries.opening_tabs_only(page)
        assert summaries.page_text(page) == summaries.read(page)
        assert summaries.page_text(page)["text"].endswith("after the tabs")
    unclosed = '<input type="radio"><div class="sd-tab-content docutils"><p>never closed'
    assert summaries.opening_tabs_only(unclosed) == unclosed


def test_the_flags_of_the_tabs_not_opened_follow_the_text_once_each_as_code():
    """A query found in a tab the page does not open with (the index holds every word) shows its
    words in the summary: the flags those tabs hold and the opening text does not, each once."""
    body = "<p>strategy {name}</p><pre>vllm serve m --tensor-parallel-size 8 --{name}-only-flag 1</pre>"
    page = _tabs(["alpha", "beta", "gamma"], body) + "<p>after the tabs</p><pre>vllm serve m --beta-only-flag 2</pre>"
    found = summaries.page_text(page)
    text = found["text"]
    head, _, tail = text.rpartition(" \u00b7 ")
    assert tail == "--gamma-only-flag"  # beta's stands in the text the page opens with, after the tabs
    assert text.count("--tensor-parallel-size") == 1 and "after the tabs" in head
    assert found["code"][-1] == found["digest"] == [len(text) - len(tail), len(text)]


def test_the_digest_keeps_whole_flags_and_the_bound():
    many = "".join(f" --flag-number-{n}" for n in range(2000))
    page = "".join(f"<p>문단 {n} 텐서 병렬 설정을 바꾸는 방법입니다.</p>" for n in range(20_000))
    page = _tabs(["alpha", "beta"], "<pre>vllm serve {name}" + many.replace("flag", "{name}") + "</pre>") + page
    found = summaries.page_text(page)
    text = found["text"]
    assert len(text.encode()) <= summaries.LIMIT
    start, end = found["code"][-1]
    flags = text[start:end].split(" ")
    assert end == len(text) and len(text[start:end]) <= summaries.DIGEST_LIMIT
    assert flags[0] == "--beta-number-0" and all(summaries.FLAG.fullmatch(f) for f in flags)
    assert "--alpha-number-0" not in text[start:]  # the opening tab's flags are in the text itself
