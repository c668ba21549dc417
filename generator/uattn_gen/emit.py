"""Rendering of the generated tree and writing it without needless rewrites.

render_tree() returns every output file as {relative path: text}; nothing
touches the disk until write_tree(), which rewrites a file only when its
content changed (so Ninja rebuilds only what changed), replaces files
atomically and deletes stale instance files. Layout of <out>:

  instances/<name>.hip   one thin translation unit per instance
  table_rows.inc         one UATTN_ROW(...) per instance, table order
  instances.cmake        set(UATTN_INSTANCES_<arch> ...) per arch
  manifest.json          generator version, inputs, selection, every instance
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import jinja2

from . import __version__
from .model import (ARCHS, ARCH_INFO, ANY_BLOCK, REDUCE, Instance, Matrix, feature_names,
                    feature_token, names, path_enum)
from .rules import instance_lds_bytes
from .schema import SCHEMA_VERSION

INSTANCE_DIR = "instances"
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "jinja")),
    undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True,
    autoescape=False)


def record(inst: Instance) -> dict:
    """All fields of an instance as JSON-ready data (list --json, manifest.json)."""
    n = names(inst)
    return {
        "name": n.name,
        "symbol": n.symbol,
        "file": f"{INSTANCE_DIR}/{n.file}",
        "table_row": n.table_row,
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
        "groups": list(inst.groups),
        "matrix_files": list(inst.sources),
    }


def render_instance(inst: Instance) -> str:
    """Text of <name>.hip: a comment, the include and one instance macro."""
    n = names(inst)
    ctx = {"name": n.name, "arch": inst.arch, "head_size": inst.head_size,
           "sources": ", ".join(inst.sources) or "the command line"}
    if inst.path == REDUCE:
        return _ENV.get_template("reduce.hip.j2").render(ctx)
    ctx.update(
        path_label=inst.path.upper(), path_enum=path_enum(inst.path),
        q_dtype=inst.q_dtype, kv_dtype=inst.kv_dtype,
        block_label="any" if inst.block_size == ANY_BLOCK else str(inst.block_size),
        block_size=inst.block_size, feature_token=feature_token(inst.features),
        feature_mask=f"0x{inst.features:02X}u",
        block_m=inst.block_m, block_n=inst.block_n, waves=inst.waves)
    return _ENV.get_template("attention.hip.j2").render(ctx)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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
        rows=[names(i).table_row for i in instances])
    per_arch = [(a, [names(i).name for i in instances if i.arch == a]) for a in ARCHS]
    files["instances.cmake"] = _ENV.get_template("instances.cmake.j2").render(
        sources=sources, per_arch=per_arch)
    manifest = {
        "generator": {"name": "uattn_gen", "version": __version__,
                      "schema_version": SCHEMA_VERSION},
        "matrices": [{"file": f.display, "sha256": f.sha256} for f in matrix.files],
        "selection": {"subsets": list(selection.subsets), "filters": list(selection.filters),
                      "archs": list(selection.archs)},
        "counts": dict({"total": len(instances)},
                       **{a: sum(1 for i in instances if i.arch == a) for a in ARCHS}),
        "outputs": {p: _sha(files[p]) for p in ("table_rows.inc", "instances.cmake")},
        "instances": entries,
    }
    files["manifest.json"] = json.dumps(manifest, sort_keys=True, indent=2) + "\n"
    return files


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
