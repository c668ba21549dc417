"""Every malformed matrix is reported as `file:LINE: ...`, exit status 2, nothing written."""
import pytest

from gen_helpers import BAD, DEFAULT_YAML, tree, write_matrix

# file -> [(line, phrase)]: exactly these diagnostics, in this order.
EXPECTED = {
    "syntax_error.yaml": [(5, "YAML syntax error: expected ',' or ']'")],
    "unknown_top_key.yaml": [(7, "unknown top-level key 'subset' (did you mean 'subsets'?)")],
    "unknown_group_key.yaml": [(3, "group 'g' has no 'head_size'"),
                               (6, "unknown key 'head_sizes' in group 'g' (did you mean "
                                   "'head_size'?)")],
    "arch_not_a_list.yaml": [(4, "'arch' of group 'g' is the string 'gfx950', expected a list")],
    "unknown_arch.yaml": [(6, "unknown arch 'gfx942'")],
    "unknown_dtype.yaml": [(7, "unknown dtype 'fp8e5m2'")],
    "dtype_not_a_pair.yaml": [(5, "dtype pair is the string 'f16', expected a [q dtype, kv dtype]"),
                              (5, "dtype pair is the string 'bf16'")],
    "unknown_feature.yaml": [(9, "unknown feature 'rope'")],
    "unknown_tile.yaml": [(7, "unknown tile 'medium', expected one of: small, large")],
    "unknown_path.yaml": [(7, "path 'reduce' is not listed")],
    "bad_head_size.yaml": [(6, "head_size 100 is not served, expected one of: 64, 80, 96")],
    "head_size_string.yaml": [(6, "head_size is the string '128', expected an integer")],
    "block_size_zero.yaml": [(9, "block_size 0 is invalid, expected an integer in [1, 65536] or 'any'")],
    "block_size_huge.yaml": [(7, "block_size 2147483648 is invalid, expected an integer in [1, 65536] or 'any'")],
    "empty_list.yaml": [(6, "'head_size' of group 'g' is an empty list")],
    "duplicate_group.yaml": [(7, "group name 'same' is already used at")],
    "duplicate_key.yaml": [(7, "key 'arch' appears twice in group 'g' (first on line 4)")],
    "duplicate_value.yaml": [(9, "feature set 'wincap' is listed twice in 'features' "
                                 "(first on line 8)")],
    "subset_matches_nothing.yaml": [(11, "glob 'uattn_gfx1030_*' of subset 'ci' matches no "
                                         "instance")],
    "bad_glob.yaml": [(9, "subset 'ci' has the string 'uattn_gfx950_[23]d_*', expected a glob")],
    "numbered_subset.yaml": [(8, "subset name '600' is a number; subsets are named, never "
                                 "numbered")],
    "wrong_version.yaml": [(2, "version is the integer 2, expected 1")],
    "missing_dtypes.yaml": [(7, "group 'no-dtypes' has no 'dtypes'")],
    "empty_file.yaml": [(1, "the file is empty")],
    "arch_record.yaml": [(5, "architecture 'gfx1099': matrix_insn is the string 'wmma', expected "
                              "one of: mfma_32x32x16, dot2"),
                         (6, "unknown key 'colour' in an architecture record"),
                         (7, "architecture 'gfx1100' has no matrix_insn, rows_per_wave"),
                         (9, "architecture 'gfx950' is already defined")],
    "many_errors.yaml": [(4, "unknown arch 'gfx9000'"), (6, "head_size 100 is not served"),
                         (11, "block_size -16 is invalid"), (12, "unknown key 'colour'")],
}


def _diagnostics(err: str, path: str) -> list:
    return [line for line in err.splitlines() if line.startswith(path + ":")]


