"""Generated catalogs, for figures about size rather than about what real projects hold.

:func:`one_catalog` writes one catalog of N distinct entries (plain, placeholders, markup, plurals);
:func:`many_catalogs` a folder of many small ones. Benches over published projects use
``bench.harness.workloads`` instead.
"""

from __future__ import annotations

from pathlib import Path

LANGS = ["de", "fr", "pl", "ja", "pt_BR"]
HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n'
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
)
WORDS = ("file", "folder", "user", "account", "message", "setting", "project", "report", "invoice", "session")


def one_catalog(path: Path, entries: int, lang: str = "de", salt: str = "") -> None:
    """Write a catalog of ``entries`` distinct untranslated entries: plain, placeholders, markup, plurals."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        out.write(HEADER.format(lang=lang))
        for i in range(entries):
            word = WORDS[i % len(WORDS)]
            if i % 20 == 0:
                out.write(
                    f'#, python-format\nmsgid "%(count)d {word} in group {salt}{i}"\n'
                    f'msgid_plural "%(count)d {word}s in group {salt}{i}"\nmsgstr[0] ""\nmsgstr[1] ""\n\n'
                )
            elif i % 3 == 0:
                out.write(
                    f'#, python-brace-format\nmsgid "Hello {{name}}, your {word} {salt}{i} is ready"\nmsgstr ""\n\n'
                )
            else:
                out.write(f'msgid "The <b>{word}</b> number {salt}{i} was saved."\nmsgstr ""\n\n')


def many_catalogs(root: Path, catalogs: int, messages: int) -> None:
    """``catalogs`` catalogs of ``messages`` untranslated messages (placeholders, markup, plurals) under ``root``."""
    for c in range(catalogs):
        lang = LANGS[c % len(LANGS)]
        entries = []
        for m in range(messages):
            if m % 10 == 0:
                entries.append(
                    f'#, python-format\nmsgid "%(count)d file in folder {m}"\n'
                    f'msgid_plural "%(count)d files in folder {m}"\nmsgstr[0] ""\nmsgstr[1] ""\n'
                )
            elif m % 3 == 0:
                entries.append(
                    f'#, python-brace-format\nmsgid "Hello {{user}}, message {m} of catalog {c}"\nmsgstr ""\n'
                )
            else:
                entries.append(f'msgid "Plain <b>sentence</b> number {m} in catalog {c // len(LANGS)}."\nmsgstr ""\n')
        path = root / f"cat{c:04d}" / lang / "LC_MESSAGES" / "messages.po"
        path.parent.mkdir(parents=True)
        path.write_text(HEADER.format(lang=lang) + "\n".join(entries), encoding="utf-8")
