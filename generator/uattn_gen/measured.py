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
      <instance name>: {vgprs: INT, lds_bytes: INT, occupancy: NUMBER, tile_cycles: NUMBER}

`tile_cycles` is absent when the kernel has no straight-line KV-tile loop (its
llvm-mca estimate would be meaningless). What an instance lacks falls back
(figures(): its 2D/3D twin's cycles, else model.FALLBACK_*).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from .model import ARCH_INFO, FALLBACK_CYCLES_PER_MAC, FALLBACK_VGPRS, TILE_KINDS, Instance, names

VERSION = 1
FIELDS = ("vgprs", "lds_bytes", "occupancy", "tile_cycles")


@dataclass(frozen=True)
class Figures:
    vgprs: int            # VGPRs per lane (arch + acc on gfx950: the unified file)
    occupancy: float      # waves per SIMD
    tile_cycles: float    # llvm-mca cycles of one wave per KV tile (block_n keys)
    measured: bool        # False: fallback_figures()


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
                                f"lds_bytes, occupancy and optionally tile_cycles")
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
    return Figures(vgprs=int(rec["vgprs"]), occupancy=float(rec["occupancy"]), tile_cycles=float(cycles),
                   measured=own)


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
