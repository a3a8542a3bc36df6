"""Code found translated (or refused, and so not written) on published catalogs with the embedded service:
each span is protected, and each rule has its counter-example of prose.

The shapes are copied from the catalogs named: Plone's plone.app.locales (pl), GNU Mailman 3 (ru), Indico
(de_DE), phpMyAdmin (ru), pretix (de), roundup 2.6.0 (locale/roundup.pot), gnome-maps, gcc.
"""

from __future__ import annotations

import pytest

from pipeline.placeholders.checks import check_translation
from pipeline.placeholders.protect import protect, restore


def protected(text: str, flags: tuple[str, ...] = ()) -> list[str]:
    return [ph.text for ph in protect(text, flags).placeholders if ph.kind != "control"]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # Plone's Default texts: the doctype a user types, in a page template written with entities too
        (
            'You can specify a Doctype string which will be set on the for example "<!DOCTYPE html>". If left blank',
            ["<!DOCTYPE html>"],
        ),
        ('set on the output, for example "&lt;!DOCTYPE html&gt;". If left blank', ["&lt;!DOCTYPE html&gt;"]),
        ("Wrap it as <![CDATA[a < b]]> first", ["<![CDATA[a < b]]>"]),
    ],
)
def test_declarations_and_cdata_are_protected_whole(text: str, code: list[str]) -> None:
    assert protected(text) == code
    sent = protect(text)
    assert restore(sent.text, sent) == text


def test_a_declaration_a_translation_leaves_out_is_a_warning_not_an_error() -> None:
    # (one it adds is markup that runs code or loads content, an error as before: an <!ENTITY> can)
    source = 'for example "<!DOCTYPE html>". If left blank'
    problems = check_translation(source, 'na przykład "DOCTYPE html". Jeśli')
    assert [(p.reason, p.severity) for p in problems] == [("markup '<!DOCTYPE html>' missing", "warning")]
    assert check_translation(source, 'na przykład "<!DOCTYPE html>". Jeśli pole') == []
