"""Rendering of the generated tree and writing it without needless rewrites.

render_tree() returns every output file as {relative path: text}; nothing
touches the disk until write_tree(), which rewrites a file only when its
content changed (so Ninja rebuilds only what changed), replaces files
atomically and deletes stale instance files. Layout of <out>:

  instances/<name>.hip   one thin translation unit per instance
  table_rows.inc         one UATTN_ATTENTION_ROW / UATTN_REDUCE_ROW per instance, table order
  include/uattn/generated/tile_records.inc  one UATTN_TILE_RECORD per attention instance (tiles.py)
  instances.cmake        set(UATTN_INSTANCES_<arch> ...) and set(UATTN_CHECK_KERNEL_<arch> ...) per arch
  checks/uattn_<arch>_check.hip  the index-array check kernel of each arch with instances
  checks.inc             one UATTN_CHECK_ENTRY(name) per check kernel (host twins)
  archs.cmake            the architecture records for CMake (UATTN_ARCHS, offload targets)
  include/uattn/generated/arch.hpp   the architecture records for C++ (uattn::Arch, arch_record())
  include/uattn/generated/vocab.hpp  dtypes, features, paths, tiles for C++
  include/uattn/generated/vocab.h    the C API's dtype and path constants
  include/uattn/generated/select.hpp the selector's facts of each record (host only)
  include/uattn/generated/device.hpp the reference part of each record as HIP reports it, the
                         occupancy model's figures and the check kernel's symbol (host only)
  include/uattn/generated/args.h     the C API's argument struct uattn_args_t (args.py)
  include/uattn/generated/args.hpp   the argument schema as X-macro lists for C++ (args.py)
  manifest.json          generator version, inputs, selection, every instance

The architecture, vocabulary and argument files depend only on the records
(model.py, args.py and the matrices' `architectures`), never on the selection.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path

import jinja2

from . import __version__
from . import args as schema_args
from .model import (ARCH_INFO, ANY_BLOCK, BUILTIN_ARCHS, DTYPE_INFO, FEATURE_INFO, MATRIX_INSNS,
                    PATH_INFO, REDUCE, TILE_BLOCK_N, TILE_KINDS, Instance, Matrix, arch_names,
                    check_names, feature_names, feature_token, names, path_enum)
from .measured import figures
from .model import SELECT_POLICY
from .tiles import instance_lds_bytes, tile_config
from .schema import SCHEMA_VERSION

INSTANCE_DIR = "instances"
CHECK_DIR = "checks"      # the index-array check kernel of each architecture (checked launches)
GENERATED_INCLUDE = "include/uattn/generated"

# Row format of table_rows.inc: its version and the named columns of each row
# kind, read by dispatch/include/uattn/table_row.hpp (which checks the version
# and the column counts at compile time).
TABLE_FORMAT_VERSION = 7
ATTENTION_COLUMNS = ("name", "arch", "path", "q_dtype", "kv_dtype", "head_size", "block_size",
                     "features", "tile", "block_m", "block_n", "waves",
                     "lds_bytes", "rows_per_wave", "head_split", "shares_kv", "key_split",
                     "vgprs", "occupancy", "tile_cycles", "boundary_cycles", "full_tile_cycles",
                     "full_boundary_cycles", "split_tile_cycles", "measured")
REDUCE_COLUMNS = ("name", "arch", "head_size", "waves", "lds_bytes")
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "jinja")),
    undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True,
    autoescape=False)


# Measured per-instance figures ({name: {field: value}}, measured.load()) used for
# the cost-model columns of the table rows; set by use_measured().
_MEASURED: dict = {}


def record(inst: Instance) -> dict:
    """All fields of an instance as JSON-ready data (list --json, manifest.json)."""
    n = names(inst)
    return {
        "name": n.name,
        "symbol": n.symbol,
        "file": f"{INSTANCE_DIR}/{n.file}",
        "table_row": table_row(inst),
        "arch": inst.arch,
        "path": inst.path,
        "q_dtype": inst.q_dtype,
        "kv_dtype": inst.kv_dtype,
        "head_size": inst.head_size,
        "block_size": "any" if inst.block_size == ANY_BLOCK else inst.block_size,
        "features": feature_names(inst.features),
        "feature_mask": inst.features,
        "tile": inst.tile,
        "block_m": inst.block_m,
        "block_n": inst.block_n,
        "waves": inst.waves,
        "wave_size": ARCH_INFO[inst.arch].wave_size,
        "lds_bytes": instance_lds_bytes(inst),
        "tile_config": None if inst.path == REDUCE else dataclasses.asdict(tile_config(inst)),
        "groups": list(inst.groups),
        "matrix_files": list(inst.sources),
    }


def row_fields(inst: Instance) -> dict:
    """The named columns of inst's table row (ATTENTION_COLUMNS or REDUCE_COLUMNS)."""
    fields = {"name": names(inst).name, "arch": inst.arch, "head_size": inst.head_size}
    if inst.path == REDUCE:
        fields.update(waves=inst.waves, lds_bytes=f"{instance_lds_bytes(inst)}u")
        return {c: fields[c] for c in REDUCE_COLUMNS}
    cfg = tile_config(inst)
    fig = figures(inst, cfg.lds_bytes, _MEASURED)
    cyc = fig.resolved()
    fields.update(path=path_enum(inst.path), q_dtype=inst.q_dtype, kv_dtype=inst.kv_dtype,
                  block_size=inst.block_size, features=f"0x{inst.features:02X}",
                  tile=inst.tile, block_m=cfg.block_m, block_n=cfg.block_n, waves=cfg.waves,
                  lds_bytes=f"{cfg.lds_bytes}u", rows_per_wave=cfg.rows_per_wave,
                  head_split="true" if cfg.head_split else "false",
                  shares_kv="true" if cfg.shares_kv else "false",
                  key_split="true" if cfg.key_split else "false",
                  vgprs=fig.vgprs, occupancy=f"{fig.occupancy:g}", tile_cycles=f"{cyc[0]:g}",
                  boundary_cycles=f"{cyc[1]:g}", full_tile_cycles=f"{cyc[2]:g}", full_boundary_cycles=f"{cyc[3]:g}",
                  split_tile_cycles=f"{fig.split_tile_cycles:g}",
                  measured="true" if fig.measured else "false")
    return {c: fields[c] for c in ATTENTION_COLUMNS}


