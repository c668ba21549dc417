"""Data model of the generator and THE naming function.

Everything here is plain data: the per-architecture records and the
vocabularies (dtypes, paths, features, tiles, matrix-instruction kinds), which
are the one definition of these facts -- emit.py writes them to C++ headers
and CMake, and the C++ side derives from those -- the parsed matrix (groups,
subsets) and one kernel instance. `names()` is the single place that turns an
instance into its name, file name, kernel symbol and filter key (`check_names()`
the same for an architecture's check kernel); nothing else in the generator or
the runtime builds names.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Optional

from .args import FEATURES as ARG_FEATURES

# --- vocabularies (emitted to C++ as uattn/generated/vocab.hpp) ---------------
#
# Every list below is the one definition of its vocabulary: the YAML schema,
# the instance names, the table rows and the C/C++ enums (emit.render_vocab)
# all derive from it. Order = table order = C++ enumerator value.

@dataclass(frozen=True)
class DTypeInfo:
    name: str            # YAML and C++ enumerator name (uattn::DType::<name>)
    token: str           # token in instance names
    c_name: str          # C API constant (uattn.h)
    bits: int            # storage bits of one element
    query: bool          # may be the query (and output) dtype
    kv_any_query: bool   # as the KV-cache dtype, pairs with any query dtype
    quantised_output: bool  # may be the output dtype of any query (with output_scale)
    aliases: tuple       # other spellings accepted from scenario files and command lines


DTYPE_INFO = (
    DTypeInfo("f16", "f16", "UATTN_DTYPE_F16", 16, query=True, kv_any_query=False,
              quantised_output=False, aliases=("fp16", "float16")),
    DTypeInfo("bf16", "bf16", "UATTN_DTYPE_BF16", 16, query=True, kv_any_query=False,
              quantised_output=False, aliases=("bfloat16",)),
    DTypeInfo("fp8e4m3", "fp8", "UATTN_DTYPE_FP8E4M3", 8, query=False, kv_any_query=True,
              quantised_output=True, aliases=("fp8", "fp8_e4m3", "float8_e4m3fn")),
)
DTYPES = tuple(d.name for d in DTYPE_INFO)              # table order
DTYPE_TOKEN = {d.name: d.token for d in DTYPE_INFO}     # in names
DTYPE_BY_NAME = {d.name: d for d in DTYPE_INFO}
HEAD_SIZES = (64, 80, 96, 112, 128, 192, 256)  # SPEC.md s.1
HEAD_SIZE_MULTIPLE = 16                        # the kernels step the head dim by 16 (attention.hpp)
ANY_BLOCK = 0                                  # block_size of a generic instance


@dataclass(frozen=True)
class PathInfo:
    name: str        # YAML name / to_string
    cpp: str         # uattn::Path enumerator
    force_c: str     # C API constant of uattn_path_t ("" for reduce: not forceable)


PATH_INFO = (
    PathInfo("2d", "k2D", "UATTN_PATH_2D"),
    PathInfo("3d", "k3D", "UATTN_PATH_3D"),
    PathInfo("reduce", "kReduce", ""),
)
PATHS = ("2d", "3d")                           # attention paths a group may list
REDUCE = "reduce"                              # path of the generated 3D reduce kernels


# The feature bits are declared with the arguments that switch them on (args.py),
# in the fixed order used by names.
FEATURE_INFO = ARG_FEATURES
FEATURES = tuple((f.name, f.token, f.bit) for f in FEATURE_INFO)
FEATURE_BIT = {f.name: f.bit for f in FEATURE_INFO}
ALL_FEATURES = sum(f.bit for f in FEATURE_INFO)


def feature_names(mask: int) -> list[str]:
    """YAML names of the features in `mask`, in the fixed order."""
    return [n for n, _, bit in FEATURES if mask & bit]


# Joins the feature tokens of a partial set. Not "-": a name is also the
# extern "C" kernel symbol, so it must be a C identifier; not "_" either,
# which would split one name field in two (`*_win_*` must not match win+cap).
# The tokens are prefix-free, so the concatenation is unambiguous.
FEATURE_JOIN = ""


def feature_token(mask: int) -> str:
    """Name token of a feature mask: plain, all, or the tokens joined, e.g. wincap."""
    if mask == 0:
        return "plain"
    if mask == ALL_FEATURES:
        return "all"
    return FEATURE_JOIN.join(tok for _, tok, bit in FEATURES if mask & bit)


@dataclass(frozen=True)
class TileKind:
    """A workgroup tile kind: `waves` waves of rows_per_wave(arch) rows each (or
    the fewer rows, and the waves where an entry sets them, of
    ArchInfo.rows_by_head)."""
    name: str
    waves: int


TILE_KINDS = (TileKind("small", 1), TileKind("large", 4))   # table order
TILE_NAMES = tuple(t.name for t in TILE_KINDS)
TILE_BLOCK_N = 32      # keys per KV tile (attention.hpp: BN == 32)

# Matrix-instruction kinds a kernel body is written for (uattn::MatrixInsn):
#   mfma_32x32x16: wave64 MFMA v_mfma_f32_32x32x16_{f16,bf16}, Q in registers;
#   dot2: no matrix cores, packed dot products per lane, Q staged in LDS (or, up
#         to d128, held in registers and broadcast by DPP; the LDS budget counts it);
#         the 8-wave d128 tile stages the K / V tiles in LDS instead.
MATRIX_INSNS = ("mfma_32x32x16", "dot2")


# --- per-architecture facts (emitted to C++ as uattn/generated/arch.hpp) -----

@dataclass(frozen=True)
class Tile:
    """A workgroup tile: block_m query rows x block_n keys, `waves` waves."""
    name: str
    block_m: int
    block_n: int
    waves: int


@dataclass(frozen=True)
class ArchInfo:
    """The one record of an architecture; every C++, CMake and tool fact derives from it."""
    name: str               # uattn::Arch enumerator, name token, CMake GPU_TARGETS entry
    wave_size: int          # lanes per wave
    matrix_insn: str        # one of MATRIX_INSNS: what the kernel body computes with
    rows_per_wave: int      # query rows one wave owns (block_m = rows_per_wave * waves, see rows_by_head)
    head_pad: int           # head size is padded up to a multiple of this (elements)
    lds_row_pad: int        # extra elements per LDS row (MFMA: bank spreading; dot2: the row's 32 probabilities)
    lds_budget: int         # bytes of LDS one workgroup may use
    cu_count: int           # compute units of the reference part (selector default)
    offload_target: str     # clang --offload-arch / bundle processor / gcnArchName prefix
    vgprs_per_simd: int     # occupancy model (co_report): VGPRs per lane one SIMD holds
    max_waves_per_simd: int  # occupancy model: wave slots per SIMD
    lds_per_cu: int         # occupancy model: LDS bytes per CU (WGP) shared by workgroups
    # CUs per unit of hipDeviceProp_t::multiProcessorCount: 1 where HIP counts CUs,
    # 2 on RDNA (gfx10+), where HIP runs in WGP mode and counts work-group processors
    # of two CUs each. Applied in one place, uattn::cus_from_reported() (table.hpp).
    cus_per_reported_unit: int = 1
    simds_per_cu: int = 4   # SIMDs per CU: waves of one workgroup run on separate SIMDs
    # CUs whose SIMDs one workgroup's waves may run on: 1, or 2 on RDNA in WGP
    # mode (the default on gfx10+), where a workgroup's waves spread over the
    # work-group processor's 2 CUs (the selector's critical path: select.cpp).
    cus_per_workgroup: int = 1
    # Selector cost-model defaults of the reference part (uattn::SelectPolicy, table.hpp):
    mem_bytes_per_cycle: int = 1024   # device-memory bandwidth / engine clock, bytes per cycle
    launch_cycles: int = 5000         # engine cycles one more dependent kernel launch costs
    # The most segments an automatic split chooses (at most twice the wave
    # size, where the reduce kernel keeps two segments' weights per lane:
    # reduce.hpp, select.cpp max_auto_segments).
    max_segments: int = 64
    # Bytes of the last cache level before device memory: K/V of a launch whose
    # keys fit are read from device memory once, not once per workgroup.
    llc_bytes: int = 0
    # Engine cycles a KV tile's dependent memory round trips add to the walk of a
    # wave that has its SIMD to itself (no other wave hides them).
    tile_latency_cycles: int = 0
    # Engine cycles a workgroup spends outside its KV-tile loop when its waves
    # have their SIMDs to themselves: the memory round trips of locating its
    # work, loading Q and storing its rows.
    workgroup_latency_cycles: int = 0
    # The reference part as HIP reports it (hipDeviceProp_t; the CPU-backed test
    # device, tests/hipcpu, reports these): its product name, and the target-id
    # features HIP appends to the processor in gcnArchName (":sramecc+:xnack-"
    # on MI355X, none on RDNA2; LLVM AMDGPUUsage, "Target ID").
    product: str = ""
    target_features: str = ""
    head_sizes: tuple = HEAD_SIZES   # head sizes this arch serves
    # ((tile name, max head size, block_n), ...): a wider KV tile where the
    # registers allow it (the first entry of the tile whose max head size is
    # >= the head size); other tiles and heads take TILE_BLOCK_N keys.
    block_n_by_head: tuple = ()
    # ((tile name, head sizes, rows per wave, generic only, waves[, head
    # split]), ...): a narrower wave (fewer query rows) at those head sizes,
    # where the accumulators of a full wave's rows would cap the occupancy: in
    # every instance of the tile, or only in the generic instance (any block
    # size) where `generic only` is true; `waves` > 0 also sets the
    # workgroup's waves (0: the tile kind's). With `head split` true the
    # workgroup's waves own the same rows and split the head between them
    # (config.hpp mfma_head_split: 16 rows, 2 waves). The first matching
    # entry applies; block_m = rows x waves, or rows with the head split.
    rows_by_head: tuple = ()

    @property
    def gfx_ip(self) -> tuple:
        """(major, minor, stepping) of the offload target: LLVM names a processor
        gfx<major><minor><stepping>, minor and stepping one hex digit each
        (AMDGPUUsage, "Processors"); HIP reports major and minor in
        hipDeviceProp_t::major / minor (gfx950: 9, 5; gfx1030: 10, 3)."""
        digits = self.offload_target[3:]
        return int(digits[:-2]), int(digits[-2], 16), int(digits[-1], 16)

    @property
    def gcn_arch_name(self) -> str:
        """hipDeviceProp_t::gcnArchName of the reference part: processor and target-id features."""
        return self.offload_target + self.target_features

    @property
    def reported_units(self) -> int:
        """hipDeviceProp_t::multiProcessorCount of the reference part: CUs, or WGPs on RDNA."""
        return self.cu_count // self.cus_per_reported_unit

    @property
    def simds_sharing_lds(self) -> int:
        """SIMDs whose workgroups share one lds_per_cu: a CU's, or in WGP mode the
        work-group processor's (cus_per_workgroup CUs). The occupancy model divides
        the LDS-limited workgroups' waves by it (occupancy())."""
        return self.simds_per_cu * self.cus_per_workgroup

    @property
    def stages_q_in_lds(self) -> bool:
        """The dot2 body's LDS budget counts Q rows (its DPP-broadcast tiles keep Q
        in registers and use none); the MFMA body keeps Q in registers."""
        return self.matrix_insn == "dot2"

    def rows_by_head_entries(self) -> tuple:
        """rows_by_head with every entry's head split spelled out (False where omitted)."""
        return tuple(tuple(e) + (False,) * (6 - len(e)) for e in self.rows_by_head)

    @property
    def tiles(self) -> dict:
        return {t.name: Tile(t.name, self.rows_per_wave * t.waves, TILE_BLOCK_N, t.waves)
                for t in TILE_KINDS}

    def tile(self, name: str, head_size: int, block_size: int = ANY_BLOCK) -> "Tile":
        """Geometry of tile `name` for `head_size` and `block_size` (ANY_BLOCK: generic)."""
        t = self.tiles[name]
        for tile_name, heads, rows, generic_only, waves, split in self.rows_by_head_entries():
            if tile_name == name and head_size in heads and (not generic_only or block_size == ANY_BLOCK):
                w = waves or t.waves
                t = dataclasses.replace(t, block_m=rows if split else rows * w, waves=w)
                break
        for tile_name, max_head, block_n in self.block_n_by_head:
            if tile_name == name and head_size <= max_head:
                return dataclasses.replace(t, block_n=block_n)
        return t


