"""Data model of the generator and THE naming function.

Everything here is plain data: per-architecture facts (mirroring
templates/uattn/kernel/config.hpp), the vocabularies the YAML matrix may use,
the parsed matrix (groups, subsets) and one kernel instance. `names()` is the
single place that turns an instance into its name, file name, kernel symbol,
filter key and lookup-table row; nothing else in the generator builds names.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Optional

# --- vocabularies -----------------------------------------------------------

ARCHS = ("gfx950", "gfx1030")                  # table order
PATHS = ("2d", "3d")                           # attention paths a group may list
REDUCE = "reduce"                              # path of the generated 3D reduce kernels
DTYPES = ("f16", "bf16", "fp8e4m3")            # table order
DTYPE_TOKEN = {"f16": "f16", "bf16": "bf16", "fp8e4m3": "fp8"}   # in names
HEAD_SIZES = (64, 80, 96, 112, 128, 192, 256)  # SPEC.md s.1
TILE_NAMES = ("small", "large")                # table order
ANY_BLOCK = 0                                  # block_size of a generic instance

# (YAML name, name token, mask bit) in the fixed order used by names.
# Bits match uattn::Feature in templates/uattn/kernel/params.hpp.
FEATURES = (
    ("window", "win", 0x01),
    ("softcap", "cap", 0x02),
    ("alibi", "alibi", 0x04),
    ("qq_bias", "qqb", 0x08),
    ("sinks", "sink", 0x10),
)
FEATURE_BIT = {yaml_name: bit for yaml_name, _, bit in FEATURES}
ALL_FEATURES = 0x1F


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


# --- per-architecture facts (templates/uattn/kernel/config.hpp) --------------

@dataclass(frozen=True)
class Tile:
    """A workgroup tile: block_m query rows x block_n keys, `waves` waves."""
    name: str
    block_m: int
    block_n: int
    waves: int


@dataclass(frozen=True)
class ArchInfo:
    name: str
    wave_size: int          # lanes per wave
    rows_per_wave: int      # query rows one wave owns (block_m = rows_per_wave * waves)
    head_pad_multiple: int  # head size is padded up to a multiple of this
    lds_row_extra: int      # extra elements per LDS row (bank spreading)
    stages_q_in_lds: bool   # the wave32 body also stages Q in LDS
    stages_kv_in_lds: bool  # K/V tiles staged in LDS (the wave32 body loads them straight)
    lds_budget: int         # bytes of LDS one workgroup may use
    head_sizes: tuple       # head sizes this arch serves
    tiles: dict             # tile name -> Tile


def _tiles(rows_per_wave: int, block_n: int, large_waves: int) -> dict:
    return {
        "small": Tile("small", rows_per_wave, block_n, 1),
        "large": Tile("large", rows_per_wave * large_waves, block_n, large_waves),
    }


ARCH_INFO = {
    "gfx950": ArchInfo("gfx950", wave_size=64, rows_per_wave=32, head_pad_multiple=32,
                       lds_row_extra=8, stages_q_in_lds=False, stages_kv_in_lds=True, lds_budget=160 * 1024,
                       head_sizes=HEAD_SIZES, tiles=_tiles(32, 32, 4)),
    "gfx1030": ArchInfo("gfx1030", wave_size=32, rows_per_wave=8, head_pad_multiple=4,
                        lds_row_extra=32, stages_q_in_lds=True, stages_kv_in_lds=False, lds_budget=64 * 1024,
                        head_sizes=HEAD_SIZES, tiles=_tiles(8, 32, 4)),
}


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
    FEATURES bits. For the reduce kernel q/kv dtype are None, tile is None and
    block_m = block_n = 0, waves = 1. `groups` and `sources` record where the
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
                       source: str = "") -> Instance:
    t = ARCH_INFO[arch].tiles[tile]
    return Instance(arch, path, q_dtype, kv_dtype, head_size, block_size, features, tile,
                    t.block_m, t.block_n, t.waves,
                    groups=(group,) if group else (), sources=(source,) if source else ())


def reduce_instance(arch: str, head_size: int, groups: tuple = (), sources: tuple = ()) -> Instance:
    return Instance(arch, REDUCE, None, None, head_size, groups=groups, sources=sources)


# --- THE naming function -------------------------------------------------------

@dataclass(frozen=True)
class Names:
    name: str        # uattn_<arch>_<path>_... (the identity of an instance)
    file: str        # <name>.hip, relative to <out>/instances
    symbol: str      # extern "C" kernel symbol
    filter_key: str  # what --filter / SelectOptions::filter globs match
    table_row: str   # the UATTN_ROW(...) line of table_rows.inc


_PATH_ENUM = {"2d": "k2D", "3d": "k3D", REDUCE: "kReduce"}


def path_enum(path: str) -> str:
    """C++ uattn::Path enumerator of a path."""
    return _PATH_ENUM[path]


def names(inst: Instance) -> Names:
    """Name, file name, kernel symbol, filter key and table row of `inst`.

    Attention: uattn_{arch}_{path}_{qdt}_{kvdt}_d{head}_b{block|any}_{feat}_m{M}n{N}w{W}
    Reduce:    uattn_{arch}_reduce_d{head}
    """
    if inst.path == REDUCE:
        name = f"uattn_{inst.arch}_reduce_d{inst.head_size}"
        q_dt, kv_dt = "f16", "f16"
    else:
        block = "any" if inst.block_size == ANY_BLOCK else str(inst.block_size)
        name = (f"uattn_{inst.arch}_{inst.path}_{DTYPE_TOKEN[inst.q_dtype]}_"
                f"{DTYPE_TOKEN[inst.kv_dtype]}_d{inst.head_size}_b{block}_"
                f"{feature_token(inst.features)}_m{inst.block_m}n{inst.block_n}w{inst.waves}")
        q_dt, kv_dt = inst.q_dtype, inst.kv_dtype
    row = (f"UATTN_ROW({name}, {inst.arch}, {path_enum(inst.path)}, {q_dt}, {kv_dt}, "
           f"{inst.head_size}, {inst.block_size}, 0x{inst.features:02X}, "
           f"{inst.block_m}, {inst.block_n}, {inst.waves})")
    return Names(name=name, file=f"{name}.hip", symbol=name, filter_key=name, table_row=row)


def table_key(inst: Instance) -> tuple:
    """Sort key of the lookup table: most specialised first.

    Grouped by (arch, path, q dtype, kv dtype, head size); within a group
    specific block sizes (ascending) before `any`, fewer features before more,
    then the small tile before the large one.
    """
    path_order = PATHS + (REDUCE,)
    dt = lambda d: -1 if d is None else DTYPES.index(d)
    return (ARCHS.index(inst.arch), path_order.index(inst.path), dt(inst.q_dtype),
            dt(inst.kv_dtype), inst.head_size,
            inst.block_size == ANY_BLOCK, inst.block_size,
            bin(inst.features).count("1"), inst.features,
            -1 if inst.tile is None else TILE_NAMES.index(inst.tile))
