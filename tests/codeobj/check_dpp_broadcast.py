#!/usr/bin/env python3
"""Checks the gfx1030 DPP broadcasts of Q and P (attention_dot2.hpp kBcast) in a built code object.

dl::fdot2_row_share<N> is inline assembly (v_dot2c_f32_f16 with the DPP16 control ROW_SHARE N),
which the CPU execution harness runs through its host emulation only. This test reads what the
assembler made of it in the KV-tile loop (uattn-inspect's loop cut) of kernels of head size D
(112 or 128, 4 dims per lane in P.V) with R rows per wave:
  - every packed dot product is v_dot2c_f32_f16_dpp with row_share:N, row_mask:0xf, bank_mask:0xf;
  - QK: chunk c (D / 8 chunks) of each of the R rows, 4 dwords each, reads lane c: 4R per N < D / 8;
  - P.V: key pairs i and i + 8 share lanes 2 (i mod 8) (rows 0 .. R/2-1) and 2 (i mod 8) + 1 (rows
    R/2 .. R-1), R/2 rows x 4 dims each: 4R per N;
    so each N in 0..15 appears 8R times at d128 (R x 32 x 128 x 2 / 64 multiply-adds in all);
  - a one-wave or 4-wave tile (8 rows) reads no LDS and reads P with no v_readlane (the 64
    v_readlane left are the V rows' addresses);
  - the 8-wave tile (4 rows, K / V shared through LDS: an instance name ending in w8) reads 16 K
    chunks and 16 V pairs from LDS (32 ds_read_b128), stores its two K and two V pieces (4
    ds_write_b128), and has 2 v_readlane (the V keys' cache block).
Usage: check_dpp_broadcast.py --readelf R --objdump O CODE_OBJECT [KERNEL ...]
"""
import argparse
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import co_report  # noqa: E402
import uattn_inspect as ui  # noqa: E402

# The 8-wave d128 prefill tile, the 4-wave d112 prefill tile and a one-wave d128 tile (all with
# the DPP broadcasts).
DEFAULT_KERNELS = ("uattn_gfx1030_2d_f16_f16_d128_b16_plain_m32n32w8", "uattn_gfx1030_2d_f16_f16_d112_b16_plain_m32n32w4",
                   "uattn_gfx1030_2d_f16_f16_d128_b16_win_m8n32w1")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readelf", required=True)
    ap.add_argument("--objdump", required=True)
    ap.add_argument("code_object")
    ap.add_argument("kernels", nargs="*", default=list(DEFAULT_KERNELS))
    a = ap.parse_args()
    present = {k["name"]: k for k in co_report.kernels(a.readelf, a.code_object)}
    missing = [k for k in a.kernels if k not in present]
    if missing:
        print(f"SKIP: {', '.join(missing)} not in {a.code_object}")
        return 0
    dis = subprocess.run([a.objdump, "-d", "--mcpu=gfx1030", a.code_object], check=True,
                         capture_output=True, text=True).stdout
    code = ui.parse_disassembly(dis)
    return max(check(present[k], code[k], a.code_object) for k in a.kernels)


def check(kernel, insns, code_object):
    """0 when `kernel`'s tile loop is as the module docstring says, else 1 (the failures printed)."""
    name = kernel["name"]
    shared = name.endswith("w8")
    rows = 4 if shared else 8
    chunks = int(re.search(r"_d(\d+)_", name).group(1)) // 8
    rec = ui.kernel_record(kernel, "gfx1030", code_object, insns)
    loop = [i for i in rec["loops"][rec["tile_loop"]]["_asm"].split("\n") if i.strip()]
    errors = []
    share = collections.Counter()
    lds = collections.Counter()
    for line in loop:
        mn = line.split()[0]
        if mn.startswith("v_dot2"):
            m = re.match(r"^v_dot2c_f32_f16_dpp v\d+, v\d+, v\d+ row_share:(\d+) row_mask:0xf bank_mask:0xf$",
                         line.strip())
            if not m:
                errors.append(f"not a ROW_SHARE v_dot2c: {line.strip()}")
            else:
                share[int(m.group(1))] += 1
        if mn.startswith("ds_"):
            lds[mn] += 1
    want = {n: (8 if n < chunks else 4) * rows for n in range(16)}
    if dict(share) != want:
        errors.append(f"row_share counts {dict(sorted(share.items()))}, expected {want}")
    want_lds = {"ds_read_b128": 32, "ds_write_b128": 4} if shared else {}
    if dict(lds) != want_lds:
        errors.append(f"LDS accesses in the tile loop {dict(lds)}, expected {want_lds}")
    readlanes = sum(1 for line in loop if line.split()[0] == "v_readlane_b32")
    want_rl = 2 if shared else 64
    if readlanes != want_rl:
        errors.append(f"{readlanes} v_readlane_b32 in the tile loop, expected {want_rl} "
                      f"({'the V keys cache block' if shared else 'the V row addresses'})")
    for e in errors:
        print(f"FAIL: {name}:", e)
    if not errors:
        print(f"{name}: {sum(share.values())} v_dot2c_f32_f16_dpp, row_share 0..{chunks - 1} x {8 * rows}"
              f"{f', {chunks}..15 x {4 * rows}' if chunks < 16 else ''}, LDS {dict(lds) or 'none'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
