#!/usr/bin/env python3
"""The `ci` subset's device compiles through distcc, on two loopback workers.

Starts two distccd servers on 127.0.0.2 and 127.0.0.3 (free ports, --allow
127.0.0.0/8, one job each, their statistics HTTP servers on), configures the
project with UATTN_SUBSET=ci and UATTN_DISTCC=ON, and builds the bundle with
DISTCC_HOSTS naming the two servers and DISTCC_FALLBACK=0 (a compile distcc
cannot ship fails the build instead of quietly running here). Then it checks,
from distccd's own statistics (dcc_compile_ok / dcc_compile_error of each
server), that both servers compiled and that together they compiled every
device instance of the build, none failing; and, for one instance per
architecture, that the remotely compiled object is byte-identical to the same
command run locally (DISTCC_HOSTS=localhost: distcc runs it here), and that the
bitcode is identical except for the input name LLVM records as source_filename
(distccd compiles a temporary copy of the .ii).

Exit 77 (skipped) when distcc or distccd is not installed.
usage: distcc_ci.py --src REPO --work DIR --hip CLANG++ [--cmake CMAKE] [--ninja NINJA]
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

from buildsys_common import parser, run

ADDRS = ("127.0.0.2", "127.0.0.3")


def free_port(addr):
    with socket.socket() as s:
        s.bind((addr, 0))
        return s.getsockname()[1]


def wait_listening(addr, port, proc, log):
    for _ in range(100):
        if proc.poll() is not None:
            raise SystemExit(f"distccd on {addr}:{port} exited ({proc.returncode}):\n{open(log).read()}")
        try:
            with socket.create_connection((addr, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"distccd on {addr}:{port} is not listening after 10 s:\n{open(log).read()}")


def stats(addr, port):
    """distccd's statistics page: 'name value' lines between <distccstats> tags."""
    text = urllib.request.urlopen(f"http://{addr}:{port}/", timeout=10).read().decode()
    out = {}
    for line in text.splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[0].startswith("dcc_"):
            out[parts[0]] = parts[1]
    return out


def disassembled(llvm_dis, bc):
    text = run([llvm_dis, bc, "-o", "-"])
    return [l for l in text.splitlines() if not l.startswith(("; ModuleID", "source_filename"))], \
           [l for l in text.splitlines() if l.startswith("source_filename")]


def main():
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--ninja", default="ninja")
    a = ap.parse_args()
    distccd, distcc = shutil.which("distccd"), shutil.which("distcc")
    if not distccd or not distcc:
        print("SKIP: distcc / distccd not installed")
        return 77
    sfx = a.hip[len(a.hip.rstrip("0123456789-")):] if a.hip[-1].isdigit() else ""
    llvm_dis = shutil.which("llvm-dis" + sfx, path=os.path.dirname(a.hip) + os.pathsep + os.environ["PATH"]) \
        or shutil.which("llvm-dis")
    if not llvm_dis:
        raise SystemExit(f"no llvm-dis{sfx} next to {a.hip} or on PATH")
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(os.path.join(a.work, "distcc-state"))
    build = os.path.join(a.work, "build")

    servers, procs = [], []
    try:
        for addr in ADDRS:
            port, sport = free_port(addr), free_port(addr)
            log = os.path.join(a.work, f"distccd-{addr}.log")
            with open(log, "w") as lf:
                p = subprocess.Popen([distccd, "--no-detach", "--daemon", "--listen", addr, "--port", str(port),
                                      "--allow", "127.0.0.0/8", "--jobs", "1", "--log-stderr", "--log-level=info",
                                      "--stats", "--stats-port", str(sport)],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=lf)
            procs.append(p)
            wait_listening(addr, port, p, log)
            servers.append((addr, port, sport))
        hosts = " ".join(f"{addr}:{port}/1" for addr, port, _ in servers)
        env = dict(os.environ, DISTCC_HOSTS=hosts, DISTCC_FALLBACK="0",
                   DISTCC_DIR=os.path.join(a.work, "distcc-state"))
        for k in ("CCACHE_PREFIX", "DISTCC_VERBOSE", "DISTCC_LOG"):
            env.pop(k, None)
        run([a.cmake, "-S", a.src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
             f"-DCMAKE_HIP_COMPILER={a.hip}", "-DUATTN_SUBSET=ci", "-DUATTN_DISTCC=ON",
             "-DUATTN_BUILD_RUNTIME=OFF", "-DUATTN_BUILD_TESTS=OFF"], env=env)
        t0 = time.time()
        run([a.cmake, "--build", build, "--target", "uattn_bundle", "-j", "2"], env=env)
        wall = time.time() - t0
        objs = sorted(os.path.relpath(os.path.join(d, f), build)
                      for d, _, fs in os.walk(os.path.join(build, "device")) for f in fs if f.endswith(".o"))
        # the generator writes exactly the build's instances (here the ci subset) to generated/instances
        # and one index-check kernel per architecture to generated/checks
        subset = [f for sub in ("instances", "checks") if os.path.isdir(os.path.join(build, "generated", sub))
                  for f in os.listdir(os.path.join(build, "generated", sub)) if f.endswith(".hip")]
        if len(objs) != len(subset) or not objs:
            raise SystemExit(f"{len(objs)} device objects built; the build has {len(subset)} instances")

        per = []
        for addr, _, sport in servers:
            s = stats(addr, sport)
            ok, err = int(s["dcc_compile_ok"]), int(s["dcc_compile_error"])
            per.append(ok)
            print(f"distccd {addr}: dcc_compile_ok {ok}, dcc_compile_error {err}, "
                  f"longest job {s.get('dcc_longest_job', '?')} ({s.get('dcc_longest_job_time_msecs', '?')} ms)")
            if err:
                raise SystemExit(f"distccd {addr} reports {err} failed compiles")
            if ok == 0:
                raise SystemExit(f"distccd {addr} compiled nothing")
        if sum(per) != len(objs):
            raise SystemExit(f"the servers compiled {sum(per)} files; the build has {len(objs)} device instances")

        # byte identity against the same command run here, one instance per architecture
        checked = set()
        for obj in objs:
            arch = obj.split(os.sep)[1]
            if arch in checked:
                continue
            checked.add(arch)
            base = os.path.join(build, obj[:-2])
            for ext in (".o", ".bc"):
                shutil.copyfile(base + ext, base + ext + ".remote")
            cmd = run([a.ninja, "-C", build, "-t", "commands", "-s", obj]).strip().splitlines()[-1]
            run(["sh", "-c", cmd], env=dict(env, DISTCC_HOSTS="localhost"), cwd=build)
            with open(base + ".o", "rb") as f1, open(base + ".o.remote", "rb") as f2:
                if f1.read() != f2.read():
                    raise SystemExit(f"{obj}: the distcc-built object differs from a local compile")
            local_ir, local_name = disassembled(llvm_dis, base + ".bc")
            remote_ir, remote_name = disassembled(llvm_dis, base + ".bc.remote")
            if local_ir != remote_ir:
                raise SystemExit(f"{obj[:-2]}.bc: the distcc-built bitcode differs from a local compile "
                                 f"beyond source_filename")
            print(f"{obj}: identical to a local compile; bitcode source_filename local {local_name} "
                  f"remote {remote_name}")
        print(f"OK: {len(objs)} device compiles on 2 distcc servers ({per[0]} + {per[1]}) in {wall:.0f} s")
        return 0
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


if __name__ == "__main__":
    sys.exit(main())
