"""An independent judge of code damage: which code-like tokens of a source a translation changed.

It shares nothing with the placeholder protection or the gate it judges (``pipeline.placeholders``,
``pipeline.run``, the format readers): it reads no catalog flag, knows no protection scheme, and
parses with its own broad rule (see :mod:`pipeline.damage.tokens`), written from the formats'
documentation. ``tests/unit/test_architecture.py`` keeps it that way. Where it and the gate disagree,
one of them is wrong.

    >>> [(d.kind.value, d.token, d.change.value, d.became) for d in check("Try <b>%(n)s</b>", "Essayez <ḃ>%(n)s</b>")]
    [('markup', '<b>', 'changed', '<ḃ>')]

Used by the test suite over real catalogs (tests/data/damage) and by ``python -m bench.acceptance.damage``.
"""

from pipeline.damage.compare import Change, Damage, check, check_plural, compare, is_gnu_quote
from pipeline.damage.tokens import Kind, Token, tokens

__all__ = ["Change", "Damage", "Kind", "Token", "check", "check_plural", "compare", "is_gnu_quote", "tokens"]
