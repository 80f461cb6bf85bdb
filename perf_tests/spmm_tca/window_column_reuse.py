#!/usr/bin/env python3
"""Column reuse inside TCA-SpMM's 8-row windows, per Matrix Market file.

For each matrix prints nnz / (sum over windows of the distinct columns the window's rows
use): how many times fewer B rows a kernel would gather if each window fetched every
column it needs once instead of once per nonzero. Pattern only (values ignored); a
symmetric file is expanded. Usage: window_column_reuse.py <dir of .mtx/.mtx.gz> [rows per window = 8]
"""
import gzip
import os
import sys


def read_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    rows, n_rows, symmetric, header = {}, 0, False, True
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith("%%"):
                symmetric = "symmetric" in line or "hermitian" in line
                continue
            if line.startswith("%") or not line.strip():
                continue
            parts = line.split()
            if header:
                n_rows, header = int(parts[0]), False
                continue
            i, j = int(parts[0]) - 1, int(parts[1]) - 1
            rows.setdefault(i, set()).add(j)
            if symmetric and i != j:
                rows.setdefault(j, set()).add(i)
    return n_rows, rows


def main():
    folder = sys.argv[1]
    window = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    results = []
    for name in sorted(os.listdir(folder)):
        if not (name.endswith(".mtx") or name.endswith(".mtx.gz")):
            continue
        n_rows, rows = read_rows(os.path.join(folder, name))
        nnz = sum(len(c) for c in rows.values())
        gathered = 0
        for w in range(0, n_rows, window):
            cols = set()
            for r in range(w, min(w + window, n_rows)):
                cols |= rows.get(r, set())
            gathered += len(cols)
        results.append((nnz / gathered if gathered else 1.0, name, n_rows, nnz))
    print(f"| matrix | rows | nnz | nnz / distinct columns per {window}-row window |")
    print("|---|---:|---:|---:|")
    for reuse, name, n_rows, nnz in sorted(results):
        print(f"| {name} | {n_rows} | {nnz} | {reuse:.2f} |")


if __name__ == "__main__":
    main()
