#!/usr/bin/env python3
"""Changing one YAML entry regenerates and recompiles only the affected instances.

Configures the project in WORK with a four-instance matrix (gfx950, f16, head sizes
64 and 128, block sizes 16 and 32, plain, 2D), builds the bundle, then changes one
entry (head_size [64, 128] -> [64, 96]) and builds again. Ninja's own log
(WORK/build/.ninja_log: one line per command run, appended per build) is the evidence:
the second build must have run the device compile of exactly the instances the
generator lists as new (``uattn-gen list`` before and after, independent of the
build), relinked the code object and repacked the bundle; the generator must not
have rewritten the unchanged instance files; a third build must run nothing (but CMake's glob check).
GPU_TARGETS is left empty: the configure step must build gfx950 alone, the one
architecture the matrix has instances for.

usage: incremental.py --src REPO --work DIR --hip CLANG++ [--cmake CMAKE]
"""
import os
import shutil
import sys

from buildsys_common import parser, run

MATRIX = """\
version: 1
groups:
  - name: tiny
    arch: [gfx950]
    dtypes: [[f16, f16]]
    head_size: {heads}
    block_size: [16, 32]
    features: [plain]
    path: [2d]
    tile: [small]
"""


def listed(src, matrix):
    env = dict(os.environ, PYTHONPATH=os.path.join(src, "generator"))
    out = run([sys.executable, "-m", "uattn_gen", "list", "--matrix", matrix], env=env)
    return {line.split()[0] for line in out.splitlines() if line.startswith("uattn_")}


def ninja_log(build):
    """Outputs of .ninja_log, one line per output of each command run, in order (format
    v5/v6/v7: start, end, mtime, output, command hash; '#' lines are headers). CMake
    names some outputs twice, relative and absolute: paths are made relative to BUILD
    and deduplicated per build by the callers."""
    out = []
    with open(os.path.join(build, ".ninja_log")) as f:
        for line in f:
            if not line.startswith("#") and line.count("\t") >= 4:
                path = line.split("\t")[3]
                out.append(os.path.relpath(path, build) if os.path.isabs(path) else path)
    return out


# CMake's check of its CONFIGURE_DEPENDS globs runs on every build; it rebuilds nothing.
GLOB_CHECK = "CMakeFiles/cmake.verify_globs"


def main():
    ap = parser(__doc__.splitlines()[0])
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    matrix = os.path.join(a.work, "tiny.yaml")
    build = os.path.join(a.work, "build")

    with open(matrix, "w") as f:
        f.write(MATRIX.format(heads="[64, 128]"))
    before = listed(a.src, matrix)
    if len(before) != 4:
        sys.exit(f"expected 4 instances from the tiny matrix, the generator lists {sorted(before)}")
    # GPU_TARGETS left empty: the architectures the matrix has instances for (gfx950 alone).
    conf = run([a.cmake, "-S", a.src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                f"-DCMAKE_HIP_COMPILER={a.hip}", f"-DUATTN_MATRIX={matrix}",
                "-DUATTN_BUILD_RUNTIME=OFF", "-DUATTN_BUILD_TESTS=OFF"])
    if "targets gfx950\n" not in conf or "no gfx1030 instance; gfx1030 is not built" not in conf:
        sys.exit(f"configure: expected gfx950 alone and gfx1030 dropped (no instances), got:\n{conf}")
    run([a.cmake, "--build", build, "--target", "uattn_bundle"])
    first = ninja_log(build)
    dev = lambda inst: f"device/gfx950/{inst}.o"
    missing = [i for i in before if dev(i) not in first]
    if missing:
        sys.exit(f"first build: no device compile logged for {missing}")
    inst_dir = os.path.join(build, "generated", "instances")
    mtimes = {i: os.stat(os.path.join(inst_dir, i + ".hip")).st_mtime_ns for i in before}

    # the one-entry change
    with open(matrix, "w") as f:
        f.write(MATRIX.format(heads="[64, 96]"))
    after = listed(a.src, matrix)
    added, kept, dropped = after - before, after & before, before - after
    if not (len(added) == 2 and len(kept) == 2 and len(dropped) == 2):
        sys.exit(f"unexpected generator listing: added {sorted(added)}, kept {sorted(kept)}, dropped {sorted(dropped)}")
    explain = run([a.cmake, "--build", build, "--target", "uattn_bundle", "--", "-d", "explain"])
    second = ninja_log(build)[len(first):]
    print("second build, from .ninja_log:\n  " + "\n  ".join(dict.fromkeys(second)))
    compiled = {o for o in second if o.startswith("device/")}
    if compiled != {dev(i) for i in added}:
        sys.exit(f"second build compiled {sorted(compiled)}; expected exactly {sorted(dev(i) for i in added)}\n"
                 f"ninja -d explain:\n{explain}")
    for out in ("uattn_gfx950.co", "uattn_kernels.hipfb"):
        if out not in second:
            sys.exit(f"second build did not rebuild {out}")
    for i in kept:
        if os.stat(os.path.join(inst_dir, i + ".hip")).st_mtime_ns != mtimes[i]:
            sys.exit(f"the generator rewrote the unchanged instance file {i}.hip")
    for i in dropped:
        if os.path.exists(os.path.join(inst_dir, i + ".hip")):
            print(f"note: {i}.hip of the dropped entry is still in {inst_dir} (not built)")

    run([a.cmake, "--build", build, "--target", "uattn_bundle"])
    third = [o for o in ninja_log(build)[len(first) + len(second):] if o != GLOB_CHECK]
    if third:
        sys.exit(f"a build with nothing changed ran {third}")
    print(f"OK: one entry changed -> {len(compiled)} device compiles ({', '.join(sorted(added))}); "
          f"{len(kept)} unchanged instances neither regenerated nor recompiled")


if __name__ == "__main__":
    main()
