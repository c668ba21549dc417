"""uattn-inspect: per-kernel resources and static KV-tile loop cost of uattn code objects (no GPU needed).

Usage: uattn-inspect [--filter GLOB]... [--json | --summary] [--no-mca] [--jobs N] [--check BUDGETS] INPUT...
  INPUT: a per-arch code object (build/<preset>/uattn_gfx950.co, uattn_gfx1030.co) or an offload
  bundle (build/<preset>/uattn_kernels.hipfb; its amdgcn code objects are unbundled with
  clang-offload-bundler).

Per kernel, from the AMDGPU metadata notes (llvm-readelf --notes; field meanings in LLVM's
llvm/docs/AMDGPUUsage.rst): VGPRs, AGPRs, SGPRs, VGPR/SGPR spills, scratch bytes per lane
(.private_segment_fixed_size), static LDS bytes (.group_segment_fixed_size), wave size, and an
occupancy estimate in waves per SIMD: min(max_waves_per_simd, vgprs_per_simd // align8(vgpr_count),
by_lds), by_lds = (lds_per_cu // LDS per workgroup) * waves per workgroup / the SIMDs sharing that
LDS, from the architecture record of the code object's processor (generator/uattn_gen/model.py,
with its sources; on gfx950 .vgpr_count already counts the AGPRs: one unified register file).
(The formula is generator/uattn_gen/measured.py occupancy(), through tools/co_report.py, which this tool imports.)

Loops (llvm-objdump -d --mcpu=ARCH): a loop is a backward branch (s_branch / s_cbranch_* whose
target lies at or before the branch; target = PC + 4 + 4 * simm16) whose target can reach the
branch again in the kernel's control-flow graph (both in one strongly connected component; a
backward jump from a cold block laid out after a loop, back to the code it was branched from, is
not one); its body is [target, branch].
A top-level loop is one whose body lies inside no other loop's body and overlaps no wider loop.  A
loop is straight-line when no other backward branch lies inside its body (no inner loop, a single
latch) and no other loop overlaps it; forward branches (skips) are allowed and counted.  Two loops whose bodies overlap without nesting (a loop with two
headers, as clang emits when one path skips a computation) form one region: the wider one is the
top-level loop and is not straight-line.
Every top-level loop is reported, with its role: `interior` (the KV-tile loop below, or the
unmasked tile loop of another variant of the tile loops), `boundary` (a masked or clamped tile loop)
or `helper` (a loop with less than half the largest work).  The dot2 body (gfx1030) masks every tile
in its one tile loop per variant: its tile loops are all `interior`, except in the 8-wave tile,
whose walk of a workgroup of few rows (the key split, attention_dot2.hpp) has no workgroup barrier
while its shared walk has: that loop's role is `split`, and it is never the KV-tile loop.  Tile
loops (work >= half the largest) other than the KV-tile loop are paired by pair_boundary_loops():
a tile loop's interior loop is the nearest later tile loop with fewer v_cndmask (each variant lays
out its boundary loops before its interior loop; a generic instance has several variants).  A boundary loop's llvm-mca cycles per
iteration are also given as a multiple of its interior loop's (`vs_interior`; `interior_loop` is
that loop's index).

The KV-tile loop (the steady-state one) is chosen by this rule:
  work(loop) = MFMA instructions on gfx950 (v_mfma*, v_smfmac*), multiply-add VALU instructions on
  gfx1030 (v_dot*, v_fma*, v_fmac*, v_pk_fma*, v_mac*, v_mad*: what Q.K^T and P.V are made of there);
  candidates = straight-line top-level loops with work >= half the largest work of any top-level
  loop (so a small helper loop is never taken for a nested tile loop); on gfx1030, where some
  loops of that work have workgroup barriers (the 8-wave tile's shared walk), only those and the
  smaller loops are considered, here and in the fallback below;
  KV-tile loop = the candidate with the most work, ties broken by the fewest v_cndmask (a kernel with
  a masked boundary-tile loop and an unmasked steady-state loop reports the unmasked one), then by
  the fewest instructions.  Without candidates the top-level loop with the most work is reported,
  flagged not straight-line: its per-iteration estimate is then meaningless (inner loops are counted
  once, not per trip).

Instruction classes (disjoint; per wave, per iteration, static counts): MFMA; VALU (every other v_*,
except v_cndmask and transcendentals); v_cndmask; transcendental (v_exp, v_log, v_rcp, v_rsq,
v_sqrt, v_sin, v_cos); SALU (s_*, except the ones below); SMEM (s_load / s_buffer_load); branches;
s_waitcnt; barriers (s_barrier); VMEM (global_ / buffer_ / flat_ / scratch_); LDS (ds_*); s_nop.
VMEM loads and stores and LDS reads and writes are also counted by width (the mnemonic's suffix:
ushort = 2 bytes per lane, dword = 4, dwordx2 = 8, dwordx4 = 16; `lds_` marks loads straight into
LDS, `b64_tr_b16` the transposed LDS read).

Cycles: llvm-mca -mtriple=amdgcn -mcpu=ARCH -iterations=20 on each top-level loop body (branches
removed; every `buffer_load/store_*` rewritten as the global_load/store (or global_load_lds) of the
same width, addressed by the same VGPR and the buffer's base SGPR pair, a stand-in for the model
because llvm-mca 21 crashes or runs out of memory on buffer instructions; see ../shared/TOOLCHAIN.md).  LLVM's
AMDGPU scheduling model, one wave, in order, in model units (on gfx950 one wave64 VALU instruction
or one MFMA pass is one unit).  cycles/iter = Total Cycles / 20.  XDL busy = HWXDL resource pressure
per iteration / cycles per iteration.  row-keys/cycle = block_m x block_n / cycles per iteration,
block_m and block_n from the instance name (..._m{M}n{N}w{W}); one iteration covers block_n keys,
the workgroup's waves run on separate SIMDs.  The method is that of
../shared/anchors/triton-amd-resources.md ("Per-KV-tile cost of the main loop").

--check BUDGETS: the budgets file (tools/inspect_budgets.yaml, format in its header) is applied to
every selected kernel (each limit: the strictest over every family whose glob matches); exit 1
naming every breach.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(_HERE, "..", "generator"))
import co_report  # noqa: E402  (metadata parsing and the occupancy formulas)
from uattn_gen.files import read_input_file  # noqa: E402  (the project's one way to read an input file)
from uattn_gen.globs import glob_match, is_valid_glob  # noqa: E402  (the project's one instance-name glob)

MCA_ITERATIONS = 20
MCA_TIMEOUT_S = 300
MCA_MEMORY_BYTES = 6 << 30  # llvm-mca ran out of memory on one large gfx1030 loop: cap it
MAX_INPUT_BYTES = 1 << 30  # the largest code object, bundle or budgets file read (the runtime's kMaxBundleBytes)

# ---------------------------------------------------------------- instance names and globs


TILE_RE = re.compile(r"_m(\d+)n(\d+)w(\d+)$")


def tile_of(name: str):
    """(block_m, block_n, waves) from an instance name ending in _m{M}n{N}w{W}, else None."""
    m = TILE_RE.search(name)
    return tuple(int(x) for x in m.groups()) if m else None


# ---------------------------------------------------------------- disassembly

KERNEL_RE = re.compile(r"^([0-9a-fA-F]+) <([^>]+)>:\s*$")
INSN_RE = re.compile(r"^\s+([a-z_][a-z0-9_.]*)\b(.*?)\s*//\s*([0-9a-fA-F]+):")


class Insn(collections.namedtuple("Insn", "addr mnemonic operands")):
    @property
    def text(self):
        return (self.mnemonic + " " + self.operands).strip()


def parse_disassembly(text: str):
    """{kernel symbol: [Insn]} from `llvm-objdump -d` output (with its `// ADDRESS: BYTES` comments)."""
    out, cur = {}, None
    for line in text.splitlines():
        m = KERNEL_RE.match(line)
        if m:
            cur = out.setdefault(m.group(2), [])
            continue
        if cur is None:
            continue
        m = INSN_RE.match(line)
        if m:
            cur.append(Insn(int(m.group(3), 16), m.group(1), m.group(2).strip()))
    return out


def is_branch(mn: str) -> bool:
    return mn == "s_branch" or mn.startswith("s_cbranch_")


def branch_target(insn: Insn):
    """Target address of an s_branch / s_cbranch_*: PC + 4 + 4 * simm16 (SOPP encoding, AMD ISA
    guides, 'Program flow control'); None for indirect forms."""
    if not is_branch(insn.mnemonic):
        return None
    tok = insn.operands.split()[0].rstrip(",") if insn.operands else ""
    try:
        imm = int(tok, 0)
    except ValueError:
        return None
    if imm > 0x7FFF:
        imm -= 0x10000
    return insn.addr + 4 + 4 * imm


def cycle_ids(insns, index):
    """Strongly connected component of every instruction of the kernel's control-flow graph
    (successors: the next instruction unless the instruction is s_branch, s_endpgm or s_setpc_b64,
    and a branch's target), as a list of component numbers (Tarjan's algorithm, iterative)."""
    n = len(insns)
    succ = []
    for k, i in enumerate(insns):
        s = []
        if i.mnemonic not in ("s_branch", "s_endpgm", "s_setpc_b64") and k + 1 < n:
            s.append(k + 1)
        t = branch_target(i)
        if t is not None and t in index:
            s.append(index[t])
        succ.append(s)
    comp, low, num = [-1] * n, [0] * n, [-1] * n
    stack, on, counter, ncomp = [], [False] * n, 0, 0
    for root in range(n):
        if num[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, j = work.pop()
            if j == 0:
                num[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on[v] = True
            if j < len(succ[v]):
                work.append((v, j + 1))
                w = succ[v][j]
                if num[w] < 0:
                    work.append((w, 0))
                elif on[w]:
                    low[v] = min(low[v], num[w])
                continue
            if low[v] == num[v]:
                while True:
                    w = stack.pop()
                    on[w] = False
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return comp


def find_loops(insns):
    """Backward branches that close a cycle of the control-flow graph, as loops: list of dicts
    {start, end, top_level, straight_line, inner, latches} where [start, end] are instruction
    indices (end = the closing branch).  A backward branch whose target cannot reach it again (a
    block laid out after the code it returns to: clang places cold paths, such as the 64-bit
    division's, there) is a jump, not a latch."""
    index = {i.addr: k for k, i in enumerate(insns)}
    comp = cycle_ids(insns, index)
    back = []  # (start_idx, end_idx)
    for k, i in enumerate(insns):
        t = branch_target(i)
        if t is not None and t <= i.addr and t in index and comp[index[t]] == comp[k]:
            back.append((index[t], k))
    # one loop per header: its outermost latch closes it; other latches to the same header are noted
    by_head = {}
    for s, e in back:
        by_head.setdefault(s, []).append(e)
    loops = [{"start": s, "end": max(es), "latches": len(es)} for s, es in sorted(by_head.items())]
    def span(o):
        return (insns[o["end"]].addr - insns[o["start"]].addr, -o["start"])

    def overlaps(o, lp):
        return o is not lp and o["start"] <= lp["end"] and lp["start"] <= o["end"]

    def contains(o, lp):
        return o is not lp and o["start"] <= lp["start"] and lp["end"] <= o["end"]

    for lp in loops:
        # a loop inside another, or overlapping a wider one (two headers, one region), is not top-level
        lp["top_level"] = not any(overlaps(o, lp) and span(o) > span(lp) for o in loops)
        inner = [e for s, e in back if lp["start"] <= e < lp["end"] and s >= lp["start"]]
        crossing = [e for s, e in back if lp["start"] <= e < lp["end"] and s < lp["start"]]
        lp["inner"] = len([o for o in loops if contains(lp, o)])
        lp["overlapping"] = len([o for o in loops if overlaps(o, lp) and not contains(o, lp) and not contains(lp, o)])
        lp["straight_line"] = not inner and not crossing and not lp["overlapping"]
        lp["backward_branches_inside"] = len(inner) + len(crossing)
    return loops


# ---------------------------------------------------------------- instruction classes

TRANS = ("v_exp", "v_log", "v_rcp", "v_rsq", "v_sqrt", "v_sin", "v_cos")
FMA = ("v_dot", "v_fma", "v_fmac", "v_pk_fma", "v_mac", "v_mad")
CLASSES = ("mfma", "valu", "cndmask", "trans", "salu", "smem", "branch", "waitcnt", "barrier", "vmem",
           "lds", "nop")
LOAD_BYTES = {"ubyte": 1, "sbyte": 1, "ushort": 2, "sshort": 2, "short": 2, "byte": 1, "dword": 4,
              "dwordx2": 8, "dwordx3": 12, "dwordx4": 16, "b8": 1, "u8": 1, "i8": 1, "u16": 2, "i16": 2,
              "b16": 2, "b32": 4, "b64": 8, "b96": 12, "b128": 16}


def classify(mn: str) -> str:
    if mn.startswith(("v_mfma", "v_smfmac")):
        return "mfma"
    if mn.startswith("v_cndmask"):
        return "cndmask"
    if mn.startswith(TRANS):
        return "trans"
    if mn.startswith("v_"):
        return "valu"
    if is_branch(mn):
        return "branch"
    if mn.startswith("s_waitcnt"):
        return "waitcnt"
    if mn.startswith("s_barrier"):
        return "barrier"
    if mn == "s_nop":
        return "nop"
    if mn.startswith(("s_load", "s_buffer_load", "s_store", "s_buffer_store", "s_dcache", "s_memtime",
                      "s_memrealtime")):
        return "smem"
    if mn.startswith("s_"):
        return "salu"
    if mn.startswith(("global_", "buffer_", "flat_", "scratch_")):
        return "vmem"
    if mn.startswith("ds_"):
        return "lds"
    return "salu" if mn.startswith("s") else "valu"


VMEM_OP_RE = re.compile(r"^(global|buffer|flat|scratch)_(load|store)_(.+)$")
LDS_OP_RE = re.compile(r"^ds_(read|load|write|store)(2st64|2)?_(.+)$")


def width_key(insn: Insn):
    """('load'|'store', width) for a VMEM access, ('lds_read'|'lds_write', width) for an LDS one,
    else None.  Width is the mnemonic suffix (ushort, dword, dwordx4, lds_dwordx4, b64_tr_b16, ...)."""
    m = VMEM_OP_RE.match(insn.mnemonic)
    if m:
        w = m.group(3)
        if m.group(1) == "buffer" and re.search(r"(^|\s)lds(\s|$)", insn.operands) and not w.startswith("lds_"):
            w = "lds_" + w  # buffer_load_dword ... lds: straight into LDS
        return ("load" if m.group(2) == "load" else "store"), w
    m = LDS_OP_RE.match(insn.mnemonic)
    if m:
        kind = "lds_read" if m.group(1) in ("read", "load") else "lds_write"
        return kind, (m.group(2) + "_" + m.group(3)) if m.group(2) else m.group(3)
    return None


def width_bytes(w: str):
    """Bytes per lane of a load/store width key (d16 / lds_ prefixes ignored); None if unknown."""
    base = w[4:] if w.startswith("lds_") else w
    base = re.sub(r"_d16(_hi)?$", "", base)
    base = re.sub(r"^(2st64|2)_", "", base)
    base = base.split("_tr_")[0]
    return LOAD_BYTES.get(base)


def count_loop(insns, arch: str):
    """Static per-iteration counts of one loop body (list of Insn)."""
    c = {k: 0 for k in CLASSES}
    widths = {"load": collections.Counter(), "store": collections.Counter(),
              "lds_read": collections.Counter(), "lds_write": collections.Counter()}
    fma = 0
    for i in insns:
        c[classify(i.mnemonic)] += 1
        wk = width_key(i)
        if wk:
            widths[wk[0]][wk[1]] += 1
        if i.mnemonic.startswith(FMA):
            fma += 1
    work = c["mfma"] if _matrix_insn(arch) != "dot2" else fma
    loads = [width_bytes(w) for w in widths["load"]]
    loads = [b for b in loads if b is not None]
    return {
        "insts": len(insns),
        "classes": c,
        "fma": fma,
        "work": work,
        "forward_branches": 0,
        "loads": dict(sorted(widths["load"].items())),
        "stores": dict(sorted(widths["store"].items())),
        "lds_reads": dict(sorted(widths["lds_read"].items())),
        "lds_writes": dict(sorted(widths["lds_write"].items())),
        "min_load_bytes": min(loads) if loads else None,
    }


def select_tile_loop(loops, dot2=False):
    """Index into `loops` (the top-level ones, each with 'work', 'straight_line', 'classes', 'insts')
    of the KV-tile loop by the rule of the module docstring, or None when there is no loop. dot2:
    the gfx1030 body, whose barrier-free tile loops beside one with barriers are the key split's."""
    if not loops:
        return None
    pool = list(range(len(loops)))
    if dot2:  # the key split's walk (no barrier) is never taken where a tile loop has barriers
        top = max(lp["work"] for lp in loops)
        tiles = [k for k in pool if loops[k]["work"] > 0 and 2 * loops[k]["work"] >= top]
        if any(loops[k]["classes"].get("barrier", 0) > 0 for k in tiles):
            pool = [k for k in pool if k not in tiles or loops[k]["classes"].get("barrier", 0) > 0]
    top = max(loops[k]["work"] for k in pool)
    cand = [k for k in pool if loops[k]["straight_line"] and loops[k]["work"] > 0 and 2 * loops[k]["work"] >= top]
    if cand:
        return min(cand, key=lambda k: (-loops[k]["work"], loops[k]["classes"]["cndmask"], loops[k]["insts"]))
    return min(pool, key=lambda k: (-loops[k]["work"], -loops[k]["insts"]))


# ---------------------------------------------------------------- llvm-mca

BUF_FORMAT = {"format_x": "dword", "format_xy": "dwordx2", "format_xyz": "dwordx3", "format_xyzw": "dwordx4"}


def buffer_as_global(mnemonic: str, operands: str):
    """A buffer_load/store line as the global_load/store (or global_load_lds) line of the same width,
    same data/address VGPRs and the buffer's base SGPR pair as saddr, or None if it is not one.

    llvm-mca 21 (gfx950, gfx1030) crashes or runs out of memory on every buffer_* form tried
    (offen, off, lds, stores; verified 2026-11-30), so the estimate models them as global accesses.
    Buffer syntax: `buffer_load_X vdata, vaddr|off, s[a:b], soffset [offen|idxen] [offset:N] [cache bits]`;
    LDS form: `buffer_load_X vaddr|off, s[a:b], soffset [offen] [offset:N] lds`."""
    m = re.match(r"^buffer_(load|store)_(\w+)$", mnemonic)
    if not m:
        return None
    op, w = m.groups()
    w = BUF_FORMAT.get(w, "dword" if w.startswith("format") else w)
    parts = [x.strip() for x in operands.split(",")]
    tail = parts[-1].split()
    mods = tail[1:]
    off = next((x for x in mods if x.startswith("offset:")), None)
    keep = [x for x in mods if x in ("glc", "slc", "nt", "sc0", "sc1")]
    srsrc = re.match(r"^s\[(\d+):\d+\]$", parts[-2])
    if not srsrc:
        return None
    saddr = f"s[{srsrc.group(1)}:{int(srsrc.group(1)) + 1}]"

    def vgpr(x, fallback):  # first VGPR of an address operand; `off` has none: reuse the data VGPR
        r = re.match(r"^v\[?(\d+)", x)
        return f"v{r.group(1)}" if r else fallback

    if "lds" in mods and op == "load":
        vaddr = vgpr(parts[0], "v0")
        new = f"global_load_lds_{w} {vaddr}, {saddr}"
    elif len(parts) == 4:
        data = parts[0]
        vaddr = vgpr(parts[1], vgpr(data, "v0"))
        new = f"global_load_{w} {data}, {vaddr}, {saddr}" if op == "load" else \
            f"global_store_{w} {vaddr}, {data}, {saddr}"
    else:
        return None
    return " ".join([new] + ([off] if off else []) + keep)


def mca_line(insn: Insn):
    """The instruction as llvm-mca 21 accepts it, or None to drop it (branches)."""
    if is_branch(insn.mnemonic) or insn.mnemonic in ("s_setpc_b64", "s_endpgm"):
        return None
    return buffer_as_global(insn.mnemonic, insn.operands) or insn.text


def loop_asm(insns):
    return "\n".join(x for x in (mca_line(i) for i in insns) if x) + "\n"


RES_LIST_RE = re.compile(r"^\[(\d+)\]\s+-\s+(\S+)")


def parse_mca(out: str, iterations: int = MCA_ITERATIONS):
    """{'cycles_per_iter', 'xdl_per_iter', 'pressure'} from llvm-mca's report."""
    m = re.search(r"^Total Cycles:\s+(\d+)", out, re.M)
    if not m:
        raise ValueError("no 'Total Cycles' in llvm-mca output")
    cycles = int(m.group(1)) / iterations
    names = {}
    sect = out.split("Resources:", 1)[1] if "Resources:" in out else ""
    for line in sect.splitlines()[1:]:
        mm = RES_LIST_RE.match(line.strip())
        if mm:
            names[int(mm.group(1))] = mm.group(2)
        elif line.strip() == "":
            if names:
                break
    pressure = {}
    pm = re.search(r"Resource pressure per iteration:\n(.*)\n(.*)\n", out)
    if pm:
        hdr = re.findall(r"\[(\d+)\]", pm.group(1))
        vals = pm.group(2).split()
        for h, v in zip(hdr, vals):
            pressure[names.get(int(h), h)] = 0.0 if v == "-" else float(v)
    xdl = pressure.get("HWXDL", 0.0)
    return {"cycles_per_iter": cycles, "xdl_per_iter": xdl, "pressure": pressure}


def run_mca(mca: str, arch: str, asm: str, cache_dir: str | None):
    """llvm-mca on one loop body; results cached by a hash of (tool, arch, iterations, text)."""
    key = hashlib.sha256(f"{mca}\n{arch}\n{MCA_ITERATIONS}\n{asm}".encode()).hexdigest()
    path = os.path.join(cache_dir, key + ".json") if cache_dir else None
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write(asm)
        src = f.name
    try:
        # address space capped through the shell's ulimit (KiB): preexec_fn is unsafe with threads
        p = subprocess.run(["sh", "-c", f'ulimit -v {MCA_MEMORY_BYTES >> 10} && exec "$0" "$@"', mca,
                            "-mtriple=amdgcn", f"-mcpu={arch}", f"-iterations={MCA_ITERATIONS}",
                            "-instruction-info=false", "-timeline=false", src],
                           capture_output=True, text=True, timeout=MCA_TIMEOUT_S)
        if p.returncode != 0:
            err = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[0]
            res = {"error": f"llvm-mca exit {p.returncode}: {err[:200]}"}
        else:
            res = parse_mca(p.stdout)
    except subprocess.TimeoutExpired:
        res = {"error": f"llvm-mca timed out after {MCA_TIMEOUT_S} s"}
    finally:
        os.unlink(src)
    if path and "error" not in res:
        os.makedirs(cache_dir, exist_ok=True)
        tmp = path + f".{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(res, f)
        os.replace(tmp, path)
    return res


# ---------------------------------------------------------------- inputs


def tool(name: str, given: str | None):
    """Path of an LLVM tool: the given one, else NAME-21, else NAME on PATH."""
    if given:
        return given
    for n in (name + "-21", name):
        p = shutil.which(n)
        if p:
            return p
    return name + "-21"


def code_objects(path: str, bundler: str, tmp: str):
    """[(arch, code object path)] for a .co (arch from its metadata) or a .hipfb bundle."""
    magic = read_input_file(path, MAX_INPUT_BYTES)[:24]
    if magic.startswith(b"\x7fELF"):
        return [(None, path)]
    real = os.path.realpath(bundler)  # the bundler finds llvm-objcopy beside its real path
    lst = subprocess.run([real, "-list", "-type=o", f"-input={path}"], check=True, capture_output=True,
                         text=True).stdout.split()
    out = []
    for t in lst:
        m = re.match(r"^hipv4-amdgcn-amd-amdhsa--(gfx[0-9a-z]+)", t)
        if not m:
            continue
        dst = os.path.join(tmp, f"{os.path.basename(path)}.{m.group(1)}.co")
        subprocess.run([real, "-unbundle", "-type=o", f"-targets={t}", f"-input={path}", f"-output={dst}"],
                       check=True, capture_output=True)
        out.append((m.group(1), dst))
    if not out:
        raise SystemExit(f"uattn-inspect: {path}: no amdgcn code object in the bundle (entries: {lst})")
    return out


def arch_of(readelf: str, co: str):
    out = subprocess.run([readelf, "--notes", co], check=True, capture_output=True, text=True).stdout
    m = re.search(r"amdhsa\.target:\s*'?amdgcn-amd-amdhsa--(gfx[0-9a-z]+)", out)
    return m.group(1) if m else None


# ---------------------------------------------------------------- analysis


def analyse(inputs, a):
    """List of per-kernel records (see --json) for the kernels selected by --filter."""
    readelf = tool("llvm-readelf", a.readelf)
    objdump = tool("llvm-objdump", a.objdump)
    bundler = tool("clang-offload-bundler", a.bundler)
    rows, jobs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for inp in inputs:
            for arch, co in code_objects(inp, bundler, tmp):
                arch = arch or arch_of(readelf, co)
                ks = [k for k in co_report.kernels(readelf, co)
                      if any(glob_match(g, k["name"]) for g in a.filter or ["*"])]
                if not ks:
                    continue
                dis = subprocess.run([objdump, "-d", f"--mcpu={arch}", co], check=True, capture_output=True,
                                     text=True).stdout
                code = parse_disassembly(dis)
                for k in ks:
                    rows.append(kernel_record(k, arch, inp, code.get(k["name"], [])))
        if a.filter:  # rows in the order of the globs that select them
            rows.sort(key=lambda r: next(k for k, g in enumerate(a.filter) if glob_match(g, r["name"])))
        if not a.no_mca:
            for r in rows:  # every top-level loop: a boundary-tile loop's cost is worth seeing too
                if a.mca_for is None or a.mca_for(r["name"]):
                    jobs += [(r, lp) for lp in r["loops"]]
            mca = tool("llvm-mca", a.mca)
            with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
                futs = {ex.submit(run_mca, mca, r["arch"], lp.pop("_asm"), a.cache): (r, lp) for r, lp in jobs}
                for f in concurrent.futures.as_completed(futs):
                    r, lp = futs[f]
                    lp["mca"] = f.result()
        for r in rows:
            for lp in r["loops"]:
                lp.pop("_asm", None)
                finish_loop(r, lp)
            for lp in r["loops"]:
                k = lp.get("interior_loop")
                inner = r["loops"][k].get("cycles_per_iter") if k is not None else None
                if lp["role"] == "boundary" and inner and lp.get("cycles_per_iter"):
                    lp["vs_interior"] = round(lp["cycles_per_iter"] / inner, 2)
    return rows


def _matrix_insn(arch):
    """Matrix-instruction kind of `arch` from its architecture record (generator/uattn_gen/model.py)."""
    return co_report.ARCH_INFO[arch].matrix_insn if arch in co_report.ARCH_INFO else "mfma_32x32x16"


def kernel_record(k, arch, inp, insns):
    r = {"name": k["name"], "arch": arch, "input": inp,
         "vgpr": k.get("vgpr_count", 0), "agpr": k.get("agpr_count", 0), "sgpr": k.get("sgpr_count", 0),
         "vgpr_spills": k.get("vgpr_spill_count", 0), "sgpr_spills": k.get("sgpr_spill_count", 0),
         "scratch_bytes": k.get("private_segment_fixed_size", 0), "lds_bytes": k.get("group_segment_fixed_size", 0),
         "wave_size": k.get("wavefront_size"), "workgroup_size": k.get("max_flat_workgroup_size"),
         "occupancy_waves_per_simd": co_report.occupancy({**k, "arch": arch}), "kernel_insts": len(insns)}
    # .vgpr_count on gfx90a+ (the MFMA architectures here: gfx950) is the unified total of arch
    # VGPRs and AGPRs (AMDGPUUsage.rst)
    r["vgpr_agpr_total"] = r["vgpr"] if _matrix_insn(arch) != "dot2" else r["vgpr"] + r["agpr"]
    r["tile"] = dict(zip(("block_m", "block_n", "waves"), tile_of(k["name"]))) if tile_of(k["name"]) else None
    loops = []
    for lp in find_loops(insns):
        if not lp["top_level"]:
            continue
        body = insns[lp["start"]:lp["end"] + 1]
        rec = {"start_addr": hex(insns[lp["start"]].addr), "end_addr": hex(insns[lp["end"]].addr),
               "straight_line": lp["straight_line"], "inner_loops": lp["inner"], "latches": lp["latches"],
               "overlapping_loops": lp["overlapping"],
               "backward_branches_inside": lp["backward_branches_inside"]}
        rec.update(count_loop(body, arch))
        rec["forward_branches"] = rec["classes"]["branch"] - 1 - lp["backward_branches_inside"]
        rec["_asm"] = loop_asm(body)
        loops.append(rec)
    r["loops"] = loops
    r["tile_loop"] = select_tile_loop(loops, _matrix_insn(arch) == "dot2")
    top = max((lp["work"] for lp in loops), default=0)
    for k2, lp in enumerate(loops):
        lp["kv_tile_loop"] = k2 == r["tile_loop"]
        lp["role"] = "interior" if lp["kv_tile_loop"] else \
            "boundary" if lp["work"] > 0 and 2 * lp["work"] >= top else "helper"
    if _matrix_insn(arch) == "dot2":
        # The dot2 body (gfx1030, attention_dot2.hpp) walks every tile of a variant in one loop that
        # masks each tile: its tile loops are the variants' interior loops, none is a boundary loop.
        # The 8-wave tile's shared walk has workgroup barriers; its key split's walk (a workgroup
        # of few rows: the tile record's key_split) has none: role `split`.
        tl = loops[r["tile_loop"]] if r["tile_loop"] is not None else None
        for lp in loops:
            if lp["role"] == "boundary":
                lp["role"] = "split" if tl and tl["classes"]["barrier"] > 0 and lp["classes"]["barrier"] == 0 \
                    else "interior"
    else:
        pair_boundary_loops(loops, r["tile_loop"])
    return r


def pair_boundary_loops(loops, tile_loop):
    """Pairs each boundary loop with the interior loop of its own variant of the tile loops.

    A kernel lays each variant's tile loops out in order, its masked boundary loops first (uattn's
    tiles(): boundary tiles, then the interior), and a generic instance has several variants
    (unaligned rows, every feature, no softcap / ALiBi). So a boundary loop's interior loop is the
    nearest later tile loop with fewer v_cndmask; that loop is an interior loop itself (role
    `interior`; `kv_tile_loop` still marks the steady-state one the budgets use). A boundary loop
    without such a later loop is compared with the KV-tile loop. Sets `interior_loop` (an index
    into `loops`) on every boundary loop."""
    tiles = [k for k, lp in enumerate(loops) if lp["role"] in ("boundary", "interior")]
    partner_of = set()
    for pos, k in enumerate(tiles):
        lp = loops[k]
        if lp["role"] != "boundary" or k in partner_of:
            continue
        later = [j for j in tiles[pos + 1:] if loops[j]["classes"]["cndmask"] < lp["classes"]["cndmask"]]
        lp["interior_loop"] = later[0] if later else tile_loop
        if later:
            partner_of.add(later[0])
    for k in partner_of:
        loops[k]["role"] = "interior"
        loops[k].pop("interior_loop", None)


def finish_loop(r, lp):
    m = lp.get("mca")
    if not m or "error" in m:
        return
    cyc = m["cycles_per_iter"]
    lp["cycles_per_iter"] = round(cyc, 1)
    has_xdl = "HWXDL" in m.get("pressure", {})  # the matrix unit; absent from gfx1030's model
    lp["xdl_busy"] = round(m["xdl_per_iter"] / cyc, 3) if cyc and has_xdl else None
    if r["tile"] and cyc and lp["work"]:  # a loop without MFMA / multiply-adds covers no keys
        lp["row_keys_per_cycle"] = round(r["tile"]["block_m"] * r["tile"]["block_n"] / cyc, 3)
    lp["estimate_meaningful"] = lp["straight_line"]


# ---------------------------------------------------------------- budgets


def load_budgets(path: str):
    import yaml  # python3-yaml, in the toolchain root
    doc = yaml.safe_load(read_input_file(path, MAX_INPUT_BYTES).decode("utf-8"))
    fams = doc.get("families") or []
    defaults = doc.get("defaults") or {}
    known = {"match", "max_vgpr_agpr", "max_vgpr_spills", "max_sgpr_spills", "max_scratch", "max_lds",
             "min_occupancy", "min_load_bytes", "max_forward_branches", "min_row_keys_per_cycle",
             "straight_line", "max_boundary_vs_interior", "boundary_straight_line"}
    errs = []
    for k, f in enumerate([defaults] + fams):
        for key in f:
            if key not in known:
                errs.append(f"{path}: family {k}: unknown key '{key}' (known: {', '.join(sorted(known))})")
        if k and "match" not in f:
            errs.append(f"{path}: family {k}: no 'match' glob")
        elif k and not is_valid_glob(str(f["match"])):
            errs.append(f"{path}: family {k}: '{f['match']}' is not an instance-name glob (letters, digits, _, *, ?)")
    if errs:
        raise SystemExit("\n".join(errs))
    return defaults, fams


def budget_for(name, defaults, fams):
    """Limits for one kernel: the strictest value of each limit over `defaults` and every family whose
    glob matches (lowest max_*, highest min_*, straight_line if any says so), so the order of the
    families never matters and a tighter line can only tighten.  Returns (limits, matched globs)."""
    b, matched = dict(defaults), []
    for f in fams:
        if not glob_match(f["match"], name):
            continue
        matched.append(f["match"])
        for k, v in f.items():
            if k == "match":
                continue
            if k not in b:
                b[k] = v
            elif k.startswith("max_"):
                b[k] = min(b[k], v)
            elif k.startswith("min_"):
                b[k] = max(b[k], v)
            else:  # straight_line, boundary_straight_line
                b[k] = bool(b[k]) or bool(v)
    return b, matched


def breaches(r, b, matched):
    """Human-readable budget breaches of one kernel record."""
    out = []
    n = r["name"]
    if not matched:
        out.append(f"{n}: no budget family matches")

    def lim(key, val, label, smaller_is_better=True):
        if key in b and val is not None:
            if (val > b[key]) if smaller_is_better else (val < b[key]):
                out.append(f"{n}: {label} {val} {'>' if smaller_is_better else '<'} budget {b[key]} ({key})")
    lim("max_vgpr_agpr", r["vgpr_agpr_total"], "VGPR+AGPR")
    lim("max_vgpr_spills", r["vgpr_spills"], "VGPR spills")
    lim("max_sgpr_spills", r["sgpr_spills"], "SGPR spills")
    lim("max_scratch", r["scratch_bytes"], "scratch bytes")
    lim("max_lds", r["lds_bytes"], "LDS bytes")
    lim("min_occupancy", r["occupancy_waves_per_simd"], "occupancy (waves per SIMD)", smaller_is_better=False)
    for lp in r["loops"]:
        if lp.get("role") == "split" and b.get("straight_line") and not lp["straight_line"]:
            out.append(f"{n}: key split loop {lp['start_addr']} is not straight-line (straight_line)")
        if lp.get("role") != "boundary":
            continue
        at = f"boundary loop {lp['start_addr']}"
        if b.get("boundary_straight_line") and not lp["straight_line"]:
            out.append(f"{n}: {at} is not straight-line ({lp['inner_loops']} inner loops, "
                       f"{lp['backward_branches_inside']} backward branches inside, {lp['overlapping_loops']} "
                       f"overlapping loops) (boundary_straight_line)")
        if "max_boundary_vs_interior" in b:
            v = lp.get("vs_interior")
            if v is None:
                out.append(f"{n}: {at}: cycles unknown against its interior loop (max_boundary_vs_interior)")
            elif v > b["max_boundary_vs_interior"]:
                out.append(f"{n}: {at} costs {v}x its interior loop > budget {b['max_boundary_vs_interior']} "
                           f"(max_boundary_vs_interior)")
    tl = r["loops"][r["tile_loop"]] if r["tile_loop"] is not None else None
    needs_loop = any(k in b for k in ("min_load_bytes", "max_forward_branches", "min_row_keys_per_cycle")) \
        or b.get("straight_line")
    if tl is None:
        if needs_loop:
            out.append(f"{n}: no KV-tile loop found, but the budget sets loop limits")
        return out
    if b.get("straight_line") and not tl["straight_line"]:
        out.append(f"{n}: KV-tile loop is not straight-line ({tl['inner_loops']} inner loops, "
                   f"{tl['backward_branches_inside']} backward branches inside, {tl['overlapping_loops']} "
                   f"overlapping loops) (straight_line)")
    if "min_load_bytes" in b and tl["min_load_bytes"] is not None and tl["min_load_bytes"] < b["min_load_bytes"]:
        narrow = ", ".join(f"{c} x {w}" for w, c in tl["loads"].items()
                           if (width_bytes(w) or 99) < b["min_load_bytes"])
        out.append(f"{n}: KV-tile loop loads narrower than {b['min_load_bytes']} bytes per lane: {narrow} "
                   f"(min_load_bytes)")
    if "max_forward_branches" in b and tl["forward_branches"] > b["max_forward_branches"]:
        out.append(f"{n}: KV-tile loop has {tl['forward_branches']} forward branches > budget "
                   f"{b['max_forward_branches']} (max_forward_branches)")
    if "min_row_keys_per_cycle" in b:
        rk = tl.get("row_keys_per_cycle")
        if rk is None:
            why = (tl.get("mca") or {}).get("error", "no llvm-mca estimate")
            out.append(f"{n}: row-keys per cycle unknown: {why} (min_row_keys_per_cycle)")
        elif rk < b["min_row_keys_per_cycle"]:
            out.append(f"{n}: row-keys per cycle {rk} < budget {b['min_row_keys_per_cycle']} "
                       f"({tl.get('cycles_per_iter')} cycles/iter) (min_row_keys_per_cycle)")
    return out


# ---------------------------------------------------------------- output


def fmt_widths(d):
    return " ".join(f"{c}x{w}" for w, c in d.items()) or "-"


def print_text(rows, out=sys.stdout):
    for r in rows:
        tile = r["tile"]
        print(f"{r['name']}  [{r['arch']} wave{r['wave_size']}"
              + (f" tile {tile['block_m']}x{tile['block_n']} {tile['waves']}w" if tile else "") + "]", file=out)
        print(f"  VGPR {r['vgpr']}  AGPR {r['agpr']}  (total {r['vgpr_agpr_total']})  SGPR {r['sgpr']}  "
              f"spills {r['vgpr_spills']}v/{r['sgpr_spills']}s  scratch {r['scratch_bytes']} B  "
              f"LDS {r['lds_bytes']} B  occupancy {r['occupancy_waves_per_simd']} waves/SIMD  "
              f"{r['kernel_insts']} insts", file=out)
        if not r["loops"]:
            print("  no loop", file=out)
        for lp in r["loops"]:
            c = lp["classes"]
            tag = "KV-tile" if lp["kv_tile_loop"] else {"interior": "interior", "boundary": "boundary", "split": "key split"}.get(lp["role"], "loop")
            sl = "straight-line" if lp["straight_line"] else \
                f"NOT straight-line ({lp['inner_loops']} inner loops, {lp['backward_branches_inside']} backward " \
                f"branches inside, {lp['overlapping_loops']} overlapping loops): per-iteration estimate meaningless"
            print(f"  {tag:8} {lp['start_addr']}-{lp['end_addr']}  {lp['insts']} insts  {sl}", file=out)
            print(f"     MFMA {c['mfma']}  VALU {c['valu']}  cndmask {c['cndmask']}  trans {c['trans']}  "
                  f"fma {lp['fma']}  SALU {c['salu']}  SMEM {c['smem']}  branch {c['branch']} "
                  f"({lp['forward_branches']} forward)  waitcnt {c['waitcnt']}  barrier {c['barrier']}  "
                  f"VMEM {c['vmem']}  LDS {c['lds']}  nop {c['nop']}", file=out)
            print(f"     loads {fmt_widths(lp['loads'])} | stores {fmt_widths(lp['stores'])} | "
                  f"LDS reads {fmt_widths(lp['lds_reads'])} | LDS writes {fmt_widths(lp['lds_writes'])}", file=out)
            if "mca" in lp:
                if "error" in lp["mca"]:
                    print(f"     llvm-mca: {lp['mca']['error']}", file=out)
                else:
                    rk = lp.get("row_keys_per_cycle")
                    xdl = f"{lp['xdl_busy']:.0%}" if lp.get("xdl_busy") is not None else "-"
                    print(f"     llvm-mca {lp['cycles_per_iter']} cycles/iter  XDL busy {xdl}"
                          + (f"  row-keys/cycle {rk}" if rk is not None else "")
                          + (f"  {lp['vs_interior']}x its interior loop ({r['loops'][lp['interior_loop']]['start_addr']})"
                             if "vs_interior" in lp else "")
                          + ("" if lp["straight_line"] else "  (meaningless: not straight-line)"), file=out)


def summary_table(rows, out=sys.stdout):
    """One line per kernel: the KV-tile loop's figures (Markdown, as in docs/performance.md)."""
    print("| kernel | VGPR+AGPR | SGPR | LDS B | occ | loops | straight | insts/iter | MFMA | VALU | cndmask | "
          "loads | LDS reads | cycles/iter | XDL | row-keys/cycle |", file=out)
    print("|---" * 16 + "|", file=out)
    for r in rows:
        tl = r["loops"][r["tile_loop"]] if r["tile_loop"] is not None else None
        if tl is None:
            print(f"| {r['name']} | {r['vgpr_agpr_total']} | {r['sgpr']} | {r['lds_bytes']} | "
                  f"{r['occupancy_waves_per_simd']} | 0 | - | - | - | - | - | - | - | - | - | - |", file=out)
            continue
        c = tl["classes"]
        xdl = f"{tl['xdl_busy']:.0%}" if tl.get("xdl_busy") is not None else "-"
        print(f"| {r['name']} | {r['vgpr_agpr_total']} | {r['sgpr']} | {r['lds_bytes']} | "
              f"{r['occupancy_waves_per_simd']} | {len(r['loops'])} | {'yes' if tl['straight_line'] else 'NO'} | "
              f"{tl['insts']} | {c['mfma']} | {c['valu']} | {c['cndmask']} | {fmt_widths(tl['loads'])} | "
              f"{fmt_widths(tl['lds_reads'])} | {tl.get('cycles_per_iter', '-')} | {xdl} | "
              f"{tl.get('row_keys_per_cycle', '-')} |", file=out)


# ---------------------------------------------------------------- build stamps (docs/packaging.md)

def elf_section(data: bytes, name: str):
    """The bytes of ELF64 little-endian section `name`, or None (System V gABI section headers)."""
    import struct
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    if shnum == 0 or shstrndx >= shnum or shoff + shnum * shentsize > len(data):
        return None
    def header(i):
        return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)  # name, type, flags, addr, offset, size
    _, _, _, _, str_off, str_size = header(shstrndx)
    for i in range(shnum):
        nm, typ, _, _, off, size = header(i)
        end = data.find(b"\0", str_off + nm, str_off + str_size)
        if end >= 0 and data[str_off + nm:end].decode("ascii", "replace") == name and typ != 8:
            return data[off:off + size]
    return None


