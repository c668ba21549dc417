"""The one glob syntax: '*' any run, '?' one character, everything else literal."""
import pytest

from uattn_gen.globs import glob_match, is_valid_glob


@pytest.mark.parametrize("pattern,name,expected", [
    ("uattn_*", "uattn_gfx950_reduce_d64", True),
    ("*", "", True),
    ("", "", True),
    ("", "a", False),
    ("*_d64", "uattn_gfx950_reduce_d64", True),
    ("*_d6", "uattn_gfx950_reduce_d64", False),
    ("uattn_gfx9?0_*", "uattn_gfx950_x", True),
    ("uattn_gfx9?0_*", "uattn_gfx1030_x", False),
    ("*a*b*c", "xaybzc", True),
    ("*a*b*c", "xaybzcd", False),
    ("a**b", "ab", True),
    ("?", "", False),
    ("UATTN_*", "uattn_x", False),
])
def test_glob_match(pattern, name, expected):
    assert glob_match(pattern, name) is expected


def test_only_two_wildcards():
    assert is_valid_glob("uattn_*_d12?_b16_*")
    for bad in ("uattn_[ab]*", "uattn_{a,b}", "a b", "x/y", "a-b", ""):
        assert not is_valid_glob(bad)
