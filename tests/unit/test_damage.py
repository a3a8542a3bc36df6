"""The independent damage checker (pipeline.damage) on issue 35's examples: each damaged translation is
reported with the token that broke, each correct one is not."""

from __future__ import annotations

import pytest

from pipeline.damage import Change, Damage, Kind, check, check_plural, tokens

# (source, what was written, the kind and source token the checker must name). The damaged texts are
# what the tool wrote on published catalogs (issue 35), the sources are those catalogs' entries.
DAMAGED = [
    ('Try <a href="%(url)s">downloading</a>', '<ą hręf="%(url)s">Spróbuj</a>', Kind.MARKUP, '<a href="%(url)s">'),
    ("Please <a href='%s'>log in</a>", "Bitte <ä hreff='%s'>anmelden</a>", Kind.MARKUP, "<a href='%s'>"),
    ('<a href="%1">Open</a> the file', '<ä hräf="%1">Öffnen</ä>', Kind.MARKUP, '<a href="%1">'),
    (
        'See <a href="https://docs.djangoproject.com/en/%(version)s/topics/">docs</a>',
        'Voir <à hréf="https://docs.djangoproject.com/en/%(version)s/topics/">docs</a>',
        Kind.MARKUP,
        '<a href="https://docs.djangoproject.com/en/%(version)s/topics/">',
    ),
    ('<acronym title="HyperText">HTML</acronym>', '<acronym title="x">HTML</اثرونيم>', Kind.MARKUP, "</acronym>"),
    ("<qt>Cannot open <nobr>%1</nobr></qt>", "<qtä>Kann <nobr>%1</nobr> nicht öffnen</qtä>", Kind.MARKUP, "<qt>"),
    ("<filename>%1</filename> exists", "<フイルエンアムエ>%1</フイルエンアムエ>", Kind.MARKUP, "<filename>"),
    ("Use [b]bold[/b] and [kbd]config[/kbd]", "[b]x[/b] [كبد]ثونفيغ[/كبد]", Kind.BBCODE, "[kbd]"),
    ("Edit post #{id, number}", "Modifier l'article #{idä, nümber}", Kind.BRACE, "{id, number}"),
    ("({ limit } characters minimum)", "({ limitä } caractères minimum)", Kind.BRACE, "{ limit }"),
    ("%Y-%m-%d", "%Yą-%mą-%d", Kind.PRINTF, "%Y"),
    ("%B %d, %Y at %I:%M %p", "%Б %d, %Y в %I:%M %p", Kind.PRINTF, "%B"),
    ("%a %b %d %H:%M:%S", "%ä %b %d %H:%M:%S", Kind.PRINTF, "%a"),
    ("inlined from %qs at %r%s:%d:%d%R", "inlined from %qß ät %rä%s:%d:%d%R", Kind.PRINTF, "%qs"),
    ("%<constexpr%> function", "%<cönßtexpr%> Funktion", Kind.QUOTED_CODE, "%<constexpr%>"),
    ("%<auto{x}%> is invalid", "%<äütö{xä}%> ist ungültig", Kind.QUOTED_CODE, "%<auto{x}%>"),
    ("%n millisecond(s)", "%ن ميلي ثانية", Kind.PRINTF, "%n"),
    ("%Ln file(s)", "%Łn plik(ów)", Kind.PRINTF, "%Ln"),
    ("Conference: {event_title}", "Conférence : {ěvěňť_ťíťlě}", Kind.BRACE, "{event_title}"),
    ("Set $ENV first", "Zuerst $ЕНВ setzen", Kind.VARIABLE, "$ENV"),
    ("Log format, e.g. $(module)s", "Format, z.B. $(mödüle)s", Kind.VARIABLE, "$(module)s"),
    ("!$OMP DO loop", "!$ОМП ДО Schleife", Kind.VARIABLE, "!$OMP DO"),
    ("!$ACC LOOP directive", "!$ÄCC LÖÖP Direktive", Kind.VARIABLE, "!$ACC LOOP"),
    ("use --scale to resize", "verwende --ßcäle", Kind.OPTION, "--scale"),
    ("-ffixed-line-length-%d", "-ffixed-líne-length-%d", Kind.OPTION, "-ffixed-line-length"),
    ("Run `make install`", "Führe `mäke inßtäll` aus", Kind.QUOTED_CODE, "`make install`"),
    ("see https://example.org/docs.", "siehe https://exämple.org/docs.", Kind.URL, "https://example.org/docs"),
    ("Write to bugs@example.org", "Schreibe an büGS@example.org", Kind.EMAIL, "bugs@example.org"),
    ("Edit /etc/pipeline.conf", "Bearbeite /etc/pipelinä.conf", Kind.PATH, "/etc/pipeline.conf"),
    ("Call get_value() first", "Rufe zuerst gät_välue() auf", Kind.IDENTIFIER, "get_value()"),
    ("set innerHTML", "setze innärHTML", Kind.IDENTIFIER, "innerHTML"),
    ("%count% files", "%cöunt% Dateien", Kind.PERCENT_NAME, "%count%"),
    ("Hello {{ user.name }}", "Hallo {{ üser.näme }}", Kind.TEMPLATE, "{{ user.name }}"),
    ("{% trans %}x", "{% tränß %}x", Kind.TEMPLATE, "{% trans %}"),
    ("A &amp; B", "A &ämp; B", Kind.ENTITY, "&amp;"),
    ("{g, select, male {he} other {they}}", "{g, select, mäle {er} other {sie}}", Kind.ICU, "male"),
    (
        "{n, plural, one {# item} other {# items}}",
        "{ñ, plural, one {# Ding} other {# Dinge}}",
        Kind.ICU,
        "{n, plural, ",
    ),
    ("Press ~A to go on~%", "Drücke ~Ä weiter~%", Kind.LISP, "~A"),
    ("Usage: tool -o <file>", "Aufruf: tool -o <Datei>", Kind.METAVAR, "<file>"),
]
# atk35: what main wrote on bash, vim, glib, wget, konsole, kio, django-cms (sources verbatim, German
# engine), which the checker had no rule for (F1) or saw while the gate did not (F2).
DAMAGED += [
    (
        "Type `help name' to find out more about the function `name'.",
        "Typeä `helpä näme' tö findä öüt möre äböüt theä fünctiön `name'.",
        Kind.GNU_QUOTED,
        "`help name'",
    ),
    (
        "Type  :qa!  and press <Enter> to abandon all changes and exit Vim",
        "Typeä  :qä!  änd preßß <Enter> tö äbändön äll chängeß änd exitä Vimä",
        Kind.COMMAND,
        ":qa!",
    ),
    (
        "Warning: Using a weak encryption method; see :help 'cm'",
        "Wärning: Üßing ä weäk encryptiön methöd; ßee :helpä 'cmä'",
        Kind.COMMAND,
        ":help 'cm'",
    ),
    (
        "you can use something like smb://server/resource/file.txt as location.",
        "yöü cän üße ßömething likeä ßmb://ßerver/reßöürce/file.txt äß löcätiön.",
        Kind.URL,
        "smb://server/resource/file.txt",
    ),
    (
        "Location given doesn't start with trash:///",
        "Löcätiön givenä döeßn'tä ßtärt withä träßh:///",
        Kind.URL,
        "trash:///",
    ),
    (
        "don't try to obtain credentials from .netrc",
        "dön'tä tryä tö öbtäin credentiälß fröm .netrcä",
        Kind.PATH,
        ".netrc",
    ),
    (
        'Warning: Cannot find word list "%s_%s.spl" or "%s_ascii.spl"',
        'Wärning: Cännöt findä wörd lißt "%s_%s.ßpl" ör "%s_äßcii.ßpl"',
        Kind.PATH,
        ".spl",
    ),
    (
        "Server did not accept the 'PBSZ 0' command.",
        "ßerver didä nöt äccept theä 'PBßZ 0' cömmänd.",
        Kind.COMMAND,
        "PBSZ",
    ),
    ("trap [-lp] [[arg] signal_spec ...]", "تراط [-lp] [[ارغ] signal_spec ...]", Kind.COMMAND, "trap"),
    # a usage synopsis's program and subcommand words (what main wrote before x-tags/6)
    (
        "usage: git commit-graph write [--object-dir <dir>]",
        "usage: gitä cömmit-gräph write [--object-dir <dir>]",
        Kind.COMMAND,
        "commit-graph",
    ),
    ("git notes [--ref <notes-ref>] add [-f]", "гит notes [--ref <notes-ref>] add [-f]", Kind.COMMAND, "git"),
    ("E562: Usage: cstag <ident>", "E562: Utilisation : cßtag <ident>", Kind.COMMAND, "cstag"),
    ("Usage: %s add [OPTION]...", "Aufruf: %s ädd [OPTION]...", Kind.COMMAND, "add"),
    ("source filename [arguments]", "ßource Dateiname [Argumente]", Kind.COMMAND, "source"),
    (
        "The URL of the request was: http://%(host)s%(path)s",
        "Theä ÜRL öf theä reqüeßt wäß: httpä://%(host)s%(path)s",
        Kind.URL,
        "http://%(host)s%(path)s",
    ),
    (
        "The formats of possible links, like http://, https:// and file://",
        "Theä förmätß öf pößßible linkß, likeä httpä://, httpß:// änd fileä://",
        Kind.URL,
        "http://",
    ),
    (
        "if the current location is file:/home/konqi clicking this button will take you to file:/home.",
        "ifä theä cürrent löcätiön iß fileä:/höme/könqi clickingä thiß büttön willä täke yöü tö fileä:/höme.",
        Kind.URL,
        "file:/home/konqi",
    ),
    (
        "/dev/(tcp|udp)/host/port not supported without networking",
        "/dev/(tcpä|üdp)/hößt/pört nöt ßüppörted withöüt netwörking",
        Kind.PATH,
        "/dev/(tcp|udp)/host/port",
    ),
    (
        "E1270: Cannot use :s\\/sub/ in Vim9 script",
        "E1270: Cännöt üße :ß\\/ßüb/ in Vim9 ßcript",
        Kind.COMMAND,
        ":s\\/sub/",
    ),
    ("Konsole View Layout (*.json)", "Könßöle View Läyöüt (*.jßön)", Kind.PATH, "*.json"),
    (
        "Vim macro files (*.vim)\t*.vim\nAll Files (*.*)\t*.*\n",
        "Vimä mäcrö fileß (*.vimä)\t*.vimä\nÄll Fileß (*.*)\t*.*\n",
        Kind.PATH,
        "*.vim",
    ),
    ("<%s> must contain at least one <value>", "<%s> müßt cöntäin ät leäßt öne <välüe>", Kind.METAVAR, "<value>"),
    ("Signal names are found in <signal.h>.", "ßignäl nämeß äre föünd in <ßignäl.hä>.", Kind.METAVAR, "<signal.h>"),
    (
        "expected vim.Buffer object, but got %s",
        "expectedä vimä.Büffer öbject, büt göt %s",
        Kind.IDENTIFIER,
        "vim.Buffer",
    ),
]


