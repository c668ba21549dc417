"""uattn-inspect on hand-written instruction streams in llvm-objdump's format (no toolchain needed).

Every instruction below is 4 bytes (the helper assigns addresses); branch immediates are
computed the way the SOPP encoding defines them: target = PC + 4 + 4 * simm16.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import uattn_inspect as ui  # noqa: E402


def objdump(kernel, lines, base=0x1000):
    """llvm-objdump -d text for `lines` (instruction strings; 'NAME:' defines a label; a branch
    operand '@NAME' is resolved to its simm16)."""
    addr, labels, insns = base, {}, []
    for ln in lines:
        if ln.endswith(":"):
            labels[ln[:-1]] = addr
        else:
            insns.append((addr, ln))
            addr += 4
    out = [f"{base:016x} <{kernel}>:"]
    for a, ln in insns:
        if "@" in ln:
            mn, lab = ln.split("@")
            imm = (labels[lab] - a - 4) // 4
            ln = f"{mn}{imm & 0xFFFF}"
        out.append(f"\t{ln:58} // {a:012X}: BF800000")
    return "\n".join(out) + "\n"


# A kernel with (1) a masked boundary-tile loop, (2) an unmasked steady-state loop, both straight-line
# and with the same MFMA count, and (3) a loop holding an inner loop.
K = "uattn_gfx950_2d_f16_f16_d128_b16_plain_m128n32w4"
STREAM = [
    "s_load_dwordx2 s[0:1], s[4:5], 0x0",
    "masked:",
    "global_load_ushort v1, v[2:3], off",
    "buffer_load_dwordx4 v[4:7], v8, s[12:15], 0 offen offset:64",
    "s_waitcnt vmcnt(0)",
    "v_mfma_f32_32x32x16_f16 v[16:31], v[4:7], v[4:7], v[16:31]",
    "v_mfma_f32_32x32x16_f16 v[16:31], v[4:7], v[4:7], v[16:31]",
    "v_cmp_gt_i32_e32 vcc, s2, v9",
    "v_cndmask_b32_e32 v10, v11, v10, vcc",
    "v_cndmask_b32_e32 v12, v11, v12, vcc",
    "s_cbranch_execz @skip",
    "ds_write_b16 v13, v1",
    "skip:",
    "s_barrier",
    "ds_read_b64_tr_b16 v[14:15], v13",
    "s_add_u32 s2, s2, 32",
    "s_cmp_lt_u32 s2, s3",
    "s_cbranch_scc1 @masked",
    "steady:",
    "global_load_dwordx4 v[4:7], v[2:3], off",
    "s_waitcnt vmcnt(0) lgkmcnt(0)",
    "v_mfma_f32_32x32x16_f16 v[16:31], v[4:7], v[4:7], v[16:31]",
    "v_mfma_f32_32x32x16_f16 v[16:31], v[4:7], v[4:7], v[16:31]",
    "v_exp_f32_e32 v20, v20",
    "v_max_f32_e32 v21, v21, v20",
    "ds_read_b128 v[40:43], v13",
    "ds_write_b64 v13, v[40:41]",
    "global_store_short v[2:3], v1, off",
    "s_add_u32 s2, s2, 32",
    "s_cmp_lt_u32 s2, s3",
    "s_cbranch_scc1 @steady",
    "nested:",
    "v_mfma_f32_32x32x16_f16 v[16:31], v[4:7], v[4:7], v[16:31]",
    "inner:",
    "global_load_ushort v1, v[2:3], off",
    "s_sub_u32 s5, s5, 1",
    "s_cbranch_scc1 @inner",
    "v_mfma_f32_32x32x16_f16 v[16:31], v[4:7], v[4:7], v[16:31]",
    "v_mfma_f32_32x32x16_f16 v[16:31], v[4:7], v[4:7], v[16:31]",
    "s_cbranch_vccnz @nested",
    "s_endpgm",
]


@pytest.fixture
def insns():
    code = ui.parse_disassembly(objdump(K, STREAM))
    assert list(code) == [K]
    return code[K]


def test_parse_and_branch_targets(insns):
    assert len(insns) == len([s for s in STREAM if not s.endswith(":")]) == 36
    assert insns[0].addr == 0x1000 and insns[0].mnemonic == "s_load_dwordx2"
    first_back = next(i for i in insns if i.mnemonic == "s_cbranch_scc1")
    assert ui.branch_target(first_back) == 0x1004  # the `masked` label
    fwd = next(i for i in insns if i.mnemonic == "s_cbranch_execz")
    assert ui.branch_target(fwd) == fwd.addr + 8


def test_loops_nesting(insns):
    loops = ui.find_loops(insns)
    top = [lp for lp in loops if lp["top_level"]]
    assert [(lp["start"], lp["end"]) for lp in loops] == [(1, 15), (16, 27), (28, 34), (29, 31)]
    assert len(top) == 3
    assert [lp["straight_line"] for lp in top] == [True, True, False]
    assert top[2]["inner"] == 1 and top[2]["backward_branches_inside"] == 1
    inner = loops[3]
    assert not inner["top_level"] and inner["straight_line"]


def test_two_latches_is_not_straight_line():
    code = ui.parse_disassembly(objdump("k", [
        "head:", "v_add_f32_e32 v0, v0, v1", "s_cbranch_vccz @head", "v_add_f32_e32 v0, v0, v1",
        "s_cbranch_scc1 @head", "s_endpgm"]))
    (lp,) = ui.find_loops(code["k"])
    assert lp["latches"] == 2 and not lp["straight_line"]


def test_overlapping_loops_are_one_region():
    # two headers: the latch `vccz` goes back to `h1`, the following `s_branch` to `h2` (past h1)
    code = ui.parse_disassembly(objdump("k", [
        "s_mov_b32 s0, 0", "h1:", "s_mul_i32 s1, s0, s2", "h2:", "v_add_f32_e32 v0, v0, v1",
        "s_cbranch_scc1 @out", "s_cbranch_vccz @h1", "s_branch @h2", "out:", "s_endpgm"]))
    loops = ui.find_loops(code["k"])
    assert [(lp["start"], lp["end"], lp["top_level"]) for lp in loops] == [(1, 4, True), (2, 5, False)]
    assert loops[0]["overlapping"] == 1 and not loops[0]["straight_line"]


def test_backward_jump_that_closes_no_cycle_is_not_a_loop():
    # clang lays a cold path (here: `slow`) after the loop and jumps back from it to the code after
    # its branch: a backward branch whose target cannot reach it again. Only `tile` is a loop, and
    # it is straight-line (no other loop encloses or overlaps it).
    code = ui.parse_disassembly(objdump("k", [
        "s_cbranch_scc0 @slow", "join:", "s_mul_i32 s1, s0, s2", "tile:", "v_add_f32_e32 v0, v0, v1",
        "s_cbranch_execz @skip", "v_mfma_f32_32x32x16_f16 v[16:31], v[4:7], v[4:7], v[16:31]", "skip:",
        "s_cbranch_scc1 @tile", "s_endpgm", "slow:", "s_mov_b32 s1, 0", "s_branch @join"]))
    loops = ui.find_loops(code["k"])
    assert [(lp["start"], lp["end"], lp["top_level"], lp["straight_line"]) for lp in loops] == [(2, 5, True, True)]
    assert loops[0]["latches"] == 1 and loops[0]["backward_branches_inside"] == 0


def test_counts_by_class_and_width(insns):
    r = ui.kernel_record({"name": K, "vgpr_count": 128, "agpr_count": 32, "sgpr_count": 40,
                          "vgpr_spill_count": 0, "group_segment_fixed_size": 32768,
                          "private_segment_fixed_size": 0, "wavefront_size": 64,
                          "max_flat_workgroup_size": 256}, "gfx950", "x.co", insns)
    masked, steady, nested = r["loops"]
    c = masked["classes"]
    assert masked["insts"] == 15
    assert (c["mfma"], c["valu"], c["cndmask"], c["trans"], c["salu"], c["branch"], c["waitcnt"], c["barrier"],
            c["vmem"], c["lds"]) == (2, 1, 2, 0, 2, 2, 1, 1, 2, 2)
    assert sum(c.values()) == masked["insts"]
    assert masked["loads"] == {"dwordx4": 1, "ushort": 1}
    assert masked["min_load_bytes"] == 2
    assert masked["lds_reads"] == {"b64_tr_b16": 1} and masked["lds_writes"] == {"b16": 1}
    assert masked["forward_branches"] == 1
    s = steady["classes"]
    assert (s["mfma"], s["trans"], s["valu"], s["cndmask"]) == (2, 1, 1, 0)
    assert steady["loads"] == {"dwordx4": 1} and steady["min_load_bytes"] == 16
    assert steady["stores"] == {"short": 1}
    assert steady["lds_reads"] == {"b128": 1} and steady["lds_writes"] == {"b64": 1}
    # steady and nested tie with masked on MFMA? nested has 3 MFMA but is not straight-line.
    assert nested["classes"]["mfma"] == 3 and not nested["straight_line"]
    # the KV-tile loop: straight-line, most MFMA (2 = 2), fewest v_cndmask -> the steady one
    assert r["tile_loop"] == 1 and steady["kv_tile_loop"]
    # roles: the KV-tile loop is the interior one; the masked loop (as much work) and the nested
    # region (more work) are boundary loops
    assert (masked["role"], steady["role"], nested["role"]) == ("boundary", "interior", "boundary")
    assert r["tile"] == {"block_m": 128, "block_n": 32, "waves": 4}
    assert r["vgpr_agpr_total"] == 128  # gfx950: .vgpr_count already holds the AGPRs
    assert r["occupancy_waves_per_simd"] == 4  # 512 // 128 registers


def test_boundary_loops_pair_with_their_variants_interior_loop():
    def lp(role, cnd):
        return {"role": role, "classes": {"cndmask": cnd}}
    # a generic instance: three variants, each boundary loop before its interior loop; the last
    # variant's interior loop is the KV-tile loop (index 6); a helper loop first
    loops = [lp("helper", 0), lp("boundary", 97), lp("boundary", 64), lp("boundary", 97), lp("boundary", 64),
             lp("boundary", 33), lp("interior", 0)]
    ui.pair_boundary_loops(loops, 6)
    assert [x["role"] for x in loops] == ["helper", "boundary", "interior", "boundary", "interior", "boundary",
                                          "interior"]
    assert [x.get("interior_loop") for x in loops] == [None, 2, None, 4, None, 6, None]
    # two boundary loops (before and after the interior range) share the interior loop
    loops = [lp("boundary", 17), lp("boundary", 17), lp("interior", 0)]
    ui.pair_boundary_loops(loops, 2)
    assert [x.get("interior_loop") for x in loops] == [2, 2, None]
    # no later loop with fewer v_cndmask: compared with the KV-tile loop
    loops = [lp("interior", 0), lp("boundary", 5)]
    ui.pair_boundary_loops(loops, 0)
    assert loops[1]["interior_loop"] == 0 and loops[1]["role"] == "boundary"


def test_selection_falls_back_to_nested_loop_and_flags_it():
    def lp(work, straight, cnd=0, insts=10):
        return {"work": work, "straight_line": straight, "classes": {"cndmask": cnd}, "insts": insts}
    # a small straight helper loop does not win over a nested tile loop with far more work
    assert ui.select_tile_loop([lp(1, True), lp(16, False)]) == 1
    # equal work: the unmasked one
    assert ui.select_tile_loop([lp(16, True, cnd=40), lp(16, True, cnd=0), lp(16, False)]) == 1
    assert ui.select_tile_loop([]) is None


def test_key_split_walk_is_never_the_kv_tile_loop():
    def lp(work, barriers, insts):
        return {"work": work, "straight_line": True, "classes": {"cndmask": 11, "barrier": barriers}, "insts": insts}
    # gfx1030's 8-wave tile: the shared walk (barriers) and the key split's walk (none, more work with fp8)
    loops = [lp(522, 2, 790), lp(648, 0, 1857)]
    assert ui.select_tile_loop(loops, dot2=True) == 0
    assert ui.select_tile_loop(loops) == 1  # the MFMA rule has no such exception
    # a dot2 kernel without barriers: the usual rule
    assert ui.select_tile_loop([lp(520, 0, 977), lp(522, 0, 790)], dot2=True) == 1
    # the shared walk not straight-line: reported flagged, the split walk still not taken
    loops[0]["straight_line"] = False
    assert ui.select_tile_loop(loops, dot2=True) == 0


def test_mca_rewrites():
    mk = lambda t: ui.Insn(0, t.split()[0], t[len(t.split()[0]):].strip())  # noqa: E731
    assert ui.mca_line(mk("buffer_load_dword v1, v2, s[8:11], 0 offen offset:12")) == \
        "global_load_dword v1, v2, s[8:9] offset:12"
    assert ui.mca_line(mk("buffer_load_ushort v1, v2, s[16:19], s3 offen")) == "global_load_ushort v1, v2, s[16:17]"
    assert ui.mca_line(mk("buffer_load_dwordx4 v[1:4], v5, s[8:11], 0 offen sc0")) == \
        "global_load_dwordx4 v[1:4], v5, s[8:9] sc0"
    assert ui.mca_line(mk("buffer_load_dword v1, off, s[4:7], s0 offset:16")) == "global_load_dword v1, v1, s[4:5] offset:16"
    assert ui.mca_line(mk("buffer_store_dwordx2 v[1:2], v3, s[4:7], 0 offen")) == "global_store_dwordx2 v3, v[1:2], s[4:5]"
    assert ui.mca_line(mk("buffer_load_dword v1, s[4:7], s0 offen offset:64 lds")) == \
        "global_load_lds_dword v1, s[4:5] offset:64"
    assert ui.mca_line(mk("buffer_load_format_xy v[1:2], v3, s[8:11], 0 idxen")) == "global_load_dwordx2 v[1:2], v3, s[8:9]"
    assert ui.mca_line(mk("s_cbranch_scc1 65500")) is None
    assert ui.mca_line(mk("v_add_f32_e32 v0, v1, v2")) == "v_add_f32_e32 v0, v1, v2"


MCA_OUT = """Iterations:        20
Instructions:      80
Total Cycles:      500
Total uOps:        80

