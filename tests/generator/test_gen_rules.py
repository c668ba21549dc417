"""Per-arch validity rules: names, reasons, dtype pairs, LDS budget (the tile record's LDS bytes)."""
import itertools

import pytest

from gen_helpers import REPO, write_matrix
from uattn_gen.model import (ALL_FEATURES, ANY_BLOCK, ARCH_INFO, ARCHS, DTYPES, FEATURE_BIT, HEAD_SIZES,
                             attention_instance, names)
from uattn_gen.rules import RULES, failed_rules
from uattn_gen.tiles import instance_lds_bytes


def lds_bytes(arch, head, block_m, block_n, waves, block_size=16, q="f16", kv="f16", features=0):
    """The tile record's LDS bytes of a candidate with this geometry."""
    inst = attention_instance(arch, "2d", q, kv, head, block_size, features, "small")
    object.__setattr__(inst, "block_m", block_m)
    object.__setattr__(inst, "block_n", block_n)
    object.__setattr__(inst, "waves", waves)
    return instance_lds_bytes(inst)


def _failed(**kw):
    args = dict(arch="gfx950", path="2d", q_dtype="f16", kv_dtype="f16", head_size=128,
                block_size=16, features=0, tile="small")
    args.update(kw)
    return [r.name for r in failed_rules(attention_instance(**args))]


def test_every_rule_has_a_name_and_a_reason():
    for arch in ARCHS:
        assert len({r.name for r in RULES[arch]}) == len(RULES[arch])
        for r in RULES[arch]:
            assert r.name and r.reason and " " not in r.name


def test_dtype_rules():
    valid = {(q, kv) for arch in ARCHS for q, kv in itertools.product(DTYPES, DTYPES)
             if not _failed(arch=arch, q_dtype=q, kv_dtype=kv)}
    assert valid == {("f16", "f16"), ("bf16", "bf16"), ("f16", "fp8e4m3"), ("bf16", "fp8e4m3")}
    assert _failed(q_dtype="fp8e4m3", kv_dtype="fp8e4m3") == ["q-dtype-16bit"]
    assert _failed(q_dtype="f16", kv_dtype="bf16") == ["kv-dtype-matches-q"]
    assert _failed(q_dtype="fp8e4m3", kv_dtype="f16") == ["q-dtype-16bit", "kv-dtype-matches-q"]


def test_large_tile_only_on_2d():
    assert _failed(path="3d", tile="large") == ["large-tile-2d-only"]
    assert _failed(path="2d", tile="large") == []
    assert _failed(arch="gfx1030", path="3d", tile="small") == []


def test_lds_rule_prunes_a_tile_over_budget():
    big = attention_instance("gfx1030", "2d", "f16", "f16", 256, 16, 0, "large")
    object.__setattr__(big, "block_m", 128)  # 128 * (256 + 32) * 2 = 73728 > 64 KiB
    assert [r.name for r in failed_rules(big)] == ["lds-budget"]
    # gfx950: K [32][136] + V^T [128][40] per stage; one stage (1 wave), two (4 waves, <= 80 KiB)
    assert lds_bytes("gfx950", 128, 32, 32, 1) == (32 * 136 + 128 * 40) * 2  # lone-wave tile: K and V^T
    assert lds_bytes("gfx950", 128, 16, 32, 1, block_size=ANY_BLOCK, features=ALL_FEATURES) == 64 * 40 * 2  # generic: K from memory, V^T in halves
    assert lds_bytes("gfx950", 64, 32, 32, 1) == (32 * 72 + 64 * 40) * 2  # d64: K in LDS
    assert lds_bytes("gfx950", 64, 16, 32, 1) == (32 * 72 + 64 * 40) * 2  # 16 rows: K in LDS, V^T whole
    assert lds_bytes("gfx950", 128, 128, 64, 4) == 2 * (64 * 136 + 128 * 72) * 2
    assert lds_bytes("gfx950", 256, 128, 32, 4) == 2 * (32 * 264 + 256 * 40) * 2
    # gfx1030: Q and P rows only, where Q and P are not broadcast by DPP (QQ-bias, the
    # generic instance); the DPP-broadcast tiles use none (the code object declares 0)
    assert lds_bytes("gfx1030", 80, 32, 32, 4, features=FEATURE_BIT["qq_bias"]) == 32 * (80 + 32) * 2
    assert lds_bytes("gfx1030", 80, 8, 32, 1, block_size=ANY_BLOCK) == 8 * (80 + 32) * 2
    assert lds_bytes("gfx1030", 80, 32, 32, 4) == 0
    assert lds_bytes("gfx1030", 128, 8, 32, 1) == 0
    # gfx1030, the 8-wave tile: the K tile and the V tile (32 keys x 128 dims, 2 bytes each)
    assert lds_bytes("gfx1030", 128, 32, 32, 8) == 2 * 32 * 128 * 2


