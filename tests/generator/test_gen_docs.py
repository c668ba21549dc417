"""docs/yaml-schema.md stays true: its example matrix, listings and error message are re-run."""
import os
import re

from gen_helpers import REPO

DOC = (REPO / "docs" / "yaml-schema.md").read_text()


def _blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", DOC, re.S)


def _example():
    (yaml_text,) = _blocks("yaml")
    return yaml_text


def test_example_listing_and_why_pruned(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "example.yaml").write_text(_example())
    error, listing, pruned = _blocks("text")
    rc, out, _ = run("list", "--matrix", "example.yaml")
    assert rc == 0 and out == listing
    rc, out, _ = run("list", "--matrix", "example.yaml", "--why-pruned")
    assert rc == 0 and out == pruned
    rc, out, _ = run("list", "--matrix", "example.yaml", "--subset", "smoke")
    assert rc == 0
    assert out.split() == [n for n in listing.split() if n.startswith("uattn_gfx950_2d_")]


def test_example_error_message(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = _example().replace("arch: [gfx950]\n", "arch: [gfx942]\n", 1)
    (tmp_path / "example.yaml").write_text(bad)
    error = _blocks("text")[0]
    rc, out, err = run("list", "--matrix", "example.yaml")
    assert rc == 2 and err == error and out == ""


def test_documented_commands_exist(run):
    usage = _blocks("")[0]
    for command in ("list", "generate"):
        assert f"uattn-gen {command}" in usage
    for option in ("--matrix", "--subset", "--filter", "--arch", "--json", "--why-pruned", "--out"):
        assert option in usage
    assert os.access(REPO / "generator" / "uattn-gen", os.X_OK)
