"""Per-architecture validity rules for candidate instances.

Each rule is a small named predicate with a reason string; a candidate that
fails any rule of its architecture is pruned, and `uattn-gen list
--why-pruned` prints the rule names and reasons. The YAML says what to
enumerate, these rules say what is valid.

lds_bytes() mirrors uattn::attn_lds_bytes() in
templates/uattn/kernel/config.hpp (tests/generator/test_rules.py compiles
that header and compares).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .model import ARCH_INFO, REDUCE, Instance


def head_pad(arch: str, head_size: int) -> int:
    """Head size rounded up to the kernel's register tiling (elements)."""
    m = ARCH_INFO[arch].head_pad_multiple
    return (head_size + m - 1) // m * m


def lds_row(arch: str, head_size: int) -> int:
    """LDS row stride in elements (padded head + bank-spreading extra)."""
    return head_pad(arch, head_size) + ARCH_INFO[arch].lds_row_extra


def lds_bytes(arch: str, head_size: int, block_m: int, block_n: int) -> int:
    """Static LDS bytes of an attention workgroup.

    K and V tiles [block_n][lds_row] of 2-byte elements where the arch stages
    them; the wave32 body (gfx1030) stages Q and P rows [block_m][lds_row]
    instead. Source: config.hpp.
    """
    row = lds_row(arch, head_size)
    q = block_m * row * 2 if ARCH_INFO[arch].stages_q_in_lds else 0
    kv = 2 * block_n * row * 2 if ARCH_INFO[arch].stages_kv_in_lds else 0
    return kv + q


def instance_lds_bytes(inst: Instance) -> int:
    """LDS bytes of an instance (0 for the reduce kernel)."""
    if inst.path == REDUCE:
        return 0
    return lds_bytes(inst.arch, inst.head_size, inst.block_m, inst.block_n)


@dataclass(frozen=True)
class Rule:
    name: str
    reason: str
    ok: Callable[[Instance], bool]   # True when the candidate is valid


def _q_is_16bit(i: Instance) -> bool:
    return i.q_dtype in ("f16", "bf16")


def _kv_matches_q(i: Instance) -> bool:
    return i.kv_dtype == "fp8e4m3" or i.kv_dtype == i.q_dtype


def _head_size_served(i: Instance) -> bool:
    return i.head_size in ARCH_INFO[i.arch].head_sizes


def _lds_fits(i: Instance) -> bool:
    return instance_lds_bytes(i) <= ARCH_INFO[i.arch].lds_budget


def _large_tile_2d_only(i: Instance) -> bool:
    return i.tile != "large" or i.path == "2d"


def _rule_set(arch: str) -> list:
    info = ARCH_INFO[arch]
    return [
        Rule("q-dtype-16bit", "the query is fp16 or bf16 (SPEC.md s.1); fp8 is a KV-cache dtype",
             _q_is_16bit),
        Rule("kv-dtype-matches-q",
             "a 16-bit KV cache has the query's dtype; only fp8e4m3 KV may pair with either",
             _kv_matches_q),
        Rule("head-size-served",
             f"{arch} serves head sizes {', '.join(map(str, info.head_sizes))}",
             _head_size_served),
        Rule("lds-budget",
             f"{'Q/P rows' if info.stages_q_in_lds else 'K/V tiles'} must fit the "
             f"{info.lds_budget // 1024} KiB LDS budget of {arch} (config.hpp attn_lds_bytes)",
             _lds_fits),
        Rule("large-tile-2d-only", "3D split-KV segments use the small tile", _large_tile_2d_only),
    ]


RULES = {arch: _rule_set(arch) for arch in ARCH_INFO}


def failed_rules(inst: Instance) -> list:
    """The rules of inst's architecture that the candidate fails (empty = valid)."""
    return [r for r in RULES[inst.arch] if not r.ok(inst)]
