"""Validation of YAML instance matrices (the schema: docs/yaml-schema.md).

load_matrices() reads one or more matrix files and returns the validated
Matrix plus every problem found, each as a Diagnostic printed
`file:LINE: what is wrong, expected what`. Line numbers come from the node
tree of yaml.compose(), so nothing is guessed. Validation never stops at
the first problem; callers write nothing when any Diagnostic is returned.
"""
from __future__ import annotations

import dataclasses
import difflib
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from .files import read_input_file
from .globs import is_valid_glob
from .model import (ANY_BLOCK, ARCH_INFO, DTYPES, FEATURE_BIT, FEATURES, ALL_FEATURES,
                    HEAD_SIZES, MATRIX_INSNS, PATHS, TILE_NAMES, ArchInfo, Group, Matrix,
                    MatrixFile, Subset, arch_names, declare_archs, feature_token)
from .tiles import BOOL_FIELDS, OVERRIDABLE

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA_VERSION = 1

TOP_KEYS = ("version", "architectures", "groups", "subsets")
GROUP_KEYS = ("name", "description", "arch", "dtypes", "head_size", "block_size",
              "features", "path", "tile", "tile_config")
REQUIRED_GROUP_KEYS = ("arch", "dtypes", "head_size")
GROUP_DEFAULTS = {"block_size": [ANY_BLOCK], "features": [0], "path": list(PATHS),
                  "tile": ["small"]}
GROUP_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
SUBSET_NAME_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
ARCH_NAME_RE = re.compile(r"^gfx[0-9a-z]+$")
# An LLVM AMDGPU processor: gfx<major><minor><stepping>, minor and stepping one
# hex digit each (AMDGPUUsage, "Processors"; model.ArchInfo.gfx_ip).
OFFLOAD_TARGET_RE = re.compile(r"^gfx[0-9]{1,2}[0-9a-f]{2}$")
# Keys of an `architectures` record: the fields of model.ArchInfo. `like`
# copies a known record, whose fields the others then override.
ARCH_INT_KEYS = ("wave_size", "rows_per_wave", "head_pad", "lds_row_pad", "lds_budget",
                 "cu_count", "vgprs_per_simd", "max_waves_per_simd", "lds_per_cu",
                 "cus_per_reported_unit", "simds_per_cu", "cus_per_workgroup", "mem_bytes_per_cycle",
                 "launch_cycles", "llc_bytes", "tile_latency_cycles",
                 "workgroup_latency_cycles", "max_segments")
ARCH_KEYS = ("name", "like", "matrix_insn", "offload_target", "target_features", "product",
             "head_sizes") + ARCH_INT_KEYS
TARGET_FEATURES_RE = re.compile(r"^(:[a-z]+[+-])*$")    # LLVM AMDGPUUsage "Target ID": ":sramecc+:xnack-"
PRODUCT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._()/-]*$")  # a C string literal needs no escape

_T = "tag:yaml.org,2002:"
_STR, _INT, _BOOL, _NULL = (_T + t for t in ("str", "int", "bool", "null"))
_SEQ, _MAP = _T + "seq", _T + "map"

# Limits on hostile input (docs/yaml-schema.md, "Limits"): each is reported as
# `file:LINE:` with exit status 2, never as a traceback or a hang.
MAX_FILE_BYTES = 16 << 20      # a matrix file larger than this is refused unread
MAX_DEPTH = 64                 # lists and mappings nested deeper than this
MAX_CANDIDATES = 100_000       # candidates of all groups together, before pruning
MAX_TILE_KNOB = 64             # the largest value a tile_config field may take
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


@dataclass(frozen=True)
class Diagnostic:
    file: str
    line: Optional[int]   # 1-based; None when the file could not be read at all
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.message}"


class _Bad(Exception):
    """A problem with one node; message without the file:line prefix."""

    def __init__(self, message: str, node=None):
        super().__init__(message)
        self.node = node


def _line(node) -> int:
    return node.start_mark.line + 1


