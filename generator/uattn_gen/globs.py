"""The one glob syntax of uattn instance names.

`*` matches any run of characters (also none), `?` exactly one; every other
character matches itself (case-sensitive). The same syntax serves YAML
subsets, `uattn-gen --filter` and the run-time SelectOptions::filter
(uattn::glob_match in dispatch/), so a filter means the same everywhere.
"""
from __future__ import annotations

import re

# Characters a glob may contain: those of instance names (C identifiers) plus
# the two wildcards.
GLOB_RE = re.compile(r"^[A-Za-z0-9_*?]+$")


def is_valid_glob(pattern: str) -> bool:
    return bool(GLOB_RE.match(pattern))


def glob_match(pattern: str, name: str) -> bool:
    """True when `name` matches `pattern` as a whole."""
    p = n = 0
    star_p, star_n = -1, 0
    while n < len(name):
        if p < len(pattern) and (pattern[p] == "?" or pattern[p] == name[n]):
            p += 1
            n += 1
        elif p < len(pattern) and pattern[p] == "*":
            star_p, star_n = p, n
            p += 1
        elif star_p >= 0:
            star_n += 1
            p, n = star_p + 1, star_n
        else:
            return False
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)