# Records with the numbers SPEC.md s.3 gives for each target. gcnArchName: what
# HIP reports for the part (the MI355X runs with SRAM ECC on and XNACK off;
# RDNA2 has neither feature: LLVM AMDGPUUsage, "Processors").
BUILTIN_ARCHS = (
    # CDNA4, MI355X: MFMA 32x32 output tiles; 160 KiB LDS per CU; 512 VGPRs
    # (arch + acc) per lane, 8 waves per SIMD; 4 SIMDs per CU; HIP reports CUs.
    # 8 TB/s HBM3E at a 2.4 GHz peak engine clock: 3333 bytes per cycle (AMD
    # Instinct MI355X product page).
    ArchInfo("gfx950", wave_size=64, matrix_insn="mfma_32x32x16", rows_per_wave=32, head_pad=32,
             lds_row_pad=8, lds_budget=160 * 1024, cu_count=256, offload_target="gfx950",
             vgprs_per_simd=512, max_waves_per_simd=8, lds_per_cu=160 * 1024,
             cus_per_reported_unit=1, simds_per_cu=4, mem_bytes_per_cycle=3333,
             # the whole-launch model's launch overhead, 3.5 us (tools/model/machines), at 2.4 GHz
             launch_cycles=8400,
             # 256 segments: with the fused reduce (kFusedMaxSegments; the fp8 KV
             # 64K decode, docs/performance.md, "256 segments with the fused
             # reduce"); with the reduce kernel 128 (two per lane of the reduce,
             # auto_segment_cap: the fastest candidate for the short d128
             # decodes, "Two segment weights per lane")
             max_segments=256,
             # 256 MB Infinity Cache (AMD CDNA 4 white paper); the two latencies:
             # calibrated on the whole-launch model (docs/architecture.md, "The cost model")
             llc_bytes=256 << 20, tile_latency_cycles=1700, workgroup_latency_cycles=6500,
             product="AMD Instinct MI355X", target_features=":sramecc+:xnack-",
             # 128 x 64 prefill tile up to d128 (d192 / d256 keep 32 keys: registers)
             block_n_by_head=(("large", 128, 64),),
             # the generic d256 tile: 16 rows, 2 waves splitting the head (32
             # accumulator registers per wave: 4 waves per SIMD with fp8 KV
             # too, whose one-wave 16-row tile needs 156 VGPR+AGPR);
             # one-wave tiles at d112 / d192 / d256: 16 rows
             # (v_mfma_f32_16x16x32), whose 32 / 48 / 64
             # accumulator registers (d112 padded to 128 dims) fit 3-4 waves
             # per SIMD (32 rows: 64 / 96 / 128; the 32-row 2D d112 tiles of block size 32 / 64 spill at
             # 128 VGPR+AGPR); the generic one-wave tile at d64-d128 too (4
             # waves per SIMD; 32 rows spill at 128; d80 / d112 pad the last
             # 32-dim step of v_mfma_f32_16x16x32; d64 stages K in LDS);
             # attention_mfma.hpp
             rows_by_head=(("small", (256,), 16, True, 2, True), ("small", (112, 192, 256), 16, False, 0),
                           ("small", (64, 80, 96, 128), 16, True, 0))),
    # RDNA2, Radeon Pro V620: 8 rows per wave; 64 KiB LDS per workgroup (128 KiB
    # per WGP); 1024 wave32 VGPRs per SIMD, 16 waves per SIMD. LDS rows hold a Q
    # row and the row's 32 f16 probabilities of one KV tile (attention_dot2.hpp).
    # 2 SIMD32 per CU, 2 CUs per WGP (AMD "RDNA 2" instruction set architecture
    # reference guide, s.1); HIP's multiProcessorCount counts WGPs on gfx10+ (WGP
    # mode, the default: ROCm HIP documentation, hipDeviceProp_t), so 36 on this
    # 72-CU part; in WGP mode a workgroup's waves run on the WGP's 4 SIMD32s
    # (cus_per_workgroup 2, same guide, s.1). 512 GB/s GDDR6 at a 2.5 GHz boost clock: 205 bytes per cycle
    # (AMD Radeon Pro V620 product page).
    ArchInfo("gfx1030", wave_size=32, matrix_insn="dot2", rows_per_wave=8, head_pad=4,
             lds_row_pad=32, lds_budget=64 * 1024, cu_count=72, offload_target="gfx1030",
             vgprs_per_simd=1024, max_waves_per_simd=16, lds_per_cu=128 * 1024,
             cus_per_reported_unit=2, simds_per_cu=2, cus_per_workgroup=2, mem_bytes_per_cycle=205,
             # 128 MB Infinity Cache (Navi 21: AMD "RDNA 2" product pages); latencies as for gfx950
             launch_cycles=8750, llc_bytes=128 << 20, tile_latency_cycles=1000, workgroup_latency_cycles=7300,
             # 32 segments (one per lane of the reduce): no scenario's fastest
             # candidate in the whole-launch model has more (docs/performance.md,
             # "Two segment weights per lane")
             max_segments=32,
             product="AMD Radeon PRO V620", target_features="",
             # one-wave tiles at d256 and the generic one-wave tile at d192: 4
             # rows, whose 32 / 24 accumulator registers fit 8 waves per SIMD
             # (8 rows: 64 / 48 accumulators, spills at 128 VGPRs; the
             # specialised d192 tiles fit with 8); the d128 prefill tile: 8
             # waves of 4 rows that share each K / V tile through LDS (16 KiB;
             # the tile record's shares_kv), <= 96 VGPRs; attention_dot2.hpp
             rows_by_head=(("small", (256,), 4, False, 0), ("small", (192,), 4, True, 0),
                           ("large", (128,), 4, False, 8))),
)
ARCHS = tuple(a.name for a in BUILTIN_ARCHS)   # the built-in architectures, table order

