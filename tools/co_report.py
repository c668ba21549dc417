#!/usr/bin/env python3
"""Per-kernel resource report of uattn code objects (no GPU needed).

Usage: co_report.py [--readelf llvm-readelf-21] [--json] [--mix] [--matrix FILE] CODE_OBJECT...
       (the per-arch code objects of a build: build/default/uattn_gfx950.co,
        build/default/uattn_gfx1030.co)

Reads the AMDGPU metadata notes (llvm-readelf --notes) and prints, per kernel:
VGPRs, AGPRs, SGPRs, VGPR/SGPR spills, static LDS bytes, scratch bytes, wave
size, an occupancy estimate (waves per SIMD) from registers and LDS, and with
--mix static instruction counts per class (llvm-objdump -d).

Occupancy model (estimates, not measurements): generator/uattn_gen/measured.py
occupancy(), from the architecture record of the code object's target processor
(generator/uattn_gen/model.py: wave_size, vgprs_per_simd, max_waves_per_simd,
lds_per_cu, simds_per_cu, cus_per_workgroup; the sources of the figures there).
--matrix FILE adds the architectures a matrix declares (`architectures:`) to the
built-in records, as the generator does.
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generator"))
from uattn_gen.measured import occupancy as occupancy_of  # noqa: E402  (the occupancy model)
from uattn_gen.model import ARCH_INFO  # noqa: E402  (the architecture records)
from uattn_gen.schema import load_matrices  # noqa: E402

FIELDS = ("vgpr_count", "agpr_count", "sgpr_count", "vgpr_spill_count", "sgpr_spill_count",
          "group_segment_fixed_size", "private_segment_fixed_size", "wavefront_size",
          "max_flat_workgroup_size")


def record_of(readelf_notes, path):
    """The architecture record whose offload target is the code object's processor."""
    m = re.search(r"amdhsa\.target:\s*'?amdgcn-amd-amdhsa--([a-z0-9]+)", readelf_notes)
    processor = m.group(1) if m else ""
    for info in ARCH_INFO.values():
        if info.offload_target == processor:
            return info
    raise SystemExit(f"{path}: target processor '{processor}' has no architecture record "
                     f"(known: {', '.join(a.offload_target for a in ARCH_INFO.values())})")


def kernels(readelf, path):
    out = subprocess.run([readelf, "--notes", path], check=True, capture_output=True, text=True).stdout
    info = record_of(out, path)
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
                cur = {"arch": info.name}
                ks.append(cur)
        key, val = m.group(3), m.group(4).strip()
        if cur is None or (len(m.group(1)) != indent and not (m.group(2) is None and len(m.group(1)) == indent + 2)):
            continue
        if key == "name":
            cur["name"] = val
        elif key in FIELDS:
            cur[key] = int(val)
    return [k for k in ks if "name" in k]


MIX = (  # instruction classes counted by --mix (mnemonic prefixes)
    ("mfma", ("v_mfma",)),
    ("lds_rd", ("ds_read", "ds_load")),
    ("lds_wr", ("ds_write", "ds_store")),
    ("bperm", ("ds_bpermute", "ds_swizzle", "v_permlane")),
    ("glb_ld", ("global_load", "buffer_load", "flat_load")),
    ("glb_st", ("global_store", "buffer_store", "flat_store")),
    ("scratch", ("scratch_",)),
    ("barrier", ("s_barrier",)),
    ("valu", ("v_",)),
)


def mix(objdump, path):
    """Static instruction counts per kernel from llvm-objdump -d (code size, not executed counts)."""
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", path], check=True, capture_output=True,
                         text=True).stdout
    per, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = per.setdefault(m.group(1), {c: 0 for c, _ in MIX})
            continue
        if cur is None:
            continue
        ins = line.strip().split(" ")[0]
        if not ins or ins.startswith(";"):
            continue
        for cls, prefixes in MIX:
            if ins.startswith(prefixes):
                cur[cls] += 1
                break
    return per


def occupancy(k):
    """Waves per SIMD of kernel `k` (a kernels() entry): measured.py occupancy()."""
    info = ARCH_INFO[k["arch"]]
    threads = k.get("max_flat_workgroup_size", info.wave_size)
    return occupancy_of(k["arch"], k["vgpr_count"], k.get("group_segment_fixed_size", 0),
                        max(1, threads // info.wave_size))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--readelf", default="llvm-readelf-21")
    ap.add_argument("--objdump", default="llvm-objdump-21")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--mix", action="store_true", help="add static instruction counts per kernel")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if any kernel spills VGPRs or uses scratch (a quality gate for CTest)")
    ap.add_argument("--matrix", action="append", default=[], metavar="FILE",
                    help="a matrix whose `architectures:` records join the built-in ones (repeatable)")
    ap.add_argument("code_objects", nargs="+")
    a = ap.parse_args()
    if a.matrix:
        diags = load_matrices(a.matrix)[1]
        if diags:
            for d in diags:
                print(d, file=sys.stderr)
            return 2
    rows = []
    for co in a.code_objects:
        m = mix(a.objdump, co) if a.mix else {}
        for k in kernels(a.readelf, co):
            k["occupancy_waves_per_simd"] = occupancy(k)
            k["code_object"] = co
            if a.mix:
                k["mix"] = m.get(k["name"], {})
            rows.append(k)
    bad = [k["name"] for k in rows if k["vgpr_spill_count"] or k["private_segment_fixed_size"]]
    if a.json:
        json.dump(rows, sys.stdout, indent=1, sort_keys=True)
        print()
        return 1 if (a.check and bad) else 0
    hdr = "".join(f" {c:>7}" for c, _ in MIX) if a.mix else ""
    print(f"{'kernel':64} {'vgpr':>4} {'agpr':>4} {'sgpr':>4} {'vspill':>6} {'lds':>6} {'scratch':>7} {'occ':>5}{hdr}")
    for k in rows:
        print(f"{k['name']:64} {k['vgpr_count']:4} {k.get('agpr_count', 0):4} {k['sgpr_count']:4} "
              f"{k['vgpr_spill_count']:6} {k['group_segment_fixed_size']:6} {k['private_segment_fixed_size']:7} "
              f"{k['occupancy_waves_per_simd']:5}" +
              ("".join(f" {k['mix'].get(c, 0):7}" for c, _ in MIX) if a.mix else ""))
    spills = sum(1 for k in rows if k["vgpr_spill_count"] or k.get("sgpr_spill_count", 0))
    scratch = sum(1 for k in rows if k["private_segment_fixed_size"])
    print(f"# {len(rows)} kernels, {spills} with spills, {scratch} with scratch")
    if a.check and bad:
        print("# VGPR spills or scratch in: " + ", ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
