"""The tile record (generator/uattn_gen/tiles.py): one named rule per field, the
same fields as uattn::TileConfig, the values a kernel body is handed, and the
matrix's `tile_config` overrides."""
import re

import pytest

from gen_helpers import DEFAULT_YAML, REPO, write_matrix
from uattn_gen.model import ALL_FEATURES, ANY_BLOCK, FEATURE_BIT, attention_instance
from uattn_gen.tiles import FIELD_NAMES, OVERRIDABLE, TILE_RULES, tile_config


def _cfg(arch, path, q, kv, head, block, features, tile, **over):
    inst = attention_instance(arch, path, q, kv, head, block, features, tile,
                              tile_overrides=tuple(sorted(over.items())))
    return tile_config(inst)


def test_every_field_has_one_named_rule_and_the_cpp_struct_has_the_same_fields():
    assert tuple(r.field for r in TILE_RULES) == FIELD_NAMES
    assert all(re.fullmatch(r"[a-z0-9-]+", r.name) for r in TILE_RULES)
    src = (REPO / "templates" / "uattn" / "kernel" / "tile.hpp").read_text()
    body = src[src.index("struct TileConfig {"):src.index("};")]
    cpp = re.findall(r"^\s+(?:int|bool|uint32_t) (\w+);", body, re.M)
    assert tuple(cpp) == FIELD_NAMES


def test_gfx950_records():
    # 128 x 64 prefill tile, d128: K [64][136] + V^T [128][72] per stage, two stages
    c = _cfg("gfx950", "2d", "bf16", "bf16", 128, 16, 0, "large")
    assert (c.block_m, c.block_n, c.waves, c.rows_per_wave) == (128, 64, 4, 32)
    assert (c.k_direct, c.stages, c.lds_bytes) == (False, 2, 2 * (64 * 136 + 128 * 72) * 2)
    assert (c.prefetch, c.waves_per_eu, c.k_group, c.shares_kv) == (True, 2, 4, True)
    # generic d256: 16 rows, 2 waves splitting the head; V^T halves (10 KiB) + 4 KiB exchange
    c = _cfg("gfx950", "3d", "f16", "fp8e4m3", 256, ANY_BLOCK, ALL_FEATURES, "small")
    assert (c.block_m, c.waves, c.rows_per_wave, c.head_split) == (16, 2, 16, True)
    assert (c.k_direct, c.v_slices, c.lds_bytes, c.waves_per_eu) == (True, 2, 128 * 40 * 2 + 4096, 4)
    assert c.k_group == 4  # a wave's head steps: 256 dims / 32 per step / 2 waves
    # one-wave d112 of block size 16, 2D: three plain tile loops
    assert _cfg("gfx950", "2d", "f16", "f16", 112, 16, 0, "small").three_loops
    # swizzled LDS rows: every MFMA tile but the generic d80 / d112 / d192 ones and the K-direct tiles
    # with one-key staging units; never the dot2 body
    assert _cfg("gfx950", "2d", "bf16", "bf16", 128, 16, 0, "large").lds_swizzle
    assert _cfg("gfx950", "3d", "f16", "f16", 128, ANY_BLOCK, ALL_FEATURES, "small").lds_swizzle
    for head in (80, 112, 192):
        assert not _cfg("gfx950", "3d", "f16", "fp8e4m3", head, ANY_BLOCK, ALL_FEATURES, "small").lds_swizzle
    assert not _cfg("gfx1030", "2d", "f16", "f16", 128, 16, 0, "small").lds_swizzle
    # K from memory with one-key staging units (d112 16-row): a pass writes consecutive keys already
    c = _cfg("gfx950", "3d", "f16", "f16", 112, 16, 0, "small")
    assert (c.k_direct, c.stage_keys, c.lds_swizzle) == (True, 1, False)
    # ... and it follows a group's stage_keys: 2-key units of the same tile are swizzled
    c = _cfg("gfx950", "3d", "f16", "f16", 112, 16, 0, "small", stage_keys=2)
    assert (c.stage_keys, c.lds_swizzle) == (2, True)
    assert not _cfg("gfx950", "2d", "f16", "f16", 112, 32, 0, "small").three_loops
    # the generic d256 tile with 16-bit KV runs its element-load loops only
    assert _cfg("gfx950", "2d", "f16", "f16", 256, ANY_BLOCK, ALL_FEATURES, "small").one_copy
    assert not _cfg("gfx950", "2d", "f16", "fp8e4m3", 256, ANY_BLOCK, ALL_FEATURES, "small").one_copy
    # lone-wave tiles (one-wave, fixed block size, both paths): K and V^T staged
    # through LDS, prefetched one tile ahead, 2 waves per SIMD (1 above d128); not
    # the 16-row d112 ones (their padded head step reads K from memory), not the
    # generic instance's
    assert _cfg("gfx950", "2d", "f16", "f16", 128, 16, 0, "small") == _cfg("gfx950", "3d", "f16", "f16", 128, 16, 0, "small")
    lone = _cfg("gfx950", "3d", "f16", "f16", 128, 16, 0, "small")
    assert (lone.k_direct, lone.prefetch, lone.waves_per_eu, lone.stages) == (False, True, 2, 1)
    assert lone.lds_bytes == (32 * 136 + 128 * 40) * 2
    lone = _cfg("gfx950", "3d", "f16", "f16", 256, 16, 0, "small")
    assert (lone.rows_per_wave, lone.k_direct, lone.prefetch, lone.waves_per_eu) == (16, False, True, 1)
    assert _cfg("gfx950", "3d", "f16", "f16", 112, 16, 0, "small").k_direct
    assert not _cfg("gfx950", "3d", "f16", "f16", 112, 16, 0, "small").prefetch
    assert _cfg("gfx950", "2d", "f16", "f16", 112, 16, 0, "small").k_direct
    assert _cfg("gfx950", "3d", "f16", "f16", 128, ANY_BLOCK, ALL_FEATURES, "small").k_direct
    # dot2 fields are 0 / false in an MFMA record
    assert (c.dims_per_lane, c.q_bcast, c.k_ahead, c.v_ahead, c.q_ahead, c.key_split) == (0, False, 0, 0, 0, False)


