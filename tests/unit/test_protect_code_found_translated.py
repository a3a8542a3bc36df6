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


_WITHLIST = (
    "Here's an example of how to use the --run option.  Say you have a file in the\n"
    "Mailman installation directory called 'listaddr.py', with the following two\n"
    "functions:\n"
    "\n"
    "def listaddr(mlist):\n"
    "    print(mlist.posting_address)\n"
    "\n"
    "def requestaddr(mlist):\n"
    "    print(mlist.request_address)\n"
    "\n"
    "Run methods take at least one argument, the mailing list object to operate\n"
)


def test_a_python_example_of_a_help_text_is_protected_with_its_indented_body() -> None:
    # GNU Mailman's withlist help: print(...) came back as "принт(...)"; its Russian translators keep the code
    words = protected(_WITHLIST)
    assert "def listaddr(mlist):\n    print(mlist.posting_address)" in words
    assert "def requestaddr(mlist):\n    print(mlist.request_address)" in words
    assert not any("Run methods" in w or "functions:" in w for w in words)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (
            "is:\n\n% mailman withlist [options] -l listspec [args ...]\n\nwhere",
            ["% mailman withlist [options] -l listspec [args ...]"],
        ),
        (
            "by running:\n\n% mailman withlist -r listaddr.requestaddr -l ant@example.com\n",
            ["% mailman withlist -r listaddr.requestaddr -l ant@example.com"],
        ),
        ("Invalid value for [shell]use_python: {}", ["[shell]use_python", "{}"]),
    ],
)
def test_a_command_after_a_prompt_and_a_setting_named_by_its_section_are_protected(text: str, code: list[str]) -> None:
    assert protected(text) == code


@pytest.mark.parametrize(
    "text",
    [
        "% of users\n$ 5 per month -- or less",  # a prompt needs a command and an option
        "def is short for define:\nit is\n",  # no definition: no call's parentheses
        "Open the [shell] and type",  # a section alone, not named as such
        "don't use the \\n in John's name, nor 'a', 'b'",  # apostrophes; quoted words a space apart
        "Directive 2006/112 and 12/05/2024 and and/or",
    ],
)
def test_prose_of_the_same_shapes_stays_text(text: str) -> None:
    assert [w for w in protected(text) if w not in ("\\n",)] == []


@pytest.mark.parametrize(
    ("text", "flags", "code"),
    [
        # Indico: the T of an ISO timestamp went to the engine
        (
            "Start date/time in %(link)sISO 8601%(endlink)s format %(subitem)se.g. 2017-12-03T12:00:00%(endsubitem)s",
            ("python-format",),
            ["%(link)s", "%(endlink)s", "%(subitem)s", "2017-12-03T12:00:00", "%(endsubitem)s"],
        ),
        # phpMyAdmin: SQL literals a user types
        (
            "please enter the values using this format: 'a','b','c'…<br>If you ever need to put a backslash "
            '("\\") or a single quote ("\'") amongst those values, precede it with a backslash (for example '
            "'\\\\xyz' or 'a\\'b').",
            ("php-format",),
            ["'a','b','c'", "<br>", "'\\\\xyz'", "'a\\'b'"],
        ),
        # pretix: an EU act's number (a proper name: it comes back as it was)
        ("Exempt based on article 79, point c of Council Directive 2006/112/EC", (), ["2006/112/EC"]),
        # gnome-maps, gcc, util-linux
        ("Invalid maps: URI: %s", ("c-format",), ["maps:", "%s"]),
        ("Known ARM CPUs (for use with the -mcpu= and -mtune= options):", (), ["-mcpu=", "-mtune="]),
        ("option --table required for all --table-*", ("c-format",), ["--table", "--table-*"]),
        ("formatting is possible to modify by *--table-** options", (), ["--table-*"]),
    ],
)
def test_code_of_web_apps_and_compilers_is_protected(text: str, flags: tuple[str, ...], code: list[str]) -> None:
    assert protected(text, flags) == code
    sent = protect(text, flags)
    assert restore(sent.text, sent) == text


def test_an_eu_acts_number_in_the_translations_language_is_no_problem() -> None:
    source = "Exempt based on article 309 of Council Directive 2006/112/EC"
    assert check_translation(source, "Steuerfrei nach Artikel 309 der Richtlinie 2006/112/EG") == []


_PERFTEST = (
    "Usage: perftest [mode] [arguments]*\n"
    "        Time operations in Roundup.\n"
    "\n"
    "        Supported arguments:\n"
    "\n"
    "            [password] [rounds=<integer>] [scheme=<scheme>]\n"
    "\n"
    "        'password' is the default mode.  The tracker's config.ini\n"
    "        setting for 'password_pbkdf2_default_rounds' is the default\n"
    "        value for 'rounds'. On the command line, 'rounds' can include\n"
    "        thousands separator of ',' or '.'.  'scheme' is the default\n"
    "        coded into Roundup. List supported schemes by using 'scheme='.\n"
    "\n"
    "        "
)


def test_a_mode_beside_keyword_arguments_and_their_names_quoted_in_the_help_are_protected() -> None:
    # roundup's perftest: the command line reads "password", "rounds=", "scheme="; [mode] and <integer> are
    # the translator's
    words = protected(_PERFTEST)
    assert words.count("password") == 2 and words.count("rounds") == 2 and words.count("rounds=") == 1
    assert words.count("scheme") == 1 and words.count("scheme=") == 2
    assert "mode" not in words and "arguments" not in words


def test_a_quoted_word_alone_and_a_lone_header_label_stay_text() -> None:
    # Nothing says "rounds" is a name here; a lone "Reply-To:" is a label of a mail program's window, which
    # translators translate (Balsa's "Trả lời:", Evolution's Hebrew "השב אל:"); two header lines are a template.
    assert protected("Invalid 'rounds'. Must be larger than 999.") == []
    assert protected("Reply-To:") == [] and protected("Reply-To: %s\n", ("c-format",)) == ["%s"]
    assert protected("From: %s\nReply-To: %s\n", ("c-format",)) == ["From:", "%s", "Reply-To:", "%s"]
