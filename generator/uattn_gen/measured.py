"""Per-instance figures measured from built code objects (instances/measured.yaml).

The selector's cost model (docs/architecture.md, "The cost model") uses, per
attention instance, its VGPRs per lane, its occupancy in waves per SIMD and the
cycles one wave spends on one KV tile. They are facts of the compiled code, so
they come from a build's code objects -- `tools/uattn-measured write` runs
tools/uattn-inspect (AMDGPU metadata notes + llvm-mca on the KV-tile loop) and
writes the file; the CTest test `measured.fresh` fails when the file disagrees
with the code objects of the build (`tools/uattn-measured check`). The file is
committed so that the table does not depend on a finished device build.

File format (YAML):

    version: 1
    instances:
      <instance name>: {vgprs: INT, lds_bytes: INT, occupancy: NUMBER, tile_cycles: NUMBER,
                        boundary_cycles: NUMBER, full_tile_cycles: NUMBER, full_boundary_cycles: NUMBER,
                        split_tile_cycles: NUMBER}

`tile_cycles` is the KV-tile loop's (the interior loop of the fastest loop
variant); `boundary_cycles` that of its boundary (masked) loop; `full_*` those of
the slowest variant (the generic instance's variant with every feature, which
runs with softcap, ALiBi or QQ-bias given, or unaligned rows). Each is absent
when its loop is not straight-line (its llvm-mca estimate would be meaningless)
or, for the last three, when it equals the figure it defaults to: boundary_cycles
to tile_cycles, full_tile_cycles to tile_cycles, full_boundary_cycles to
full_tile_cycles x boundary_cycles / tile_cycles. `split_tile_cycles` is the
key split's walk per KV tile (the tile record's key_split: the loop uattn-inspect
gives the role `split`), absent where the kernel has none. What an instance lacks
falls back (figures(): its 2D/3D twin's cycles, else model.FALLBACK_*).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from .model import ARCH_INFO, FALLBACK_CYCLES_PER_MAC, FALLBACK_VGPRS, TILE_KINDS, Instance, names

VERSION = 1
FIELDS = ("vgprs", "lds_bytes", "occupancy", "tile_cycles", "boundary_cycles", "full_tile_cycles",
          "full_boundary_cycles", "split_tile_cycles")
CYCLE_FIELDS = FIELDS[3:]


@dataclass(frozen=True)
class Figures:
    vgprs: int            # VGPRs per lane (arch + acc on gfx950: the unified file)
    occupancy: float      # waves per SIMD
    tile_cycles: float    # llvm-mca cycles of one wave per KV tile (block_n keys)
    measured: bool        # False: fallback_figures()
    boundary_cycles: float = 0.0       # per masked (boundary) KV tile; 0: tile_cycles
    full_tile_cycles: float = 0.0      # the slowest loop variant's, per KV tile; 0: tile_cycles
    full_boundary_cycles: float = 0.0  # the slowest variant's per boundary tile; 0: scaled as documented
    split_tile_cycles: float = 0.0     # the key split's walk per KV tile; 0: none or not measured

    def resolved(self) -> tuple:
        """(tile, boundary, full tile, full boundary) cycles with the documented defaults."""
        t = self.tile_cycles
        b = self.boundary_cycles or t
        ft = self.full_tile_cycles or t
        return t, b, ft, self.full_boundary_cycles or default_full_boundary(t, b, ft)


def default_full_boundary(tile: float, boundary: float, full_tile: float) -> float:
    """full_boundary_cycles where the file leaves it out: the full variant's tile cycles scaled by
    the boundary / interior ratio of the fastest variant (full_tile where tile is 0)."""
    return round(full_tile * boundary / tile, 1) if tile else full_tile


class MeasuredError(Exception):
    pass


def load(path: Optional[str]) -> dict:
    """{instance name: {field: value}} of a measured-figures file; {} when path is None."""
    import yaml  # here, not at the top: uattn-inspect imports this module without PyYAML
    if path is None:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise MeasuredError(f"{path}: cannot read the measured figures: {e}") from e
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("instances"), dict):
        raise MeasuredError(f"{path}: expected a mapping with version: {VERSION} and instances: "
                            f"{{name: {{{', '.join(FIELDS)}}}}}")
    out = {}
    for name, rec in doc["instances"].items():
        if not isinstance(rec, dict) or set(rec) - set(FIELDS) or not {"vgprs", "occupancy"} <= set(rec):
            raise MeasuredError(f"{path}: instance {name}: {rec!r}; expected a mapping with vgprs, "
                                f"lds_bytes, occupancy and optionally {', '.join(CYCLE_FIELDS)}")
        for k, v in rec.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise MeasuredError(f"{path}: instance {name}: {k} = {v!r}; expected a finite number >= 0")
        out[str(name)] = rec
    return out


def occupancy(arch: str, vgprs: int, lds_bytes: int, waves: int) -> float:
    """Waves per SIMD of a kernel of `vgprs` VGPRs per lane, `lds_bytes` of LDS and
    `waves` waves per workgroup on `arch`: an estimate, the one occupancy model
    (tools/co_report.py and uattn-inspect use it too). From the record:
    min(max_waves_per_simd, vgprs_per_simd / VGPRs rounded up to 8, the workgroups
    whose LDS fits in lds_per_cu x waves per workgroup / the SIMDs sharing that LDS
    (ArchInfo.simds_sharing_lds)); sources of the figures at BUILTIN_ARCHS
    (model.py). Raises KeyError for an architecture without a record."""
    info = ARCH_INFO[arch]
    regs = (vgprs + 7) // 8 * 8
    by_reg = min(info.max_waves_per_simd, info.vgprs_per_simd // max(regs, 8))
    by_lds = ((info.lds_per_cu // lds_bytes) * waves / info.simds_sharing_lds if lds_bytes
              else float(info.max_waves_per_simd))
    return round(min(by_reg, by_lds), 2)


def fallback_figures(inst: Instance, lds_bytes: int) -> Figures:
    """Figures of an instance the measured file does not list (documented defaults, model.py)."""
    info = ARCH_INFO[inst.arch]
    per_mac = FALLBACK_CYCLES_PER_MAC.get((info.matrix_insn, inst.tile))
    if per_mac is None:
        # A tile kind without a measured median: that of the kind with the nearest wave count.
        waves = {k.name: k.waves for k in TILE_KINDS}
        kind = min((t for insn, t in FALLBACK_CYCLES_PER_MAC if insn == info.matrix_insn),
                   key=lambda t: (abs(waves.get(t, 0) - waves[inst.tile]), t))
        per_mac = FALLBACK_CYCLES_PER_MAC[(info.matrix_insn, kind)]
    return Figures(vgprs=FALLBACK_VGPRS, occupancy=occupancy(inst.arch, FALLBACK_VGPRS, lds_bytes, inst.waves),
                   tile_cycles=round(per_mac * (inst.block_m // inst.waves) * inst.block_n * inst.head_size, 1),
                   measured=False)


def twin_name(name: str) -> str:
    """The name of the same attention instance on the other path (2d <-> 3d)."""
    for a, b in (("_2d_", "_3d_"), ("_3d_", "_2d_")):
        if a in name:
            return name.replace(a, b, 1)
    return name


def figures(inst: Instance, lds_bytes: int, measured: dict) -> Figures:
    """The measured figures of `inst`; what is missing falls back (model.py, FALLBACK_*).

    measured is True only when tile_cycles is the instance's own measurement.
    """
    name = names(inst).name
    rec = measured.get(name)
    fb = fallback_figures(inst, lds_bytes)
    cycles = rec.get("tile_cycles") if rec else None
    if not cycles:
        twin = measured.get(twin_name(name))
        cycles = (twin or {}).get("tile_cycles") or fb.tile_cycles
        own = False
    else:
        own = True
    if rec is None:
        return Figures(fb.vgprs, fb.occupancy, float(cycles), False)
    extra = {k: float(rec[k]) for k in CYCLE_FIELDS[1:] if own and rec.get(k)}
    return Figures(vgprs=int(rec["vgprs"]), occupancy=float(rec["occupancy"]), tile_cycles=float(cycles),
                   measured=own, **extra)


def dump(records: dict) -> str:
    """Text of a measured-figures file for {name: {field: value}}, sorted by name."""
    lines = ["# Per-instance figures of the built code objects, read by the generator for the",
             "# selector's cost model (docs/architecture.md, \"The cost model\").",
             "# Written by: tools/uattn-measured write build/default/uattn_gfx950.co build/default/uattn_gfx1030.co",
             "# Checked by the CTest test measured.fresh (tools/uattn-measured check). Do not edit by hand.",
             f"version: {VERSION}", "instances:"]
    for name in sorted(records):
        rec = records[name]
        vals = ", ".join(f"{k}: {rec[k]}" for k in FIELDS if k in rec and rec[k] is not None)
        lines.append(f"  {name}: {{{vals}}}")
    return "\n".join(lines) + "\n"
