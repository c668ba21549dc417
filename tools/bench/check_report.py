#!/usr/bin/env python3
"""Checks a uattn-bench --report file against its schema (docs/bench.md, "JSON report").

Usage: check_report.py REPORT [--set NAME] [--arch ARCH [--matrix FILE]...] [--backend cpu|hip] [--model] [--candidates]
--model: the report of `uattn-bench --model` (the whole-launch model's fields too).
--candidates: the report of `uattn-bench --model --model-candidates` (every candidate ran, matched the
reference and was modelled; the selector-against-the-model fields are consistent).
Exit 0 when the report is well-formed and every lane passed; 1 otherwise, one line per problem.
With --arch the device must be of that architecture record (generator/uattn_gen/model.py, plus the
`architectures:` of each --matrix): its processor is the record's offload target, its wave size
and LDS per workgroup the record's wave_size and lds_budget, and on the
CPU-backed device (--backend cpu) its name and CU count are the record's reference part's.
"""
import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generator"))
from uattn_gen.model import ARCH_INFO  # noqa: E402  (the architecture records)
from uattn_gen.schema import load_matrices  # noqa: E402

NUM = (int, float)
TOP = {"tool": str, "report_version": int, "device": dict, "timing": str, "set": str, "lanes": list,
       "attempts": int, "warmup": int, "rotate": int, "scale_budget": NUM, "failures": int, "scenarios": list}
DEVICE = {"index": int, "name": str, "gcn_arch_name": str, "compute_units": int, "wave_size": int,
          "lds_per_workgroup": int, "backend": str}
SCENARIO = {"scenario": str, "set": str, "dtype": str, "kv_dtype": str, "block_size": int, "head_size": int,
            "num_query_heads": int, "num_kv_heads": int, "num_seqs": int, "total_q": int, "scale_divisor": int, "seq_divisor": int,
            "bytes": NUM, "flops": NUM, "seqs_q_kv": list}
LANE = {"_vs_ref": dict, "_vs_lanes": dict, "_path": str, "_instance": str, "_reduce_instance": str,
        "_num_segments": int, "_ok": bool, "_error": str}
TIMED = ("_ms", "_gbps", "_tflops")


