"""docs/regenerate.md, "What a change touches": each recipe's list of files is
what a scripted change of that kind really touches.

Every test copies the checkout's sources, applies one scripted change
(an architecture, a feature, a head size, a tile) to the copy, and checks
  - the files whose bytes changed (or that are new) are exactly the recipe's
    list in docs/regenerate.md;
  - the copy's generator accepts the changed matrix and emits the instances the
    change is for;
  - where a device compiler is on PATH (the build environment of CTest), one new
    instance file compiles for the device with the changed templates.
"""
import os
import re
import shutil
import subprocess
import sys

import pytest

from gen_helpers import REPO

DOC = REPO / "docs" / "regenerate.md"
CLANG = shutil.which("clang++-21")


def doc_files(recipe: str) -> list:
    """The file list of recipe `recipe` in docs/regenerate.md: the ```files block
    after the heading `### <recipe>`."""
    text = DOC.read_text()
    m = re.search(r"^### " + re.escape(recipe) + r"\b.*?^```files\n(.*?)^```", text, re.M | re.S)
    assert m, f"docs/regenerate.md has no '### {recipe}' section with a ```files block"
    return sorted(line.strip() for line in m.group(1).splitlines() if line.strip())


IGNORE = shutil.ignore_patterns(".git", "build", "__pycache__", "*.pyc", ".pytest_cache", ".whl")


def source_copy(dst):
    """A copy of the checkout's sources (no build folders, no caches) at dst; {path: bytes}."""
    shutil.copytree(REPO, dst, ignore=IGNORE, symlinks=True)
    return {p.relative_to(dst).as_posix(): p.read_bytes() for p in dst.rglob("*") if p.is_file()}


def touched(root, before: dict) -> list:
    now = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    return sorted(rel for rel in now | set(before)
                  if rel not in before or not (root / rel).exists() or (root / rel).read_bytes() != before[rel])


def edit(path, old: str, new: str, count: int = 1):
    text = path.read_text()
    assert text.count(old) >= count, f"{path}: the recipe's anchor is gone:\n{old}"
    path.write_text(text.replace(old, new, count))


