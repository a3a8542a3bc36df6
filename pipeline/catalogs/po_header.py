"""A PO file's charset and plural rule, from its header entry only, and where the header's fields are.

The charset decides how every other byte is read, so it is taken from the one place gettext
takes it, the header entry's ``Content-Type`` (a ``charset=`` in a comment or another entry does
not count), and only an ASCII-compatible text encoding is accepted: a codec that adds a BOM
(``utf-8-sig``), escapes (``unicode_escape``), transforms (``rot13``, ``base64``, ``idna``) or switches
state with ASCII bytes (ISO-2022, UTF-7) would corrupt the file on write-back.
"""

import codecs
import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from pipeline.errors import CatalogError
from pipeline.locales import locale_from_path
from pipeline.plural_rules import WHOLE_NUMBER_FORMS, PluralExpressionError, PluralRule, check, plural_rule_for

_CONTENT_CHARSET = re.compile(r'charset\s*=\s*([^\s;\\"]+)', re.IGNORECASE)
# Bytes an ASCII-compatible PO charset must read and write as themselves, whatever comes before
# them: every ASCII character, plus the sequences that switch or escape in stateful and escaping
# codecs (ISO-2022, HZ, UTF-7, raw_unicode_escape).
_ASCII_PROBE = bytes(range(128)) + b"\\u0041\\x41+AEE-~{!!~}\x1b$B!!\x1b(B\x1b$)C"


def encoding_of(path: Path, raw: bytes, raw_lines: Sequence[bytes]) -> tuple[str, tuple[str, ...]]:
    """The codec to read and write the file with, and warnings about the choice."""
    found = _header_charset(raw_lines)
    if found is None:
        if raw.isascii() or _is_utf8(raw):
            return "utf-8", ()
        # msgfmt reads it, each byte as it is ("charset conversion will not work"): ISO-8859-1 keeps every byte.
        return NO_CHARSET_CODEC, (
            "no charset in a header and the text is not UTF-8: read and written as ISO-8859-1, each byte as it is, "
            "as msgfmt reads it; name the file's charset in the header's Content-Type",
        )
    name, line = found
    if name.upper() == "CHARSET":  # an unfilled POT header: msgfmt reads the bytes as they are, and warns in a catalog
        if path.suffix.lower() == ".pot":
            return "utf-8", ()
        return "utf-8", (
            f"the header's Content-Type on line {line} says charset={name[:40]}, a template's placeholder, which "
            "msgfmt warns is not a portable encoding name: read and written as UTF-8; set charset=UTF-8 there",
        )
    shown = name[:40]
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        raise CatalogError(str(path), f"unknown charset {shown!r} in the header", line) from None
    if not _ascii_compatible(codec):
        raise CatalogError(
            str(path),
            f"charset {shown!r} in the header is not one a PO file can be in: gettext "
            f"needs a text encoding that keeps ASCII as it is, without a byte-order mark",
            line,
        )
    if codec != "utf-8" and _single_byte(codec) and not raw.isascii() and _is_utf8(raw):
        # Read as the header says, every UTF-8 character would become two or three wrong ones, and
        # translations written back in that charset would leave the file in two encodings.
        return "utf-8", (
            f"the header says charset {shown} but the text is UTF-8: read and written as UTF-8; "
            f"correct the header's Content-Type",
        )
    return codec, ()


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@functools.lru_cache(maxsize=32)
def _ascii_compatible(codec: str) -> bool:
    """Whether ``codec`` is a text encoding that reads and writes ASCII bytes as themselves, BOM-free."""
    if not getattr(codecs.lookup(codec), "_is_text_encoding", True):  # base64, rot13, zlib, ...
        return False
    try:
        # Encoding first: escaping codecs fail it before their decoder warns about the probe's escapes.
        text = _ASCII_PROBE.decode("ascii")
        return text.encode(codec) == _ASCII_PROBE and _ASCII_PROBE.decode(codec) == text
    except (UnicodeError, LookupError, TypeError, ValueError):
        return False


@functools.lru_cache(maxsize=32)
def _single_byte(codec: str) -> bool:
    """Whether ``codec`` maps every byte to one character (Latin-1, KOI8-R, cp1252), unlike EUC-JP or GBK."""
    return len(bytes(range(128, 256)).decode(codec, "replace")) == 128