# Every architecture known to this run: the built-in records, then those a
# matrix declares (`architectures:`, schema.py), in table order.
ARCH_INFO: dict = {a.name: a for a in BUILTIN_ARCHS}


def declare_archs(extra: list) -> None:
    """Makes ARCH_INFO the built-in records plus `extra` (each load of matrices starts afresh)."""
    ARCH_INFO.clear()
    ARCH_INFO.update((a.name, a) for a in BUILTIN_ARCHS)
    ARCH_INFO.update((a.name, a) for a in extra)


def arch_names() -> tuple:
    """Names of every known architecture, table order."""
    return tuple(ARCH_INFO)


# --- the selector's cost model (emitted to C++ as uattn/generated/select.hpp) --
#
# Defaults of uattn::SelectPolicy common to every architecture (the per-
# architecture ones are ArchInfo.mem_bytes_per_cycle, launch_cycles and max_segments); the
# model is described in docs/architecture.md ("The cost model").
SELECT_POLICY = (
    ("overlap_waves", 2,
     "resident waves per SIMD whose latencies hide each other: the throughput multiplier, "
     "at most the instance's occupancy"),
    ("min_tiles_per_segment", 1, "an automatic split gives every segment at least this many KV tiles"),
    ("split_margin_pct", 90,
     "3D is chosen only when its estimate is below this percentage of the best 2D estimate"),
)

