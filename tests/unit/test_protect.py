"""Placeholder protection: what becomes a tag, and what restore() refuses."""

from __future__ import annotations

import pytest

from pipeline.placeholders.protect import PlaceholderMismatch, protect, restore
from pipeline.segments import Protected


def texts(protected: Protected) -> list[str]:
    return [ph.text for ph in protected.placeholders]


@pytest.mark.parametrize(
    ("source", "flags", "expected"),
    [
        ("Hello %(name)s, %d new", ["python-format"], ["%(name)s", "%d"]),
        ("100%% done", ["python-format"], ["%%"]),
        ("%1$s wrote %2$d lines", ["c-format"], ["%1$s", "%2$d"]),
        (
            "{count} files in {0}: {size:.1f} MB, {name!r}",
            ["python-brace-format"],
            ["{count}", "{0}", "{size:.1f}", "{name!r}"],
        ),
        ("Use {{braces}}", ["python-brace-format"], ["{{", "}}"]),
        ('Click <a href="{url}">here</a>&nbsp;now', [], ['<a href="{url}">', "</a>", "&nbsp;"]),
        (
            "See https://example.com/docs. Or write to help@example.org",
            [],
            ["https://example.com/docs", "help@example.org"],
        ),
        ("Hi {{ user.name }} and %{count} and ${HOME}", [], ["{{ user.name }}", "%{count}", "${HOME}"]),
        ("Line one\nline two\tend", [], ["\n", "\t"]),
        ("Hello %name%, %size% MB of %user.quota% left; 50% off", [], ["%name%", "%size%", "%user.quota%"]),
        # Bracket markup alone in a text, with no other character a placeholder starts with.
        ("Use [b]bold[/b] here", [], ["[b]", "[/b]"]),
        (
            "{n, plural, one {# file} other {# files}}",
            [],
            ["{n, plural, ", "one {", "#", "} ", "other {", "#", "}", "}"],
        ),
    ],
)
def test_placeholders_found(source: str, flags: list[str], expected: list[str]) -> None:
    assert texts(protect(source, flags)) == expected


def test_without_a_flag_a_bare_percent_is_text() -> None:
    assert texts(protect("50% discount", [])) == []
    assert texts(protect("50% discount", ["python-format"])) == ["% d"]


def test_no_python_format_flag_switches_the_grammar_off() -> None:
    assert texts(protect("%(a)s", ["python-format", "no-python-format"])) == ["%(a)s"]  # safe detection still
    assert texts(protect("% d", ["python-format", "no-python-format"])) == []


def test_protected_text_is_xml_with_escaped_text() -> None:
    p = protect("a < b & %s", ["python-format"])
    assert p.text == 'a &lt; b &amp; <x id="1"/>'


def test_edge_whitespace_is_set_aside_and_restored() -> None:
    p = protect("  Name:\n", [])
    assert (p.prefix, p.text, p.suffix) == ("  ", "Name:", "\n")
    assert restore("Nom :", p) == "  Nom :\n"


def test_restore_accepts_moved_named_placeholders() -> None:
    p = protect("%(a)s then %(b)s", ["python-format"])
    assert restore('<x id="2"/> dann <x id="1"/>', p) == "%(b)s dann %(a)s"


@pytest.mark.parametrize(
    ("source", "flags", "translated", "reason"),
    [
        ("%(a)s x", ["python-format"], "y", "missing"),
        ("%(a)s x", ["python-format"], '<x id="1"/> <x id="1"/> y', "appears 2 times"),
        ("%(a)s x", ["python-format"], '<x id="1"/> <x id="7"/>', "unknown placeholder"),
        ("%s of %d", ["python-format"], '<x id="2"/> von <x id="1"/>', "reordered"),
        ("<b>bold</b> text", [], '<x id="2"/>fett<x id="1"/> Text', "balanced"),
        ("plain", [], "<b>plain</b>", "unexpected markup"),
    ],
)
def test_restore_refuses_damage(source: str, flags: list[str], translated: str, reason: str) -> None:
    with pytest.raises(PlaceholderMismatch, match=reason):
        restore(translated, protect(source, flags))


def test_a_placeholder_moved_to_the_edge_survives() -> None:
    p = protect("a\nb", [])
    assert restore('<x id="1"/>b a', p) == "\nb a"


def test_only_placeholders_needs_no_translation() -> None:
    assert not protect("%(name)s", ["python-format"]).needs_translation
    assert not protect("100%%", ["python-format"]).needs_translation
    assert not protect("https://example.com", []).needs_translation
    assert not protect("—", []).needs_translation
    assert protect("%(name)s files", ["python-format"]).needs_translation


def test_flags_given_as_a_list_a_generator_or_a_tuple_protect_alike() -> None:
    # protect keeps its results by (text, flags): the flags' container must not change the answer.
    text = "%(n)s of {0} <b>done</b>"
    expected = protect(text, ("python-format",))
    assert protect(text, ["python-format"]) == expected
    assert protect(text, (f for f in ["python-format"])) == expected
    assert protect(text, ()) != expected  # without the flag, %(n)s is protected by the safe grammar only


def test_numbers_too_long_for_int_in_an_answer_are_refused_or_kept_as_text() -> None:
    # Python refuses to convert more than 4,300 decimal digits: an answer's id or character reference
    # that long is an unknown placeholder, or text, not an exception the gate does not expect.
    protected = protect("Hello %s", ["c-format"])
    digits = "9" * 5000
    with pytest.raises(PlaceholderMismatch, match="unknown placeholder id 9999"):
        restore(f'Hallo <x id="{digits}"/>', protected)
    with pytest.raises(PlaceholderMismatch, match="unknown placeholder id 9999"):
        restore(f'Hallo <x id="1"/> <x id="{digits}"/>', protected)
    assert restore(f'Hallo &#{digits}; <x id="1"/>', protected) == f"Hallo &#{digits}; %s"
    assert restore('Hallo &#0000065; <x id="0001"/>', protected) == "Hallo A %s"


def test_a_text_without_placeholders_still_refuses_tags_in_its_translation() -> None:
    protected = protect("  Save & close ")
    assert protected.placeholders == ()
    assert restore("Speichern &amp; schließen", protected) == "  Speichern & schließen "
    with pytest.raises(PlaceholderMismatch, match="unknown placeholder id 1"):
        restore('Speichern <x id="1"/>', protected)
    with pytest.raises(PlaceholderMismatch, match="unexpected markup '<b>'"):
        restore("Speichern <b>jetzt", protected)
