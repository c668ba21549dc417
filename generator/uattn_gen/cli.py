"""Command line of uattn_gen.

  uattn-gen list     --matrix FILE [--matrix FILE ...] [--subset NAME] [--filter GLOB]
                     [--arch ARCH] [--json] [--why-pruned]
  uattn-gen generate --matrix FILE [--matrix FILE ...] [--subset NAME] [--filter GLOB]
                     [--arch ARCH] [--measured FILE] --out DIR

`generate` also writes the C++ and CMake view of the architecture records and
vocabularies (emit.py); they do not depend on the selection. --measured names
the per-instance figures of built code objects (instances/measured.yaml,
uattn_gen/measured.py) written into the table rows' cost columns; instances it
does not list get the documented fallback figures.

--subset, --filter and --arch may be repeated; repeats of one option are a
union, different options narrow each other. Exit status: 0 success, 2 a
problem in the matrix or the command line (every problem is printed as
`file:LINE: ...` on stderr and nothing is written), 1 an I/O failure while
writing.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .emit import record, render_tree, use_measured, write_tree
from .measured import MeasuredError, load as load_measured
from .expand import Selection, check_subsets, expand, select, select_pruned
from .globs import is_valid_glob
from .model import arch_names, names
from .schema import load_matrices

PROG = "uattn-gen"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="uattn kernel instance generator "
                                "(matrix schema: docs/yaml-schema.md)")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="{list,generate}")

    def common(sp):
        sp.add_argument("--matrix", action="append", required=True, metavar="FILE",
                        help="YAML matrix file (repeatable; groups and subsets are merged)")
        sp.add_argument("--subset", action="append", default=[], metavar="NAME",
                        help="keep instances matched by the named subset (repeatable)")
        sp.add_argument("--measured", metavar="FILE",
                        help="per-instance figures of built code objects (instances/measured.yaml)")
        sp.add_argument("--filter", action="append", default=[], metavar="GLOB",
                        help="keep instance names matching GLOB ('*', '?'; repeatable)")
        sp.add_argument("--arch", action="append", default=[], metavar="ARCH",
                        help="keep instances of ARCH (repeatable; the built-in architectures "
                             "and those the matrices declare)")

    lp = sub.add_parser("list", help="print instance names in table order")
    common(lp)
    lp.add_argument("--json", action="store_true", help="print every field as JSON")
    lp.add_argument("--why-pruned", action="store_true",
                    help="print the dropped candidates with the rules that dropped them")
    gp = sub.add_parser("generate", help="write instance files, table rows, CMake list, "
                        "manifest")
    common(gp)
    gp.add_argument("--out", required=True, metavar="DIR", help="output folder")
    return p


def _fail(messages: list) -> int:
    for m in messages:
        print(m, file=sys.stderr)
    n = len(messages)
    print(f"{PROG}: {n} error{'s' if n != 1 else ''}; nothing was written", file=sys.stderr)
    return 2


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    matrix, diags = load_matrices(args.matrix)
    expansion = expand(matrix)
    diags.extend(expansion.conflicts)
    if not matrix.incomplete:
        diags.extend(check_subsets(matrix, expansion))
    errors = [str(d) for d in diags]
    for name in args.subset:
        if name not in matrix.subsets and not matrix.incomplete:
            known = ", ".join(sorted(matrix.subsets)) or "none"
            errors.append(f"{PROG}: --subset '{name}' is not defined in "
                          f"{', '.join(args.matrix)}, expected one of: {known}")
    for arch in args.arch:
        if arch not in arch_names() and not matrix.incomplete:
            errors.append(f"{PROG}: --arch '{arch}' is not a known architecture, expected one "
                          f"of: {', '.join(arch_names())}")
    for glob in args.filter:
        if not is_valid_glob(glob):
            errors.append(f"{PROG}: --filter '{glob}' is not a valid glob, expected letters, "
                          f"digits, '_' and the wildcards '*' and '?'")
    try:
        use_measured(load_measured(args.measured))
    except MeasuredError as e:
        errors.append(f"{PROG}: --measured {e}")
    if errors:
        return _fail(errors)
    selection = Selection(subsets=tuple(args.subset), filters=tuple(args.filter),
                          archs=tuple(args.arch))

    if args.command == "list" and args.why_pruned:
        return _print_pruned(select_pruned(matrix, expansion, selection), args.json)
    chosen = select(matrix, expansion, selection)
    if not chosen:
        return _fail([f"{PROG}: the selection (subsets {list(selection.subsets)}, filters "
                      f"{list(selection.filters)}, archs {list(selection.archs)}) matches no "
                      f"instance, expected at least one"])
    if args.command == "list":
        if args.json:
            print(json.dumps([record(i) for i in chosen], sort_keys=True, indent=2))
        else:
            for inst in chosen:
                print(names(inst).name)
        return 0

    files = render_tree(matrix, chosen, selection)
    try:
        stats = write_tree(Path(args.out), files)
    except OSError as e:
        print(f"{PROG}: cannot write to {args.out}: {e}", file=sys.stderr)
        return 1
    per_arch = ", ".join(f"{a} {sum(1 for i in chosen if i.arch == a)}" for a in arch_names())
    print(f"{PROG}: {len(chosen)} instances ({per_arch}) in {args.out}: "
          f"{stats['written']} files written, {stats['unchanged']} unchanged, "
          f"{stats['deleted']} stale deleted")
    return 0


def _print_pruned(pruned: list, as_json: bool) -> int:
    if as_json:
        print(json.dumps([{"name": p.name, "groups": list(p.candidate.groups),
                           "rules": [{"name": r.name, "reason": r.reason} for r in p.rules]}
                          for p in pruned], sort_keys=True, indent=2))
        return 0
    for p in pruned:
        why = "; ".join(f"{r.name}: {r.reason}" for r in p.rules)
        print(f"{p.name} pruned by {why} [group {', '.join(p.candidate.groups)}]")
    return 0