# Figures for an instance without measured ones (instances/measured.yaml;
# uattn_gen/measured.py figures()): VGPRs and occupancy of FALLBACK_VGPRS
# registers per lane with the instance's LDS (the formula of tools/co_report.py);
# cycles per KV tile from, in order, the instance's twin on the other attention
# path (the same body and tile with or without the segment axis), else
# FALLBACK_CYCLES_PER_MAC[(matrix_insn, tile)] x rows per wave x block_n x head
# size: the medians of the measured straight-line KV-tile loops of the default
# matrix (llvm-mca, 2026-11-30: 135 / 20 / 47 / 40 kernels).
FALLBACK_VGPRS = 128
FALLBACK_CYCLES_PER_MAC = {("mfma_32x32x16", "small"): 0.0065, ("mfma_32x32x16", "large"): 0.0024,
                           ("dot2", "small"): 0.24, ("dot2", "large"): 0.19}


# --- the parsed matrix ---------------------------------------------------------

@dataclass(frozen=True)
class MatrixFile:
    given: str    # the path as given on the command line (used in messages)
    display: str  # repository-relative path when inside the repository, else `given`
    sha256: str


@dataclass
class Group:
    """One validated group of a matrix: a cartesian product of its lists."""
    name: str
    file: MatrixFile
    line: int
    archs: list
    dtypes: list          # [(q dtype, kv dtype)]
    head_sizes: list
    block_sizes: list     # ints, ANY_BLOCK = any
    feature_sets: list    # masks
    paths: list
    tiles: list
    tile_overrides: tuple = ()   # ((TileConfig field, value), ...): the group's `tile_config`


