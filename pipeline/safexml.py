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
# Literal "<!DOCTYPE" can only be markup (in text it would be escaped), in any encoding XML allows.
_DOCTYPE_MARKERS = tuple("<!DOCTYPE".encode(enc) for enc in ("utf-8", "utf-16-le", "utf-16-be"))


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
    if any(marker in data for marker in _DOCTYPE_MARKERS):  # before libxml2 starts counting expansions
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
