#!/usr/bin/env python3
"""Prints a Markdown ratio table from a Google Benchmark JSON file.

Benchmark names are <kernel>/<implementation>/<matrix>. For every kernel, each
matrix gets one row with the GFLOP/s of every implementation and the speedup of
the first implementation named in --ours over each other one; a geometric mean
closes the table. The header states CPU, threads, date and commit.
"""
import argparse
import json
import math
import re
import subprocess
import sys
from collections import OrderedDict, defaultdict


def commit_of_repo():
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True)
        # The table being written lives in perf_tests/results: it does not make the build dirty.
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                ":(exclude)perf_tests/results"], capture_output=True, text=True, check=True).stdout.strip()
        return out.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("json_file")
    parser.add_argument("--ours", default="tessera")
    parser.add_argument("--threads", default="?")
    parser.add_argument("--title", default="Benchmark")
    parser.add_argument("--cpu", help="CPU model, when the JSON comes from another machine")
    parser.add_argument("--commit", help="commit the benchmark was built from (default: this checkout's HEAD)")
    parser.add_argument("--vs-best", metavar="IMPL,IMPL,...", type=lambda s: s.split(","),
                        help="add columns: ours against the fastest of these on each row, and, where ours is "
                             "labelled 'chose <policy>', that policy's own run against the fastest (policy studies)")
    args = parser.parse_args()

    with open(args.json_file) as f:
        data = json.load(f)
    rates = defaultdict(lambda: defaultdict(dict))  # kernel -> matrix -> impl -> GFLOP/s
    impls = defaultdict(list)
    nnz = {}
    chosen = defaultdict(dict)  # kernel -> matrix -> policy named by the label "chose <policy>"
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        # Drop the attributes Google Benchmark appends (/min_warmup_time:0.050, /real_time).
        name = re.sub(r"/(min_warmup_time:[^/]*|real_time)", "", b.get("run_name", b["name"]))
        kernel, impl, matrix = name.split("/", 2)
        rates[kernel][matrix][impl] = b["GFLOPs"] / 1e9 if b["GFLOPs"] > 1e6 else b["GFLOPs"]
        nnz[matrix] = int(b.get("nnz", 0))
        if b.get("label", "").startswith("chose "):
            chosen[kernel][matrix] = b["label"][len("chose "):]
        if impl not in impls[kernel]:
            impls[kernel].append(impl)

    ctx = data.get("context", {})
    print(f"# {args.title}\n")
    print(f"- CPU: {args.cpu or cpu_model()} ({ctx.get('num_cpus', '?')} logical CPUs), threads: {args.threads}")
    print(f"- date: {ctx.get('date', '?')}")
    print(f"- commit: {args.commit or commit_of_repo()}")
    print(f"- figures: GFLOP/s as the benchmark counts flops (SpMV/SpMM 2 x nnz x N per call, SpGEMM 2 per "
          f"multiply-add, SpTTM and SpMTTKRP 2 per product); speedup = {args.ours} / baseline, same process, same data\n")
    for kernel, by_matrix in rates.items():
        others = [i for i in impls[kernel] if i != args.ours]
        header = ["matrix", "nnz"] + [f"{i} GFLOP/s" for i in impls[kernel]] + [f"speedup vs {o}" for o in others]
        if args.vs_best:
            header += ["speedup vs best policy", "chosen", "chosen vs best policy"]
        print(f"## {kernel}\n")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        logs = defaultdict(list)
        for matrix, by_impl in sorted(by_matrix.items()):
            row = [matrix, str(nnz.get(matrix, ""))]
            row += [f"{by_impl[i]:.2f}" if i in by_impl else "-" for i in impls[kernel]]
            for o in others:
                if args.ours in by_impl and o in by_impl and by_impl[o] > 0:
                    s = by_impl[args.ours] / by_impl[o]
                    logs[o].append(math.log(s))
                    row.append(f"{s:.2f}x")
                else:
                    row.append("-")
            if args.vs_best:
                rated = [o for o in args.vs_best if by_impl.get(o, 0) > 0]
                if args.ours in by_impl and rated:
                    best = max(rated, key=lambda o: by_impl[o])
                    s = by_impl[args.ours] / by_impl[best]
                    logs["best policy"].append(math.log(s))
                    row.append(f"{s:.2f}x ({best})")
                else:
                    row.append("-")
                # The chosen policy's own benchmark (impl "<policy>" or "<prefix>_<policy>").
                pick = chosen[kernel].get(matrix)
                own = [o for o in rated if pick and (o == pick or o.endswith("_" + pick))]
                if own:
                    s = by_impl[own[0]] / max(by_impl[o] for o in rated)
                    logs["chosen vs best policy"].append(math.log(s))
                    row += [pick, f"{s:.2f}x"]
                else:
                    row += [pick or "-", "-"]
            print("| " + " | ".join(row) + " |")
        if others:
            geo = ["**geomean**", ""] + [""] * len(impls[kernel])
            columns = others + (["best policy", None, "chosen vs best policy"] if args.vs_best else [])
            geo += [f"**{math.exp(sum(logs[o]) / len(logs[o])):.2f}x** (min {math.exp(min(logs[o])):.2f}x)" if o and logs[o] else "" if o is None else "-" for o in columns]
            print("| " + " | ".join(geo) + " |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