def table_row(inst: Instance) -> str:
    """The line of table_rows.inc for `inst`."""
    return _ENV.get_template("table_row.j2").render(
        kind="REDUCE" if inst.path == REDUCE else "ATTENTION",
        values=list(row_fields(inst).values())).rstrip("\n")


def render_instance(inst: Instance) -> str:
    """Text of <name>.hip: a comment, the include and one instance macro."""
    n = names(inst)
    ctx = {"name": n.name, "arch": inst.arch, "head_size": inst.head_size, "waves": inst.waves,
           "sources": ", ".join(inst.sources) or "the command line"}
    if inst.path == REDUCE:
        return _ENV.get_template("reduce.hip.j2").render(ctx)
    ctx.update(
        path_label=inst.path.upper(), path_enum=path_enum(inst.path),
        q_dtype=inst.q_dtype, kv_dtype=inst.kv_dtype,
        block_label="any" if inst.block_size == ANY_BLOCK else str(inst.block_size),
        block_size=inst.block_size, feature_token=feature_token(inst.features),
        feature_mask=f"0x{inst.features:02X}u",
        block_m=inst.block_m, block_n=inst.block_n, waves=inst.waves,
        tile_fields=tile_config(inst).cpp_fields())
    return _ENV.get_template("attention.hip.j2").render(ctx)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def use_measured(measured: dict) -> None:
    """Makes `measured` (measured.load()) the figures of the table rows' cost columns."""
    _MEASURED.clear()
    _MEASURED.update(measured)


def render_tree(matrix: Matrix, instances: list, selection) -> dict:
    """{path relative to <out>: text} of every output file, for `instances` in table order."""
    files = {}
    entries = []
    for inst in instances:
        text = render_instance(inst)
        rec = record(inst)
        files[rec["file"]] = text
        entries.append(dict(rec, sha256=_sha(text)))
    sources = ", ".join(f.display for f in matrix.files)
    files["table_rows.inc"] = _ENV.get_template("table_rows.inc.j2").render(
        sources=sources, version=TABLE_FORMAT_VERSION, attention_columns=ATTENTION_COLUMNS,
        reduce_columns=REDUCE_COLUMNS, rows=[table_row(i) for i in instances])
    files[f"{GENERATED_INCLUDE}/tile_records.inc"] = _ENV.get_template("tile_records.inc.j2").render(
        sources=sources, records=[(names(i).name, tile_config(i).cpp_fields())
                                  for i in instances if i.path != REDUCE])
    per_arch = [(a, [names(i).name for i in instances if i.arch == a]) for a in arch_names()]
    # One index-array check kernel per architecture with instances (checked launches).
    checks = [(a, check_names(a)) for a, arch_names in per_arch if arch_names]
    for arch, n in checks:
        files[f"{CHECK_DIR}/{n.file}"] = _ENV.get_template("check.hip.j2").render(arch=arch, name=n.symbol)
    checks = [(arch, n.symbol) for arch, n in checks]
    files["checks.inc"] = _ENV.get_template("checks.inc.j2").render(checks=checks)
    files["instances.cmake"] = _ENV.get_template("instances.cmake.j2").render(
        sources=sources, per_arch=per_arch, checks=checks)
    files.update(render_records(matrix))
    manifest = {
        "generator": {"name": "uattn_gen", "version": __version__,
                      "schema_version": SCHEMA_VERSION},
        "matrices": [{"file": f.display, "sha256": f.sha256} for f in matrix.files],
        "selection": {"subsets": list(selection.subsets), "filters": list(selection.filters),
                      "archs": list(selection.archs)},
        "counts": dict({"total": len(instances)},
                       **{a: sum(1 for i in instances if i.arch == a) for a in arch_names()}),
        "outputs": {p: _sha(t) for p, t in files.items() if not p.startswith(INSTANCE_DIR + "/")},
        "instances": entries,
    }
    files["manifest.json"] = json.dumps(manifest, sort_keys=True, indent=2) + "\n"
    return files


