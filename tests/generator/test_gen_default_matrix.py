"""instances/default.yaml: size, coverage, subsets, and no hole in the served space."""
import itertools
import json

import pytest

from gen_helpers import DEFAULT_YAML, REPO
from uattn_gen.expand import Selection, select
from uattn_gen.model import (ALL_FEATURES, ANY_BLOCK, ARCH_INFO, ARCHS, FEATURE_BIT, HEAD_SIZES, PATHS,
                             feature_token, names, table_key)

VALID_PAIRS = [("f16", "f16"), ("bf16", "bf16"), ("f16", "fp8e4m3"), ("bf16", "fp8e4m3")]
F = FEATURE_BIT

# Attention configurations of served models (shared/scenarios/models.json) and the
# seed's default scenarios (shared/scenarios/default.json):
# (label, q dtype or None = both 16-bit dtypes, head size, block size, features).
PROBLEMS = [
    ("llama/qwen d128", None, 128, 16, 0),
    ("llama-3.2-1b, qwen2.5-0.5b d64", None, 64, 16, 0),
    ("mistral-7b", None, 128, 16, F["window"]),
    ("gemma-2-9b", None, 256, 16, F["window"] | F["softcap"]),
    ("gemma-2-27b", None, 128, 16, F["window"] | F["softcap"]),
    ("gemma-3-12b", None, 256, 16, F["window"]),
    ("gemma-3-27b", None, 128, 16, F["window"]),
    ("gpt-oss-120b", "bf16", 64, 32, F["window"] | F["sinks"]),
    ("phi-3-mini", None, 96, 16, F["window"]),
    ("bloom-560m", None, 64, 16, F["alibi"]),
    ("decode_d128_b64", "f16", 128, 64, 0),
    ("decode_d256_b16", "f16", 256, 16, 0),
    ("softcap_d128_b16", "f16", 128, 16, F["softcap"]),
    ("alibi_decode_d128_b16", "f16", 128, 16, F["alibi"]),
    ("qq_bias_prefill_d128_b16", "f16", 128, 16, F["qq_bias"]),
    ("bf16_decode_d128_b64", "bf16", 128, 64, 0),
    ("combo_bf16_d64_b32", "bf16", 64, 32, 0),
]


def _insts(default):
    return default[1].instances


def _serving(instances, arch, q, kv, head, block, feats, path):
    """Rows serving a problem, in table order (what the selector scans)."""
    return [i for i in instances
            if (i.arch, i.path, i.q_dtype, i.kv_dtype, i.head_size) == (arch, path, q, kv, head)
            and i.block_size in (ANY_BLOCK, block) and feats & ~i.features == 0]


def test_size_and_archs(default):
    insts = _insts(default)
    assert 300 <= len(insts) <= 480
    per_arch = {a: sum(1 for i in insts if i.arch == a) for a in ARCHS}
    assert all(n > 0 for n in per_arch.values())
    assert len({names(i).name for i in insts}) == len(insts)
    assert insts == sorted(insts, key=table_key)


def test_coverage(default):
    insts = _insts(default)
    for arch in ARCHS:
        mine = [i for i in insts if i.arch == arch]
        assert {(i.q_dtype, i.kv_dtype) for i in mine if i.path != "reduce"} == set(VALID_PAIRS)
        assert {i.head_size for i in mine} == set(HEAD_SIZES)
        assert {i.block_size for i in mine if i.path != "reduce"} == {ANY_BLOCK, 16, 32, 64}
        assert {i.path for i in mine} == {"2d", "3d", "reduce"}
        assert {i.tile for i in mine if i.path == "2d"} == {"small", "large"}
        assert {feature_token(i.features) for i in mine} >= {
            "plain", "win", "wincap", "winsink", "alibi", "qqb", "all"}