def _describe(node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if node.tag == _STR:
        return f"the string '{node.value}'"
    if node.tag == _INT:
        if _int(node) is None:
            shown = node.value if len(node.value) <= 40 else node.value[:40] + "..."
            return f"'{shown}', which is not a valid YAML integer"
        return f"the integer {node.value}"
    if node.tag == _BOOL:
        return f"the boolean {node.value}"
    if node.tag == _NULL:
        return "an empty value"
    return f"the value {node.value}"


def _str(node) -> Optional[str]:
    return node.value if isinstance(node, ScalarNode) and node.tag == _STR else None


def _int(node) -> Optional[int]:
    """The integer of an int-tagged scalar; None when it is not one, or when the
    YAML constructor refuses its text ('0x_', an empty '!!int', more digits than
    Python converts)."""
    if isinstance(node, ScalarNode) and node.tag == _INT:
        try:
            return _CONSTRUCTOR.construct_yaml_int(node)
        except (ValueError, IndexError):
            return None
    return None


def _nesting_error(text: str) -> Optional[tuple]:
    """(line, message) when lists/mappings nest deeper than MAX_DEPTH.

    Checked on the event stream (PyYAML's parser is iterative; its composer
    recurses and would raise RecursionError on deep input)."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                return (event.start_mark.line + 1,
                        f"lists and mappings nest deeper than {MAX_DEPTH} levels, expected "
                        f"at most {MAX_DEPTH} (a matrix needs 4)")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
    return None


def _tag_errors(root) -> list:
    """(line, message) for every list or mapping that carries a tag: tags on
    collections change nothing the schema reads, so they are refused."""
    out, stack, seen = [], [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # aliases share nodes: visit each once
            continue
        seen.add(id(node))
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                out.append((_line(node), f"a list tagged '{_short_tag(node.tag)}', expected an "
                                         f"untagged list"))
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            if node.tag != _MAP:
                out.append((_line(node), f"a mapping tagged '{_short_tag(node.tag)}', expected "
                                         f"an untagged mapping"))
            for k, v in node.value:
                stack.extend((k, v))
    return sorted(out)


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_T):] if tag.startswith(_T) else tag


def _one_of(values) -> str:
    return "one of: " + ", ".join(str(v) for v in values)


def _suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(word, [str(c) for c in choices], n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


class _FileChecker:
    """Validates one parsed file; collects diagnostics instead of raising."""

    def __init__(self, mfile: MatrixFile, declared_archs: list):
        self.mfile = mfile
        self.declared_archs = declared_archs   # architectures declared so far (all files)
        self.diags: list = []
        self.dropped_groups = False   # some group (or the whole file) was rejected

    def error(self, node_or_line, message: str) -> None:
        line = node_or_line if isinstance(node_or_line, int) else _line(node_or_line)
        self.diags.append(Diagnostic(self.mfile.given, line, message))

    def entries(self, node: MappingNode, where: str) -> list:
        """(key, key node, value node) of a mapping; reports non-string and repeated keys."""
        seen: dict = {}
        out = []
        for knode, vnode in node.value:
            key = _str(knode)
            if key is None:
                self.error(knode, f"a key in {where} is {_describe(knode)}, expected a "
                                  f"plain name")
                continue
            if key in seen:
                self.error(knode, f"key '{key}' appears twice in {where} (first on line "
                                  f"{seen[key]}), expected each key once")
                continue
            seen[key] = _line(knode)
            out.append((key, knode, vnode))
        return out

    # --- the file --------------------------------------------------------

    def check(self, root) -> tuple:
        """(groups, subsets) of a composed document; problems go to self.diags."""
        if root is None or not isinstance(root, MappingNode):
            self.dropped_groups = True
        if root is None:
            self.error(1, "the file is empty, expected a mapping with 'version' and 'groups'")
            return [], []
        if not isinstance(root, MappingNode):
            self.error(root, f"the file holds {_describe(root)}, expected a mapping with "
                             f"'version' and 'groups'")
            return [], []
        top = {}
        for key, knode, vnode in self.entries(root, "the top level"):
            if key not in TOP_KEYS:
                self.error(knode, f"unknown top-level key '{key}'{_suggest(key, TOP_KEYS)}, "
                                  f"expected {_one_of(TOP_KEYS)}")
                continue
            top[key] = vnode
        if "version" not in top:
            self.error(root, f"missing key 'version', expected 'version: {SCHEMA_VERSION}'")
        else:
            v = _int(top["version"])
            if v != SCHEMA_VERSION:
                self.error(top["version"], f"version is {_describe(top['version'])}, expected "
                                           f"{SCHEMA_VERSION} (the schema this generator reads)")
        if "architectures" in top:
            self.architectures(top["architectures"])
        groups = []
        if "groups" not in top:
            self.dropped_groups = True
            self.error(root, "missing key 'groups', expected a list of groups")
        else:
            groups = self.groups(top["groups"])
        subsets = self.subsets(top["subsets"]) if "subsets" in top else []
        return groups, subsets

    # --- architectures ---------------------------------------------------

    def architectures(self, node) -> None:
        """Validates the declared records and adds them to model.ARCH_INFO."""
        if not isinstance(node, SequenceNode) or not node.value:
            what = "an empty list" if isinstance(node, SequenceNode) else _describe(node)
            self.error(node, f"architectures is {what}, expected a list of architecture records")
            self.dropped_groups = True
            return
        for rnode in node.value:
            rec = self.arch_record(rnode)
            if rec is None:
                self.dropped_groups = True
                continue
            self.declared_archs.append(rec)
            declare_archs(self.declared_archs)

    def arch_record(self, node) -> Optional[ArchInfo]:
        if not isinstance(node, MappingNode):
            self.error(node, f"an architecture record is {_describe(node)}, expected a mapping "
                             f"with keys {', '.join(ARCH_KEYS)}")
            return None
        entries = self.entries(node, "an architecture record")
        values = {k: v for k, _, v in entries}
        ok = True
        for key, knode, _ in entries:
            if key not in ARCH_KEYS:
                self.error(knode, f"unknown key '{key}' in an architecture record"
                                  f"{_suggest(key, ARCH_KEYS)}, expected {_one_of(ARCH_KEYS)}")
                ok = False
        name = _str(values["name"]) if "name" in values else None
        if name is None or not ARCH_NAME_RE.match(name):
            self.error(values.get("name", node), "architecture name is "
                       f"{_describe(values['name']) if 'name' in values else 'missing'}, "
                       "expected 'gfx' followed by lower-case letters and digits")
            return None
        if name in ARCH_INFO:
            self.error(values["name"], f"architecture '{name}' is already defined, expected a "
                                       f"new name (known: {', '.join(arch_names())})")
            return None
        fields = {}
        if "like" in values:
            like = _str(values["like"])
            if like not in ARCH_INFO:
                self.error(values["like"], f"architecture '{name}': like is "
                           f"{_describe(values['like'])}, expected {_one_of(arch_names())}")
                return None
            fields = dict(ARCH_INFO[like].__dict__)
        fields["name"] = name
        for key in ARCH_INT_KEYS:
            if key in values:
                v = _int(values[key])
                if v is None or v < 1:
                    self.error(values[key], f"architecture '{name}': {key} is "
                               f"{_describe(values[key])}, expected a positive integer")
                    ok = False
                fields[key] = v
        if "matrix_insn" in values:
            insn = _str(values["matrix_insn"])
            if insn not in MATRIX_INSNS:
                self.error(values["matrix_insn"], f"architecture '{name}': matrix_insn is "
                           f"{_describe(values['matrix_insn'])}, expected {_one_of(MATRIX_INSNS)}")
                ok = False
            fields["matrix_insn"] = insn
        if "offload_target" in values:
            target = _str(values["offload_target"])
            if target is None or not OFFLOAD_TARGET_RE.match(target):
                self.error(values["offload_target"], f"architecture '{name}': offload_target is "
                           f"{_describe(values['offload_target'])}, expected a processor such "
                           f"as gfx1030")
                ok = False
            fields["offload_target"] = target
        if "target_features" in values:
            feats = _str(values["target_features"])
            if feats is None or not TARGET_FEATURES_RE.match(feats):
                self.error(values["target_features"], f"architecture '{name}': target_features is "
                           f"{_describe(values['target_features'])}, expected target-id features such "
                           f"as ':sramecc+:xnack-' (or '')")
                ok = False
            fields["target_features"] = feats
        if "product" in values:
            product = _str(values["product"])
            if product is None or not PRODUCT_RE.match(product):
                self.error(values["product"], f"architecture '{name}': product is "
                           f"{_describe(values['product'])}, expected a product name of letters, digits, "
                           f"spaces and . _ ( ) / -")
                ok = False
            fields["product"] = product
        if "head_sizes" in values:
            heads = self.items(values["head_sizes"], "head_size", f"architecture '{name}'",
                               _parse_head_size)
            ok = ok and heads is not None
            fields["head_sizes"] = tuple(heads or ())
        missing = [k for k, f in ArchInfo.__dataclass_fields__.items() if k not in fields
                   and f.default is dataclasses.MISSING]
        if missing:
            self.error(node, f"architecture '{name}' has no {', '.join(missing)}, expected every "
                             f"field of a record or 'like: <known architecture>'")
            return None
        return ArchInfo(**fields) if ok else None

    # --- groups ----------------------------------------------------------

    def groups(self, node) -> list:
        if not isinstance(node, SequenceNode) or not node.value:
            self.dropped_groups = True
        if not isinstance(node, SequenceNode):
            self.error(node, f"groups is {_describe(node)}, expected a list of groups")
            return []
        if not node.value:
            self.error(node, "groups is an empty list, expected at least one group")
            return []
        out = []
        for index, gnode in enumerate(node.value):
            g = self.group(gnode, index)
            if g is None:
                self.dropped_groups = True
            else:
                out.append(g)
        return out

    def group(self, node, index: int) -> Optional[Group]:
        if not isinstance(node, MappingNode):
            self.error(node, f"group #{index + 1} is {_describe(node)}, expected a mapping "
                             f"with keys {', '.join(GROUP_KEYS)}")
            return None
        raw_name = next((_str(v) for k, v in node.value if _str(k) == "name"), None)
        label = f"group '{raw_name}'" if raw_name else f"group #{index + 1}"
        entries = self.entries(node, label)
        values = {key: (knode, vnode) for key, knode, vnode in entries}
        name = f"#{index + 1}"
        ok = True
        if "name" not in values:
            self.error(node, f"group #{index + 1} has no 'name', expected a name such as "
                             f"'general'")
            ok = False
        else:
            nnode = values["name"][1]
            s = _str(nnode)
            if s is None or not GROUP_NAME_RE.match(s):
                self.error(nnode, f"group name is {_describe(nnode)}, expected lower-case "
                                  f"letters, digits, '-' and '_'")
                ok = False
            else:
                name = s
        where = f"group '{name}'"
        for key, knode, _ in entries:
            if key not in GROUP_KEYS:
                self.error(knode, f"unknown key '{key}' in {where}{_suggest(key, GROUP_KEYS)}, "
                                  f"expected {_one_of(GROUP_KEYS)}")
                ok = False
        if "description" in values and _str(values["description"][1]) is None:
            dnode = values["description"][1]
            self.error(dnode, f"description of {where} is {_describe(dnode)}, expected text")
            ok = False
        for key in REQUIRED_GROUP_KEYS:
            if key not in values:
                self.error(node, f"{where} has no '{key}', expected {_list_help(key)}")
                ok = False
        parsed = {}
        for key, item_parser in _ITEM_PARSERS.items():
            if key not in values:
                parsed[key] = list(GROUP_DEFAULTS.get(key, []))
                continue
            items = self.items(values[key][1], key, where, item_parser)
            if items is None:
                ok = False
            parsed[key] = items
        overrides = ()
        if "tile_config" in values:
            overrides = self.tile_config(values["tile_config"][1], where)
            ok = ok and overrides is not None
        if not ok:
            return None
        return Group(name=name, file=self.mfile, line=_line(node), archs=parsed["arch"],
                     dtypes=parsed["dtypes"], head_sizes=parsed["head_size"],
                     block_sizes=parsed["block_size"], feature_sets=parsed["features"],
                     paths=parsed["path"], tiles=parsed["tile"], tile_overrides=overrides)

    def tile_config(self, node, where: str) -> Optional[tuple]:
        """((field, value), ...) of a group's `tile_config` mapping (tiles.OVERRIDABLE
        fields of the tile record), sorted by field; None after reporting any problem."""
        fields = sorted(OVERRIDABLE)
        if not isinstance(node, MappingNode) or not node.value:
            self.error(node, f"'tile_config' of {where} is {_describe(node)}, expected a mapping "
                             f"of tile record fields to values, fields {_one_of(fields)}")
            return None
        out, ok = [], True
        for key, knode, vnode in self.entries(node, f"'tile_config' of {where}"):
            if key not in OVERRIDABLE:
                self.error(knode, f"'tile_config' of {where}: '{key}' is not a tile record field a "
                                  f"matrix may set{_suggest(key, fields)}, expected {_one_of(fields)}")
                ok = False
                continue
            if key in BOOL_FIELDS:
                if vnode.tag != _BOOL:
                    self.error(vnode, f"'tile_config' of {where}: {key} is {_describe(vnode)}, "
                                      f"expected true or false")
                    ok = False
                    continue
                out.append((key, _CONSTRUCTOR.construct_object(vnode)))
            else:
                v = _int(vnode)
                if v is None or not 1 <= v <= MAX_TILE_KNOB:
                    self.error(vnode, f"'tile_config' of {where}: {key} is {_describe(vnode)}, "
                                      f"expected an integer from 1 to {MAX_TILE_KNOB}")
                    ok = False
                    continue
                out.append((key, v))
        return tuple(sorted(out)) if ok else None

    def items(self, node, key: str, where: str, parse) -> Optional[list]:
        """Parsed items of the list `key`; None after reporting any problem."""
        if not isinstance(node, SequenceNode):
            self.error(node, f"'{key}' of {where} is {_describe(node)}, expected "
                             f"{_list_help(key)}")
            return None
        if not node.value:
            self.error(node, f"'{key}' of {where} is an empty list, expected {_list_help(key)}")
            return None
        out, first_line, ok = [], {}, True
        for item in node.value:
            try:
                value = parse(item)
            except _Bad as bad:
                self.error(bad.node or item, f"{where}: {bad}")
                ok = False
                continue
            if value in first_line:
                self.error(item, f"{where}: {_show(key, value)} is listed twice in '{key}' "
                                 f"(first on line {first_line[value]}), expected each value once")
                ok = False
                continue
            first_line[value] = _line(item)
            out.append(value)
        return out if ok else None

    # --- subsets ---------------------------------------------------------

    def subsets(self, node) -> list:
        if not isinstance(node, MappingNode):
            self.error(node, f"subsets is {_describe(node)}, expected a mapping of subset "
                             f"name to a list of instance-name globs")
            return []
        out = []
        for knode, vnode in node.value:
            key = knode.value if isinstance(knode, ScalarNode) else None
            if _str(knode) is None or not SUBSET_NAME_RE.match(key):
                if key is not None and re.match(r"^[0-9]", str(key)):
                    self.error(knode, f"subset name '{key}' is a number; subsets are named, "
                                      f"never numbered, expected a name such as 'ci'")
                else:
                    self.error(knode, f"subset name {_describe(knode)} is not valid, expected "
                                      f"lower-case letters, digits, '-' and '_', starting with a "
                                      f"letter")
                continue
            if any(s.name == key for s in out):
                self.error(knode, f"subset '{key}' is defined twice, expected each name once")
                continue
            globs = self.subset_globs(vnode, key)
            if globs is not None:
                out.append(Subset(name=key, file=self.mfile, line=_line(knode), globs=globs))
        return out

    def subset_globs(self, node, name: str) -> Optional[list]:
        if not isinstance(node, SequenceNode) or not node.value:
            what = "an empty list" if isinstance(node, SequenceNode) else _describe(node)
            self.error(node, f"subset '{name}' is {what}, expected a non-empty list of "
                             f"instance-name globs")
            return None
        out, ok = [], True
        for item in node.value:
            g = _str(item)
            if g is None or not is_valid_glob(g):
                self.error(item, f"subset '{name}' has {_describe(item)}, expected a glob over "
                                 f"instance names (letters, digits, '_', wildcards '*' "
                                 f"and '?')")
                ok = False
                continue
            out.append((g, _line(item)))
        return out if ok else None


# --- item parsers: YAML node -> value, or raise _Bad ---------------------------

def _word(node, what: str, choices) -> str:
    s = _str(node)
    if s is None:
        raise _Bad(f"{what} is {_describe(node)}, expected {_one_of(choices)}")
    if s not in choices:
        raise _Bad(f"unknown {what} '{s}'{_suggest(s, choices)}, expected {_one_of(choices)}")
    return s


def _parse_arch(node) -> str:
    return _word(node, "arch", arch_names())


def _parse_dtype_pair(node) -> tuple:
    if not isinstance(node, SequenceNode) or len(node.value) != 2:
        what = _describe(node)
        if isinstance(node, SequenceNode):
            what += f" of {len(node.value)} items"
        raise _Bad(f"dtype pair is {what}, expected a [q dtype, kv dtype] pair such as "
                   f"[f16, fp8e4m3]")
    return tuple(_word(n, "dtype", DTYPES) for n in node.value)


def _parse_head_size(node) -> int:
    v = _int(node)
    if v is None:
        raise _Bad(f"head_size is {_describe(node)}, expected an integer, {_one_of(HEAD_SIZES)}")
    if v not in HEAD_SIZES:
        raise _Bad(f"head_size {v} is not served, expected {_one_of(HEAD_SIZES)}")
    return v


# A specialised block size is a C++ int template argument; larger pages are
# served by the generic ('any') instances.
MAX_BLOCK_SIZE = 1 << 16


def _parse_block_size(node) -> int:
    if _str(node) == "any":
        return ANY_BLOCK
    v = _int(node)
    if v is None:
        raise _Bad(f"block_size is {_describe(node)}, expected an integer >= 1 or 'any'")
    if v < 1 or v > MAX_BLOCK_SIZE:
        raise _Bad(f"block_size {v} is invalid, expected an integer in [1, {MAX_BLOCK_SIZE}] or 'any'")
    return v


_FEATURE_NAMES = tuple(n for n, _, _ in FEATURES)


def _parse_feature_set(node) -> int:
    s = _str(node)
    if s == "plain":
        return 0
    if s == "all":
        return ALL_FEATURES
    if isinstance(node, ScalarNode):
        return FEATURE_BIT[_word(node, "feature set", ("plain", "all") + _FEATURE_NAMES)]
    if not isinstance(node, SequenceNode):
        raise _Bad(f"feature set is {_describe(node)}, expected plain, all, a feature or a "
                   f"list of features")
    if not node.value:
        raise _Bad("feature set is an empty list, expected 'plain' for no features or a "
                   "list of features")
    mask = 0
    for item in node.value:
        if _str(item) in ("plain", "all"):
            raise _Bad(f"'{item.value}' inside a feature list, expected only feature names "
                       f"({', '.join(_FEATURE_NAMES)}); write {item.value} on its own", item)
        try:
            bit = FEATURE_BIT[_word(item, "feature", _FEATURE_NAMES)]
        except _Bad as bad:
            raise _Bad(str(bad), item)
        if mask & bit:
            raise _Bad(f"feature '{item.value}' is listed twice in one feature set, expected "
                       f"each feature once", item)
        mask |= bit
    return mask


def _parse_path(node) -> str:
    if _str(node) == "reduce":
        raise _Bad("path 'reduce' is not listed: reduce kernels are generated for every "
                   "(arch, head_size) with a 3d instance, expected 2d or 3d")
    return _word(node, "path", PATHS)


def _parse_tile(node) -> str:
    return _word(node, "tile", TILE_NAMES)


_ITEM_PARSERS = {
    "arch": _parse_arch,
    "dtypes": _parse_dtype_pair,
    "head_size": _parse_head_size,
    "block_size": _parse_block_size,
    "features": _parse_feature_set,
    "path": _parse_path,
    "tile": _parse_tile,
}

def _list_help(key: str) -> str:
    if key == "arch":
        return f"a list of archs ({', '.join(arch_names())})"
    return _LIST_HELP[key]


_LIST_HELP = {
    "dtypes": "a list of [q dtype, kv dtype] pairs such as [[f16, f16], [bf16, fp8e4m3]]",
    "head_size": f"a list of head sizes ({', '.join(map(str, HEAD_SIZES))})",
    "block_size": "a list of block sizes (integers >= 1) and/or 'any'",
    "features": "a list of feature sets (plain, all, a feature, or a list of features)",
    "path": "a list of paths (2d, 3d)",
    "tile": f"a list of tiles ({', '.join(TILE_NAMES)})",
}


def _show(key: str, value) -> str:
    if key == "dtypes":
        return f"[{value[0]}, {value[1]}]"
    if key == "block_size" and value == ANY_BLOCK:
        return "'any'"
    if key == "features":
        return f"feature set '{feature_token(value)}'"
    return f"'{value}'"


# --- entry point ---------------------------------------------------------------

def display_path(given: str) -> str:
    """Repository-relative POSIX path of a matrix file inside the repository, else as given.

    Used in generated files and the manifest so that output does not depend on
    where the checkout lives.
    """
    try:
        return Path(given).resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return given


def candidate_count(g: Group) -> int:
    """Candidates a group expands to before the rules prune (its cartesian product)."""
    n = 1
    for values in (g.archs, g.dtypes, g.head_sizes, g.block_sizes, g.feature_sets, g.paths,
                   g.tiles):
        n *= len(values)
    return n


def load_matrices(paths: list) -> tuple:
    """Read and validate matrix files; returns (Matrix, [Diagnostic]).

    Groups and subsets of all files are merged; group and subset names must be
    unique across files. On any diagnostic the Matrix holds only the valid parts.
    """
    matrix, diags = Matrix(), []
    group_at: dict = {}
    candidates = 0
    declared_archs: list = []
    declare_archs(declared_archs)
    for given in paths:
        try:
            data = read_input_file(given, MAX_FILE_BYTES)
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            reason = e.strerror if isinstance(e, OSError) else "not UTF-8 text"
            diags.append(Diagnostic(given, None, f"cannot read the matrix file ({reason}), "
                                                 f"expected a readable YAML file"))
            matrix.incomplete = True
            continue
        mfile = MatrixFile(given=given, display=display_path(given),
                           sha256=hashlib.sha256(data).hexdigest())
        matrix.files.append(mfile)
        try:
            deep = _nesting_error(text)
            if deep:
                diags.append(Diagnostic(given, deep[0], deep[1]))
                matrix.incomplete = True
                continue
            root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            what = (e.problem or e.context or "malformed input").removeprefix("but ")
            if e.context and e.context_mark and e.problem_mark:
                what += f" ({e.context} that starts on line {e.context_mark.line + 1})"
            diags.append(Diagnostic(given, mark.line + 1 if mark else 1,
                                    f"YAML syntax error: {what}; expected well-formed YAML"))
            matrix.incomplete = True
            continue
        except yaml.YAMLError as e:
            diags.append(Diagnostic(given, 1, f"YAML error: {e}, expected well-formed YAML"))
            matrix.incomplete = True
            continue
        tagged = _tag_errors(root) if root is not None else []
        if tagged:
            diags.extend(Diagnostic(given, line, message) for line, message in tagged)
            matrix.incomplete = True
            continue
        checker = _FileChecker(mfile, declared_archs)
        groups, subsets = checker.check(root)
        diags.extend(checker.diags)
        if checker.dropped_groups:
            matrix.incomplete = True
        for g in groups:
            if g.name in group_at:
                first = group_at[g.name]
                diags.append(Diagnostic(given, g.line, f"group name '{g.name}' is already used "
                                        f"at {first}, expected unique group names"))
                matrix.incomplete = True
                continue
            group_at[g.name] = f"{given}:{g.line}"
            n = candidate_count(g)
            if candidates + n > MAX_CANDIDATES:
                diags.append(Diagnostic(given, g.line, f"group '{g.name}' has {n} candidates "
                                        f"(arch x dtypes x head_size x block_size x features x "
                                        f"path x tile), {candidates + n} with the groups before "
                                        f"it, expected at most {MAX_CANDIDATES} in all"))
                matrix.incomplete = True
                continue
            candidates += n
            matrix.groups.append(g)
        for s in subsets:
            if s.name in matrix.subsets:
                first = matrix.subsets[s.name]
                diags.append(Diagnostic(given, s.line, f"subset '{s.name}' is already defined at "
                                        f"{first.file.given}:{first.line}, expected unique "
                                        f"subset names"))
                continue
            matrix.subsets[s.name] = s
    order = {given: n for n, given in enumerate(paths)}
    diags.sort(key=lambda d: (order.get(d.file, 0), d.line or 0))
    return matrix, diags
