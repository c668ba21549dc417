"""Expansion of a validated matrix into instances, and selection of a subset.

expand(): every group is a cartesian product; candidates failing a rule of
their arch are pruned (with the rules that failed); the union over groups
is deduplicated by name; a 3D reduce instance is added per (arch, head size)
that has a 3d instance. select(): narrows the expansion by subsets, filter
globs and archs, always keeping the reduce kernel each selected 3d instance
needs. Everything is returned in table order (model.table_key).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .globs import glob_match
from .model import REDUCE, Matrix, attention_instance, names, reduce_instance, table_key
from .rules import failed_rules
from .schema import Diagnostic


@dataclass
class Pruned:
    candidate: object          # model.Instance
    rules: list                # [rules.Rule] it failed

    @property
    def name(self) -> str:
        return names(self.candidate).name


@dataclass
class Expansion:
    instances: list = field(default_factory=list)   # table order
    pruned: list = field(default_factory=list)      # [Pruned], table order
    conflicts: list = field(default_factory=list)   # [Diagnostic]: one name, two tile records


def _candidates(group):
    for arch, (q, kv), head, block, feat, path, tile in itertools.product(
            group.archs, group.dtypes, group.head_sizes, group.block_sizes,
            group.feature_sets, group.paths, group.tiles):
        yield attention_instance(arch, path, q, kv, head, block, feat, tile,
                                 group=group.name, source=group.file.display,
                                 tile_overrides=group.tile_overrides)


def expand(matrix: Matrix) -> Expansion:
    kept: dict = {}
    pruned: dict = {}
    conflicts: dict = {}
    first_group: dict = {}
    for group in matrix.groups:
        for cand in _candidates(group):
            name = names(cand).name
            failed = failed_rules(cand)
            if failed:
                if name in pruned:
                    cand = pruned[name].candidate.merged(cand)
                pruned[name] = Pruned(cand, failed)
            elif name in kept and kept[name].tile_overrides != cand.tile_overrides:
                g0 = first_group[name]
                conflicts.setdefault((g0.name, group.name), Diagnostic(
                    group.file.given, group.line,
                    f"group '{group.name}' gives {name} the tile_config {dict(cand.tile_overrides)}, "
                    f"group '{g0.name}' (line {g0.line}) gives it {dict(kept[name].tile_overrides)}; "
                    f"expected one tile record per instance (the same tile_config in both groups)"))
            else:
                kept[name] = kept[name].merged(cand) if name in kept else cand
                first_group.setdefault(name, group)
    reduces: dict = {}
    for inst in kept.values():
        if inst.path == "3d":
            key = (inst.arch, inst.head_size)
            r = reduce_instance(inst.arch, inst.head_size, inst.groups, inst.sources)
            reduces[key] = reduces[key].merged(r) if key in reduces else r
    for r in reduces.values():
        kept[names(r).name] = r
    return Expansion(instances=sorted(kept.values(), key=table_key),
                     pruned=sorted(pruned.values(), key=lambda p: table_key(p.candidate)),
                     conflicts=list(conflicts.values()))


def check_subsets(matrix: Matrix, expansion: Expansion) -> list:
    """Diagnostics for subset globs that match no instance of the expansion."""
    all_names = [names(i).name for i in expansion.instances]
    pruned_names = [p.name for p in expansion.pruned]
    diags = []
    for subset in matrix.subsets.values():
        for glob, line in subset.globs:
            if any(glob_match(glob, n) for n in all_names):
                continue
            hint = ""
            if any(glob_match(glob, n) for n in pruned_names):
                hint = " (it matches only pruned candidates: see 'list --why-pruned')"
            diags.append(Diagnostic(subset.file.given, line,
                                    f"glob '{glob}' of subset '{subset.name}' matches no "
                                    f"instance{hint}, expected a glob matching at least one "
                                    f"instance name (see 'uattn-gen list')"))
    return diags


@dataclass(frozen=True)
class Selection:
    """What the command line narrowed the matrix to (empty tuples = no narrowing)."""
    subsets: tuple = ()
    filters: tuple = ()
    archs: tuple = ()

    def matches(self, matrix: Matrix, inst) -> bool:
        name = names(inst).name
        if self.subsets and not any(glob_match(g, name) for s in self.subsets
                                    for g, _ in matrix.subsets[s].globs):
            return False
        if self.filters and not any(glob_match(f, name) for f in self.filters):
            return False
        return not self.archs or inst.arch in self.archs


def select(matrix: Matrix, expansion: Expansion, selection: Selection) -> list:
    """Instances chosen by `selection`, plus the reduce kernels their 3d instances need."""
    chosen = [i for i in expansion.instances if selection.matches(matrix, i)]
    needed = {(i.arch, i.head_size) for i in chosen if i.path == "3d"}
    chosen_names = {names(i).name for i in chosen}
    for inst in expansion.instances:
        if (inst.path == REDUCE and (inst.arch, inst.head_size) in needed
                and names(inst).name not in chosen_names):
            chosen.append(inst)
    return sorted(chosen, key=table_key)


def select_pruned(matrix: Matrix, expansion: Expansion, selection: Selection) -> list:
    return [p for p in expansion.pruned if selection.matches(matrix, p.candidate)]
