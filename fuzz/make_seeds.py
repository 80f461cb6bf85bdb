#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets: small valid files of every kind the readers
accept, plus near misses, so that fuzzing starts from the formats' structure.
Usage: make_seeds.py OUT_DIR  (writes OUT_DIR/matrix_market/* and OUT_DIR/tns/*)"""
import gzip
import os
import sys


def matrix_market_seeds():
    coordinate = "%%MatrixMarket matrix coordinate {} {}\n% comment\n{}\n{}"
    yield "real_general.mtx", coordinate.format("real", "general", "3 4 3", "1 1 1.5\n3 4 -2e-3\n2 2 +7\n")
    yield "integer_general.mtx", coordinate.format("integer", "general", "2 2 2", "1 2 -9223372036854775808\n2 1 5\n")
    yield "pattern_symmetric.mtx", coordinate.format("pattern", "symmetric", "3 3 3", "1 1\n3 1\n3 2\n")
    yield "real_skew.mtx", coordinate.format("real", "skew-symmetric", "3 3 2", "2 1 0.5\n3 1 -1\n")
    yield "empty.mtx", coordinate.format("real", "general", "5 5 0", "")
    yield "crlf_no_final_newline.mtx", coordinate.format("real", "general", "2 2 1", "2 2 inf").replace("\n", "\r\n")
    yield "array_general.mtx", "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n"
    yield "array_symmetric.mtx", "%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n"
    yield "array_no_rows.mtx", "%%MatrixMarket matrix array real general\n0 4611686018427387904\n"
    yield "too_many.mtx", coordinate.format("real", "general", "2 2 1", "1 1 1\n2 2 2\n")
    yield "long_header.mtx", coordinate.format("real", "general", "2 2 1", "1 2 3\n").replace(
        "% comment\n", "% comment\n" * 40)


def tns_seeds():
    yield "order3.tns", "# a comment\n1 2 3 1.5\n4 1 1 -2\n2 5 2 +3e2\n"
    yield "shape.tns", "# shape 5 6 7\n1 1 1 0.25\n5 6 7 -0.0\n"
    yield "empty_with_shape.tns", "# written by Tessera\n# shape 4 0 9\n"
    yield "order1_crlf.tns", "3 1.0\r\n1 nan\r\n"
    yield "order5.tns", "1 1 1 1 1 1e-320\n2 2 2 2 2 1e308\n"


def write(folder, name, text):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as out:
        out.write(text.encode())
    # The readers take gzip by its magic bytes, whatever the name: a compressed twin of each.
    with open(os.path.join(folder, name + ".gz"), "wb") as out:
        out.write(gzip.compress(text.encode(), mtime=0))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, text in matrix_market_seeds():
        write(os.path.join(sys.argv[1], "matrix_market"), name, text)
    for name, text in tns_seeds():
        write(os.path.join(sys.argv[1], "tns"), name, text)


if __name__ == "__main__":
    main()