def _header_charset(raw_lines: Sequence[bytes]) -> tuple[str, int] | None:
    """The charset the header entry's Content-Type names, and its line (1-based); None if it names none.

    Works on the bytes, before the charset is known: the header's lines are ASCII in every
    charset a PO file can be in. Comments and other entries do not count, however they look.
    """
    context = False
    i, count = 0, len(raw_lines)
    while i < count:
        s = raw_lines[i].strip()
        if s.startswith(b"msgctxt"):
            context = True
        elif s.startswith(b"msgid") and not s.startswith(b"msgid_plural"):
            header = not context and re.fullmatch(rb'msgid\s*""', s) is not None
            context = False
            j = i + 1
            while j < count and raw_lines[j].strip().startswith(b'"'):
                header = header and raw_lines[j].strip() == b'""'
                j += 1
            if header and j < count and raw_lines[j].strip().startswith(b"msgstr"):
                end = j + 1
                while end < count and raw_lines[end].strip().startswith(b'"'):
                    end += 1
                line = field_line(raw_lines, (j, end), b"Content-Type")
                if line is None:
                    return None
                charset = _CONTENT_CHARSET.search(_quoted(raw_lines[line - 1]).decode("latin-1"))
                return (charset.group(1), line) if charset else None
            i = j
            continue
        i += 1
    return None


def field_line(raw_lines: Sequence[bytes], lines: tuple[int, int], field: bytes) -> int | None:
    """The line (1-based) in ``raw_lines[start:end]`` where the header field ``field`` starts, if any."""
    start, end = lines
    for k in range(start, end):
        content = _quoted(raw_lines[k]).lstrip()
        if content.lower().startswith(field.lower() + b":") or b"\\n" + field.lower() + b":" in content.lower():
            return k + 1
    return None


def _quoted(raw_line: bytes) -> bytes:
    """What lies between the first and the last double quote of a line."""
    first, last = raw_line.find(b'"'), raw_line.rfind(b'"')
    return raw_line[first + 1 : last] if 0 <= first < last else b""


#: A Plural-Forms rule as a template leaves it for msginit or the translator to fill in
#: (``nplurals=INTEGER; plural=EXPRESSION;``): no number of forms. msgfmt refuses it ("invalid nplurals value").
_UNFILLED = re.compile(r"nplurals\s*=(?!\s*[0-9])\s*[^;\\\"]*;?\s*(?:plural\s*=\s*[^;\\\"]*;?)?")
UNFILLED_ERROR = (
    "Plural-Forms: invalid nplurals value, which msgfmt refuses (a template's nplurals=INTEGER; "
    "plural=EXPRESSION; never filled in): write the language's rule (msginit does)"
)


#: The rule gettext's runtime (and msgfmt) applies to a catalog whose header names none.
_GETTEXT_RULE = PluralRule(2, "(n != 1)")
GETTEXT_DEFAULT = f"nplurals={_GETTEXT_RULE.nplurals}; plural={_GETTEXT_RULE.expression};"


class PluralHeader(NamedTuple):
    """The plural rule a catalog is read with, where write-back puts it, and warnings about it."""

    rule: PluralRule | None
    add_at: int | None = None  # the line a Plural-Forms field goes before, when the header has none
    unfilled_line: int | None = None  # 1-based: a template's unfilled rule, which write-back fills
    warnings: tuple[str, ...] = ()