def check(doc, args):
    errs = []

    def need(obj, spec, where):
        for key, typ in spec.items():
            if key not in obj:
                errs.append(f"{where}: '{key}' is missing")
            elif not isinstance(obj[key], typ) or (typ is int and isinstance(obj[key], bool)):
                errs.append(f"{where}: '{key}' = {obj[key]!r} is not {typ}")

    need(doc, TOP, "report")
    if errs:
        return errs
    need(doc["device"], DEVICE, "device")
    if doc["tool"] != "uattn-bench":
        errs.append(f"report: tool = {doc['tool']!r}, expected 'uattn-bench'")
    if args.set and doc["set"] != args.set:
        errs.append(f"report: set = {doc['set']!r}, expected {args.set!r}")
    backend = doc["device"].get("backend")
    if args.arch:
        rec = ARCH_INFO[args.arch]
        dev = doc["device"]
        if str(dev.get("gcn_arch_name", "")).split(":")[0] != rec.offload_target:
            errs.append(f"device: gcn_arch_name = {dev.get('gcn_arch_name')!r}, expected {args.arch}'s "
                        f"processor {rec.offload_target}")
        for key, want in (("wave_size", rec.wave_size), ("lds_per_workgroup", rec.lds_budget)):
            if dev.get(key) != want:
                errs.append(f"device: {key} = {dev.get(key)!r}, expected {args.arch}'s {want}")
        if backend == "cpu" and dev.get("compute_units") != rec.reported_units:
            errs.append(f"device: compute_units = {dev.get('compute_units')!r}, expected {args.arch}'s "
                        f"{rec.reported_units} (CPU-backed device: the record's reference part)")
        if backend == "cpu" and dev.get("name") != rec.product + " (CPU-backed)":
            errs.append(f"device: name = {dev.get('name')!r}, expected {rec.product + ' (CPU-backed)'!r}")
    if args.backend and backend != args.backend:
        errs.append(f"device: backend = {backend!r}, expected {args.backend!r}")
    if not doc["scenarios"]:
        errs.append("report: no scenarios")
    if args.set == "default" and len(doc["scenarios"]) != 13:
        errs.append(f"report: {len(doc['scenarios'])} scenarios, the default set has 13")
    for i, sc in enumerate(doc["scenarios"]):
        where = f"scenarios[{i}] ({sc.get('scenario', '?')})"
        need(sc, SCENARIO, where)
        if sc.get("scale_divisor", 1) < 1:
            errs.append(f"{where}: scale_divisor = {sc['scale_divisor']} < 1")
        for lane in doc["lanes"]:
            k = "uattn_" + lane
            need(sc, {k + s: t for s, t in LANE.items()}, where)
            for s in TIMED:
                v = sc.get(k + s, "missing")
                cpu_times = doc["timing"].startswith("cpu_wall")
                if backend == "cpu" and not cpu_times and v is not None:
                    errs.append(f"{where}: {k + s} = {v!r}; the CPU-backed device reports no times (null)")
                if (backend == "hip" or cpu_times) and not (isinstance(v, NUM) and v > 0):
                    errs.append(f"{where}: {k + s} = {v!r}, expected a positive number")
            ref = sc.get(k + "_vs_ref", {})
            for m in ("max_abs", "mean_abs"):
                if not isinstance(ref.get(m), NUM) or not math.isfinite(ref[m]) or ref[m] < 0:
                    errs.append(f"{where}: {k}_vs_ref.{m} = {ref.get(m)!r}, expected a finite number >= 0")
            others = sc.get(k + "_vs_lanes", {})
            for other in doc["lanes"]:
                if other != lane and other not in others:
                    errs.append(f"{where}: {k}_vs_lanes has no '{other}'")
            if sc.get(k + "_ok") is not True:
                errs.append(f"{where}: lane {lane} failed: {sc.get(k + '_error')}")
            if lane != "auto" and sc.get(k + "_path") not in ("2d", "3d", lane):
                errs.append(f"{where}: lane {lane} ran path {sc.get(k + '_path')!r}")
            if lane in ("2d", "3d") and sc.get(k + "_path") != lane:
                errs.append(f"{where}: forced lane {lane} ran path {sc.get(k + '_path')!r}")
    if args.model:
        errs += check_model(doc)
    if doc["failures"] != 0:
        errs.append(f"report: failures = {doc['failures']}")
    return errs


MODEL_TOP = {"machine": dict, "sched_model": str, "max_traced_groups": int, "sampled_kv_heads": int,
             "triton_dir": str, "seed_source": str}
KERNEL = {"kernel": str, "us": NUM, "compute_us": NUM, "memory_us": NUM, "launch_us": NUM, "bound": str,
          "groups": int, "traced_groups": int, "sampling": str, "waves_per_simd": int, "groups_per_cu": int,
          "simd_cycles": dict}


def check_model(doc):
    """The --model fields: every uattn lane modelled (positive us, the launches' sum, SIMD-cycle shares
    summing to 1); Triton's lane modelled and within tolerance where a configuration serves it."""
    errs = []
    model = doc.get("model")
    if not isinstance(model, dict):
        return ["report: no 'model' object (--model)"]
    for key, typ in MODEL_TOP.items():
        if not isinstance(model.get(key), typ):
            errs.append(f"model: '{key}' = {model.get(key)!r} is not {typ}")
    for i, sc in enumerate(doc["scenarios"]):
        where = f"scenarios[{i}] ({sc.get('scenario', '?')})"
        for lane in doc["lanes"]:
            for side in ("uattn", "triton"):
                k = f"{side}_{lane}"
                us, launches = sc.get(k + "_model_us"), sc.get(k + "_model_launches")
                if side == "triton" and not sc.get(k + "_config"):
                    continue
                if not (isinstance(us, NUM) and us > 0):
                    errs.append(f"{where}: {k}_model_us = {us!r}, expected a positive number "
                                f"({sc.get(k + '_model_error') or sc.get(k + '_error')})")
                    continue
                if not isinstance(launches, list) or not launches:
                    errs.append(f"{where}: {k}_model_launches is not a non-empty list")
                    continue
                if abs(sum(x.get("us", 0) for x in launches) - us) > 1e-6 * us:
                    errs.append(f"{where}: {k}_model_us {us} is not the sum of its launches")
                for j, ln in enumerate(launches):
                    for key, typ in KERNEL.items():
                        if not isinstance(ln.get(key), typ):
                            errs.append(f"{where}: {k}_model_launches[{j}].{key} = {ln.get(key)!r} is not {typ}")
                    g, tg = ln.get("groups"), ln.get("traced_groups")
                    if isinstance(g, int) and isinstance(tg, int) and not 0 < tg <= g:
                        errs.append(f"{where}: {k}_model_launches[{j}]: {tg} of {g} workgroups traced")
                    if (model.get("sampled_kv_heads") or 0) == 0 and model.get("max_traced_groups") == 0 \
                            and tg != g:
                        errs.append(f"{where}: {k}_model_launches[{j}]: {tg} of {g} workgroups traced, no sampling asked")
                    shares = ln.get("simd_cycles", {})
                    if isinstance(shares, dict) and abs(sum(shares.values()) - 1) > 1e-6:
                        errs.append(f"{where}: {k}_model_launches[{j}].simd_cycles sum to {sum(shares.values())}")
                if side == "triton":
                    ref = sc.get(k + "_vs_ref") or {}
                    if not ref.get("ok"):
                        errs.append(f"{where}: Triton lane {lane} out of tolerance: {sc.get(k + '_error')}")
            if "seed_triton_" + lane + "_us" not in sc:
                errs.append(f"{where}: 'seed_triton_{lane}_us' is missing")
    return errs