def test_gfx1030_records():
    # the 8-wave d128 tile: K and V tiles shared through LDS, 4 / 5 LDS reads in flight
    c = _cfg("gfx1030", "2d", "f16", "f16", 128, 16, 0, "large")
    assert (c.block_m, c.waves, c.rows_per_wave, c.shares_kv) == (32, 8, 4, True)
    assert (c.lds_bytes, c.k_ahead, c.v_ahead, c.q_ahead) == (2 * 32 * 128 * 2, 4, 5, 0)
    # the window tile splits a workgroup's KV range among its waves where the rows are few, with 16-bit KV
    assert not c.key_split
    assert _cfg("gfx1030", "2d", "bf16", "bf16", 128, 16, FEATURE_BIT["window"], "large").key_split
    assert not _cfg("gfx1030", "2d", "f16", "fp8e4m3", 128, 16, FEATURE_BIT["window"], "large").key_split
    assert not _cfg("gfx1030", "2d", "f16", "f16", 64, 16, 0, "large").key_split  # 4 independent waves
    # DPP-broadcast one-wave tile: no LDS at all (the code object declares none)
    c = _cfg("gfx1030", "2d", "f16", "f16", 128, 16, FEATURE_BIT["window"], "small")
    assert (c.q_bcast, c.lds_bytes, c.shares_kv, c.waves_per_eu, c.key_split) == (True, 0, False, 8, False)
    # QQ-bias keeps Q / P rows in LDS: [8 rows][128 + 32] f16
    c = _cfg("gfx1030", "2d", "f16", "f16", 128, 16, FEATURE_BIT["qq_bias"], "small")
    assert (c.q_bcast, c.lds_bytes, c.q_ahead) == (False, 8 * 160 * 2, 2)
    # V dims per lane: 6 at d192 with 16-bit KV, 8 with fp8
    assert _cfg("gfx1030", "2d", "f16", "f16", 192, 16, 0, "small").dims_per_lane == 6
    assert _cfg("gfx1030", "2d", "f16", "fp8e4m3", 192, 16, 0, "small").dims_per_lane == 8
    # MFMA fields are 0 / false in a dot2 record
    assert (c.k_direct, c.stages, c.k_group, c.head_split) == (False, 0, 0, False)