def generate(root, out) -> list:
    """Runs the copy's generator on its default matrix; the instance names it emitted."""
    r = subprocess.run([sys.executable, str(root / "generator" / "uattn-gen"), "generate", "--matrix",
                        str(root / "instances" / "default.yaml"), "--out", str(out)],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    assert r.returncode == 0, r.stderr
    return sorted(p.stem for p in (out / "instances").glob("*.hip"))


def device_compiles(root, out, name: str, arch: str):
    if CLANG is None:
        return
    r = subprocess.run([CLANG, "-x", "hip", "--cuda-device-only", f"--offload-arch={arch}", "-O3", "-std=c++17",
                        "-nogpuinc", "-nogpulib", "-fsyntax-only", "-I", str(root / "templates"),
                        "-I", str(out / "include"), str(out / "instances" / f"{name}.hip")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


# --- the scripted changes -------------------------------------------------------

def add_head_size(root):
    """Head size 160 in the model's served list and in the generic group."""
    edit(root / "generator/uattn_gen/model.py", "HEAD_SIZES = (64, 80, 96, 112, 128, 192, 256)",
         "HEAD_SIZES = (64, 80, 96, 112, 128, 160, 192, 256)")
    edit(root / "instances/default.yaml", "    head_size: [64, 80, 96, 112, 128, 192, 256]\n",
         "    head_size: [64, 80, 96, 112, 128, 160, 192, 256]\n")
    return [("uattn_gfx950_2d_f16_fp8_d160_bany_all_m32n32w1", "gfx950"),
            ("uattn_gfx1030_3d_bf16_fp8_d160_bany_all_m8n32w1", "gfx1030"),
            ("uattn_gfx950_reduce_d160", "gfx950")]


def add_tile(root):
    """A 2-wave tile kind, `medium`, built for gfx950's plain instances."""
    edit(root / "generator/uattn_gen/model.py",
         'TILE_KINDS = (TileKind("small", 1), TileKind("large", 4))',
         'TILE_KINDS = (TileKind("small", 1), TileKind("medium", 2), TileKind("large", 4))')
    edit(root / "instances/default.yaml", "    features: [plain]\n    path: [2d, 3d]\n    tile: [small, large]\n",
         "    features: [plain]\n    path: [2d, 3d]\n    tile: [small, medium, large]\n")
    return [("uattn_gfx950_2d_f16_f16_d128_b16_plain_m64n32w2", "gfx950"),
            ("uattn_gfx950_3d_bf16_bf16_d96_b32_plain_m64n32w2", "gfx950")]


def add_architecture(root):
    """gfx1031 (an RDNA2 part of 40 CUs, the dot2 body) as a built-in record, in the generic group."""
    model = root / "generator/uattn_gen/model.py"
    text = model.read_text()
    start = text.index('    ArchInfo("gfx1030",')
    end = text.index("\n)\nARCHS = ", start)
    record = (text[start:end].replace('"gfx1030"', '"gfx1031"').replace("cu_count=72", "cu_count=40")
              .replace("AMD Radeon PRO V620", "AMD Radeon RX 6700 XT"))
    model.write_text(text[:end] + "\n" + record + text[end:])
    edit(root / "instances/default.yaml", "    arch: [gfx950, gfx1030]\n", "    arch: [gfx950, gfx1030, gfx1031]\n")
    return [("uattn_gfx1031_2d_f16_f16_d128_bany_all_m8n32w1", "gfx1031"),
            ("uattn_gfx1031_3d_bf16_fp8_d256_bany_all_m4n32w1", "gfx1031"),
            ("uattn_gfx1031_reduce_d128", "gfx1031")]


def add_feature(root):
    """A score modifier: feature bit `temperature`, an optional [Hq] tensor and a
    scalar, declared in the argument schema, and specialised instances that
    compile it in (the kernel bodies' use of the tensor is the part no script
    writes)."""
    args = root / "generator/uattn_gen/args.py"
    edit(args, '    Feature("sinks", "sink", 0x10, "kFeatSinks"),\n)',
         '    Feature("sinks", "sink", 0x10, "kFeatSinks"),\n'
         '    Feature("temperature", "temp", 0x20, "kFeatTemperature"),\n)')
    edit(args, '"checked launch: UATTN_INDEX_STATUS_BYTES of device memory (4-byte aligned), or NULL"),\n)',
         '"checked launch: UATTN_INDEX_STATUS_BYTES of device memory (4-byte aligned), or NULL"),\n'
         '    Arg("head_temperature", "const float*", OPTIONAL, "[Hq] fp32 or NULL", feature="temperature"),\n'
         '    Arg("temperature_floor", "float", SCALAR, "lower bound of a head\'s temperature", default="1.0f",\n'
         '        check="positive", gated_by="head_temperature"),\n)')
    edit(args, '"by it; templates/uattn/kernel/fused_reduce.hpp); null: the reduce kernel combines the segments"),\n)',
         '"by it; templates/uattn/kernel/fused_reduce.hpp); null: the reduce kernel combines the segments"),\n'
         '    Param("head_temperature", "const float*", "[Hq] or null", FROM_ARG),\n'
         '    Param("temperature_floor", "float", "", FROM_ARG),\n)')
    edit(root / "instances/default.yaml", "    features: [plain]\n    path: [2d, 3d]\n    tile: [small, large]\n",
         "    features: [plain, temperature]\n    path: [2d, 3d]\n    tile: [small, large]\n")
    return [("uattn_gfx950_2d_f16_f16_d128_b16_temp_m32n32w1", "gfx950"),
            ("uattn_gfx950_3d_bf16_bf16_d96_b32_temp_m32n32w1", "gfx950")]


RECIPES = {
    "A feature": add_feature,
    "An architecture": add_architecture,
    "A head size": add_head_size,
    "A tile": add_tile,
}


@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_recipe_touches_the_documented_files(recipe, tmp_path):
    root = tmp_path / "repo"
    before = source_copy(root)
    expected = RECIPES[recipe](root)
    assert touched(root, before) == doc_files(recipe)
    names = generate(root, tmp_path / "gen")
    for name, arch in expected:
        assert name in names, f"{recipe}: the generator did not emit {name}"
    name, arch = expected[0]
    device_compiles(root, tmp_path / "gen", name, arch)