def test_plain_fast_instances(default):
    """Every common block size has a plain 2D instance (the tiles the cost model
    chooses, instances/default.yaml) and a plain 3D one with the small tile."""
    have = {names(i).name for i in _insts(default)}
    for arch, dt, head, block in itertools.product(ARCHS, ("f16", "bf16"), HEAD_SIZES,
                                                   (16, 32, 64)):
        # the record's tile geometry for this head (gfx950: 64 keys per large tile up to d128)
        t = {k: ARCH_INFO[arch].tile(k, head, block) for k in ("small", "large")}
        m = tuple(f"m{t[k].block_m}n{t[k].block_n}w{t[k].waves}" for k in ("small", "large"))
        stem = f"uattn_{arch}_{{}}_{dt}_{dt}_d{head}_b{block}_plain_"
        assert {stem.format("2d") + m[0], stem.format("2d") + m[1]} & have, (arch, dt, head, block)
        assert stem.format("3d") + m[0] in have, (arch, dt, head, block)


def test_general_group_and_reduce(default):
    have = {names(i).name for i in _insts(default)}
    for arch, (q, kv), head, path in itertools.product(ARCHS, VALID_PAIRS, HEAD_SIZES, PATHS):
        s = ARCH_INFO[arch].tile("small", head, ANY_BLOCK)
        tile = f"m{s.block_m}n{s.block_n}w{s.waves}"
        short = {"f16": "f16", "bf16": "bf16", "fp8e4m3": "fp8"}
        assert f"uattn_{arch}_{path}_{q}_{short[kv]}_d{head}_bany_all_{tile}" in have
    for i in _insts(default):
        if i.path == "3d":
            assert f"uattn_{i.arch}_reduce_d{i.head_size}" in have


@pytest.mark.parametrize("subset", [None, "minimal"])
def test_served_space_has_no_hole(default, subset):
    """Every arch x dtype pair x head size x feature subset x path has a generic instance."""
    matrix, expansion = default
    insts = select(matrix, expansion, Selection(subsets=(subset,) if subset else ()))
    generic = {(i.arch, i.path, i.q_dtype, i.kv_dtype, i.head_size): i.features
               for i in insts if i.block_size == ANY_BLOCK and i.path != "reduce"
               and i.features == ALL_FEATURES}
    reduces = {(i.arch, i.head_size) for i in insts if i.path == "reduce"}
    holes = []
    for arch, (q, kv), head, feats, path in itertools.product(
            ARCHS, VALID_PAIRS, HEAD_SIZES, range(32), PATHS):
        rows = _serving(insts, arch, q, kv, head, 13, feats, path)   # 13: an odd block size
        if not any(r.block_size == ANY_BLOCK for r in rows):
            holes.append((arch, q, kv, head, feature_token(feats), path))
        if path == "3d" and (arch, head) not in reduces:
            holes.append((arch, "reduce", head))
    assert not holes
    assert len(generic) == len(ARCHS) * len(VALID_PAIRS) * len(HEAD_SIZES) * len(PATHS)


# Problems the generic instance serves on purpose (none now: gfx950's ALiBi
# d128 got its 4-wave 2D tile and its lone-wave 3D tile, docs/performance.md,
# "The reduce across waves; ALiBi and QQ-bias tiles on gfx950").
GENERIC_BY_DESIGN: set = set()


def test_model_problems_get_specialised_2d_instances(default):
    insts = _insts(default)
    for (label, q, head, block, feats), arch in itertools.product(PROBLEMS, ARCHS):
        for dt in ([q] if q else ["f16", "bf16"]):
            rows = _serving(insts, arch, dt, dt, head, block, feats, "2d")
            want = ANY_BLOCK if (label, arch) in GENERIC_BY_DESIGN else block
            assert rows and rows[0].block_size == want, (label, arch, dt)
            assert _serving(insts, arch, dt, dt, head, block, feats, "3d"), (label, arch, dt)


def _shared_scenarios():
    for base in (REPO / "shared", REPO.parent / "shared"):
        if (base / "scenarios" / "models.json").is_file():
            return base / "scenarios"
    return None


