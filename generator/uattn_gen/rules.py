"""Per-architecture validity rules for candidate instances.

Each rule is a small named predicate with a reason string; a candidate that
fails any rule of its architecture is pruned, and `uattn-gen list
--why-pruned` prints the rule names and reasons. The YAML says what to
enumerate, these rules say what is valid.

lds_bytes() is uattn::attn_lds_bytes() of templates/uattn/kernel/config.hpp
computed from the same architecture record (tests/generator/test_gen_rules.py
compiles that header against the generated arch header and compares).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .model import ANY_BLOCK, ARCH_INFO, DTYPE_BY_NAME, FEATURE_BIT, HEAD_SIZE_MULTIPLE, REDUCE, Instance


def head_pad(arch: str, head_size: int) -> int:
    """Head size rounded up to the kernel's register tiling (elements)."""
    m = ARCH_INFO[arch].head_pad
    return (head_size + m - 1) // m * m


def lds_row(arch: str, head_size: int) -> int:
    """LDS row stride in elements (padded head + bank-spreading extra)."""
    return head_pad(arch, head_size) + ARCH_INFO[arch].lds_row_pad


def dot2_shares_kv(waves: int) -> bool:
    """The dot2 body's 8-wave tile stages each K / V tile once in LDS for all its
    waves (config.hpp dot2_shares_kv)."""
    return waves == 8


def lds_bytes(arch: str, head_size: int, block_m: int, block_n: int, waves: int) -> int:
    """Static LDS bytes of an attention workgroup.

    Mirrors attn_lds_bytes() of templates/uattn/kernel/config.hpp, by the
    architecture's matrix-instruction kind. mfma_32x32x16: K [block_n][head + 8]
    and V^T [head][block_n + 8] of 2-byte elements per stage, two stages (double
    buffer) for multi-wave workgroups when they fit in 80 KiB; one-wave tiles
    (block_m <= 32) with 64 < head <= 256, of a fixed block size or the generic
    instance, read K straight from memory (V^T only); those of them with 16
    rows stage V^T in two halves of the head (head / 2 rows) where
    head % 32 == 0, whole otherwise; the head-split tile (16 rows, 2 waves:
    mfma_head_split) adds its score exchange, 2 waves x 64 lanes x
    block_n / 16 S^T tiles x 4 fp32 (mfma_split_bytes). dot2:
    K/V are read straight from memory; Q and P rows [block_m][lds_row] are staged;
    the 8-wave tile (dot2_shares_kv) stages the K and V tiles, block_n x head
    2-byte elements each.
    """
    if ARCH_INFO[arch].matrix_insn == "mfma_32x32x16":
        k_in_lds = not (block_m <= 32 and 64 < head_size <= 256)
        v_rows = head_size // 2 if block_m == 16 and head_size % 32 == 0 and not k_in_lds else head_size
        stage = ((block_n * (head_size + 8) if k_in_lds else 0) + v_rows * (block_n + 8)) * 2
        split = waves * 64 * (block_n // 16) * 4 * 4 if (block_m, waves) == (16, 2) else 0
        return stage * (2 if block_m > 32 and 2 * stage <= 80 * 1024 else 1) + split
    if dot2_shares_kv(waves):
        return 2 * block_n * head_size * 2
    return block_m * lds_row(arch, head_size) * 2


def instance_lds_bytes(inst: Instance) -> int:
    """LDS bytes of an instance (0 for the reduce kernel)."""
    if inst.path == REDUCE:
        return 0
    return lds_bytes(inst.arch, inst.head_size, inst.block_m, inst.block_n, inst.waves)


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
    if ARCH_INFO[i.arch].matrix_insn != "dot2" or not dot2_shares_kv(i.waves):
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
             f"{info.lds_budget // 1024} KiB LDS budget of {arch} (config.hpp attn_lds_bytes)",
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