def test_head_size_not_a_multiple_of_16_is_pruned_with_a_reason():
    odd = attention_instance("gfx950", "2d", "f16", "f16", 72, 16, 0, "small")
    failed = failed_rules(odd)
    assert [r.name for r in failed] == ["head-size-multiple-of-16", "head-size-served"]
    assert "step the head dimension by 16" in failed[0].reason


def test_tiles_follow_rows_per_wave():
    for info in ARCH_INFO.values():
        for t in info.tiles.values():
            assert t.block_m == info.rows_per_wave * t.waves


# (arch, tile, head size, block size, block_m): gfx950's one-wave tile has 16
# rows at d112 / d192 / d256, gfx1030's 4 rows at d256, the generic instance
# (any block size) included; gfx950's generic one-wave tile 16 rows at d64-d128 too (not
# a fixed block size there), gfx1030's generic one-wave tile 4 rows at d192;
# smaller heads and the 4-wave tile keep rows_per_wave rows per wave.
ROWS_BY_HEAD_CASES = [
    ("gfx950", "small", 192, 16, 16),
    ("gfx950", "small", 256, 64, 16),
    ("gfx950", "small", 128, 16, 32),
    ("gfx950", "small", 192, ANY_BLOCK, 16),
    ("gfx950", "small", 256, ANY_BLOCK, 16),
    ("gfx950", "small", 128, ANY_BLOCK, 16),
    ("gfx950", "small", 96, ANY_BLOCK, 16),
    ("gfx950", "small", 112, ANY_BLOCK, 16),
    ("gfx950", "small", 80, ANY_BLOCK, 16),
    ("gfx950", "small", 64, ANY_BLOCK, 16),
    ("gfx950", "small", 64, 32, 32),
    ("gfx950", "small", 96, 32, 32),
    ("gfx950", "small", 112, 32, 16),
    ("gfx950", "small", 112, 16, 16),
    ("gfx950", "large", 112, 32, 128),
    ("gfx950", "small", 80, 16, 32),
    ("gfx950", "large", 256, 16, 128),
    ("gfx1030", "small", 256, 16, 4),
    ("gfx1030", "small", 256, 64, 4),
    ("gfx1030", "small", 192, 16, 8),
    ("gfx1030", "small", 192, ANY_BLOCK, 4),
    ("gfx1030", "small", 128, ANY_BLOCK, 8),
    ("gfx1030", "small", 256, ANY_BLOCK, 4),
    ("gfx1030", "large", 256, 16, 32),
]


@pytest.mark.parametrize("arch,tile,head,block,block_m", ROWS_BY_HEAD_CASES)
def test_rows_by_head_narrows_the_one_wave_tiles(arch, tile, head, block, block_m):
    assert ARCH_INFO[arch].tile(tile, head, block).block_m == block_m


