"""One name everywhere: name = file stem = kernel symbol = filter key = table row name."""
import itertools
import re

from gen_helpers import DEFAULT_YAML
from uattn_gen.emit import table_row
from uattn_gen.expand import Selection, select
from uattn_gen.measured import fallback_figures
from uattn_gen.model import (ANY_BLOCK, ARCHS, DTYPES, PATHS, TILE_NAMES, attention_instance,
                             names, reduce_instance)
from uattn_gen.tiles import instance_lds_bytes

C_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def test_examples():
    i = attention_instance("gfx950", "2d", "f16", "f16", 128, 16, 0, "small")
    n = names(i)
    assert n.name == "uattn_gfx950_2d_f16_f16_d128_b16_plain_m32n32w1"
    assert n.file == n.name + ".hip" and n.symbol == n.name and n.filter_key == n.name
    fb = fallback_figures(i, instance_lds_bytes(i))  # no measured figures loaded
    assert table_row(i) == ("UATTN_ATTENTION_ROW(uattn_gfx950_2d_f16_f16_d128_b16_plain_m32n32w1, "
                            "gfx950, k2D, f16, f16, 128, 16, 0x00, small, 32, 32, 1, "
                            f"{(32 * 136 + 128 * 40) * 2}u, 32, false, true, false, {fb.vgprs}, "
                            f"{fb.occupancy:g}, {fb.tile_cycles:g}, {fb.tile_cycles:g}, {fb.tile_cycles:g}, "
                            f"{fb.tile_cycles:g}, 0, false)")
    g = attention_instance("gfx1030", "3d", "bf16", "fp8e4m3", 256, ANY_BLOCK, 0x1F, "small")
    assert names(g).name == "uattn_gfx1030_3d_bf16_fp8_d256_bany_all_m4n32w1"  # rows_by_head: 4 rows
    w = attention_instance("gfx950", "2d", "bf16", "bf16", 64, 32, 0x11, "large")
    assert names(w).name == "uattn_gfx950_2d_bf16_bf16_d64_b32_winsink_m128n64w4"
    c = attention_instance("gfx950", "2d", "f16", "f16", 64, 32, 0x0E, "small")
    assert names(c).name == "uattn_gfx950_2d_f16_f16_d64_b32_capalibiqqb_m32n32w1"
    r = reduce_instance("gfx950", 128)
    assert names(r).name == "uattn_gfx950_reduce_d128"
    assert table_row(r) == "UATTN_REDUCE_ROW(uattn_gfx950_reduce_d128, gfx950, 128, 4, 2048u)"


def test_names_are_distinct_c_identifiers_over_the_whole_candidate_space():
    seen = {}
    for arch, q, kv, head, block, feat, path, tile in itertools.product(
            ARCHS, DTYPES, DTYPES, (64, 80, 256), (ANY_BLOCK, 16, 32, 784), range(32), PATHS,
            TILE_NAMES):
        inst = attention_instance(arch, path, q, kv, head, block, feat, tile)
        name = names(inst).name
        assert name not in seen, (inst, seen.get(name))
        seen[name] = inst
    for arch, head in itertools.product(ARCHS, (64, 128)):
        name = names(reduce_instance(arch, head)).name
        assert name not in seen
        seen[name] = None
    assert all(C_IDENT.match(n) for n in seen)


def test_one_name_everywhere(run, tmp_path, default):
    matrix, expansion = default
    out = tmp_path / "out"
    assert run("generate", "--matrix", DEFAULT_YAML, "--out", out)[0] == 0
    stems = sorted(p.stem for p in (out / "instances").glob("*.hip"))
    rows = [r for r in (out / "table_rows.inc").read_text().splitlines()
            if r.startswith("UATTN_") and r.endswith(")")]
    row_names = [r[r.index("(") + 1:].split(",")[0] for r in rows]
    listed = run("list", "--matrix", DEFAULT_YAML)[1].split()
    assert listed == row_names == [names(i).name for i in expansion.instances]
    assert stems == sorted(row_names)
    for inst, row in zip(expansion.instances, rows):
        n = names(inst)
        text = (out / "instances" / n.file).read_text()
        symbol = re.search(r"UATTN_(?:ATTENTION|REDUCE)_INSTANCE\((\w+),", text).group(1)
        assert n.name == n.symbol == symbol == n.filter_key == n.file[:-len(".hip")]
        assert row == table_row(inst)
        assert C_IDENT.match(n.name)
        picked = select(matrix, expansion, Selection(filters=(n.filter_key,)))
        assert n.name in [names(p).name for p in picked]
        assert all(names(p).name == n.name or p.path == "reduce" for p in picked)
