"""Shared pieces of the build-system tests (incremental.py, distcc_ci.py)."""
import argparse
import subprocess


def run(cmd, env=None, cwd=None):
    """Runs cmd (a list), returns its stdout+stderr; exits the test naming the
    command and the output's tail when it fails."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=cwd)
    if p.returncode != 0:
        raise SystemExit(f"FAILED ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-6000:]}")
    return p.stdout


def parser(doc):
    """The options every build-system test takes: --src REPO --work DIR --hip CLANG++ [--cmake CMAKE]."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--src", required=True, help="the uattn checkout")
    ap.add_argument("--work", required=True, help="scratch folder (emptied first)")
    ap.add_argument("--hip", required=True, help="the HIP clang++")
    ap.add_argument("--cmake", default="cmake")
    return ap