def test_records_reach_the_instance_files_the_table_and_tile_records(run, tmp_path):
    out = tmp_path / "gen"
    assert run("generate", "--matrix", DEFAULT_YAML, "--subset", "ci", "--out", out)[0] == 0
    records = (out / "include" / "uattn" / "generated" / "tile_records.inc").read_text()
    rows = (out / "table_rows.inc").read_text()
    checked = 0
    for f in sorted((out / "instances").glob("*.hip")):
        text = f.read_text()
        if "UATTN_TILE_RECORD(" not in text:
            continue
        fields = dict(re.findall(r"/\*(\w+)=\*/(\w+)", text))
        assert tuple(fields) == FIELD_NAMES, f.name
        line = next(r for r in records.splitlines() if r.startswith(f"UATTN_TILE_RECORD({f.stem}, "))
        assert line == f"UATTN_TILE_RECORD({f.stem}, {', '.join(fields.values())})"
        row = next(r for r in rows.splitlines() if r.startswith(f"UATTN_ATTENTION_ROW({f.stem}, "))
        cols = [c.strip() for c in row[row.index("(") + 1:row.rindex(")")].split(",")]
        assert cols[9:17] == [fields["block_m"], fields["block_n"], fields["waves"], fields["lds_bytes"],
                              fields["rows_per_wave"], fields["head_split"], fields["shares_kv"],
                              fields["key_split"]], f.name
        checked += 1
    assert checked >= 20


GROUP = ("  - name: g\n    arch: [gfx950]\n    dtypes: [[f16, f16]]\n    head_size: [128]\n"
         "    block_size: [16]\n    path: [2d]\n    tile: [large]\n")


def test_tile_config_overrides_the_named_fields(run, tmp_path):
    m = write_matrix(tmp_path / "m.yaml", GROUP + "    tile_config: {k_group: 2, prefetch: false}\n")
    out = tmp_path / "gen"
    assert run("generate", "--matrix", m, "--out", out)[0] == 0
    text = (out / "instances" / "uattn_gfx950_2d_f16_f16_d128_b16_plain_m128n64w4.hip").read_text()
    fields = dict(re.findall(r"/\*(\w+)=\*/(\w+)", text))
    base = _cfg("gfx950", "2d", "f16", "f16", 128, 16, 0, "large")
    assert (fields["k_group"], fields["prefetch"]) == ("2", "false") != (str(base.k_group), "true")
    assert fields["lds_bytes"] == f"{base.lds_bytes}u"


@pytest.mark.parametrize("config,line,phrase", [
    ("{k_grup: 2}", 10, "'k_grup' is not a tile record field a matrix may set (did you mean 'k_group'?)"),
    ("{lds_bytes: 0}", 10, "'lds_bytes' is not a tile record field a matrix may set"),
    ("{k_group: 0}", 10, "k_group is the integer 0, expected an integer from 1 to 64"),
    ("{prefetch: 1}", 10, "prefetch is the integer 1, expected true or false"),
    ("[k_group]", 10, "'tile_config' of group 'g' is a list, expected a mapping"),
])
def test_tile_config_errors_name_the_file_line_field_and_value(run, tmp_path, config, line, phrase):
    m = write_matrix(tmp_path / "m.yaml", GROUP + f"    tile_config: {config}\n")
    rc, _, err = run("generate", "--matrix", m, "--out", tmp_path / "gen")
    assert rc == 2 and f"m.yaml:{line}: " in err and phrase in err, err
    assert not (tmp_path / "gen").exists()


def test_two_groups_giving_one_instance_two_records_is_an_error(run, tmp_path):
    m = write_matrix(tmp_path / "m.yaml", GROUP + "    tile_config: {k_group: 2}\n"
                     + GROUP.replace("name: g", "name: h"))
    rc, _, err = run("list", "--matrix", m)
    assert rc == 2 and "m.yaml:11: group 'h' gives uattn_gfx950_2d_f16_f16_d128_b16_plain_m128n64w4" in err, err
    assert "expected one tile record per instance" in err


def test_every_overridable_field_is_a_pipeline_knob():
    assert OVERRIDABLE <= set(FIELD_NAMES)
    assert not OVERRIDABLE & {"block_m", "block_n", "waves", "rows_per_wave", "lds_bytes", "head_split",
                              "k_direct", "v_slices", "stages", "lds_swizzle", "q_bcast", "shares_kv",
                              "key_split"}
