"""Words a program reads that stand where prose could, found translated on published catalogs (roundup,
Plone, git, gnucash): each is protected, and each rule has its counter-example of prose.

The shapes are copied from the catalogs named (roundup 2.6.0's locale/roundup.pot, Plone's
plone.app.locales de, git 2.39's de.po).
"""

from __future__ import annotations

import pytest

from pipeline.placeholders.checks import check_translation
from pipeline.placeholders.glue import disordered
from pipeline.placeholders.protect import protect, restore


def protected(text: str, flags: tuple[str, ...] = ()) -> list[str]:
    return [ph.text for ph in protect(text, flags).placeholders if ph.kind != "control"]


# roundup's admin.py help: the topics `help` reads, in an indented "word -- description" list
_HELP = (
    "Usage: help topic\n"
    "        Give help about topic.\n"
    "\n"
    "        commands  -- list commands\n"
    "        <command> -- help specific to a command\n"
    "        initopts  -- init command options\n"
    "        all       -- all available help\n"
)


def test_the_topics_of_a_help_list_are_protected() -> None:
    words = protected(_HELP)
    assert {"commands", "initopts", "all"} <= set(words)
    assert "list commands" not in " ".join(words)  # the descriptions are text


@pytest.mark.parametrize(
    "text",
    [
        "Note -- this is a sentence with a dash",
        "    indented -- once only, no list",
        "  first -- one\n  then another line -- two words\n",
    ],
)
def test_a_dash_in_prose_is_no_help_list(text: str) -> None:
    assert protected(text) == []


def test_the_keyword_names_of_a_synopsis_are_protected() -> None:
    # roundup's perftest: "rounds=" and "scheme=" are what the command line parses; <integer> is a metavariable
    words = protected("            [password] [rounds=<integer>] [scheme=<scheme>]\n")
    assert "rounds=" in words and "scheme=" in words


def test_a_form_fields_name_is_protected() -> None:
    # roundup's cgi/actions.py: "@action" is the name of the field the form submits
    assert protected("broken form: multiple @action values submitted") == ["@action"]
    # e2fsck's abbreviations stay what they are (its translators may write them out)
    assert [(ph.text, ph.kind) for ph in protect("@b @bs @b_size").placeholders] == [
        ("@b", "at-abbreviation"),
        ("@bs", "at-abbreviation"),
        ("@b_size", "at-abbreviation"),
    ]


_MAIL = (
    "From: {encoded_mail_sender}\n"
    "To: {email}\n"
    "Reply-To: {reply_to}\n"
    "Subject: Your username for {portal_url}\n"
    "Content-Type: text/plain\n"
    "\n"
    "Dear {fullname},"
)


def test_the_header_names_of_a_mail_template_are_protected() -> None:
    # Plone's mailtemplate_username_info: its German translators keep every header name and translate the subject
    words = protected(_MAIL)
    assert {"From:", "To:", "Reply-To:", "Subject:", "Content-Type:"} <= set(words)
    assert "Your username" not in " ".join(words)


@pytest.mark.parametrize("text", ["Subject: {subject}", "Date: %(name)s", "Signed by: %1\n\nDate: %2"])
def test_a_label_shown_to_the_reader_is_no_mail_header(text: str) -> None:
    # pretix's and okular's labels, which their translators translate ("Betreff:", "Datum:")
    assert not any(word.endswith(":") for word in protected(text))


def test_ruby_interpolation_holding_a_tag_is_protected_whole_without_a_flag() -> None:
    assert protected("Hello %{<b>}name%{</b>}") == ["%{<b>}", "%{</b>}"]


def test_a_path_glued_to_an_email_address_keeps_the_address() -> None:
    # before: the path "x/y.tar.gzme" was protected, and "@x.org" sent as text
    assert "".join(protected("Get it at x/y.tar.gzme@x.org now")) == "x/y.tar.gzme@x.org"
    assert protected("Mail me@x.org or write to /srv/a.txt") == ["me@x.org", "/srv/a.txt"]