Resources:
[0]   - HWBranch
[1]   - HWExport
[2]   - HWLGKM
[3]   - HWRC
[4]   - HWSALU
[5]   - HWTransVALU
[6]   - HWVALU
[7]   - HWVMEM
[8]   - HWXDL


Resource pressure per iteration:
[0]    [1]    [2]    [3]    [4]    [5]    [6]    [7]    [8]
 -      -      -     4.00   1.00   1.00   1.00   1.00   6.25

Resource pressure by instruction:
"""


def test_parse_mca_and_figures():
    m = ui.parse_mca(MCA_OUT)
    assert m["cycles_per_iter"] == 25.0 and m["xdl_per_iter"] == 6.25
    assert m["pressure"]["HWVMEM"] == 1.0 and m["pressure"]["HWBranch"] == 0.0
    r = {"tile": {"block_m": 128, "block_n": 32, "waves": 4}}
    lp = {"mca": m, "straight_line": True, "work": 2}
    ui.finish_loop(r, lp)
    assert lp["cycles_per_iter"] == 25.0 and lp["xdl_busy"] == 0.25
    assert lp["row_keys_per_cycle"] == 163.84  # 128 * 32 / 25
    helper = {"mca": m, "straight_line": True, "work": 0}
    ui.finish_loop(r, helper)
    assert helper["cycles_per_iter"] == 25.0 and "row_keys_per_cycle" not in helper


def test_glob_and_budgets(tmp_path):
    assert ui.glob_match("uattn_gfx950_*_d128_*", K) and not ui.glob_match("uattn_gfx1030_*", K)
    f = tmp_path / "b.yaml"
    f.write_text("defaults: {max_vgpr_spills: 0, max_scratch: 0}\n"
                 "families:\n"
                 "  - {match: 'uattn_gfx950_*', max_vgpr_agpr: 512, max_lds: 65536}\n"
                 "  - {match: '*_plain_m128*', max_vgpr_agpr: 256, min_load_bytes: 4, min_row_keys_per_cycle: 2.0,"
                 " straight_line: true, min_occupancy: 2, max_forward_branches: 8}\n")
    d, fams = ui.load_budgets(str(f))
    b, matched = ui.budget_for(K, d, fams)
    assert matched == ["uattn_gfx950_*", "*_plain_m128*"] and b["max_vgpr_agpr"] == 256
    # the strictest limit wins whatever the order of the families
    assert ui.budget_for(K, d, fams[::-1])[0] == b
    assert ui.budget_for(K, {"min_row_keys_per_cycle": 3.0}, fams)[0]["min_row_keys_per_cycle"] == 3.0
    rec = {"name": K, "vgpr_agpr_total": 300, "vgpr_spills": 0, "sgpr_spills": 0, "scratch_bytes": 16,
           "lds_bytes": 1024, "occupancy_waves_per_simd": 1.0, "tile_loop": 0,
           "loops": [{"straight_line": False, "backward_branches_inside": 3, "inner_loops": 2, "overlapping_loops": 1, "min_load_bytes": 2,
                      "loads": {"ushort": 80, "dword": 2}, "forward_branches": 83, "row_keys_per_cycle": 1.6, "cycles_per_iter": 2514}]}
    out = ui.breaches(rec, b, matched)
    assert len(out) == 7
    assert any("83 forward branches > budget 8" in x for x in out)
    assert any("occupancy (waves per SIMD) 1.0 < budget 2" in x for x in out)
    assert any("VGPR+AGPR 300 > budget 256" in x for x in out)
    assert any("scratch bytes 16 > budget 0" in x for x in out)
    assert any("80 x ushort" in x and "dword" not in x.split("80 x ushort")[1] for x in out)
    assert any("not straight-line (2 inner loops, 3 backward branches inside, 1 overlapping loops)" in x for x in out)
    assert any("row-keys per cycle 1.6 < budget 2.0" in x for x in out)
    assert ui.breaches(dict(rec, name="other", scratch_bytes=0), *ui.budget_for("other", d, fams)) == ["other: no budget family matches"]
    # boundary loops: straight-line and at most max_boundary_vs_interior x their interior loop
    f.write_text("families:\n  - {match: '*_plain_m128*', max_boundary_vs_interior: 1.3, boundary_straight_line: true}\n")
    b, matched = ui.budget_for(K, *ui.load_budgets(str(f)))
    loop = {"straight_line": True, "backward_branches_inside": 0, "inner_loops": 0, "overlapping_loops": 0}
    rec = {"name": K, "vgpr_agpr_total": 100, "vgpr_spills": 0, "sgpr_spills": 0, "scratch_bytes": 0,
           "lds_bytes": 1024, "occupancy_waves_per_simd": 2, "tile_loop": 2,
           "loops": [dict(loop, role="boundary", start_addr="0x100", vs_interior=1.29),
                     dict(loop, role="boundary", start_addr="0x200", vs_interior=1.31, straight_line=False,
                          inner_loops=1, backward_branches_inside=1),
                     dict(loop, role="interior", start_addr="0x300")]}
    out = ui.breaches(rec, b, matched)
    assert len(out) == 2
    assert any("boundary loop 0x200 costs 1.31x its interior loop > budget 1.3" in x for x in out)
    assert any("boundary loop 0x200 is not straight-line (1 inner loops" in x for x in out)
    rec["loops"][0].pop("vs_interior")
    assert any("boundary loop 0x100: cycles unknown" in x for x in ui.breaches(rec, b, matched))
    bad = tmp_path / "bad.yaml"
    bad.write_text("families:\n  - {match: '*', max_vgprs: 1}\n")
    with pytest.raises(SystemExit, match="unknown key 'max_vgprs'"):
        ui.load_budgets(str(bad))
    bad.write_text("families:\n  - {match: 'uattn_[a]*', max_lds: 1}\n")
    with pytest.raises(SystemExit, match="not an instance-name glob"):
        ui.load_budgets(str(bad))


def test_fifo_inputs_are_refused_without_blocking(tmp_path, capsys):
    """A FIFO given as an input, --check file or --stamp input is refused, never waited on
    (uattn_gen.files.read_input_file, the generator's reader; it blocked in open())."""
    fifo = tmp_path / "k.co"
    os.mkfifo(fifo)
    for argv in ([str(fifo), "--no-mca"], [str(tmp_path / "none.co"), "--check", str(fifo)]):
        assert ui.main(argv) == 2
        assert f"uattn-inspect: {fifo}: cannot read (it is a FIFO)" in capsys.readouterr().err
    assert ui.main([str(fifo), "--stamp"]) == 1
    assert f"{fifo}: cannot read: it is a FIFO" in capsys.readouterr().err