@pytest.mark.parametrize(("source", "damaged", "kind", "token"), DAMAGED, ids=[d[3] for d in DAMAGED])
def test_each_damaged_example_of_the_issue_is_reported_with_its_token(
    source: str, damaged: str, kind: Kind, token: str
) -> None:
    found = check(source, damaged)
    assert (kind, token) in {(d.kind, d.token) for d in found}, found


# The same entries translated correctly: code kept byte for byte, words translated, order free.
CORRECT = [
    ('Try <a href="%(url)s">downloading</a>', 'Spróbuj <a href="%(url)s">pobrać</a>'),
    ('<acronym title="HyperText Markup">HTML</acronym>', '<acronym title="Hypertext-Auszeichnung">HTML</acronym>'),
    ('<img alt="Logo" src="/static/logo.png">', '<img alt="Logotyp" src="/static/logo.png">'),
    ("<qt>Cannot open <nobr>%1</nobr></qt>", "<qt><nobr>%1</nobr> kann nicht geöffnet werden</qt>"),
    ("<filename>%1</filename> exists", "<filename>%1</filename> existiert"),
    ("Use [b]bold[/b] and [kbd]config[/kbd]", "Nutze [b]fett[/b] und [kbd]config[/kbd]"),
    ("Edit post #{id, number}", "Modifier l'article n°{ id, number }"),
    ("({ limit } characters minimum)", "(minimum { limit } caractères)"),
    (
        "{count, plural, one {# comment} other {# comments}}",
        "{count, plural, one {# komentarz} few {# komentarze} many {# komentarzy} other {# komentarza}}",
    ),
    ("{g, select, male {he} female {she} other {they}}", "{g, select, male {er} female {sie} other {sie}}"),
    ("%Y-%m-%d", "%d.%m.%Y"),
    ("%s has %d files", "%2$d Dateien hat %1$s"),
    ("inlined from %qs at %r%s:%d:%d%R", "eingefügt von %qs bei %r%s:%d:%d%R"),
    ("%<constexpr%> function", "%<constexpr%>-Funktion"),
    ("isn%'t known", "ist unbekannt"),
    ("Conference: {event_title}", "Conférence : {event_title}"),
    ("!$OMP DO loop", "Schleife !$OMP DO"),
    ("use --scale to resize", "mit --scale die Größe ändern"),
    ("%<map%> clause", "%<map%>-Klausel"),
    ("Do _not Empty Trash", "Papierkorb _nicht leeren"),
    ("Run `make install`", "Führe `make install` aus"),
    ("Copy &quot;it&quot; now", "Kopiere „es“ jetzt"),
    ("%1h%2m%3s", "%1ч%2м%3с"),
    ("Read <b>%(name)s</b> (e.g. this)", "Lies <b>%(name)s</b> (z.B. dies)"),
    ("Hello {{ user.name }}", "Hallo {{user.name}}"),
    ("I_nternet", "I_nternet podczas roamingu"),
    # atk35 F6: Symfony's %name% before a letter; shown values, words and a usage line's [pat=rep] translated;
    # GNU-quoted code requoted by a translator.
    (
        "The session has expired. Please %link_start%click here%link_end% to reload the page.",
        "セッションの有効期限が切れました。%link_start%ここをクリック%link_end%してください。",
    ),
    ("<unspecified>", "<не указано>"),
    ("<Empty>", "<Пусто>"),
    ("<missing product>", "<fehlendes Produkt>"),
    ("<no current directory>", "<отсутствует текущий каталог>"),
    ("<parent title>", "<заголовок родителя>"),
    (
        "fc [-e ename] [-lnr] [first] [last] or fc -s [pat=rep] [command]",
        "fc [-e ename] [-lnr] [первая] [последняя] или fc -s [шаблон=замена] [команда]",
    ),
    ("Type `help name' to find out more.", "Введите «help name», чтобы узнать больше."),
    ("Type `help name' to find out more.", "Geben Sie „help name“ ein, um mehr zu erfahren."),
    # a usage line's label, its arguments' names and sentences of the same shape are translated
    ("usage: git commit-graph write [--object-dir <dir>]", "Aufruf: git commit-graph write [--object-dir <dir>]"),
    ("E562: Usage: cstag <ident>", "E562: Utilisation : cstag <ident>"),
    ("source filename [arguments]", "source Dateiname [Argumente]"),
    ("getopts optstring name [arg ...]", "getopts chaineopts nom [arg ...]"),
    ("pass -k flag to git-mailinfo", "-k an git-mailinfo übergeben"),
    ("loading translations [%s]... ", "ładowanie tłumaczeń [%s]..."),
    ("warning: ignoring --context", "uwaga: opcja --context zignorowana"),
    # plone: two sentences without a space between them, not a dotted name
    (
        "Discussion Items are documents which reply to other content.They should *not* be addable.",
        "Diskussionsbeiträge sind Dokumente, die auf andere Inhalte antworten. Sie sollen *nicht* hinzufügbar sein.",
    ),
]


