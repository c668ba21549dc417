"""Hostile matrices (hostile-input class 6, docs/reliability.md): each is reported as `file:LINE: ...` with
exit status 2 and nothing written, never a traceback (status 1 is reserved for
write failures) and never a hang."""
import os

import pytest

from gen_helpers import write_matrix
from uattn_gen import schema

GROUP = "  - name: g\n    arch: [gfx950]\n    dtypes: [[f16, f16]]\n"


def _refused(run, tmp_path, path, line, phrase):
    out = tmp_path / "out"
    rc, _, err = run("generate", "--matrix", path, "--out", out)
    assert rc == 2, err
    assert f"{path}:{line}: " in err and phrase in err, err
    assert "Traceback" not in err
    assert "nothing was written" in err
    assert not out.exists()
    return err


@pytest.mark.parametrize("text, shown", [
    ("0x_", "'0x_', which is not a valid YAML integer"),
    ("!!int ''", "'', which is not a valid YAML integer"),
    ("1" * 5000, "'" + "1" * 40 + "...', which is not a valid YAML integer"),
])
def test_integers_the_constructor_refuses(run, tmp_path, text, shown):
    m = write_matrix(tmp_path / "m.yaml", GROUP + f"    head_size: [{text}]\n")
    _refused(run, tmp_path, m, 6, f"head_size is {shown}, expected an integer")


def test_invalid_integer_as_version(run, tmp_path):
    m = tmp_path / "m.yaml"
    m.write_text("version: 0x_\ngroups:\n" + GROUP + "    head_size: [128]\n")
    _refused(run, tmp_path, m, 1, "version is '0x_', which is not a valid YAML integer, expected 1")


def test_deep_nesting(run, tmp_path):
    depth = 5000  # the composer would raise RecursionError long before this
    m = tmp_path / "m.yaml"
    m.write_text("version: 1\ngroups:\n" + GROUP + "    head_size: " + "[" * depth + "]" * depth + "\n")
    _refused(run, tmp_path, m, 6, f"nest deeper than {schema.MAX_DEPTH} levels")


def test_tags_on_collections(run, tmp_path):
    m = write_matrix(tmp_path / "m.yaml",
                     "  - name: g\n    arch: !!bool [gfx950]\n    dtypes: [[f16, f16]]\n"
                     "    head_size: !!set {128: null}\n")
    err = _refused(run, tmp_path, m, 4, "a list tagged '!!bool', expected an untagged list")
    assert f"{m}:6: a mapping tagged '!!set', expected an untagged mapping" in err


def test_alias_bomb_is_not_walked_exponentially(run, tmp_path):
    lines = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]"
                               for i in range(1, 10)]
    m = tmp_path / "m.yaml"
    m.write_text("\n".join(lines) + "\ntagged: !!bool [1]\n")  # 10^9 paths, 11 nodes
    rc, _, err = run("list", "--matrix", m)
    assert rc == 2 and f"{m}:11: a list tagged '!!bool'" in err


def test_expansion_has_a_cap(run, tmp_path):
    blocks = ", ".join(str(b) for b in range(1, 2 ** 13 + 1))
    n = 2 * 2 ** 13 * 4 * 2 * 2  # dtypes x block_size x head_size x path x tile
    m = write_matrix(tmp_path / "m.yaml",
                     "  - name: big\n    arch: [gfx950]\n    dtypes: [[f16, f16], [bf16, bf16]]\n"
                     f"    head_size: [64, 96, 128, 256]\n    block_size: [{blocks}]\n"
                     "    tile: [small, large]\n")
    assert n > schema.MAX_CANDIDATES
    _refused(run, tmp_path, m, 3, f"group 'big' has {n} candidates (arch x dtypes x head_size x "
                                  f"block_size x features x path x tile), {n} with the groups before "
                                  f"it, expected at most {schema.MAX_CANDIDATES} in all")


def test_fifo_is_refused_without_blocking(run, tmp_path):
    fifo = tmp_path / "m.yaml"
    os.mkfifo(fifo)
    rc, _, err = run("list", "--matrix", fifo)  # a blocking read would never return
    assert rc == 2
    assert f"{fifo}: cannot read the matrix file (it is a FIFO), expected a readable YAML file" in err


def test_oversized_file_is_refused_unread(run, tmp_path):
    m = tmp_path / "m.yaml"
    with open(m, "wb") as f:
        f.truncate(schema.MAX_FILE_BYTES + 1)  # sparse
    rc, _, err = run("list", "--matrix", m)
    assert rc == 2
    assert f"(it is {schema.MAX_FILE_BYTES + 1} bytes, more than {schema.MAX_FILE_BYTES})" in err


def test_documented_limits_are_the_code_limits():
    from gen_helpers import REPO
    doc = (REPO / "docs" / "yaml-schema.md").read_text()
    assert f"at most {schema.MAX_FILE_BYTES} bytes" in doc
    assert f"at most {schema.MAX_DEPTH} levels" in doc
    assert f"at most {schema.MAX_CANDIDATES} candidates" in doc
