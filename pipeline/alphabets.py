"""Each target language's letters: what the local engine writes in and what a catalog's charset must hold.

A table per service target code maps the 26 basic Latin letters (``a`` to ``z``) to letters of the
language's own alphabet and script: for a Latin-script language, mostly the letters themselves with
the language's own letters put in (Polish ``a`` -> ``ą``, ``l`` -> ``ł``; German ``a`` -> ``ä``);
for a language with no letters beyond ``a``-``z`` (English, Indonesian, Swahili...) the vowels
swapped among themselves (``a`` -> ``e``...), each such language its own way; for any other script a
transliteration into it (Cyrillic, Greek, Hebrew, Arabic, Devanagari, Thai, kana, Hangul, Han...).
No two targets share a table, so no two give the same pseudo-translation of a pangram.

Each table's letters are chosen among those the language's legacy charset holds (ISO-8859-2 for
Polish, KOI8-R for Russian, ISO-8859-8 for Hebrew, EUC-JP for Japanese, GB2312 and Big5 for
Chinese...), so a pseudo-translation exercises a catalog's charset the way a real one does.

The same letters are what a run checks a catalog's charset against before it sends anything
for it (:func:`charset_problem`): a Polish catalog in ISO-8859-1 cannot take a Polish translation.
"""

import functools
import itertools
from typing import NamedTuple

__all__ = ["Alphabet", "alphabet", "charset_problem", "known_targets", "script_of", "unheld"]