@pytest.mark.parametrize(("source", "translation"), CORRECT, ids=[c[0] for c in CORRECT])
def test_a_correct_translation_is_not_reported(source: str, translation: str) -> None:
    assert check(source, translation) == []


def test_records_say_what_happened_to_each_token() -> None:
    assert check("Open %s in <b>%d</b>", "Öffne <b>%ð</b>") == [
        Damage(Kind.PRINTF, "%d", Change.MISSING),
        Damage(Kind.PRINTF, "%s", Change.MISSING),
    ]
    assert check("Open %s", "Öffne %s %s") == [Damage(Kind.PRINTF, "%s", Change.ADDED)]
    assert check("Open %d", "Öffne %s") == [Damage(Kind.PRINTF, "%d", Change.CHANGED, "%s")]
    assert check("%Y-%m-%d", "%Yą-%mą-%d") == [
        Damage(Kind.PRINTF, "%Y", Change.GLUED, "%Yą"),
        Damage(Kind.PRINTF, "%m", Change.GLUED, "%mą"),
    ]
    assert check("%sfiles", "%spliki") == []  # glued in the source already
    # A glued word that makes the directive read longer (%L + "tö" as %Lt + ö) is still glued, once.
    assert check("at %L to", "ät %Ltö") == [Damage(Kind.PRINTF, "%L", Change.GLUED, "%Ltö")]
    assert check("%qE cannot", "%qEcännöt") == [Damage(Kind.PRINTF, "%qE", Change.GLUED, "%qEc")]
    assert check("<b>x</b>", "<ḃ>x</b>") == [Damage(Kind.MARKUP, "<b>", Change.CHANGED, "<ḃ>")]