def test_every_bad_file_has_an_expectation():
    assert sorted(p.name for p in BAD.glob("*.yaml")) == sorted(EXPECTED)
    assert len(EXPECTED) >= 12


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_matrix_is_reported_and_nothing_written(run, tmp_path, name):
    path = str(BAD / name)
    out = tmp_path / "out"
    rc, stdout, err = run("generate", "--matrix", path, "--out", out)
    assert rc == 2
    diags = _diagnostics(err, path)
    assert len(diags) == len(EXPECTED[name]), err
    for got, (line, phrase) in zip(diags, EXPECTED[name]):
        assert got.startswith(f"{path}:{line}: "), err
        assert phrase in got, err
    assert "nothing was written" in err
    assert not out.exists()


def test_error_leaves_an_existing_tree_untouched(run, tmp_path):
    out = tmp_path / "out"
    assert run("generate", "--matrix", DEFAULT_YAML, "--subset", "ci", "--out", out)[0] == 0
    before = tree(out)
    rc, _, err = run("generate", "--matrix", DEFAULT_YAML, "--matrix", BAD / "unknown_arch.yaml",
                     "--out", out)
    assert rc == 2 and "unknown arch 'gfx942'" in err
    assert tree(out) == before


def test_list_reports_the_same_errors(run):
    rc, out, err = run("list", "--matrix", BAD / "many_errors.yaml")
    assert rc == 2 and out == ""
    assert len(_diagnostics(err, str(BAD / "many_errors.yaml"))) == 4


def test_unknown_subset_on_the_command_line(run, tmp_path):
    rc, _, err = run("generate", "--matrix", DEFAULT_YAML, "--subset", "nightly",
                     "--out", tmp_path / "out")
    assert rc == 2
    assert "--subset 'nightly' is not defined" in err and "expected one of: ci," in err
    assert not (tmp_path / "out").exists()


def test_invalid_filter_glob_on_the_command_line(run, tmp_path):
    rc, _, err = run("list", "--matrix", DEFAULT_YAML, "--filter", "uattn_[ab]*")
    assert rc == 2 and "--filter 'uattn_[ab]*' is not a valid glob" in err


def test_selection_matching_nothing_is_an_error(run, tmp_path):
    rc, _, err = run("generate", "--matrix", DEFAULT_YAML, "--filter", "uattn_gfx942_*",
                     "--out", tmp_path / "out")
    assert rc == 2 and "matches no instance" in err
    assert not (tmp_path / "out").exists()


def test_unreadable_matrix_file(run, tmp_path):
    missing = str(tmp_path / "nope.yaml")
    rc, _, err = run("list", "--matrix", missing)
    assert rc == 2 and f"{missing}: cannot read the matrix file" in err


def test_group_names_are_unique_across_files(run, tmp_path):
    group = "  - name: general\n    arch: [gfx950]\n    dtypes: [[f16, f16]]\n    head_size: [64]\n"
    other = write_matrix(tmp_path / "other.yaml", group)
    rc, _, err = run("list", "--matrix", DEFAULT_YAML, "--matrix", other)
    assert rc == 2
    assert f"{other}:3: group name 'general' is already used at {DEFAULT_YAML}:" in err


def test_subset_names_are_unique_across_files(run, tmp_path):
    group = "  - name: extra\n    arch: [gfx950]\n    dtypes: [[f16, f16]]\n    head_size: [64]\n"
    other = write_matrix(tmp_path / "other.yaml", group, "  ci: [\"uattn_*\"]\n")
    rc, _, err = run("list", "--matrix", DEFAULT_YAML, "--matrix", other)
    assert rc == 2 and f"{other}:8: subset 'ci' is already defined at" in err


def test_glob_matching_only_pruned_candidates_says_so(run, tmp_path):
    group = ("  - name: g\n    arch: [gfx950]\n    dtypes: [[f16, f16]]\n    head_size: [64]\n"
             "    path: [3d]\n    tile: [small, large]\n")
    m = write_matrix(tmp_path / "m.yaml", group, "  big3d: [\"*_3d_*_m128n64w4\"]\n")
    rc, _, err = run("list", "--matrix", m)
    assert rc == 2 and f"{m}:10: glob '*_3d_*_m128n64w4'" in err
    assert "matches only pruned candidates" in err