def test_words_swapped_inside_a_quoted_command_are_refused() -> None:
    # gnucash: 'gnucash-cli --quotes get <datafile>' is one command line, typed in this order
    source = protect("Please use 'gnucash-cli --quotes get <datafile>' instead.")
    assert [ph.text for ph in source.placeholders] == ["gnucash-cli", "--quotes", "get"]
    swapped = source.text.replace('<x id="1"/> <x id="2"/> <x id="3"/>', '<x id="3"/> <x id="2"/> <x id="1"/>')
    assert "moved" in (disordered(source, swapped) or "")
    assert disordered(source, source.text) is None
    # a human translation that swaps them is warned about
    problems = check_translation(
        "Please use 'gnucash-cli --quotes get <datafile>' instead.",
        "Bitte nutzen Sie stattdessen 'get --quotes gnucash-cli <Datei>'.",
    )
    assert [p.severity for p in problems] == ["warning"]
    # options of prose around a quoted command move with the sentence
    prose = protect("Use 'git am --abort' or --skip")
    assert disordered(prose, '<x id="3"/> oder \'<x id="1"/> <x id="2"/>\' nutzen') is None


@pytest.mark.parametrize(
    "quoted",
    ["\u201cgit add <Datei>...\u201d", "\u201egit add <Datei>...\u201c", "\u00abgit add <Datei>...\u00bb"],
)
def test_a_metavariable_in_a_command_in_typographic_quotes_is_the_translators(quoted: str) -> None:
    # git's German, French and Russian translators quote commands in their language's quotes
    assert check_translation('Use "git add <file>..." to update', f"Nutze {quoted} zum Aktualisieren") == []
    # code a translation adds in such quotes is still added
    added = check_translation('Use "git add <file>..." to update', "Nutze \u201cgit add <stdio.h>\u201d")
    assert [p.reason for p in added] == ["placeholder '<stdio.h>' not in the source"]


def test_each_comes_back_as_it_was() -> None:
    for text in (_HELP, _MAIL, "Hello %{<b>}name%{</b>}", "x/y.tar.gzme@x.org"):
        p = protect(text)
        assert restore(p.text, p) == text


# A lone <word> outside a usage line: protected from the engine, and judged in a human translation by its shape.
# What the human catalogs of the sample keep and translate (lead/s11 sample, not fuzzy): lowercase words in
# angle brackets are translated 5,908 times to 4,426 kept in dpkg, 8,405 to 1,521 in git, 292 to 8 in gcc, 79
# to 11 in coreutils, 40 to 4 in gnome-shell; single letters (git's <n>, <w>), capitals (sphinx's
# <MODULE_PATH>), underscores (netbox's <app_label>), dots (dpkg's <data.tar>) and macros (<PRIuMAX>) are kept.
@pytest.mark.parametrize(
    ("source", "translation"),
    [
        # dselect's de.po; dpkg's fr.po and sk.po; git's tr.po and ru.po (the source protects each <word>)
        ("Press <space> to exit help.", "Drücken Sie <Leertaste>, um die Hilfe zu verlassen."),
        ("--%s needs <name>", "--%s a besoin de <nom>"),
        ("--%s needs a <directory> argument", "--%s vyžaduje parameter <adresár>"),
        (
            "Could not find a tracked remote branch, please specify <upstream> manually.\n",
            "İzlenen bir uzak dal bulunamadı, lütfen el ile <üstkaynak> belirtin.\n",
        ),
        ("<rev-opts> are documented in git-rev-list(1)", "<опции-rev-list> документированы в git-rev-list(1)"),
        ("<link> '%s' is both primary and slave", "<lien> « %s » est à la fois principal et secondaire"),
    ],
)
def test_a_lowercase_word_in_angle_brackets_a_human_translated_is_not_warned_about(
    source: str, translation: str
) -> None:
    assert any(ph.kind == "code-name" for ph in protect(source).placeholders)  # the engine never sees it
    assert check_translation(source, translation) == []


@pytest.mark.parametrize(
    ("source", "translation", "reasons"),
    [
        # code is still code: a header the translation puts in the word's place, a key's name (gitk's hu.po)
        (
            "Press <space> to exit help.",
            "Drücken Sie <stdio.h>, um die Hilfe zu verlassen.",
            ["placeholder '<space>' missing", "placeholder '<stdio.h>' not in the source"],
        ),
        (
            "<Delete>, b\tScroll diff view up one page",
            "<Entf>, b\t\tEgy lappal feljebb görgetés a diff nézetben",
            ["placeholder '<Delete>' missing", "placeholder '<Entf>' not in the source"],
        ),
        # a lowercase word dropped with nothing in its place
        ("--%s needs <name>", "--%s a besoin d'un nom", ["placeholder '<name>' missing"]),
    ],
)
def test_code_in_angle_brackets_or_a_word_left_out_is_still_warned_about(
    source: str, translation: str, reasons: list[str]
) -> None:
    problems = check_translation(source, translation)
    assert sorted(p.reason for p in problems) == sorted(reasons)
    assert {p.severity for p in problems} == {"warning"}
