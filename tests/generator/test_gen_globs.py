"""The one glob syntax: '*' any run, '?' one character, everything else literal.

The cases live in tests/data/glob_cases.json, which the C++ matcher's test
(tests/table/test_table.cpp) reads too, so both matchers answer the same.
"""
import json

import pytest

from gen_helpers import REPO
from uattn_gen.globs import glob_match, is_valid_glob

CASES = json.loads((REPO / "tests" / "data" / "glob_cases.json").read_text())["cases"]


def test_shared_cases_are_plenty():
    assert len(CASES) >= 15 and {c[2] for c in CASES} == {True, False}


@pytest.mark.parametrize("pattern,name,expected", CASES)
def test_glob_match(pattern, name, expected):
    assert glob_match(pattern, name) is expected


def test_only_two_wildcards():
    assert is_valid_glob("uattn_*_d12?_b16_*")
    for bad in ("uattn_[ab]*", "uattn_{a,b}", "a b", "x/y", "a-b", ""):
        assert not is_valid_glob(bad)