def check_candidates(doc):
    """The --model-candidates fields: every candidate ran, matched the reference and was modelled;
    the fastest is the minimum of the candidates; the auto lane's ratio to it is consistent."""
    errs = []
    for sc in doc.get("scenarios", []):
        where = f"scenario {sc.get('scenario')}"
        cands = sc.get("model_candidates")
        if not isinstance(cands, list) or not cands:
            errs.append(f"{where}: no 'model_candidates' list (--model-candidates)")
            continue
        times = []
        for c in cands:
            us = c.get("model_us")
            if not c.get("ok") or not isinstance(us, (int, float)) or us <= 0:
                errs.append(f"{where}: candidate {c.get('path')} {c.get('instance')} x{c.get('num_segments')}: "
                            f"not run or not modelled ({c.get('error')})")
                continue
            if c.get("path") == "2d" and c.get("num_segments") != 1:
                errs.append(f"{where}: 2d candidate {c.get('instance')} with {c.get('num_segments')} segments")
            times.append(us)
        best, sel, ratio = sc.get("model_best_us"), sc.get("model_selector_us"), sc.get("model_selector_vs_best")
        if times and (not isinstance(best, (int, float)) or abs(best - min(times)) > 1e-9 * max(1.0, best)):
            errs.append(f"{where}: model_best_us {best!r} is not the fastest candidate's {min(times)}")
        if isinstance(best, (int, float)) and isinstance(sel, (int, float)):
            if not isinstance(ratio, (int, float)) or abs(ratio - sel / best) > 1e-9:
                errs.append(f"{where}: model_selector_vs_best {ratio!r} is not {sel} / {best}")
            elif sc.get("model_selector_agrees") != (ratio <= 1.10):
                errs.append(f"{where}: model_selector_agrees {sc.get('model_selector_agrees')!r} with ratio {ratio}")
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report")
    ap.add_argument("--set")
    ap.add_argument("--arch")
    ap.add_argument("--matrix", action="append", default=[], help="a matrix declaring more architectures")
    ap.add_argument("--backend", choices=["cpu", "hip"])
    ap.add_argument("--model", action="store_true", help="check the whole-launch model's fields too")
    ap.add_argument("--candidates", action="store_true", help="check the --model-candidates fields too")
    args = ap.parse_args()
    diags = load_matrices(args.matrix)[1] if args.matrix else []
    for d in diags:
        print(d)
    if diags:
        return 2
    if args.arch and args.arch not in ARCH_INFO:
        print(f"--arch {args.arch}: expected one of {', '.join(ARCH_INFO)}")
        return 2
    try:
        with open(args.report) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{args.report}: cannot read: {e}")
        return 1
    errs = check(doc, args)
    if args.candidates:
        errs += check_candidates(doc)
    for e in errs:
        print(f"{args.report}: {e}")
    if not errs:
        print(f"{args.report}: OK ({len(doc['scenarios'])} scenarios, lanes {','.join(doc['lanes'])})")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
