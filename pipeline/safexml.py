"""The one XML parser for untrusted input (catalogs, uploaded documents): no entities, no network.

Every XML byte string the project reads from a user goes through :func:`parse`. A document
type declaration is refused outright (that is where internal and external entities live), so
neither entity expansion ("billion laughs") nor external entities or DTD fetches can happen; the
lxml parser is additionally configured to resolve nothing and load nothing.
"""

from __future__ import annotations

from lxml import etree


class UnsafeXmlError(ValueError):
    """The input is not well-formed XML or uses a feature refused for untrusted input."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {reason}" if line else reason)
        self.reason = reason
        self.line = line


_NO_DOCTYPE = "a document type declaration (DOCTYPE) is not accepted: entities are refused"
# "<!DOCTYPE" in the bytes, in the encodings XML allows (latin-1 reads the ASCII-compatible ones).
_DOCTYPE_MARKERS = tuple(("<!DOCTYPE".encode(enc), enc) for enc in ("latin-1", "utf-16-le", "utf-16-be"))


def _may_declare_doctype(data: bytes) -> bool:
    """Whether ``data`` may hold a document type declaration, judged before any parser runs.

    Only the prolog can hold one: what precedes the root element is blanks, the XML declaration,
    processing instructions and comments, each ending at its first ``?>`` or ``-->``. Where the
    text before the first "<!DOCTYPE" is such a prolog followed by the root's start tag, that
    "<!DOCTYPE" is text (a CDATA section, a comment); anything else may be a declaration.
    """
    for marker, codec in _DOCTYPE_MARKERS:
        at = data.find(marker)
        while at > 0 and codec != "latin-1" and at % 2:  # straddling two UTF-16 characters: not this marker
            at = data.find(marker, at + 1)
        if at < 0:
            continue
        try:
            head = data[:at].decode(codec)
        except UnicodeDecodeError:
            return True
        i = 3 if head.startswith("\xef\xbb\xbf") else 1 if head.startswith("\ufeff") else 0  # the BOM, UTF-8 or 16
        while True:
            while i < len(head) and head[i] in " \t\r\n":
                i += 1
            if head.startswith(("<?", "<!--"), i):
                end = head.find("?>" if head[i + 1] == "?" else "-->", i + 2)
                if end < 0:
                    return True
                i = end + (2 if head[i + 1] == "?" else 3)
            elif head.startswith("<", i) and head[i + 1 : i + 2] not in ("", "!", "?"):
                break  # the root element's start tag: the prolog ended before the marker
            else:
                return True
    return False


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_blank_text=False,
        remove_comments=False,
        remove_pis=False,
        strip_cdata=False,
    )


def parse(data: bytes) -> etree._ElementTree:
    """Parse untrusted XML bytes; raise :class:`UnsafeXmlError` with the line for anything refused."""
    if _may_declare_doctype(data):  # before libxml2 starts counting expansions
        raise UnsafeXmlError(_NO_DOCTYPE, 1)
    try:
        tree = etree.ElementTree(etree.fromstring(data, _parser()))
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno else None
        raise UnsafeXmlError(f"not well-formed XML: {exc.msg}", line) from None
    docinfo = tree.docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or docinfo.externalDTD is not None:
        raise UnsafeXmlError(_NO_DOCTYPE, 1)
    for node in tree.iter(etree.Entity):
        raise UnsafeXmlError(f"entity reference {node.text} is not accepted", node.sourceline)
    return tree
