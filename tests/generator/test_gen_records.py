"""The architecture records and vocabularies are emitted once, to C++, C and CMake."""
import re

from gen_helpers import DEFAULT_YAML, REPO, write_matrix
from uattn_gen.model import (ALL_FEATURES, ARCH_INFO, ARCHS, BUILTIN_ARCHS, DTYPE_INFO, FEATURE_INFO,
                             MATRIX_INSNS, TILE_KINDS)

GEN = "include/uattn/generated"
NEW_ARCH = ("architectures:\n  - name: gfx1099\n    like: gfx1030\n    cu_count: 40\n"
            "    cus_per_workgroup: 1\n")
NEW_GROUP = ("  - name: n\n    arch: [gfx1099]\n    dtypes: [[f16, f16]]\n    head_size: [128]\n"
             "    path: [2d]\n")


def _generate(run, tmp_path, *matrices):
    out = tmp_path / "out"
    args = ["generate", "--out", out]
    for m in matrices:
        args += ["--matrix", m]
    rc, _, err = run(*args)
    assert rc == 0, err
    return out


def test_builtin_records_in_cpp_and_cmake(run, tmp_path):
    out = _generate(run, tmp_path, DEFAULT_YAML)
    arch = (out / GEN / "arch.hpp").read_text()
    for n, a in enumerate(ARCH_INFO.values()):
        assert f"  {a.name} = {n}," in arch
        assert (f'{{"{a.name}", {a.wave_size}, MatrixInsn::{a.matrix_insn}, {a.rows_per_wave}, '
                f'{a.head_pad}, {a.lds_row_pad}, {a.lds_budget}u, {a.cu_count}, '
                f'"{a.offload_target}"}},') in arch
        assert f"defined(__{a.offload_target}__)" in arch
    assert f"constexpr int kNumArchs = {len(ARCHS)};" in arch
    for n, m in enumerate(MATRIX_INSNS):
        assert f"  {m} = {n}," in arch
    cmake = (out / "archs.cmake").read_text()
    assert f"set(UATTN_ARCHS {' '.join(ARCHS)})" in cmake
    for a in ARCH_INFO.values():
        assert f"set(UATTN_OFFLOAD_TARGET_{a.name} {a.offload_target})" in cmake


def test_device_records_of_the_reference_parts(run, tmp_path):
    # As HIP reports the parts (product pages, CDNA4 / RDNA2 ISA guides): MI355X
    # 256 CUs, gfx IP 9.5, 160 KiB LDS per CU, 4 SIMDs, 512 VGPRs, 8 waves;
    # Radeon PRO V620 36 WGPs (72 CUs), gfx IP 10.3, 128 KiB per WGP, 2 SIMDs
    # per CU, 1024 VGPRs, 16 waves; the check kernels named as the runtime fetches them.
    device = (_generate(run, tmp_path, DEFAULT_YAML) / GEN / "device.hpp").read_text()
    assert ('{"AMD Instinct MI355X", "gfx950:sramecc+:xnack-", 9, 5, 256, 163840u, 4, 512, 8, '
            '"uattn_gfx950_check"},  // gfx950') in device
    assert ('{"AMD Radeon PRO V620", "gfx1030", 10, 3, 36, 131072u, 2, 1024, 16, '
            '"uattn_gfx1030_check"},  // gfx1030') in device


def test_gfx_ip_and_lds_sharing_simds():
    gfx950, gfx1030 = BUILTIN_ARCHS
    assert (gfx950.gfx_ip, gfx1030.gfx_ip) == ((9, 5, 0), (10, 3, 0))
    import dataclasses
    assert dataclasses.replace(gfx950, offload_target="gfx90a").gfx_ip == (9, 0, 10)
    assert (gfx950.simds_sharing_lds, gfx1030.simds_sharing_lds) == (4, 4)   # a CU; a WGP of 2 x 2 SIMD32


def test_declared_device_facts_are_checked(run, tmp_path):
    bad = {"target_features: sramecc+": "target_features is the string 'sramecc+', expected target-id features",
           'product: "a\\"b"': "product is the string 'a\"b', expected a product name",
           "offload_target: gfxzz": "offload_target is the string 'gfxzz', expected a processor such as gfx1030"}
    for line, message in bad.items():
        m = write_matrix(tmp_path / "m.yaml", NEW_GROUP)
        m.write_text(m.read_text().replace("groups:\n", NEW_ARCH + f"    {line}\n" + "groups:\n"))
        rc, _, err = run("list", "--matrix", m)
        assert rc == 2 and message in err, (line, err)


