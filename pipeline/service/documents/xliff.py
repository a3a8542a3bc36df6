"""XLIFF documents (``xlf``, ``xliff``), versions 1.2 and 2.x, edited in place in their own tree.

Every translatable source (1.2: ``trans-unit``; 2.x: each ``segment`` of a ``unit``) not under
``translate="no"`` gets a target holding its translation: an existing target is replaced (its
attributes kept), a missing one is created right after the source. Inline elements travel to
the engine as numbered tags (``<i3>...</i3>``; codes without text such as ``x``/``ph`` as
``<i3/>``) with ``tag_handling=xml``, so a sentence is translated whole and every inline element
comes back in place with its attributes and untranslated code content. The target language is
written to ``target-language`` (1.2) or ``trgLang`` (2.x). Parsing goes through
:mod:`pipeline.safexml` (no DOCTYPE, no entities).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from xml.sax.saxutils import escape

from lxml import etree

from pipeline import safexml
from pipeline.service.documents.base import DocumentError, Translator
from pipeline.service.echo import echo

NS_12 = "urn:oasis:names:tc:xliff:document:1.2"
NS_20 = "urn:oasis:names:tc:xliff:document:2.0"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
#: Inline elements whose content is native code, never text to translate.
_CODES = {
    NS_12: frozenset({"x", "bx", "ex", "ph", "bpt", "ept", "it"}),
    NS_20: frozenset({"ph", "sc", "ec", "cp", "sm", "em"}),
}


def _parse(data: bytes) -> tuple[etree._ElementTree, str]:
    try:
        tree = safexml.parse(data)
    except safexml.UnsafeXmlError as exc:
        raise DocumentError(f"the xliff file is refused: {exc}") from None
    root = tree.getroot()
    qname = etree.QName(root)
    if qname.localname != "xliff" or qname.namespace not in (NS_12, NS_20):
        raise DocumentError("the file is not XLIFF 1.2 or 2.x (root element <xliff> in the XLIFF namespace)")
    if qname.namespace == NS_20 and not str(root.get("version", "2.0")).startswith("2."):
        raise DocumentError(f"XLIFF version {echo(root.get('version'))} is not supported; 1.2 and 2.x are")
    return tree, qname.namespace


def check_xliff(data: bytes) -> None:
    """Refuse anything but safe, well-formed XLIFF 1.2 or 2.x."""
    _parse(data)


def _excluded(element: etree._Element) -> bool:
    return any(node.get("translate") == "no" for node in (element, *element.iterancestors()))


def _sources(root: etree._Element, ns: str) -> Iterator[tuple[etree._Element, etree._Element]]:
    """(container, source) pairs to translate; the target goes into ``container``."""
    for container in root.iter(f"{{{ns}}}trans-unit" if ns == NS_12 else f"{{{ns}}}segment"):
        source = container.find(f"{{{ns}}}source")
        if source is not None and not _excluded(container):
            yield container, source


def _is_code(element: etree._Element, ns: str) -> bool:
    """Whether an inline element travels as an empty tag (native code, comment, processing instruction)."""
    return not isinstance(element.tag, str) or etree.QName(element).localname in _CODES[ns]


def _flatten(element: etree._Element, ns: str, counter: list[int]) -> str:
    out = [escape(element.text or "")]
    for child in element:
        number = counter[0]
        counter[0] += 1
        out.append(f"<i{number}/>" if _is_code(child, ns) else f"<i{number}>{_flatten(child, ns, counter)}</i{number}>")
        out.append(escape(child.tail or ""))
    return "".join(out)


def _fill(target: etree._Element, result: etree._Element, ns: str, counter: list[int]) -> bool:
    """Copy texts of ``result`` (numbered tags) into ``target`` (a copy of the source); False on mismatch."""
    if len(target) != len(result):
        return False
    target.text = result.text
    for mine, theirs in zip(target, result, strict=True):
        number = counter[0]
        counter[0] += 1
        if theirs.tag != f"i{number}":
            return False
        if _is_code(mine, ns):
            if len(theirs) or theirs.text:
                return False
        elif not _fill(mine, theirs, ns, counter):
            return False
        mine.tail = theirs.tail
    return True


def _place_target(container: etree._Element, source: etree._Element, ns: str) -> etree._Element:
    target = container.find(f"{{{ns}}}target")
    if target is None:
        target = etree.Element(f"{{{ns}}}target")
        anchor = container.find(f"{{{ns}}}seg-source") if ns == NS_12 else None
        (anchor if anchor is not None else source).addnext(target)
    return target


def translate_xliff(data: bytes, translate: Translator, target_lang: str) -> bytes:
    """Fill the targets of every translatable source."""
    tree, ns = _parse(data)
    root = tree.getroot()
    pairs = list(_sources(root, ns))
    texts = [_flatten(source, ns, [0]) for _, source in pairs]
    wanted = [i for i, text in enumerate(texts) if text.strip()]
    done = translate([texts[i] for i in wanted], "xml")
    for i, translated in zip(wanted, done, strict=True):
        container, source = pairs[i]
        try:
            result = safexml.parse(f"<r>{translated}</r>".encode()).getroot()
        except safexml.UnsafeXmlError:
            result = None
        body = copy.deepcopy(source)
        if result is None or not _fill(body, result, ns, [0]):
            parent = container.getparent()
            unit_id = container.get("id") or (parent.get("id") if ns == NS_20 and parent is not None else None)
            raise DocumentError(f"unit {echo(unit_id)}: the translation lost the inline markup of the source")
        target = _place_target(container, source, ns)
        target.text = body.text
        target[:] = list(body)
        if ns == NS_12:
            target.set(XML_LANG, target_lang)
    if ns == NS_12:
        for file in root.iter(f"{{{ns}}}file"):
            file.set("target-language", target_lang)
    else:
        root.set("trgLang", target_lang)
    encoding = tree.docinfo.encoding or "UTF-8"
    return etree.tostring(tree, xml_declaration=True, encoding=encoding)