@dataclass
class Subset:
    """A named subset: instance-name globs, each with the line it sits on."""
    name: str
    file: MatrixFile
    line: int
    globs: list           # [(glob, line)]


@dataclass
class Matrix:
    files: list = field(default_factory=list)
    groups: list = field(default_factory=list)
    subsets: dict = field(default_factory=dict)
    incomplete: bool = False   # a file or group was rejected: the groups are not all here


# --- one kernel instance -------------------------------------------------------

@dataclass(frozen=True)
class Instance:
    """A kernel instance (attention 2D/3D or the 3D reduce).

    block_size: ANY_BLOCK (0) for a generic instance. features: mask of
    FEATURES bits. For the reduce kernel q/kv dtype are None, tile is None,
    block_m = block_n = 0 and waves = REDUCE_WAVES. `groups` and `sources` record where the
    instance came from and take no part in equality.
    """
    arch: str
    path: str
    q_dtype: Optional[str]
    kv_dtype: Optional[str]
    head_size: int
    block_size: int = ANY_BLOCK
    features: int = 0
    tile: Optional[str] = None
    block_m: int = 0
    block_n: int = 0
    waves: int = 1
    # ((TileConfig field, value), ...) a matrix group sets over the tile rules (tiles.py)
    tile_overrides: tuple = ()
    groups: tuple = field(default=(), compare=False)
    sources: tuple = field(default=(), compare=False)

    def merged(self, other: "Instance") -> "Instance":
        """This instance with the origins of `other` (the same instance) added."""
        return dataclasses.replace(
            self,
            groups=tuple(sorted(set(self.groups) | set(other.groups))),
            sources=_ordered_union(self.sources, other.sources))