def plural_header(
    path: Path,
    fields: Mapping[str, str],
    line: int | None,
    add_at: int | None,
    plurals: bool,
    forms: frozenset[tuple[int, int]],
) -> PluralHeader:
    """The rule the ``Plural-Forms`` field (at ``line``) gives, else CLDR's for the ``Language`` field.

    A rule msgfmt refuses is a :class:`CatalogError`, except the template's unfilled one, which
    write-back fills with CLDR's rule for the language, as msginit does: a catalog copied from its
    template is the usual way a translation starts, and its singular entries deserve a translation.
    In a ``.pot`` itself the unfilled rule is what xgettext writes, with no language to
    fill it from: nothing is read with it (msgmerge takes nothing from a template's header), so no rule.
    Without the field, CLDR's rule is added at ``add_at`` (the header's end) when plural entries
    (``plurals``) are translated, unless an entry translated already (``forms``: its forms up to the last
    written one, and its slots) has more written forms or fewer slots (Spanish: three in CLDR, two in
    msginit's table and Elixir's gettext): msgfmt --check would refuse it. Then gettext's rule for a
    catalog without one is used (:data:`GETTEXT_DEFAULT`), and nothing is added."""
    header = fields.get("Plural-Forms", "")
    language = (fields.get("Language") or "").strip()
    unfilled = _UNFILLED.search(header)
    n = re.search(r"nplurals\s*=\s*(\d+)", header)
    expr = re.search(r"plural\s*=\s*([^;]+)", header)
    if n and expr and not unfilled:  # the header's own rule: CLDR (babel, about 30 ms to load) is not needed
        rule = PluralRule(int(n.group(1)[:8]), expr.group(1).strip())
        try:
            check(rule.nplurals, rule.expression)
        except PluralExpressionError as exc:
            raise CatalogError(str(path), f"Plural-Forms: {exc}", line) from None
        return PluralHeader(rule, warnings=_fewer_than_cldr(rule, language, line) if plurals else ())
    cldr = plural_rule_for(language) if language else None
    if unfilled:
        if cldr is None and path.suffix.lower() == ".pot":
            return PluralHeader(None)
        if cldr is None or line is None:
            raise CatalogError(str(path), UNFILLED_ERROR.removesuffix(" (msginit does)"), line)
        reason = (
            f"Plural-Forms is a template's nplurals=INTEGER; plural=EXPRESSION;, which msgfmt refuses: written "
            f"with CLDR's rule for {language} (nplurals={cldr.nplurals}; plural={cldr.expression};), as msginit does"
        )
        return PluralHeader(cldr, unfilled_line=line, warnings=(reason,))
    if cldr is not None and not all(written <= cldr.nplurals <= slots for written, slots in forms):
        counts = " or ".join(str(n) for n in sorted({written for written, _ in forms}))
        conflict = (
            f"no Plural-Forms header, and its translated plural entries have {counts} forms where CLDR's rule for "
            f"{language} has {cldr.nplurals}: plural entries are translated with gettext's rule for a catalog "
            f"without one ({GETTEXT_DEFAULT}) and no header line is added; add the Plural-Forms line its program uses"
        )
        return PluralHeader(_GETTEXT_RULE, warnings=(conflict,))
    if cldr is None or "plural=" in header or add_at is None:
        return PluralHeader(cldr)
    missing = (
        f"no Plural-Forms header: plural entries are translated with CLDR's rule for {language} "
        f"(nplurals={cldr.nplurals}; plural={cldr.expression};), and the header line is added with them, "
        "as msginit writes it"
    )
    return PluralHeader(cldr, add_at, warnings=(missing,) if plurals else ())


#: The rules gettext's msginit writes (gettext-tools/src/plural-table.c) where CLDR gives whole numbers more forms
#: and the header two or fewer: Hebrew's alone (CLDR: one, two, other). Spaces removed.
_MSGINIT_RULES = {"he": "(n!=1)"}


def _fewer_than_cldr(rule: PluralRule, language: str, line: int | None) -> tuple[str, ...]:
    """A warning when the header gives ``language`` two forms or fewer where its whole numbers take more in
    CLDR (Arabic's six): the rule is followed as written, as msgfmt follows it, but the team should know.
    A rule of more forms than two is a team's choice (Welsh's four in GNOME), and is not judged."""
    if rule.nplurals > 2:
        return ()
    base = _base_language(language)
    forms = WHOLE_NUMBER_FORMS.get(base)
    if forms is None or rule.nplurals >= len(forms):
        return ()
    if _MSGINIT_RULES.get(base) == "".join(rule.expression.split()):
        return ()  # what gettext's own msginit writes for it: gettext's convention, not an oversight
    where = f" on line {line}" if line is not None else ""
    return (
        f"Plural-Forms{where} says nplurals={rule.nplurals} for {language}, but CLDR has {len(forms)} plural forms for "
        f"its whole numbers ({', '.join(forms)}): plural entries are translated into the header's "
        f"{rule.nplurals}; if that is not the team's choice, correct the header",
    )


