"""The tile record: every decision about an attention instance's workgroup tile.

A kernel body (templates/uattn/kernel/attention_mfma.hpp, attention_dot2.hpp) is
a pipeline handed a configuration: the generator computes one `TileConfig` per
attention instance here, once, by the named rules of TILE_RULES, and emits it
into the instance's file as the template argument the body takes
(`<name>_tile`, uattn/kernel/tile.hpp gives the C++ fields) and into its table
row (block_m, block_n, waves, lds_bytes, head_split, shares_kv, key_split), so the table,
the selector and the kernel read the same numbers. A body derives nothing from
the head size, the block size or the dtypes that is a choice; it derives only
arithmetic (tiles per head, chunks per row) from the record.

Inputs of a rule (`TileKey`): the architecture record, the path, the q / kv
dtypes, the head size, the block size (ANY_BLOCK: any), the feature mask and
the tile kind (model.TILE_KINDS) with its geometry (model.ArchInfo.tile()).

Overrides: a matrix group may set the pipeline fields (OVERRIDABLE) by name
(`tile_config:` in the YAML, docs/yaml-schema.md); they replace the rules'
values, and `uattn-inspect --check` and the CPU / ISA execution tests judge the
result like any other instance.

The measurements behind the pipeline depths and register budgets (llvm-mca
cycles per KV tile, VGPR counts) are in docs/performance.md, "Tile rules".
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from .model import ANY_BLOCK, ARCH_INFO, FEATURE_BIT, REDUCE, ArchInfo, Instance

ALL_FEATURES_MASK = sum(FEATURE_BIT.values())
FP8 = "fp8e4m3"


@dataclass(frozen=True)
class TileConfig:
    """One attention instance's tile (C++: uattn::TileConfig, uattn/kernel/tile.hpp,
    same fields, same order). Fields of one body only are 0 / False in the other's."""
    # Geometry (both bodies)
    block_m: int          # packed query rows per workgroup
    block_n: int          # keys per KV tile
    waves: int            # waves per workgroup
    rows_per_wave: int    # query rows one wave owns (= block_m, or block_m / waves)
    lds_bytes: int        # static LDS bytes of the workgroup (0: none)
    waves_per_eu: int     # waves per SIMD the register allocation must allow (amdgpu_waves_per_eu)
    shares_kv: bool       # the waves walk one KV range and load each K / V tile once between them
    # MFMA body (attention_mfma.hpp)
    head_split: bool      # the waves own the same rows and split the head
    k_direct: bool        # K read straight from memory into the MFMA A operand (no K in LDS)
    v_slices: int         # V^T staged in this many slices of the head per KV tile
    stages: int           # LDS stages of K / V^T (2: double buffer)
    lds_swizzle: bool     # K / V^T rows in LDS with XOR-swizzled 16-byte chunks (bank conflicts)
    stage_keys: int       # keys per staging unit (unit = keys x one 8-element chunk)
    k_group: int          # K / Q fragment pairs in flight per scheduling group
    v_group: int          # V^T fragments in flight per scheduling group (16-row tiles)
    prefetch: bool        # the next tile is loaded into registers while this one computes
    three_loops: bool     # the 2D tile loop is walked as three plain loops (like 3D)
    one_copy: bool        # the generic instance runs its element-load tile loops only
    v_whole: bool         # K-direct tiles: the whole KV tile's V staging units in one group
    v_step_keys: int      # otherwise: keys per V staging group
    # dot2 body (attention_dot2.hpp)
    dims_per_lane: int    # V head dims one lane accumulates in P.V
    q_bcast: bool         # Q and P broadcast by DPP (no Q / P staging in LDS)
    aligned_first: bool   # the generic instance tests the aligned-rows path first
    k_ahead: int          # K pieces in flight (aligned rows)
    v_ahead: int          # V key pairs in flight (aligned rows)
    q_ahead: int          # Q LDS reads in flight (aligned rows; 0: Q in registers)
    key_split: bool       # a workgroup of at most block_m / 2 rows splits its KV range among its waves

    def cpp_fields(self) -> list:
        """[(field, C++ literal)] in declaration order (the instance file's record)."""
        out = []
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out.append((f.name, ("true" if v else "false") if isinstance(v, bool)
                        else f"{v}u" if f.name == "lds_bytes" else str(v)))
        return out


