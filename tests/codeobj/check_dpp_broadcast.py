#!/usr/bin/env python3
"""Checks the gfx1030 DPP broadcasts of Q and P (attention_dot2.hpp kBcast) in a built code object.

dl::fdot2_row_share<N> is inline assembly (v_dot2c_f32_f16 with the DPP16 control ROW_SHARE N),
which the CPU execution harness runs through its host emulation only. This test reads what the
assembler made of it in a kBcast kernel's KV-tile loop (uattn-inspect's loop cut):
  - every packed dot product is v_dot2c_f32_f16_dpp with row_share:N, row_mask:0xf, bank_mask:0xf;
  - QK: chunk c (16 chunks at d128) of each of the 8 rows, 4 dwords each, reads lane c: 32 per N;
  - P.V: key pairs i and i + 8 share lanes 2 (i mod 8) (rows 0-3) and 2 (i mod 8) + 1 (rows 4-7),
    4 rows x 4 dims each: 32 per N;
    so each N in 0..15 appears 64 times (1024 in all, the 8 x 32 x 128 x 2 / 64 multiply-adds);
  - the loop reads no LDS and reads P with no v_readlane (the 64 v_readlane left are the V rows').
Usage: check_dpp_broadcast.py --readelf R --objdump O CODE_OBJECT [KERNEL]
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

DEFAULT_KERNEL = "uattn_gfx1030_2d_f16_f16_d128_b16_plain_m32n32w4"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readelf", required=True)
    ap.add_argument("--objdump", required=True)
    ap.add_argument("code_object")
    ap.add_argument("kernel", nargs="?", default=DEFAULT_KERNEL)
    a = ap.parse_args()
    ks = [k for k in co_report.kernels(a.readelf, a.code_object) if k["name"] == a.kernel]
    if not ks:
        print(f"SKIP: {a.kernel} is not in {a.code_object}")
        return 0
    dis = subprocess.run([a.objdump, "-d", "--mcpu=gfx1030", a.code_object], check=True,
                         capture_output=True, text=True).stdout
    insns = ui.parse_disassembly(dis)[a.kernel]
    rec = ui.kernel_record(ks[0], "gfx1030", a.code_object, insns)
    loop = [i for i in rec["loops"][rec["tile_loop"]]["_asm"].split("\n") if i.strip()]
    errors = []
    share = collections.Counter()
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
            errors.append(f"LDS access in the tile loop: {line.strip()}")
    want = {n: 64 for n in range(16)}
    if dict(share) != want:
        errors.append(f"row_share counts {dict(sorted(share.items()))}, expected 64 for each of 0..15")
    readlanes = sum(1 for line in loop if line.split()[0] == "v_readlane_b32")
    if readlanes != 64:
        errors.append(f"{readlanes} v_readlane_b32 in the tile loop, expected 64 (the V row addresses)")
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print(f"{a.kernel}: {sum(share.values())} v_dot2c_f32_f16_dpp, row_share 0..15 x 64, no LDS access")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