def test_vocabularies_in_cpp_and_c(run, tmp_path):
    out = _generate(run, tmp_path, DEFAULT_YAML)
    vocab = (out / GEN / "vocab.hpp").read_text()
    c = (out / GEN / "vocab.h").read_text()
    for n, d in enumerate(DTYPE_INFO):
        assert f"  {d.name} = {n}," in vocab
        assert f"  {d.c_name} = {n}" in c
    for f in FEATURE_INFO:
        assert f"  {f.cpp} = 0x{f.bit:02X}u," in vocab
        assert f'{{{f.cpp}, "{f.name}", "{f.token}"}},' in vocab
    assert f"kFeatAll = 0x{ALL_FEATURES:02X}u," in vocab
    waves = ", ".join(str(t.waves) for t in TILE_KINDS)
    assert f"constexpr int kTileWaves[kNumTiles] = {{{waves}}};" in vocab
    assert "UATTN_PATH_AUTO = 0," in c and "#define UATTN_PATH_LAST UATTN_PATH_3D" in c
    # is_query_dtype / kv_pairs_with say what rules.py says.
    assert "return d == DType::f16 || d == DType::bf16;" in vocab
    assert "constexpr bool kv_pairs_with_any_query(DType d) {\n  return d == DType::fp8e4m3;" in vocab


def test_records_do_not_depend_on_the_selection(run, tmp_path):
    full = _generate(run, tmp_path / "a", DEFAULT_YAML)
    out = tmp_path / "b"
    assert run("generate", "--matrix", DEFAULT_YAML, "--arch", "gfx1030", "--subset", "ci",
               "--out", out)[0] == 0
    for rel in (f"{GEN}/arch.hpp", f"{GEN}/vocab.hpp", f"{GEN}/vocab.h", f"{GEN}/device.hpp", "archs.cmake"):
        assert (full / rel).read_bytes() == (out / rel).read_bytes(), rel


def test_a_matrix_declares_an_architecture(run, tmp_path):
    m = write_matrix(tmp_path / "m.yaml", NEW_GROUP)
    m.write_text(m.read_text().replace("groups:\n", NEW_ARCH + "groups:\n"))
    out = _generate(run, tmp_path, m)
    arch = (out / GEN / "arch.hpp").read_text()
    assert "  gfx1099 = 2," in arch
    assert '{"gfx1099", 32, MatrixInsn::dot2, 8, 4, 32, 65536u, 40, "gfx1030"},' in arch
    assert arch.count("defined(__gfx1030__)") == 1    # one device branch per processor
    assert "set(UATTN_OFFLOAD_TARGET_gfx1099 gfx1030)" in (out / "archs.cmake").read_text()
    rows = (out / "table_rows.inc").read_text()
    assert ("UATTN_ATTENTION_ROW(uattn_gfx1099_2d_f16_f16_d128_bany_plain_m8n32w1, gfx1099, k2D, "
            "f16, f16, 128, 0, 0x00, small, 8, 32, 1, ") in rows
    assert re.search(r"set\(UATTN_INSTANCES_gfx1099\n  uattn_gfx1099_2d_",
                     (out / "instances.cmake").read_text())
    # The selector's facts: copied from gfx1030 (WGP mode: a workgroup's waves
    # on 2 CUs, HIP counts WGPs), then overridden by the declaration.
    select = (out / GEN / "select.hpp").read_text()
    assert "    {2, 2, 2, 205.0, 8750.0, 134217728.0, 1000.0, 7300.0, 32},  // gfx1030" in select
    assert "    {1, 4, 1, 3333.0, 8400.0, 268435456.0, 1700.0, 6500.0, 256},  // gfx950" in select
    assert "    {2, 2, 1, 205.0, 8750.0, 134217728.0, 1000.0, 7300.0, 32},  // gfx1099" in select
    rc, listed, _ = run("list", "--matrix", m, "--arch", "gfx1099")
    assert rc == 0 and listed.split() == ["uattn_gfx1099_2d_f16_f16_d128_bany_plain_m8n32w1"]
    # The declaration lasts for its own run only.
    rc, _, err = run("list", "--matrix", DEFAULT_YAML, "--arch", "gfx1099")
    assert rc == 2 and "--arch 'gfx1099' is not a known architecture, expected one of: gfx950, gfx1030" in err
    assert list(ARCH_INFO) == list(ARCHS)


def test_newarch_matrix_of_the_ctest_proof_is_valid(run):
    rc, out, err = run("list", "--matrix", REPO / "tests" / "newarch" / "matrix.yaml")
    assert rc == 0, err
    assert out.split() == ["uattn_gfx1099_2d_f16_f16_d128_bany_all_m8n32w1",
                           "uattn_gfx1099_3d_f16_f16_d128_bany_all_m8n32w1",
                           "uattn_gfx1099_reduce_d128"]