def _base_language(language: str) -> str:
    """The language code alone, lower case: ``ar`` of ``ar_EG``, ``sr`` of ``sr@latin``, ``de`` of ``de-AT``."""
    return language.replace("-", "_").replace("@", "_").replace(".", "_").partition("_")[0].lower()


def filled_plural_line(text: str, rule: PluralRule) -> str:
    """The header line ``text`` (its terminator dropped) with its unfilled rule replaced by ``rule``."""
    filled = f"nplurals={rule.nplurals}; plural={rule.expression};"
    return _UNFILLED.sub(lambda _: filled, text.rstrip("\r\n"), count=1)


#: What ``msgfmt --check`` says of a catalog without a header entry, or with an empty one (plain msgfmt compiles it).
HEADERLESS_ERROR = (
    'no header entry (msgid "" with Content-Type and Plural-Forms), which msgfmt --check refuses ("PO file header '
    "missing or invalid\"); msgfmt without --check reads it with gettext's nplurals=2; plural=(n != 1);"
)


#: The codec a catalog that names no charset and is not UTF-8 is read with: each byte one character.
NO_CHARSET_CODEC = "iso8859-1"

#: Bytes Latin-1 text does not hold: C1 control codes, and words of three letters or more past ASCII, which the
#: languages written in Latin-1 seldom have and Cyrillic, Greek or Arabic in their 8-bit charsets always do.
_C1 = re.compile(rb"[\x80-\x9f]")
_HIGH_RUN = re.compile(rb"[\x80-\xff]{3,}")
_HIGH = bytes(range(128, 256))


def latin1_doubts(raw: bytes, encoding: str) -> tuple[str, ...]:
    """A warning where ``raw``, read as ISO-8859-1 for want of a charset (``encoding`` :data:`NO_CHARSET_CODEC`),
    does not look like Latin-1 text (cp1251, KOI8-R, ...): its texts are read as other letters than the file's,
    and written back byte for byte."""
    if encoding != NO_CHARSET_CODEC:
        return ()
    high = len(raw) - len(raw.translate(None, _HIGH))
    runs = sum(map(len, _HIGH_RUN.findall(raw)))
    if _C1.search(raw) is None and 2 * runs <= high:
        return ()
    return (
        "its bytes past ASCII do not read as Latin-1 text (control codes, or whole words of them): the file is likely "
        "in another charset (cp1251, KOI8-R, ...), and its texts are read as other letters than they are; name "
        "its charset in the header's Content-Type (msgfmt reads it as ISO-8859-1 too, and warns that charset "
        "conversion will not work)",
    )


def headerless_rule(path: Path, plurals: bool, encoding: str = "utf-8") -> PluralHeader:
    """A catalog without a header entry (or with an empty one) is read as gettext reads it: the bytes as
    they are (UTF-8 here) and the plural rule its runtime uses for it, ``nplurals=2; plural=(n != 1)``.
    No header is added, as none of gettext's tools adds one. One warning says what the missing header
    costs: no charset, so gettext's tools take the file for ASCII (msgcat refuses the non-ASCII
    translations a run writes), and, for a language whose numbers take more forms than two, plural
    entries written with two."""
    language = locale_from_path(path) or ""
    forms = WHOLE_NUMBER_FORMS.get(_base_language(language), ())
    plural = (
        f"; plural entries are written with the two forms gettext uses without one ({GETTEXT_DEFAULT}), "
        f"where {language} has {len(forms)} ({', '.join(forms)})"
        if plurals and len(forms) > 2
        else ""
    )
    read_as = "UTF-8" if encoding != NO_CHARSET_CODEC else "ISO-8859-1, each byte as it is (the text is not UTF-8)"
    charset = "charset=UTF-8" if encoding != NO_CHARSET_CODEC else "the file's charset"
    warning = (
        f"no header entry: read and written as {read_as}, which gettext's tools take for ASCII without a charset "
        f"(msgcat refuses non-ASCII translations){plural}; add a header with {charset} and a Plural-Forms "
        "line (msginit writes one)"
    )
    return PluralHeader(_GETTEXT_RULE, warnings=(warning,))
