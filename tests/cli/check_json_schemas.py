#!/usr/bin/env python3
"""Validates qkov's JSON documents against docs/schemas/: each document names its schema
("schema": "qkov.<name>/<version>"), which selects <name>.schema.json, and must satisfy it.

usage: check_json_schemas.py SCHEMA_DIR FILE...

Exit 0 when every file is valid, 1 when one is not (each error printed with the file and the
path inside it), 77 when the jsonschema module is missing (Debian: python3-jsonschema), which
CTest reports as skipped. Written for jsonschema 4.10 (Debian 12) and later.
"""
import json
import pathlib
import sys

try:
    import jsonschema
    import jsonschema.validators
except ImportError:
    print(f"SKIPPED: the Python module jsonschema is missing for {sys.executable} (apt-get install python3-jsonschema)")
    sys.exit(77)


def schema_for(document, schema_dir, cache):
    """The schema the document names, checked once as a schema itself."""
    if not isinstance(document, dict) or not isinstance(document.get("schema"), str):
        raise ValueError('names no schema (expected a "schema": "qkov.<name>/<version>" key)')
    name, _, version = document["schema"].partition("/")
    if not name.startswith("qkov.") or not version.isdigit():
        raise ValueError(f'"schema": {document["schema"]!r} is not of the form qkov.<name>/<version>')
    path = schema_dir / (name.removeprefix("qkov.") + ".schema.json")
    if path not in cache:
        if not path.is_file():
            raise ValueError(f"names {document['schema']}, but {path} does not exist")
        schema = json.loads(path.read_text())
        validator = jsonschema.validators.validator_for(schema)
        validator.check_schema(schema)
        cache[path] = validator(schema)
    return cache[path]


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    schema_dir = pathlib.Path(argv[1])
    cache = {}
    failures = 0
    for name in argv[2:]:
        try:
            document = json.loads(pathlib.Path(name).read_text())
            validator = schema_for(document, schema_dir, cache)
        except (OSError, ValueError) as e:
            print(f"{name}: {e}")
            failures += 1
            continue
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for e in errors:
            where = "/".join(str(p) for p in e.absolute_path) or "(the document)"
            print(f"{name}: at {where}: {e.message}")
        failures += 1 if errors else 0
        if not errors:
            print(f"{name}: valid {document['schema']}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