def stamp_of(path: str):
    """(stamp text, where it came from) of a code object (its .uattn.stamp section) or a bundle (its
    "<bundle>.stamp" sidecar); (None, why) when it has none."""
    if os.path.exists(path + ".stamp"):
        return read_input_file(path + ".stamp", MAX_INPUT_BYTES).decode("utf-8", "replace"), path + ".stamp"
    data = read_input_file(path, MAX_INPUT_BYTES)
    sec = elf_section(data, ".uattn.stamp")
    if sec is not None:
        return sec.decode("utf-8", "replace"), "section .uattn.stamp"
    return None, "no .uattn.stamp section" if data[:4] == b"\x7fELF" else f"no {os.path.basename(path)}.stamp beside it"


def print_stamps(inputs) -> int:
    status = 0
    for path in inputs:
        try:
            text, where = stamp_of(path)
        except OSError as e:
            print(f"{path}: cannot read: {e.strerror}", file=sys.stderr)
            status = 1
            continue
        if text is None:
            print(f"{path}: no build stamp ({where})")
            status = 1
            continue
        fields = dict(line.split(" ", 1) for line in text.splitlines() if " " in line)
        print(f"{path} ({where}): uattn {fields.get('uattn_version', '?')}, uattn_gen "
              f"{fields.get('generator_version', '?')}, matrix {fields.get('matrix_hash', '?')}"
              + (f", archs {fields['archs']}" if "archs" in fields else ""))
    return status


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="uattn-inspect", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Per-kernel resources and static KV-tile loop cost of uattn code objects.",
        epilog="KV-tile loop rule: among straight-line top-level loops whose work is at least half the largest "
               "work of any top-level loop, the one with the most work (MFMA on gfx950; v_dot/v_fma/v_mad "
               "on gfx1030), ties -> fewest v_cndmask (the unmasked steady-state loop), then fewest "
               "instructions; without such a loop the loop with the most work is reported and flagged NOT "
               "straight-line (its estimate is meaningless). Every top-level loop is listed. Full method: the "
               "module docstring of tools/uattn_inspect.py and docs/performance.md.")
    ap.add_argument("inputs", nargs="+", metavar="INPUT", help="code object (.co) or offload bundle (.hipfb)")
    ap.add_argument("--filter", action="append", metavar="GLOB",
                    help="instance-name glob (`*`, `?`), as everywhere in uattn; repeat for several (a kernel "
                         "matching any is selected); default every kernel")
    ap.add_argument("--json", action="store_true", help="print the records as JSON")
    ap.add_argument("--summary", action="store_true", help="one Markdown row per kernel (the KV-tile loop only)")
    ap.add_argument("--no-mca", action="store_true", help="skip llvm-mca (counts only)")
    ap.add_argument("--jobs", type=int, default=2, help="llvm-mca processes in parallel (default 2)")
    ap.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                                                    "uattn-inspect"),
                    help="llvm-mca result cache folder, keyed by a hash of the loop text ('' disables)")
    ap.add_argument("--output", metavar="FILE", help="write the report to FILE instead of standard output")
    ap.add_argument("--check", metavar="BUDGETS", help="apply a budgets YAML file; exit 1 naming every breach")
    ap.add_argument("--stamp", action="store_true",
                    help="print each input's build stamp (uattn and generator versions, matrix hash) and exit")
    ap.add_argument("--readelf")
    ap.add_argument("--objdump")
    ap.add_argument("--mca")
    ap.add_argument("--bundler")
    a = ap.parse_args(argv)
    if a.stamp:
        return print_stamps(a.inputs)
    bad = [g for g in a.filter or [] if not is_valid_glob(g)]
    if bad:
        ap.error(f"--filter {bad[0]}: not an instance-name glob (letters, digits, _, *, ?)")
    a.cache = a.cache or None
    a.mca_for = None
    budgets = None
    try:
        if a.check:
            budgets = load_budgets(a.check)
            # llvm-mca only where a budget needs its figure
            a.mca_for = lambda n: any(k in budget_for(n, *budgets)[0]
                                      for k in ("min_row_keys_per_cycle", "max_boundary_vs_interior"))
        rows = analyse(a.inputs, a)
    except OSError as e:  # an input that is missing, not a regular file (a FIFO) or too large
        print(f"uattn-inspect: {e.filename}: cannot read ({e.strerror})", file=sys.stderr)
        return 2
    if not rows:
        print(f"uattn-inspect: no kernel matches --filter {' '.join(a.filter or ['*'])}", file=sys.stderr)
        return 2
    out = open(a.output, "w") if a.output else sys.stdout
    try:
        return report(rows, a, budgets, out)
    finally:
        if a.output:
            out.close()


def report(rows, a, budgets, out):
    if a.json:
        json.dump(rows, out, indent=1, sort_keys=True)
        print(file=out)
    elif a.summary:
        summary_table(rows, out)
    elif not a.check:
        print_text(rows, out)
    if budgets:
        bad = []
        for r in rows:
            bad += breaches(r, *budget_for(r["name"], *budgets))
        msg = sys.stderr if a.json else out
        for line in bad:
            print("BREACH " + line, file=msg)
        print(f"# {len(rows)} kernels checked against {a.check}: {len(bad)} breaches", file=msg)
        return 1 if bad else 0
    return 0

if __name__ == "__main__":
    sys.exit(main())