_LATIN = "abcdefghijklmnopqrstuvwxyz"
#: Transliterations of a..z into each script (one code point each).
_SCRIPTS = {
    "cyrillic": "абцдефгхийклмнопярстувшжыз",
    "greek": "αβψδεφγηιξκλμνόπθρστυωώχυζ",
    "hebrew": "אבצדעפגהיטכלמנופקרסתובוחיז",
    "arabic": "ابثدعفغهيجكلمنوطقرستضذشخيز",
    "devanagari": "अबचदएफगहइजकलमनओपखरसतउवडषयझ",
    "bengali": "অবচদএফগহইজকলমনওপখরসতউভঢষযঝ",
    "gujarati": "અબચદએફગહઇજકલમનઓપખરસતઉવઢષયઝ",
    "gurmukhi": "ਅਬਚਦਏਫਗਹਇਜਕਲਮਨਓਪਖਰਸਤਉਵਢਛਯਝ",
    "tamil": "அபசடஎபகஹஇஜகலமநஒபகரஸதஉவவஷயழ",
    "telugu": "అబచదఎఫగహఇజకలమనఒపఖరసతఉవఢషయఝ",
    "malayalam": "അബചദഎഫഗഹഇജകലമനഒപഖരസതഉവഢഷയഴ",
    "thai": "าบคดเฟกหไจขลมนโพฆรสทอวฝซยฌ",
    "georgian": "აბცდეფგჰიჯკლმნოპქრსტუვწხყზ",
    "armenian": "աբցդեֆգհիջկլմնոպքրստւվւխյզ",
    "myanmar": "အဗစဒဧဖဂဟဣဇကလမနဩပခရသတဥဝဃဆယဈ",
    "kana": "アブクドエフグハイジカルムンオプキラストウヴワズヤゼ",
    "hangul": "아비시디에프지하이제카엘엠엔오피큐알스티우브워엑와즈",
    "hans": "阿贝西德饿夫吉哈伊杰卡乐米恩欧皮丘尔斯特乌维沃克亚兹",
    "hant": "阿貝西德餓夫吉哈伊傑卡樂米恩歐皮丘爾斯特烏維沃克亞茲",
}
#: Target code -> (script, letters put in: pairs of a basic letter and the language's letter).
#: A Latin-script language without pairs gets its own swap of the vowels (see _ascii_only).
_LANGUAGES = {
    "DE": ("latin", "aäoöuüsß"),
    "DE-CH": ("latin", "aäoöuü"),
    "FR": ("latin", "aàeéiîoôuùcç"),
    "FR-CA": ("latin", "aâeèiïoôuûcç"),
    "IT": ("latin", "aàeèiìoòuù"),
    "ES": ("latin", "aáeéiíoóuúnñ"),
    "ES-419": ("latin", "aáeéiíoóuünñ"),
    "PT-PT": ("latin", "aáeéiíoôuúcç"),
    "PT-BR": ("latin", "aãeêiíoõuúcç"),
    "NL": ("latin", "eëiï"),
    "DA": ("latin", "aåoøeæ"),
    "NB": ("latin", "aåoøeé"),
    "SV": ("latin", "aåoöeä"),
    "FI": ("latin", "aäoö"),
    "ET": ("latin", "aäoõuüsšzž"),
    "IS": ("latin", "aáeéiíoóuúyýdðtþ"),
    "PL": ("latin", "aącćeęlłnńoósśzżxź"),
    "CS": ("latin", "aácčdďeěiínňoórřsštťuůyýzž"),
    "SK": ("latin", "aäcčdďeéiílľnňoôrŕsštťuúyýzž"),
    "SL": ("latin", "cčsšzž"),
    "HR": ("latin", "cćdđsšzž"),
    "BS": ("latin", "cčdđsšzž"),
    "HU": ("latin", "aáeéiíoőuű"),
    "RO": ("latin", "aăiîeâ"),
    "TR": ("latin", "cçgğiıoösşuü"),
    "AZ": ("latin", "cçeəgğiıoösşuü"),
    "TK": ("latin", "aäcçnňoösşuüyýzž"),
    "LT": ("latin", "aącčeęiįsšuųzž"),
    "LV": ("latin", "aācčeēgģiīkķlļnņsšuūzž"),
    "CA": ("latin", "aàeèiïoòuücç"),
    "GL": ("latin", "aáeéiíuúnñ"),
    "EU": ("latin", "nñ"),
    "OC": ("latin", "aàeèiíoòuúcç"),
    "AN": ("latin", "aáeéiíoónñ"),
    "SCN": ("latin", "aâeêiîoôuû"),
    "LMO": ("latin", "aàeéiìoöuü"),
    "LB": ("latin", "aäeë"),
    "GA": ("latin", "aáeéiíoóuú"),
    "CY": ("latin", "wŵyŷaâ"),
    "BR": ("latin", "nñuù"),
    "MT": ("latin", "cċgġhħzż"),
    "EO": ("latin", "cĉgĝhĥjĵsŝuŭ"),
    "SQ": ("latin", "eëcç"),
    "VI": ("latin", "aăeêoơuưdđ"),
    "KMR": ("latin", "eêiîuûcçsş"),
    "HT": ("latin", "eèoò"),
    "WO": ("latin", "eëaàoónñ"),
    "HA": ("latin", "bɓdɗkƙ"),
    "IG": ("latin", "iịoọuụnṅ"),
    "LN": ("latin", "eɛoɔ"),
    "MI": ("latin", "aāeēiīoōuū"),
    "GN": ("latin", "aãeẽiĩoõuũyỹ"),
    "QU": ("latin", "nñaä"),
    "AY": ("latin", "nñaäiïuü"),
    "ACE": ("latin", "eèoô"),
    "JV": ("latin", "eè"),
    "SU": ("latin", "eé"),
    "AF": ("latin", "eëiïoôuû"),
    "EN-US": ("latin", ""),
    "EN-GB": ("latin", ""),
    "ID": ("latin", ""),
    "MS": ("latin", ""),
    "SW": ("latin", ""),
    "ST": ("latin", ""),
    "TN": ("latin", ""),
    "TS": ("latin", ""),
    "XH": ("latin", ""),
    "ZU": ("latin", ""),
    "OM": ("latin", ""),
    "MG": ("latin", ""),
    "PAG": ("latin", ""),
    "PAM": ("latin", ""),
    "TL": ("latin", ""),
    "CEB": ("latin", ""),
    "LA": ("latin", ""),
    "UZ": ("latin", ""),
    "RU": ("cyrillic", ""),
    "UK": ("cyrillic", "iіyїeєgґ"),
    "BE": ("cyrillic", "wўiі"),
    "BG": ("cyrillic", "yъwщqю"),
    "MK": ("cyrillic", "gѓkќqљwњxџzѕjј"),
    "SR": ("cyrillic", "jјqљwњxџyћ"),
    "KK": ("cyrillic", "qқwғxңyұiіhһ"),
    "KY": ("cyrillic", "qңwөyү"),
    "MN": ("cyrillic", "qөyүwш"),
    "TG": ("cyrillic", "qқwғyӯxҷhҳiӣ"),
    "TT": ("cyrillic", "qәwөyүxҗhһ"),
    "BA": ("cyrillic", "qәwөyүxҙhһcҫ"),
    "EL": ("greek", ""),
    "HE": ("hebrew", ""),
    "YI": ("hebrew", "vװyײoױ"),
    "AR": ("arabic", ""),
    "FA": ("arabic", "pپcچgگkکxژ"),
    "PRS": ("arabic", "pپcچgگkکzژ"),
    "PS": ("arabic", "tټdډrړgګnڼxښyې"),
    "UR": ("arabic", "tٹdڈrڑyےhھpپgگkک"),
    "CKB": ("arabic", "rڕlڵoۆeێaەpپgگ"),
    "HI": ("devanagari", ""),
    "MR": ("devanagari", "lळ"),
    "GOM": ("devanagari", "lळwण"),
    "NE": ("devanagari", "wङ"),
    "SA": ("devanagari", "rऋ"),
    "MAI": ("devanagari", "qञ"),
    "BHO": ("devanagari", "qढ"),
    "BN": ("bengali", ""),
    "AS": ("bengali", "rৰwৱ"),
    "GU": ("gujarati", ""),
    "PA": ("gurmukhi", ""),
    "TA": ("tamil", ""),
    "TE": ("telugu", ""),
    "ML": ("malayalam", ""),
    "TH": ("thai", ""),
    "KA": ("georgian", ""),
    "HY": ("armenian", ""),
    "MY": ("myanmar", ""),
    "JA": ("kana", ""),
    "KO": ("hangul", ""),
    "ZH-HANS": ("hans", ""),
    "ZH-HANT": ("hant", ""),
    "YUE": ("hant", "e嘅m咩l啦w喎"),
}
#: Hebrew writes five letters otherwise at the end of a word.
_FINALS: dict[str, dict[int, int]] = {"hebrew": str.maketrans("כמנפצ", "ךםןףץ")}