FIELD_NAMES = tuple(f.name for f in dataclasses.fields(TileConfig))
BOOL_FIELDS = frozenset(f.name for f in dataclasses.fields(TileConfig) if f.type in ("bool", bool))
# The fields a matrix group may set (`tile_config:`): the pipeline knobs. The
# geometry and the LDS layout (block_m .. shares_kv, head_split, k_direct,
# v_slices, stages, lds_swizzle, q_bcast, key_split) follow from the tile kind and the layout rules,
# and the name, the table row and lds_bytes with them.
OVERRIDABLE = frozenset(("waves_per_eu", "stage_keys", "k_group", "v_group", "prefetch", "three_loops",
                         "one_copy", "v_whole", "v_step_keys", "dims_per_lane", "aligned_first",
                         "k_ahead", "v_ahead", "q_ahead"))


@dataclass(frozen=True)
class TileKey:
    """What a tile rule may look at."""
    info: ArchInfo
    path: str
    q_dtype: str
    kv_dtype: str
    head: int
    block: int            # ANY_BLOCK (0): a run-time block size
    features: int
    block_m: int
    block_n: int
    waves: int

    @property
    def mfma(self) -> bool:
        return self.info.matrix_insn == "mfma_32x32x16"

    @property
    def fp8(self) -> bool:
        return self.kv_dtype == FP8

    @property
    def bf16(self) -> bool:
        return self.q_dtype == "bf16"

    @property
    def any_block(self) -> bool:
        return self.block == ANY_BLOCK

    @property
    def generic(self) -> bool:
        """The generic instance: any block size, every feature (serves unaligned rows too)."""
        return self.any_block and self.features == ALL_FEATURES_MASK

    def has(self, feature: str) -> bool:
        return bool(self.features & FEATURE_BIT[feature])


# --- MFMA body (gfx950) --------------------------------------------------------

def _mfma_head_split(k: TileKey) -> bool:
    """16 rows, 2 waves: the generic d256 tile (model.ArchInfo.rows_by_head)."""
    return k.block_m == 16 and k.waves == 2


def _mfma_rows(k: TileKey) -> int:
    return k.block_m if _mfma_head_split(k) else k.block_m // k.waves


def _mfma_lone(k: TileKey) -> bool:
    """The one-wave tiles of a fixed block size (but the 16-row d112 ones, whose
    padded head step needs K from memory): a decode launch holds about one
    workgroup per CU (sequences x KV heads, x segments in 3D), so no other wave
    of the SIMD hides a tile's loads. They stage K and V^T through LDS and load
    the next tile into registers while this one computes (prefetch), at 2 waves
    per SIMD (1 above d128). Whole-launch model, the default set's decodes on
    gfx950: docs/performance.md, "Lone-wave tiles and the reduce"."""
    return (k.waves == 1 and not k.any_block
            and (k.block_m == 32 or k.head % 32 == 0))


def _mfma_k_direct(k: TileKey) -> bool:
    """One-wave tiles (block_m <= 32) with 64 < head <= 256 read K straight from
    memory: V^T alone in LDS (10 KiB at d128) lets 16 workgroups share gfx950's
    160 KiB (10 at d192, 8 at d256); d64 reaches 4 waves with K in LDS. Not the
    lone-wave tiles (_mfma_lone): the generic instance's and the d112 ones."""
    return k.block_m <= 32 and 64 < k.head <= 256 and not _mfma_lone(k)


def _mfma_v_slices(k: TileKey) -> int:
    """The 16-row K-direct tiles of a head size that is a multiple of 32 stage V^T
    in two halves (7.5 / 10 KiB at d192 / d256: at least 4 waves per SIMD by LDS);
    every other tile stages it whole (d80 / d112 halves would not be whole 16-dim
    O^T tiles)."""
    return 2 if k.block_m == 16 and k.head % 32 == 0 and _mfma_k_direct(k) else 1