def _ordered_union(a: tuple, b: tuple) -> tuple:
    return a + tuple(x for x in b if x not in a)


def attention_instance(arch: str, path: str, q_dtype: str, kv_dtype: str, head_size: int,
                       block_size: int, features: int, tile: str, group: str = "",
                       source: str = "", tile_overrides: tuple = ()) -> Instance:
    t = ARCH_INFO[arch].tile(tile, head_size, block_size)
    return Instance(arch, path, q_dtype, kv_dtype, head_size, block_size, features, tile,
                    t.block_m, t.block_n, t.waves, tuple(tile_overrides),
                    groups=(group,) if group else (), sources=(source,) if source else ())


# Waves of a reduce workgroup: each sums a quarter of the segments into a
# partial row in LDS (templates/uattn/kernel/reduce.hpp). One wave issued every
# segment's weight and FMAs in turn, the longest chain of a decode launch in
# the whole-launch model: docs/performance.md, "The reduce across waves".
REDUCE_WAVES = 4


def reduce_instance(arch: str, head_size: int, groups: tuple = (), sources: tuple = ()) -> Instance:
    return Instance(arch, REDUCE, None, None, head_size, waves=REDUCE_WAVES, groups=groups, sources=sources)


# --- THE naming function -------------------------------------------------------

