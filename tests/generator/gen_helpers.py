"""Helpers of the generator tests (imported by the test modules and conftest.py)."""
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "generator"
DEFAULT_YAML = REPO / "instances" / "default.yaml"
BAD = Path(__file__).resolve().parent / "bad"

if str(GENERATOR) not in sys.path:
    sys.path.insert(0, str(GENERATOR))

from uattn_gen.expand import expand  # noqa: E402
from uattn_gen.schema import load_matrices  # noqa: E402


def load(*paths):
    """(Matrix, Expansion) of matrix files that must be valid."""
    matrix, diags = load_matrices([str(p) for p in paths])
    assert not diags, "\n".join(map(str, diags))
    return matrix, expand(matrix)


def tree(root: Path) -> dict:
    """{relative path: bytes} of every file under root."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def write_matrix(path: Path, groups_yaml: str, subsets_yaml: str = "") -> Path:
    """Write a small matrix file: `version: 1`, the given groups block, optional subsets."""
    text = "version: 1\ngroups:\n" + groups_yaml
    if subsets_yaml:
        text += "subsets:\n" + subsets_yaml
    path.write_text(text)
    return path