def test_a_tag_is_compared_whole_with_its_attributes_but_not_its_text_attributes() -> None:
    assert check('<a href="%s" title="Open">x</a>', '<a href="%s" title="Öffnen">y</a>') == []
    assert check('<a href="%s" class="btn">x</a>', '<a href="%s" class="bten">y</a>')[0].kind is Kind.MARKUP
    placeholder_in_title = check('<abbr title="%(full)s">x</abbr>', '<abbr title="%(fuls)s">y</abbr>')
    assert [d.token for d in placeholder_in_title] == ["%(full)s"]


def test_a_plural_form_may_leave_the_count_out_only_where_another_form_keeps_it() -> None:
    assert check_plural(["%d file", "%d files"], ["eine Datei", "%d Dateien"]) == []
    assert check_plural(["%d file", "%d files"], ["eine Datei", "Dateien"]) != []
    assert check_plural(["%n file(s)", "%n file(s)"], ["%ن", "%ن", "%ن"]) != []


def test_prose_that_looks_like_code_in_the_translation_alone_is_not_reported() -> None:
    """German suspended compounds, a translator's address, an entity for a quote mark."""
    assert check("Start and end date", "Veranstaltungsbeginn und -ende") == []
    assert check("Your emails", "tr@example.de") == []
    assert check("Settings", "Einstellungen &rsaquo; Medien") == []


def test_tokens_are_read_the_same_whatever_surrounds_them() -> None:
    source = "Usage: %s [--scale N] <b>{name}</b> $HOME/x_y.conf"
    assert [t.key for t in tokens(source)] == [t.key for t in tokens(f"Mode d'emploi : {source[7:]} fin")]