class Alphabet(NamedTuple):
    """A target language's table: ``table[i]`` stands for the i-th basic Latin letter."""

    code: str
    script: str
    table: str
    signature: str  # put after a word the table would leave as it was

    @property
    def letters(self) -> str:
        """Every letter a pseudo-translation into this language can hold (both cases)."""
        extra = "".join(c.upper() for c in self.table if len(c.upper()) == 1)
        finals = "".join(chr(c) for c in _FINALS[self.script].values()) if self.script in _FINALS else ""
        return "".join(dict.fromkeys(self.table + extra + self.signature + finals))

    def finish_word(self, word: str) -> str:
        """``word`` with the script's end-of-word letter forms (Hebrew finals)."""
        finals = _FINALS.get(self.script)
        return word[:-1] + word[-1].translate(finals) if finals and word else word


@functools.cache
def alphabet(code: str) -> Alphabet:
    """The alphabet of a service target code (``PL``, ``PT-BR``, ``ZH-HANS``); plain Latin for an unknown one."""
    code = code.upper()
    script, pairs = _LANGUAGES.get(code, ("latin", ""))
    table = list(_LATIN if script == "latin" else _SCRIPTS[script])
    for base, letter in zip(pairs[::2], pairs[1::2], strict=True):
        table[_LATIN.index(base)] = letter
    if script == "latin" and not pairs:
        table = list(_ascii_only(code))
    signature = next((c for c, b in zip(table, _LATIN, strict=True) if c != b), table[0])
    return Alphabet(code, script, "".join(table), signature)


def _ascii_only(code: str) -> str:
    """For a language written in ``a``-``z`` alone: a swap of the vowels no other such language has."""
    plain = [c for c, (script, pairs) in _LANGUAGES.items() if script == "latin" and not pairs]
    vowels = "aeiou"
    swaps = [p for p in itertools.permutations(vowels) if all(a != b for a, b in zip(p, vowels, strict=True))]
    swap = dict(zip(vowels, swaps[plain.index(code) % len(swaps)] if code in plain else vowels, strict=True))
    return "".join(swap.get(c, c) for c in _LATIN)


def unheld(letters: str, encoding: str) -> str | None:
    """The first of ``letters`` that ``encoding`` cannot hold, or None when it holds them all."""
    for letter in letters:
        try:
            letter.encode(encoding)
        except UnicodeEncodeError:
            return letter
        except LookupError:
            return None  # an unknown codec: the reader reports it
    return None


def charset_problem(encoding: str, target: str, locale: str, shown: str | None = None) -> str | None:
    """Why a catalog in ``encoding`` (named ``shown`` in its header) cannot take translations into
    ``target`` (catalog ``locale``), or None.

    A UTF encoding holds everything; any other must hold every letter of the language's table.
    """
    if encoding.replace("-", "").replace("_", "").lower().startswith("utf"):
        return None
    letter = unheld(alphabet(target).letters, encoding)
    if letter is None:
        return None
    return (
        f"its charset {shown or encoding} cannot hold the letters of {locale} (such as {letter!r}, "
        f"U+{ord(letter):04X}): nothing is sent for it; convert it to UTF-8 first "
        f"(msgconv --to-code=UTF-8 FILE -o FILE), or pass --to-utf8 (or set [translate] to_utf8 = true) "
        f"to have it converted when it is written"
    )


def script_of(code: str) -> str:
    """The script a service target code is written in (``latin``, ``cyrillic``, ``hant``...); Latin if unknown."""
    return _LANGUAGES.get(code.upper(), ("latin", ""))[0]


def known_targets() -> frozenset[str]:
    """The service target codes that have a table here (``DE``, ``PT-BR``, ``ZH-HANT``)."""
    return frozenset(_LANGUAGES)
