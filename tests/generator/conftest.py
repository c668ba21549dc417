"""Fixtures of the generator tests: an in-process CLI runner and the default matrix."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_helpers import DEFAULT_YAML, load
from uattn_gen import cli


@pytest.fixture
def run(capsys):
    """run(*argv) -> (exit status, stdout, stderr) of the CLI, in-process."""
    def _run(*argv):
        try:
            rc = cli.main([str(a) for a in argv])
        except SystemExit as e:   # argparse usage errors
            rc = e.code
        out, err = capsys.readouterr()
        return rc, out, err
    return _run


@pytest.fixture(scope="session")
def default():
    """(Matrix, Expansion) of instances/default.yaml."""
    return load(DEFAULT_YAML)
