"""The scan's units to translate: an array of indices (forms only for plurals), read as the dict they replace."""

from __future__ import annotations

import sys

import pytest

from pipeline.run.window import AdmittedForms, UnitForms


def test_unit_forms_read_as_the_dict_of_the_same_units() -> None:
    pairs = [(0, (0,)), (3, (0, 1, 0)), (7, (0,)), (1000, (1, 0))]
    forms, expected = UnitForms.of(pairs), dict(pairs)
    assert forms == expected and dict(forms.items()) == expected
    assert list(forms.items()) == pairs and (3, (0, 1, 0)) in forms.items() and len(forms.items()) == 4
    assert list(forms) == list(forms.indices) == [0, 3, 7, 1000] and len(forms) == 4
    assert forms[7] == (0,) and forms[3] == (0, 1, 0) and forms.get(5) is None
    assert 1000 in forms and 5 not in forms and -1 not in forms
    not_an_index: object = "3"
    assert not_an_index not in forms
    with pytest.raises(KeyError):
        forms[1001]


def test_unit_forms_refuse_a_unit_out_of_file_order() -> None:
    forms = UnitForms.of([(4, (0,))])
    with pytest.raises(ValueError, match="unit 4 added after unit 4"):
        forms.add(4, (0,))
    with pytest.raises(ValueError, match="unit 2 added after unit 4"):
        forms.add(2, (0,))


def test_a_catalogs_units_of_one_form_cost_eight_bytes_each() -> None:
    forms = UnitForms.of((i, (0,)) for i in range(100_000))
    as_dict = dict(forms.items())
    assert sys.getsizeof(forms.indices) < 1_000_000 < sys.getsizeof(as_dict)  # about 0.8 MB against 5 MB


def test_admitted_forms_read_as_the_dict_of_the_same_units() -> None:
    pairs = [(2, ("eins",)), (5, ("ein Ding", "zwei Dinge")), (300, ("",)), (301, ("drei",))]
    admitted = AdmittedForms()
    for index, forms in pairs:
        admitted.add(index, list(forms))
    expected = dict(pairs)
    assert admitted == expected and dict(admitted.items()) == expected and len(admitted) == 4
    assert list(admitted.items()) == pairs and (5, ("ein Ding", "zwei Dinge")) in admitted.items()
    assert admitted[5] == ("ein Ding", "zwei Dinge") and admitted[300] == ("",) and admitted.get(3) is None
    not_an_index: object = "2"
    assert 301 in admitted and 4 not in admitted and not_an_index not in admitted
    with pytest.raises(KeyError):
        admitted[302]
    with pytest.raises(ValueError, match="unit 301 added after unit 301"):
        admitted.add(301, ["noch einmal"])


def test_a_catalogs_admitted_units_cost_a_fraction_of_a_dict_of_tuples() -> None:
    admitted = AdmittedForms()
    texts = [f"Übersetzung {i}" for i in range(100_000)]
    for i, text in enumerate(texts):
        admitted.add(i, [text])
    as_dict = {i: (text,) for i, text in enumerate(texts)}
    kept = sys.getsizeof(admitted._units) + sys.getsizeof(admitted._texts)
    as_records = sys.getsizeof(as_dict) + sum(sys.getsizeof(k) + sys.getsizeof(v) for k, v in as_dict.items())
    assert kept * 5 < as_records  # about 1.6 MB against 12 MB
