"""Tag handling for the engine: translatable and kept runs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.service.engine.base import MarkupOptions
from pipeline.service.engine.markup import pieces, visible_text

XML = MarkupOptions("xml", frozenset({"x", "keep"}))
HTML = MarkupOptions("html")


def split(text: str, options: MarkupOptions | None) -> list[tuple[str, bool]]:
    return [(p.text, p.translatable) for p in pieces(text, options)]


def test_plain_text_is_one_translatable_run() -> None:
    assert split("a <b> c", None) == [("a <b> c", True)]


def test_xml_tokens_are_kept_and_text_translated() -> None:
    assert split("Hi <x id=\"1\"/> &amp; <b a='>'>you</b>", XML) == [
        ("Hi ", True),
        ('<x id="1"/>', False),
        (" ", True),
        ("&amp;", False),
        (" ", True),
        ("<b a='>'>", False),
        ("you", True),
        ("</b>", False),
    ]


def test_ignored_element_content_is_kept_including_nested_same_name() -> None:
    assert split("a<keep>b<keep>c</keep>d</keep>e", XML) == [
        ("a", True),
        ("<keep>", False),
        ("b", False),
        ("<keep>", False),
        ("c", False),
        ("</keep>", False),
        ("d", False),
        ("</keep>", False),
        ("e", True),
    ]


def test_xml_names_are_case_sensitive_html_names_are_not() -> None:
    assert visible_text("<KEEP>x</KEEP>y", XML) == "xy"
    assert visible_text("<CODE>x</CODE>y", HTML) == "y"


def test_html_always_ignored_and_translate_no() -> None:
    text = "<p>A<code>B</code><script>if(a<b)c()</script><style>p{}</style><i translate='no'>C</i>D</p>"
    assert visible_text(text, HTML) == "AD"


def test_html_void_elements_do_not_open_an_ignored_region() -> None:
    options = MarkupOptions("html", frozenset({"img"}))
    assert visible_text('<img src="a.png">after', options) == "after"
    assert visible_text("<br>after", HTML) == "after"


def test_comments_cdata_and_declarations_are_kept() -> None:
    text = "<!DOCTYPE x><!-- c --><![CDATA[raw <b>]]><?pi x?>text"
    assert split(text, XML)[-1] == ("text", True)
    assert visible_text(text, XML) == "text"


def test_lone_angle_bracket_is_text() -> None:
    assert visible_text("a < b and c > d", XML) == "a < b and c > d"


PARTS = [*"ab <>/=\"'&;#x!-[]?", "<x/>", "<keep>", "</keep>", "&amp;", "<code>", "</code>"]


@given(st.lists(st.sampled_from(PARTS)).map("".join))
def test_pieces_join_back_to_the_input(text: str) -> None:
    for options in (None, XML, HTML):
        assert "".join(p.text for p in pieces(text, options)) == text