def render_records(matrix: Matrix) -> dict:
    """{path: text} of the architecture records and vocabularies for C++, C and CMake."""
    builtin = {a.name for a in BUILTIN_ARCHS}
    declared = [a for a in ARCH_INFO.values() if a.name not in builtin]
    source = "generator/uattn_gen/model.py"
    if declared:
        source += " and the architectures of " + ", ".join(f.display for f in matrix.files)
    targets = {}   # offload target -> the first record using it (device capabilities)
    for a in ARCH_INFO.values():
        targets.setdefault(a.offload_target, a)
    ctx = {
        "source": source, "archs": list(ARCH_INFO.values()), "targets": list(targets.values()),
        "check_symbols": {a: check_names(a).symbol for a in ARCH_INFO},
        "matrix_insns": MATRIX_INSNS, "dtypes": DTYPE_INFO, "features": FEATURE_INFO,
        "all_features": f"0x{sum(f.bit for f in FEATURE_INFO):02X}u", "paths": PATH_INFO,
        "force_paths": [p for p in PATH_INFO if p.force_c], "tiles": TILE_KINDS,
        "tile_block_n": TILE_BLOCK_N, "select_policy": SELECT_POLICY,
    }
    return {
        f"{GENERATED_INCLUDE}/arch.hpp": _ENV.get_template("arch.hpp.j2").render(ctx),
        f"{GENERATED_INCLUDE}/vocab.hpp": _ENV.get_template("vocab.hpp.j2").render(ctx),
        f"{GENERATED_INCLUDE}/vocab.h": _ENV.get_template("vocab.h.j2").render(ctx),
        f"{GENERATED_INCLUDE}/select.hpp": _ENV.get_template("select.hpp.j2").render(ctx),
        f"{GENERATED_INCLUDE}/device.hpp": _ENV.get_template("device.hpp.j2").render(ctx),
        **render_args(),
        "archs.cmake": _ENV.get_template("archs.cmake.j2").render(ctx),
    }


def render_args() -> dict:
    """{path: text} of the argument schema's headers (args.py): the C struct and the X-macro lists."""
    a = schema_args
    ctx = {
        "args": a.ARGS,
        "checks": [x for x in a.ARGS if x.check],
        "feature_args": [(x, a.problem_field(x)) for x in a.ARGS if x.feature],
        "features": {f.name: f for f in a.FEATURES},
        "params": a.PARAMS,
        "copies": [p for p in a.PARAMS if p.source == a.FROM_ARG and not a.ARG[p.name].gated_by],
        "gated": [(p, a.ARG[p.name].gated_by) for p in a.PARAMS
                  if p.source == a.FROM_ARG and a.ARG[p.name].gated_by],
    }
    return {f"{GENERATED_INCLUDE}/args.h": _ENV.get_template("args.h.j2").render(ctx),
            f"{GENERATED_INCLUDE}/args.hpp": _ENV.get_template("args.hpp.j2").render(ctx)}


def _write_if_changed(path: Path, text: str) -> bool:
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    tmp = path.with_name(path.name + ".uattn-tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return True


def write_tree(out: Path, files: dict) -> dict:
    """Write `files` under `out`; returns counts of written, unchanged and deleted files.

    Only files whose bytes differ are replaced (atomically, via a temporary file
    in the same folder). `*.hip` files in <out>/instances that are not part of
    `files` are deleted; nothing else there is touched.
    """
    out = Path(out)
    (out / INSTANCE_DIR).mkdir(parents=True, exist_ok=True)
    stats = {"written": 0, "unchanged": 0, "deleted": 0}
    for rel in sorted(files):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        if _write_if_changed(out / rel, files[rel]):
            stats["written"] += 1
        else:
            stats["unchanged"] += 1
    keep = {Path(rel).name for rel in files if rel.startswith(INSTANCE_DIR + "/")}
    for old in sorted((out / INSTANCE_DIR).glob("*.hip")):
        if old.name not in keep and old.is_file():
            old.unlink()
            stats["deleted"] += 1
    return stats
