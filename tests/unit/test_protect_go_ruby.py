"""Directives of Go's and Ruby's formats that protection left to the engine as text.

Go's fmt names an argument by its index, ``%[2]d``, ``%6.2[1]f`` (catalogs of gotext and
leonelquinteros/gotext): the ``d`` went to the engine and came back as a Cyrillic ``д``, written,
since no checker reads ``go-format`` (msgfmt 0.21 does not know it). Ruby's named directive with a
conversion, ``%<count>d`` (``ruby-format``, the form RuboCop asks for), was cut around a ``<count>``
taken for a markup tag: its ``d`` was translated and the gate refused every answer.
"""

from __future__ import annotations

import pytest

from pipeline.placeholders.protect import protect, restore


@pytest.mark.parametrize(
    ("text", "flags", "sent"),
    [
        ("Got %[2]d of %[1]d", ("go-format",), 'Got <x id="1"/> of <x id="2"/>'),
        ("Got %[2]d of %[1]d", (), 'Got <x id="1"/> of <x id="2"/>'),
        ("Total %6.2[1]f", ("go-format",), 'Total <x id="1"/>'),
        ("%<count>d files", ("ruby-format",), '<x id="1"/> files'),
        ("%{name} has %<n>.2f points", ("ruby-format",), '<x id="1"/> has <x id="2"/> points'),
    ],
)
def test_the_whole_directive_is_one_placeholder(text: str, flags: tuple[str, ...], sent: str) -> None:
    protected = protect(text, flags)
    assert protected.text == sent
    assert restore(protected.text, protected) == text


def test_a_bracketed_number_in_prose_stays_text() -> None:
    assert protect("Footnote [1] and 50% [2]").text == "Footnote [1] and 50% [2]"


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        # Ruby's grammar reads "%<br/>%" as a directive whose conversion is the next '%': taken whole, the
        # tag went with it and so did the '%' of the directive after it, whose "s" went to the engine as text.
        ("50%<br/>%s", '50%<x id="1"/><x id="2"/>'),
        ("Done: 100%<br/>%{count} left", 'Done: 100%<x id="1"/><x id="2"/> left'),
        ("%<PRIuMAX>%%", '<x id="1"/><x id="2"/>'),  # C's inttypes directive, whole
    ],
)
def test_a_tag_before_a_percent_sign_is_markup_not_a_directive_name(text: str, sent: str) -> None:
    protected = protect(text, ("ruby-format",))
    assert protected.text == sent
    assert restore(protected.text, protected) == text


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Hello %{<b>} x", ["%{<b>}"]),
        ("a %{<b>name</b>} b", ["%{<b>name</b>}"]),
        ("%{a b} and %{x}", ["%{a b}", "%{x}"]),
    ],
)
def test_a_ruby_named_reference_is_protected_up_to_its_brace_whatever_it_holds(text: str, names: list[str]) -> None:
    # Ruby's format and msgfmt's ruby-format read a %{...} name up to the closing brace, tags and spaces
    # included ("%{<b>}" takes the hash's "<b>"). It was protected as the tag alone: "%{" and "}" went to
    # the engine as text, and an answer writing "%{ <b> }" names another key (KeyError in Ruby).
    protected = protect(text, ("ruby-format",))
    assert [p.text for p in protected.placeholders] == names
    assert restore(protected.text, protected) == text
