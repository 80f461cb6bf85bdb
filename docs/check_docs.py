#!/usr/bin/env python3
"""The documentation cannot rot: every C++ block of README.md and docs/**/*.md must be the text of
a compiled snippet (docs/snippets/*.cpp, built and run by ctest), and every relative link must
name a file that exists.

A C++ block is preceded by  <!-- snippet: docs/snippets/NAME.cpp -->  (the whole file) or
<!-- snippet: docs/snippets/NAME.cpp#TAG -->  (the lines strictly between two `// [TAG]` lines,
their common indentation removed). Usage: check_docs.py <repository root>. Exit 1 on a mismatch."""
import pathlib
import re
import sys
import textwrap

SNIPPET = re.compile(r"<!--\s*snippet:\s*([^#\s]+)(?:#(\S+))?\s*-->")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def region(root, path, tag):
    file = root / path
    if not file.is_file():
        raise ValueError(f"snippet file {path} does not exist")
    lines = file.read_text().splitlines()
    if tag is None:
        return "\n".join(lines)
    marks = [i for i, l in enumerate(lines) if l.strip() == f"// [{tag}]"]
    if len(marks) != 2:
        raise ValueError(f"{path} has {len(marks)} '// [{tag}]' lines, not 2")
    return textwrap.dedent("\n".join(lines[marks[0] + 1:marks[1]]))


def check(root, md):
    problems = []
    lines = md.read_text().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() in ("```cpp", "```c++"):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), None)
            if end is None:
                problems.append(f"{md}:{i + 1}: unterminated code block")
                break
            prev = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            m = SNIPPET.search(prev)
            if not m:
                problems.append(f"{md}:{i + 1}: C++ block without a <!-- snippet: ... --> line before it")
            else:
                try:
                    want = region(root, m.group(1), m.group(2))
                    got = "\n".join(lines[i + 1:end])
                    if got.rstrip() != want.rstrip():
                        problems.append(f"{md}:{i + 1}: block differs from {m.group(1)}"
                                        f"{'#' + m.group(2) if m.group(2) else ''}")
                except ValueError as e:
                    problems.append(f"{md}:{i + 1}: {e}")
            i = end + 1
            continue
        for target in LINK.findall(lines[i]):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (md.parent / target.split("#")[0]).exists():
                problems.append(f"{md}:{i + 1}: link to {target}, which does not exist")
        i += 1
    return problems


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    problems = [p for md in pages if md.is_file() for p in check(root, md)]
    for p in problems:
        print(p)
    print(f"{len(pages)} pages checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
