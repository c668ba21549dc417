"""Property-based tests of the generator's YAML loader (Hypothesis).

Random mutations of valid matrices (instances/default.yaml, tests/newarch/matrix.yaml)
give either a valid matrix or, for every diagnostic, a `FILE:LINE: ` message and exit
status 2 (docs/yaml-schema.md; status 1 is for write failures only) with nothing
written. Never a traceback. The mutations: delete, duplicate, swap and re-indent
lines; replace a value with one from a hostile list or random text; insert a hostile
line; truncate; insert random characters. Examples are bounded (MAX_EXAMPLES per
source matrix, no deadline per example) so the run takes seconds; no example
database is written. Run: ctest -R fuzz.yaml_loader (label fuzz), or
PYTHONPATH=generator python3 -m pytest -q tests/fuzz/test_yaml_properties.py
"""
import contextlib
import io
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from uattn_gen import cli
from uattn_gen.schema import load_matrices

REPO = Path(__file__).resolve().parents[2]
SOURCES = [REPO / "instances" / "default.yaml", REPO / "tests" / "newarch" / "matrix.yaml"]
MAX_EXAMPLES = int(os.environ.get("UATTN_HYPOTHESIS_EXAMPLES", "40"))

# Values that have broken YAML loaders: odd integers, tags, anchors, flow and block
# collections in scalar places, nulls, floats, huge and negative numbers, unicode.
HOSTILE = ["0x_", "!!int ''", "1" * 400, "-1", "0", "65537", "1e400", ".nan", "~", "null", "''", "!!bool [x]",
           "!!set {a: null}", "&a [1]", "*a", "*undefined", "[", "]", "{", "}", "[[[[[[[[", "- x", "? x", ": x",
           "!!binary aGVsbG8=", "!!python/object:os.system ls", "<<: *a", "|", ">-", "\"\\x00\"", "'\t'",
           "any", "all", "plain", "[window]", "[all, plain]", "gfx950", "gfx9999", "2d", "3d", "small", "large",
           "f16", "fp8e4m3", "[[f16, f16]]", "[f16]", "yes", "on", "2024-01-01", "0o17", "+12", "1_000", "\u00e9\u4e2d",
           "\U0001F600", "\x7f", "#", "&x", "!custom", "%YAML 1.1", "---", "..."]
TOKEN = re.compile(r"[A-Za-z0-9_.+\-]+")

mutation = st.one_of(
    st.tuples(st.just("delete"), st.integers(0, 10**6)),
    st.tuples(st.just("duplicate"), st.integers(0, 10**6)),
    st.tuples(st.just("swap"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("indent"), st.integers(0, 10**6), st.integers(-6, 6)),
    st.tuples(st.just("replace"), st.integers(0, 10**6), st.integers(0, 10**6),
              st.one_of(st.sampled_from(HOSTILE), st.text(max_size=12))),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.integers(0, 8),
              st.one_of(st.sampled_from(HOSTILE), st.text(max_size=20))),
    st.tuples(st.just("truncate"), st.integers(0, 10**6)),
    st.tuples(st.just("chars"), st.integers(0, 10**6), st.text(min_size=1, max_size=4)),
)


def mutate(text: str, ops) -> str:
    for op in ops:
        lines = text.split("\n")
        n = len(lines)
        kind = op[0]
        if kind == "delete" and n > 1:
            del lines[op[1] % n]
        elif kind == "duplicate":
            i = op[1] % n
            lines.insert(i, lines[i])
        elif kind == "swap":
            i, j = op[1] % n, op[2] % n
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "indent":
            i = op[1] % n
            lines[i] = " " * max(op[2], 0) + (lines[i][-op[2]:] if op[2] < 0 and lines[i][:-op[2]].isspace()
                                              else lines[i].lstrip(" ") if op[2] < 0 else lines[i])
        elif kind == "replace":
            i = op[1] % n
            tokens = list(TOKEN.finditer(lines[i]))
            if tokens:
                m = tokens[op[2] % len(tokens)]
                lines[i] = lines[i][:m.start()] + op[3] + lines[i][m.end():]
        elif kind == "insert":
            lines.insert(op[1] % (n + 1), " " * op[2] + op[3])
        elif kind == "truncate":
            return text[:op[1] % (len(text) + 1)]
        elif kind == "chars":
            p = op[1] % (len(text) + 1)
            return text[:p] + op[2] + text[p:]
        text = "\n".join(lines)
    return text


def run_cli(*argv):
    """(exit status, stdout, stderr) of the generator CLI, in-process; any exception propagates."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main([str(a) for a in argv])
        except SystemExit as e:  # argparse usage errors only
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def check_refusal(path: Path, rc: int, err: str):
    assert rc == 2, f"exit status {rc}, expected 2 for a refused matrix:\n{err}"
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("uattn-gen: ") and "nothing was written" in lines[-1], err
    diagnostics = [ln for ln in lines[:-1] if not ln.startswith("  ")]  # indented lines continue a message
    assert diagnostics, err
    at = re.compile(re.escape(str(path)) + r":[1-9][0-9]*: \S")
    for ln in diagnostics:
        assert at.match(ln) or ln.startswith("uattn-gen: "), f"a diagnostic without FILE:LINE:\n{ln}\n---\n{err}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_mutated_matrices_are_valid_or_refused_by_line(source):
    original = source.read_text()

    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(st.lists(mutation, min_size=1, max_size=4))
    def prop(ops):
        text = mutate(original, ops)
        with tempfile.TemporaryDirectory() as tmp:
            path, out = Path(tmp) / "m.yaml", Path(tmp) / "out"
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            rc, stdout, err = run_cli("list", "--matrix", path)
            if rc != 0:
                event("refused")
                check_refusal(path, rc, err)
                rc, _, err = run_cli("generate", "--matrix", path, "--out", out)
                check_refusal(path, rc, err)
                assert not out.exists(), "an output folder was written for a refused matrix"
                return
            # A valid matrix: the loader agrees, and one of its instances generates.
            event("valid")
            _, diags = load_matrices([str(path)])
            assert not diags, diags
            names = stdout.split()
            assert names, "a valid matrix listed no instance"
            rc, _, err = run_cli("generate", "--matrix", path, "--out", out, "--filter", names[0])
            assert rc == 0, err
            assert (out / "manifest.json").is_file() and (out / "table_rows.inc").is_file()
            assert (out / "instances" / f"{names[0]}.hip").is_file()

    prop()