def _mfma_stage_bytes(head: int, block_n: int, k_in_lds: bool = True, v_slices: int = 1) -> int:
    """One LDS stage: K [block_n][head + 8] (when staged) and V^T [head / v_slices][block_n + 8], 2-byte elements."""
    return ((block_n * (head + 8) if k_in_lds else 0) + head // v_slices * (block_n + 8)) * 2


def _mfma_stages(k: TileKey) -> int:
    """Two stages (double buffer) for multi-wave workgroups when they fit in 80 KiB, else one."""
    return 2 if k.block_m > 32 and 2 * _mfma_stage_bytes(k.head, k.block_n) <= 80 * 1024 else 1


def _mfma_lds_bytes(k: TileKey) -> int:
    """The stages, then (head split) each wave's partial S^T tiles: waves x 64 lanes x
    block_n / 16 tiles x 4 fp32."""
    stage = _mfma_stage_bytes(k.head, k.block_n, not _mfma_k_direct(k), _mfma_v_slices(k))
    split = k.waves * 64 * (k.block_n // 16) * 4 * 4 if _mfma_head_split(k) else 0
    return stage * _mfma_stages(k) + split


def _mfma_stage_keys(k: TileKey) -> int:
    """The largest of 4, 2, 1 keys per unit whose unit count is a multiple of the
    workgroup's lanes (every lane stages as many units; no per-lane skip); where
    none divides (d80 / d112 with 4 waves) 4, but 2 in the generic 4-wave d112
    tile with 16-bit KV (4 spills)."""
    threads = 64 * k.waves
    chunks = k.head // _mfma_v_slices(k) // 8
    for uk in (4, 2, 1):
        if (k.block_n // uk) * chunks % threads == 0:
            return uk
    return 2 if k.generic and k.waves > 1 and k.head == 112 and not k.fp8 else 4


def _mfma_gen_w4(k: TileKey) -> bool:
    """A run-time block size with K from memory built for 4 waves per SIMD: the
    16-row d80-d256 tiles (not the one-wave 16-row d256 tile with fp8 KV)."""
    return (k.any_block and _mfma_k_direct(k) and _mfma_rows(k) == 16
            and (k.head <= 192 or not k.fp8 or _mfma_head_split(k)))


def _mfma_waves_per_eu(k: TileKey) -> int:
    """gfx950: 512 VGPR+AGPR per SIMD lane (CDNA4 ISA): K-direct tiles up to d128
    and the 16-row tiles 4 (<= 128); 32-row d192 3, d256 2; a run-time block size 4
    with 16 rows, else 3; K in LDS: the lone-wave tiles (prefetch) 2, 1 above
    d128; else 16 rows 4, one-wave d > 128 1, else 2."""
    n16 = _mfma_rows(k) == 16
    if _mfma_lone(k):
        return 1 if k.head > 128 else 2
    if _mfma_k_direct(k):
        if k.any_block:
            return 4 if _mfma_gen_w4(k) else 3
        return 4 if n16 else 2 if k.head > 192 else 3 if k.head > 128 else 4
    return 4 if n16 else 1 if (k.head > 128 and k.waves == 1) else 2


def _mfma_k_group(k: TileKey) -> int:
    """K / Q fragment pairs per scheduling group: head split, a wave's head steps;
    16 rows 1, fixed-block d112 4, the generic d80-d128 ones by path and dtype;
    32 rows: fp8 2, d > 192 8, else 4."""
    kd = 32 if _mfma_rows(k) == 16 else 16
    kk = (k.head + kd - 1) // kd
    if _mfma_head_split(k):
        return kk // k.waves
    if _mfma_rows(k) == 16:
        if k.any_block and k.head <= 128:
            if k.path == "3d":
                return 2 if k.head < 128 else 4
            return 4 if not k.fp8 else 3 if k.head == 80 else 2 if k.head == 112 else 4
        return 4 if k.head == 112 else 1
    return 2 if k.fp8 else 8 if k.head > 192 else 4


def _mfma_v_group(k: TileKey) -> int:
    return 2 if _mfma_head_split(k) else 4


def _mfma_prefetch(k: TileKey) -> bool:
    """Multi-wave tiles up to d128 of a fixed block size (d > 128: the registers
    hold Q and the accumulators), and the lone-wave tiles (_mfma_lone); the
    generic one-wave tiles rely on occupancy."""
    return (k.head <= 128 and k.waves > 1 and not k.any_block) or _mfma_lone(k)


def _mfma_lds_swizzle(k: TileKey, stage_keys: int = 0) -> bool:
    """Every tile but two kinds. The K-direct tiles with one-key staging units
    (the fixed-block 16-row d112 ones, the generic 16-row d96 one): a staging
    pass's lanes write consecutive keys of one V^T row, without bank
    conflicts, and the swizzle cost llvm-mca cycles (2D / 3D d112 585 / 596 ->
    795 / 897 per tile). The generic instance's d80 / d112 / d192 tiles: the
    swizzle's per-lane LDS addresses (up to 4 V^T read bases, 2 K ones) spilled
    2-19 registers at their budget (16-row tiles at 128 VGPRs: d112 11-19 with
    every dtype pair, d80 2 and d192 4 with fp8 KV; the d112 4-wave tile at
    256: 7). `stage_keys`: the record's (a group's `tile_config` may set it;
    _apply passes the final value), else the rule's."""
    if _mfma_k_direct(k) and (stage_keys or _mfma_stage_keys(k)) == 1:
        return False
    return not (k.generic and k.head in (80, 112, 192))


def _mfma_three_loops(k: TileKey) -> bool:
    """The 2D d112 one-wave tile of block size 16 (with 32 / 64 the compiler nests a loop in the three)."""
    return _mfma_k_direct(k) and k.path == "2d" and k.head == 112 and k.block == 16


def _mfma_one_copy(k: TileKey) -> bool:
    """The generic 16-row d256 tile with 16-bit KV fits 4 waves per SIMD with its
    element-load loops alone (their loads merge into 16-byte loads)."""
    return k.generic and _mfma_gen_w4(k) and k.head > 192 and not k.fp8


def _mfma_v_whole(k: TileKey) -> bool:
    """K-direct tiles load the whole KV tile's V in one group (its loads overlap
    each other), but the 32-row d192 / d256 tiles and, staging V^T in halves,
    the fixed-block 16-row ones and the 4-wave-per-SIMD generic ones."""
    if not _mfma_k_direct(k):
        return False
    if _mfma_v_slices(k) == 1:
        return _mfma_rows(k) == 16 or k.any_block or k.head <= 112
    return k.any_block and not _mfma_gen_w4(k)


def _mfma_v_step_keys(k: TileKey) -> int:
    """Keys per V staging group where the tile's V is not loaded whole: 16 in the
    32-row K-direct d192 / d256 tiles, else 4."""
    return 16 if _mfma_k_direct(k) and k.head > 192 and _mfma_rows(k) != 16 else 4


# --- dot2 body (gfx1030) -------------------------------------------------------

def _dot2_rows(k: TileKey) -> int:
    return k.block_m // k.waves


def _dot2_shares_kv(k: TileKey) -> bool:
    """The 8-wave tile stages each K / V tile once in LDS for its waves; in the
    others every wave loads its own K / V rows and walks its own rows' range
    (the MFMA body's waves always share the workgroup's K / V tiles)."""
    return k.waves == 8


def _dot2_q_bcast(k: TileKey) -> bool:
    """Up to d128, prefill tiles and one-wave tiles of a fixed block size without
    QQ-bias: Q in registers, Q and P broadcast by DPP ROW_SHARE."""
    return k.head <= 128 and not k.has("qq_bias") and (k.waves > 1 or not k.any_block)


def _dot2_lds_bytes(k: TileKey) -> int:
    """8-wave tile: the K tile [block_n][head] and the V tile of key pairs, 2-byte
    elements; DPP-broadcast tiles: none; else Q rows and the P area,
    [block_m][padded head + lds_row_pad] 2-byte elements."""
    if _dot2_shares_kv(k):
        return 2 * k.block_n * k.head * 2
    if _dot2_q_bcast(k):
        return 0
    pad = k.info.head_pad
    return k.block_m * ((k.head + pad - 1) // pad * pad + k.info.lds_row_pad) * 2


def _dot2_waves_per_eu(k: TileKey) -> int:
    """One-wave tiles up to d192 and the 4-row tiles: 8 (128 VGPRs of 1024 per SIMD lane, RDNA2 ISA)."""
    return 8 if k.waves == 1 and (k.head <= 192 or _dot2_rows(k) == 4) else 1


def _dot2_dims_per_lane(k: TileKey) -> int:
    """At least 4 bytes per key; 6 at d192 for 2-byte KV (the 32 lanes cover the head)."""
    if k.head <= 64:
        return 4 if k.fp8 else 2
    if k.head <= 128:
        return 4
    return 6 if k.head <= 192 and not k.fp8 else 8


def _dot2_aligned_first(k: TileKey) -> bool:
    """Which path the generic instance's alignment test names first (laid out by
    clang differently; chosen per family with uattn-inspect)."""
    return k.path == "3d" and (not k.fp8 or k.head < 112 or (k.bf16 and k.head == 112))


def _dot2_shape(k: TileKey) -> dict:
    rows = _dot2_rows(k)
    lean = k.fp8 or k.features != 0
    tight = k.waves == 1 and k.head > 64 and ((k.fp8 or k.has("qq_bias")) if k.head <= 128 else k.head <= 192)
    tight_bf16 = tight and k.head > 128 and k.bf16 and not lean
    gen = k.any_block and k.head > 64
    r4 = rows == 4 and not gen
    return dict(rows=rows, lean=lean, tight=tight, tight_bf16=tight_bf16, gen=gen, r4=r4)


def _dot2_k_ahead(k: TileKey) -> int:
    """K pieces in flight (aligned rows; the element-load path takes 1)."""
    if _dot2_shares_kv(k):
        return 4
    s = _dot2_shape(k)
    if s["tight_bf16"]:
        return 1
    if _dot2_q_bcast(k):
        return 10 if k.waves > 1 else 4
    if s["gen"]:
        return 3 if s["rows"] == 4 else 2
    if s["r4"]:
        return 4
    return 2 if k.head > 128 or s["tight"] else 4


def _dot2_v_ahead(k: TileKey) -> int:
    """V key pairs in flight (aligned rows; the element-load path takes 1)."""
    if _dot2_shares_kv(k):
        return 5
    s = _dot2_shape(k)
    if _dot2_q_bcast(k):
        lv4 = k.head <= 64 or (not k.fp8 and not k.bf16 and not k.has("alibi")) or (k.bf16 and k.head == 80)
        return 8 if k.waves > 1 else 4 if lv4 else 3
    if s["gen"]:
        return 2 if s["rows"] == 4 else 3
    if s["r4"]:
        return 2 if k.bf16 else 3
    if s["tight_bf16"]:
        return 3
    if k.head > 128:
        return 1 if s["lean"] else 2
    return 4 if k.waves > 1 or s["tight"] else 3


def _dot2_q_ahead(k: TileKey) -> int:
    """Q reads in flight (aligned rows; the element-load path takes 2; 0: the
    tiles that hold Q in registers)."""
    if _dot2_shares_kv(k) or _dot2_q_bcast(k):
        return 0
    s = _dot2_shape(k)
    if s["gen"]:
        return 2
    if s["r4"]:
        return 6 if k.bf16 else 4
    if k.head <= 64:
        return 4
    if k.head <= 128 and k.waves > 1:
        return 8
    return 2 if s["tight"] or (s["lean"] and k.head > 128) else 4


def _dot2_key_split(k: TileKey) -> bool:
    """The 8-wave sliding-window tile with 16-bit KV: a workgroup of at most
    block_m / 2 rows (a window decode: qpk rows of one token, one workgroup per
    sequence and KV head in 2D) splits its KV range among its waves, which walk
    their shares with their own K / V loads and combine in LDS (attention_dot2.hpp,
    "Key split"; in the shared walk the 8 waves each walk every tile). Not in the
    plain tile (decodes go 3D there; the second walk took its measured prefill
    kernel from 95 to 97-100 VGPRs, 10 -> 9 waves per SIMD) nor with fp8 KV (the
    second walk made the shared walk's loop 44% slower): docs/performance.md,
    "Key split in the gfx1030 8-wave tile"."""
    return _dot2_shares_kv(k) and not k.fp8 and k.has("window")


# --- the rules -----------------------------------------------------------------

@dataclass(frozen=True)
class TileRule:
    field: str
    name: str
    mfma: Callable[[TileKey], object]
    dot2: Callable[[TileKey], object]


_ZERO = lambda k: 0      # noqa: E731  (a field the body does not read)
_FALSE = lambda k: False  # noqa: E731

# One named rule per record field, by matrix-instruction kind (model.MATRIX_INSNS).
TILE_RULES = (
    TileRule("block_m", "tile-geometry", lambda k: k.block_m, lambda k: k.block_m),
    TileRule("block_n", "tile-geometry", lambda k: k.block_n, lambda k: k.block_n),
    TileRule("waves", "tile-geometry", lambda k: k.waves, lambda k: k.waves),
    TileRule("rows_per_wave", "rows-per-wave", _mfma_rows, _dot2_rows),
    TileRule("lds_bytes", "lds-layout", _mfma_lds_bytes, _dot2_lds_bytes),
    TileRule("waves_per_eu", "register-budget", _mfma_waves_per_eu, _dot2_waves_per_eu),
    TileRule("shares_kv", "shared-kv", lambda k: True, _dot2_shares_kv),
    TileRule("head_split", "head-split", _mfma_head_split, _FALSE),
    TileRule("k_direct", "k-from-memory", _mfma_k_direct, _FALSE),
    TileRule("v_slices", "v-slices", _mfma_v_slices, _ZERO),
    TileRule("stages", "lds-stages", _mfma_stages, _ZERO),
    TileRule("lds_swizzle", "lds-swizzle", _mfma_lds_swizzle, _FALSE),
    TileRule("stage_keys", "staging-unit", _mfma_stage_keys, _ZERO),
    TileRule("k_group", "k-group", _mfma_k_group, _ZERO),
    TileRule("v_group", "v-group", _mfma_v_group, _ZERO),
    TileRule("prefetch", "prefetch", _mfma_prefetch, _FALSE),
    TileRule("three_loops", "three-loops-2d", _mfma_three_loops, _FALSE),
    TileRule("one_copy", "generic-one-copy", _mfma_one_copy, _FALSE),
    TileRule("v_whole", "v-whole-tile", _mfma_v_whole, _FALSE),
    TileRule("v_step_keys", "v-step", _mfma_v_step_keys, _ZERO),
    TileRule("dims_per_lane", "dims-per-lane", _ZERO, _dot2_dims_per_lane),
    TileRule("q_bcast", "dpp-broadcast", _FALSE, _dot2_q_bcast),
    TileRule("aligned_first", "aligned-first", _FALSE, _dot2_aligned_first),
    TileRule("k_ahead", "k-in-flight", _ZERO, _dot2_k_ahead),
    TileRule("v_ahead", "v-in-flight", _ZERO, _dot2_v_ahead),
    TileRule("q_ahead", "q-in-flight", _ZERO, _dot2_q_ahead),
    TileRule("key_split", "key-split", _FALSE, _dot2_key_split),
)
assert tuple(r.field for r in TILE_RULES) == FIELD_NAMES, "one rule per TileConfig field, in order"


def tile_key(inst: Instance) -> TileKey:
    return TileKey(ARCH_INFO[inst.arch], inst.path, inst.q_dtype, inst.kv_dtype, inst.head_size,
                   inst.block_size, inst.features, inst.block_m, inst.block_n, inst.waves)


def _apply(key: TileKey, overrides: tuple) -> TileConfig:
    bad = [f for f, _ in overrides if f not in OVERRIDABLE]
    if bad:
        raise ValueError(f"tile_config: {', '.join(bad)} cannot be set, expected fields of "
                         f"{', '.join(sorted(OVERRIDABLE))}")
    mfma = key.mfma
    values = {r.field: (r.mfma if mfma else r.dot2)(key) for r in TILE_RULES}
    values.update(overrides)
    if mfma:  # the layout field that follows a pipeline knob (stage_keys)
        values["lds_swizzle"] = _mfma_lds_swizzle(key, values["stage_keys"])
    return TileConfig(**values)


@lru_cache(maxsize=None)
def _cached(key: TileKey, overrides: tuple) -> TileConfig:
    return _apply(key, overrides)


def tile_config(inst: Instance) -> TileConfig:
    """The tile record of an attention instance (ValueError for the reduce kernel)."""
    if inst.path == REDUCE:
        raise ValueError(f"tile_config: the reduce kernel has no tile ({inst.arch} d{inst.head_size})")
    return _cached(tile_key(inst), tuple(sorted(inst.tile_overrides)))


def instance_lds_bytes(inst: Instance) -> int:
    """Static LDS bytes of an instance: the tile record's; for the reduce kernel
    its waves' partial rows, waves x head_size x 4 (0 with one wave;
    templates/uattn/kernel/reduce.hpp kLdsBytes)."""
    if inst.path == REDUCE:
        return inst.waves * inst.head_size * 4 if inst.waves > 1 else 0
    return tile_config(inst).lds_bytes
