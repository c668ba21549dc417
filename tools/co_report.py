#!/usr/bin/env python3
"""Per-kernel resource report of uattn code objects (no GPU needed).

Usage: co_report.py [--readelf llvm-readelf-21] [--json] CODE_OBJECT...
       (the per-arch code objects of a build: build/default/uattn_gfx950.co,
        build/default/uattn_gfx1030.co)

Reads the AMDGPU metadata notes (llvm-readelf --notes) and prints, per kernel:
VGPRs, AGPRs, SGPRs, VGPR/SGPR spills, static LDS bytes, scratch bytes, wave
size, and an occupancy estimate (waves per SIMD) from registers and LDS.

Occupancy model (estimates, not measurements):
  gfx950 (CDNA4): 512 VGPRs per lane per SIMD shared by arch VGPRs and AGPRs
    (the metadata's .vgpr_count is their unified total), granule 8, at most 8 waves per
    SIMD; 160 KiB LDS per CU, 4 SIMDs per CU.  Source: AMD Instinct CDNA3/CDNA4
    ISA reference guides (VGPR/AGPR unified register file), SPEC.md s.3.
  gfx1030 (RDNA2): wave32; a 128 KiB VGPR file per SIMD holds 1024 wave32
    registers, granule 8, at most 16 waves per SIMD; 64 KiB LDS per workgroup (128 KiB per WGP of 4 SIMDs in WGP mode).
    Source: AMD RDNA2 ISA reference guide, SPEC.md s.3.
"""
import argparse
import json
import re
import subprocess
import sys

FIELDS = ("vgpr_count", "agpr_count", "sgpr_count", "vgpr_spill_count", "sgpr_spill_count",
          "group_segment_fixed_size", "private_segment_fixed_size", "wavefront_size",
          "max_flat_workgroup_size")


def kernels(readelf, path):
    out = subprocess.run([readelf, "--notes", path], check=True, capture_output=True, text=True).stdout
    ks, cur, indent, inside = [], None, None, False
    for line in out.splitlines():
        if "amdhsa.kernels:" in line:
            inside = True
            continue
        m = re.match(r"(\s*)(- )?\.(\w+):\s*(.*)$", line)
        if not inside or not m:
            continue
        if m.group(2):
            if indent is None:
                indent = len(m.group(1))
            if len(m.group(1)) == indent:  # a new kernel map
                cur = {}
                ks.append(cur)
        key, val = m.group(3), m.group(4).strip()
        if cur is None or (len(m.group(1)) != indent and not (m.group(2) is None and len(m.group(1)) == indent + 2)):
            continue
        if key == "name":
            cur["name"] = val
        elif key in FIELDS:
            cur[key] = int(val)
    return [k for k in ks if "name" in k]


def occupancy(k):
    def align(x, g):
        return (x + g - 1) // g * g
    threads = k.get("max_flat_workgroup_size", 64)
    lds = k.get("group_segment_fixed_size", 0)
    if k.get("wavefront_size") == 64:  # gfx950
        regs = align(k["vgpr_count"], 8)  # on gfx90a+ .vgpr_count already counts the AGPRs
        by_reg = min(8, 512 // max(regs, 8))
        waves_per_wg = max(1, threads // 64)
        by_lds = (160 * 1024 // lds) * waves_per_wg / 4 if lds else 8.0
        return round(min(by_reg, by_lds), 2)
    regs = align(k["vgpr_count"], 8)
    by_reg = min(16, 1024 // max(regs, 8))
    waves_per_wg = max(1, threads // 32)
    by_lds = (128 * 1024 // lds) * waves_per_wg / 4 if lds else 16.0
    return round(min(by_reg, by_lds), 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--readelf", default="llvm-readelf-21")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("code_objects", nargs="+")
    a = ap.parse_args()
    rows = []
    for co in a.code_objects:
        for k in kernels(a.readelf, co):
            k["occupancy_waves_per_simd"] = occupancy(k)
            k["code_object"] = co
            rows.append(k)
    if a.json:
        json.dump(rows, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    print(f"{'kernel':64} {'vgpr':>4} {'agpr':>4} {'sgpr':>4} {'vspill':>6} {'lds':>6} {'scratch':>7} {'occ':>5}")
    for k in rows:
        print(f"{k['name']:64} {k['vgpr_count']:4} {k.get('agpr_count', 0):4} {k['sgpr_count']:4} "
              f"{k['vgpr_spill_count']:6} {k['group_segment_fixed_size']:6} {k['private_segment_fixed_size']:7} "
              f"{k['occupancy_waves_per_simd']:5}")
    spills = sum(1 for k in rows if k["vgpr_spill_count"] or k.get("sgpr_spill_count", 0))
    scratch = sum(1 for k in rows if k["private_segment_fixed_size"])
    print(f"# {len(rows)} kernels, {spills} with spills, {scratch} with scratch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
