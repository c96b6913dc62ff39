#!/usr/bin/env python3
"""Holds a document's recipes to the code: every file it names in backticks exists, and every
identifier it names (a backticked name with an underscore, such as `label_head`) is spelled in
some source file. A recipe that names a file that moved, or a function that was renamed, fails.

Usage: docs_paths.py ROOT DOC...
A bare file name (`head_prediction.hpp`) may sit anywhere in the tree; a path must exist from ROOT
or from include/qkov (the library's headers are named from there).
"""
import pathlib
import re
import sys

SOURCE_DIRS = ("include", "apps", "tests", "python", "proofs", "examples", "bench", "fuzz", "scripts", "cmake", "docs")
FILE = re.compile(r"^[\w./<>-]+\.(hpp|cpp|md|json|py|sh|cmake|txt)$")
# Files the documents name that the repository does not hold: dependencies' headers, a model's
# files, what a build or a run writes.
NOT_IN_THE_TREE = {"xlapack.hpp", "xlinalg.hpp", "xblas.hpp", "config.json", "qkovTargets.cmake", "report/index.md"}
IDENTIFIER = re.compile(r"^(\w+::)*[a-z][a-z0-9]*(_[a-z0-9]+)+$")


def main():
    root = pathlib.Path(sys.argv[1])
    files = [p for d in SOURCE_DIRS if (root / d).is_dir() for p in (root / d).rglob("*") if p.is_file()]
    files += [p for p in root.iterdir() if p.is_file()]
    names = {p.name for p in files}
    text = "\n".join(p.read_text(errors="replace") for p in files if p.suffix in (".hpp", ".cpp", ".py", ".txt", ".cmake", ".json", ".sh"))
    problems, checked = [], 0
    for doc in sys.argv[2:]:
        for token in re.findall(r"`([^`\n]+)`", (root / doc).read_text()):
            token = token.strip()
            if FILE.match(token) and "<" not in token:
                checked += 1
                if "/" in token:
                    if token not in NOT_IN_THE_TREE and not any((base / token).exists() for base in (root, root / "include", root / "include" / "qkov")):
                        problems.append(f"{doc}: `{token}` does not exist")
                elif token not in names and token not in NOT_IN_THE_TREE:
                    problems.append(f"{doc}: no file named `{token}` in the tree")
            elif IDENTIFIER.match(token):
                checked += 1
                if token.split("::")[-1] not in text:
                    problems.append(f"{doc}: `{token}` is spelled in no source file")
    for p in problems:
        print(p)
    print(f"docs_paths: {checked} names checked, {len(problems)} not found")
    if checked == 0:
        print("docs_paths: nothing checked")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
