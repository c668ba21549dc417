"""Per-architecture validity rules for candidate instances.

Each rule is a small named predicate with a reason string; a candidate that
fails any rule of its architecture is pruned, and `uattn-gen list
--why-pruned` prints the rule names and reasons. The YAML says what to
enumerate, these rules say what is valid.

The LDS bytes a rule checks are the tile record's (tiles.py), the number the
kernel declares and the table row carries.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .model import ANY_BLOCK, ARCH_INFO, DTYPE_BY_NAME, FEATURE_BIT, HEAD_SIZE_MULTIPLE, Instance
from .tiles import instance_lds_bytes, tile_config


@dataclass(frozen=True)
class Rule:
    name: str
    reason: str
    ok: Callable[[Instance], bool]   # True when the candidate is valid


def _q_is_16bit(i: Instance) -> bool:
    return DTYPE_BY_NAME[i.q_dtype].query


def _kv_matches_q(i: Instance) -> bool:
    return DTYPE_BY_NAME[i.kv_dtype].kv_any_query or i.kv_dtype == i.q_dtype


def _head_size_multiple(i: Instance) -> bool:
    return i.head_size % HEAD_SIZE_MULTIPLE == 0


def _head_size_served(i: Instance) -> bool:
    return i.head_size in ARCH_INFO[i.arch].head_sizes


def _lds_fits(i: Instance) -> bool:
    return instance_lds_bytes(i) <= ARCH_INFO[i.arch].lds_budget


def _large_tile_2d_only(i: Instance) -> bool:
    return i.tile != "large" or i.path == "2d"


def _shared_tile_serves(i: Instance) -> bool:
    """The dot2 body's 8-wave tile (run_shared in attention_dot2.hpp) is written for plain and
    sliding-window attention at a fixed, even block size (both keys of a V key pair in one block)."""
    if ARCH_INFO[i.arch].matrix_insn != "dot2" or not tile_config(i).shares_kv:
        return True
    return (i.block_size != ANY_BLOCK and i.block_size % 2 == 0
            and i.features & ~FEATURE_BIT["window"] == 0)


def _rule_set(arch: str) -> list:
    info = ARCH_INFO[arch]
    return [
        Rule("q-dtype-16bit", "the query is fp16 or bf16 (SPEC.md s.1); fp8 is a KV-cache dtype",
             _q_is_16bit),
        Rule("kv-dtype-matches-q",
             "a 16-bit KV cache has the query's dtype; only fp8e4m3 KV may pair with either",
             _kv_matches_q),
        Rule("head-size-multiple-of-16",
             f"the kernels step the head dimension by {HEAD_SIZE_MULTIPLE} elements "
             f"(MFMA K steps, 16-byte loads)", _head_size_multiple),
        Rule("head-size-served",
             f"{arch} serves head sizes {', '.join(map(str, info.head_sizes))}",
             _head_size_served),
        Rule("lds-budget",
             f"{'Q/P rows (K/V tiles in the 8-wave tile)' if info.stages_q_in_lds else 'K/V tiles'} must fit the "
             f"{info.lds_budget // 1024} KiB LDS budget of {arch} (the tile record's lds_bytes, tiles.py)",
             _lds_fits),
        Rule("large-tile-2d-only", "3D split-KV segments use the small tile", _large_tile_2d_only),
        Rule("shared-tile-plain-or-window",
             "the 8-wave tile that shares K/V through LDS (gfx1030 d128 large) serves plain and "
             "sliding-window attention at a fixed, even block size; the one-wave tile serves the rest",
             _shared_tile_serves),
    ]


RULES = {arch: _rule_set(arch) for arch in ARCH_INFO}   # the built-in architectures


def rules_for(arch: str) -> list:
    """The rules of `arch` (also an architecture a matrix declares)."""
    return RULES[arch] if arch in RULES else _rule_set(arch)


def failed_rules(inst: Instance) -> list:
    """The rules of inst's architecture that the candidate fails (empty = valid)."""
    return [r for r in rules_for(inst.arch) if not r.ok(inst)]