@dataclass(frozen=True)
class Names:
    name: str        # uattn_<arch>_<path>_... (the identity of an instance)
    file: str        # <name>.hip, relative to <out>/instances
    symbol: str      # extern "C" kernel symbol
    filter_key: str  # what --filter / SelectOptions::filter globs match


_PATH_ENUM = {p.name: p.cpp for p in PATH_INFO}


def path_enum(path: str) -> str:
    """C++ uattn::Path enumerator of a path."""
    return _PATH_ENUM[path]


def names(inst: Instance) -> Names:
    """Name, file name, kernel symbol and filter key of `inst`.

    Attention: uattn_{arch}_{path}_{qdt}_{kvdt}_d{head}_b{block|any}_{feat}_m{M}n{N}w{W}
    Reduce:    uattn_{arch}_reduce_d{head}
    """
    if inst.path == REDUCE:
        name = f"uattn_{inst.arch}_reduce_d{inst.head_size}"
    else:
        block = "any" if inst.block_size == ANY_BLOCK else str(inst.block_size)
        name = (f"uattn_{inst.arch}_{inst.path}_{DTYPE_TOKEN[inst.q_dtype]}_"
                f"{DTYPE_TOKEN[inst.kv_dtype]}_d{inst.head_size}_b{block}_"
                f"{feature_token(inst.features)}_m{inst.block_m}n{inst.block_n}w{inst.waves}")
    return Names(name=name, file=f"{name}.hip", symbol=name, filter_key=name)


def check_names(arch: str) -> Names:
    """Name, file name and kernel symbol of `arch`'s index-array check kernel
    (checked launches): uattn_{arch}_check. The runtime reads the symbol from the
    generated record (uattn/generated/device.hpp), never builds it."""
    name = f"uattn_{arch}_check"
    return Names(name=name, file=f"{name}.hip", symbol=name, filter_key=name)


def table_key(inst: Instance) -> tuple:
    """Sort key of the lookup table: most specialised first.

    Grouped by (arch, path, q dtype, kv dtype, head size); within a group
    specific block sizes (ascending) before `any`, fewer features before more,
    then the small tile before the large one.
    """
    path_order = PATHS + (REDUCE,)
    dt = lambda d: -1 if d is None else DTYPES.index(d)
    return (arch_names().index(inst.arch), path_order.index(inst.path), dt(inst.q_dtype),
            dt(inst.kv_dtype), inst.head_size,
            inst.block_size == ANY_BLOCK, inst.block_size,
            bin(inst.features).count("1"), inst.features,
            -1 if inst.tile is None else TILE_NAMES.index(inst.tile))