def test_rows_by_head_sets_the_waves_of_the_gfx1030_d128_large_tile():
    t = ARCH_INFO["gfx1030"].tile("large", 128, 16)
    assert (t.block_m, t.waves) == (32, 8)  # 8 waves of 4 rows
    assert ARCH_INFO["gfx1030"].tile("large", 112, 16).waves == 4
    assert names(attention_instance("gfx1030", "2d", "f16", "f16", 128, 16, 0, "large")).name.endswith("_m32n32w8")


def test_shared_tile_serves_plain_and_window_at_a_fixed_even_block_size():
    win = FEATURE_BIT["window"]
    assert _failed(arch="gfx1030", tile="large", features=0) == []
    assert _failed(arch="gfx1030", tile="large", features=win, block_size=784) == []
    for feats in (FEATURE_BIT["alibi"], FEATURE_BIT["softcap"] | win, ALL_FEATURES):
        assert _failed(arch="gfx1030", tile="large", features=feats) == ["shared-tile-plain-or-window"]
    assert _failed(arch="gfx1030", tile="large", block_size=13) == ["shared-tile-plain-or-window"]
    assert _failed(arch="gfx1030", tile="large", block_size=ANY_BLOCK) == ["shared-tile-plain-or-window"]
    # the 4-wave tiles of other head sizes and gfx950's tiles serve every feature
    assert _failed(arch="gfx1030", tile="large", head_size=112, features=ALL_FEATURES) == []
    assert _failed(arch="gfx950", tile="large", features=ALL_FEATURES) == []


def test_rows_by_head_splits_the_head_of_the_gfx950_generic_d256_tile():
    t = ARCH_INFO["gfx950"].tile("small", 256, ANY_BLOCK)
    assert (t.block_m, t.waves) == (16, 2)  # 2 waves own the same 16 rows
    assert ARCH_INFO["gfx950"].tile("small", 256, 16).waves == 1
    inst = attention_instance("gfx950", "3d", "f16", "fp8e4m3", 256, ANY_BLOCK, ALL_FEATURES, "small")
    assert names(inst).name.endswith("_m16n32w2")
    # V^T in two halves of the head (10 KiB) and the 4 KiB score exchange
    assert instance_lds_bytes(inst) == 128 * 40 * 2 + 4096


def test_rows_by_head_reaches_the_instances():
    assert attention_instance("gfx950", "3d", "f16", "f16", 256, 16, 0, "small").block_m == 16
    assert attention_instance("gfx1030", "2d", "bf16", "bf16", 256, 16, 3, "small").block_m == 4


def test_why_pruned_names_the_rules(run, tmp_path):
    m = write_matrix(tmp_path / "m.yaml",
                     "  - name: g\n    arch: [gfx950]\n"
                     "    dtypes: [[f16, f16], [f16, bf16], [fp8e4m3, fp8e4m3]]\n"
                     "    head_size: [64]\n    path: [3d]\n    tile: [small, large]\n")
    rc, out, _ = run("list", "--matrix", m, "--why-pruned")
    assert rc == 0
    lines = out.splitlines()
    assert ("uattn_gfx950_3d_f16_bf16_d64_bany_plain_m16n32w1 pruned by kv-dtype-matches-q: "
            "a 16-bit KV cache has the query's dtype; only fp8e4m3 KV may pair with either "
            "[group g]") in lines
    assert any(line.startswith("uattn_gfx950_3d_f16_f16_d64_bany_plain_m128n64w4 pruned by "
                               "large-tile-2d-only: ") for line in lines)
    assert any("pruned by q-dtype-16bit: " in line and "; kv-dtype-matches-q: " not in line
               for line in lines if "_fp8_fp8_" in line)
    assert len(lines) == 5   # f16/bf16 x2 tiles, fp8/fp8 x2 tiles, f16/f16 large
    rc, out, _ = run("list", "--matrix", m)
    assert out.split() == ["uattn_gfx950_3d_f16_f16_d64_bany_plain_m16n32w1",
                           "uattn_gfx950_reduce_d64"]