@pytest.mark.skipif(_shared_scenarios() is None, reason="shared/scenarios not present")
def test_problem_table_matches_the_shared_scenarios():
    """PROBLEMS above covers every model and default scenario (so it cannot go stale)."""
    scen = _shared_scenarios()
    dtype = {"fp16": "f16", "bf16": "bf16", None: None}

    def covered(q, head, block, feats):
        return any(p[2] == head and p[3] == block and p[4] == feats and p[1] in (None, q)
                   for p in PROBLEMS)

    def feats_of(d):
        return sum(F[k] for k in ("softcap", "alibi", "qq_bias", "sinks", "window") if d.get(k))

    for m in json.loads((scen / "models.json").read_text())["models"]:
        assert covered(dtype[m.get("dtype")], m["head_size"], m.get("block_size", 16),
                       feats_of(m)), m["name"]
    for s in json.loads((scen / "default.json").read_text())["scenarios"]:
        assert s["kv_dtype"] == s["dtype"]
        assert covered(dtype[s["dtype"]], s["head_size"], s["block_size"], feats_of(s)), s["name"]


def test_ci_subset_coverage(default):
    matrix, expansion = default
    full = expansion.instances
    ci = select(matrix, expansion, Selection(subsets=("ci",)))
    assert 50 <= len(ci) <= 80

    def dims(insts):
        return {
            "arch": {i.arch for i in insts},
            "dtype pair": {(i.q_dtype, i.kv_dtype) for i in insts if i.path != "reduce"},
            "head size": {i.head_size for i in insts if i.path != "reduce"},
            "block size": {i.block_size for i in insts if i.path != "reduce"},
            "path": {i.path for i in insts},
            "feature set": {i.features for i in insts if i.path != "reduce"},
            "tile": {i.tile for i in insts},
            "arch x path": {(i.arch, i.path) for i in insts},
            "arch x dtype pair": {(i.arch, i.q_dtype, i.kv_dtype) for i in insts},
            "arch x feature set": {(i.arch, i.features) for i in insts},
        }
    want, got = dims(full), dims(ci)
    for key in want:
        assert got[key] == want[key], f"ci misses {key}: {sorted(map(str, want[key] - got[key]))}"
    assert {ANY_BLOCK, 16, 32, 64} <= got["block size"]


def test_named_subsets(default, run):
    matrix, expansion = default
    full = expansion.instances
    decode = select(matrix, expansion, Selection(subsets=("decode-only",)))
    assert decode == [i for i in full if i.path in ("3d", "reduce")]
    prefill = select(matrix, expansion, Selection(subsets=("prefill-only",)))
    assert prefill == [i for i in full if i.path == "2d"]
    assert all(not name[0].isdigit() for name in matrix.subsets)
    rc, out, _ = run("list", "--matrix", DEFAULT_YAML, "--subset", "decode-only")
    assert rc == 0 and out.split() == [names(i).name for i in decode]


def test_why_pruned_on_the_default_matrix(run):
    rc, out, _ = run("list", "--matrix", DEFAULT_YAML, "--why-pruned")
    assert rc == 0
    lines = out.splitlines()
    # 3d with the large tile: fast-plain (gfx950: 2 dtypes x 4 heads x 3 blocks) and
    # fp8-kv (gfx950: 2 dtypes x 2 blocks x 2 feature sets)
    assert len(lines) == 2 * 4 * 3 + 2 * 2 * 2
    assert all(" pruned by large-tile-2d-only: 3D split-KV segments use the small tile "
               "[group fast-plain]" in line or
               " pruned by large-tile-2d-only: 3D split-KV segments use the small tile "
               "[group fp8-kv]" in line for line in lines)
    rc, out, _ = run("list", "--matrix", DEFAULT_YAML, "--why-pruned", "--json")
    data = json.loads(out)
    assert data[0]["rules"][0]["name"] == "large-tile-2d-only" and data[0]["groups"]
