"""Checks a JSON document against a JSON Schema (draft 2020-12): python3 check_json_schema.py SCHEMA DOCUMENT.
Prints every violation with its place in the document and exits 1 when there is one; exits 77 when
the jsonschema module is missing (Debian: python3-jsonschema), which CTest reports as skipped."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print(f"SKIPPED: the Python module jsonschema is missing for {sys.executable} (apt-get install python3-jsonschema)")
    sys.exit(77)

schema_path, document_path = sys.argv[1], sys.argv[2]
with open(schema_path, encoding="utf-8") as f:
    schema = json.load(f)
with open(document_path, encoding="utf-8") as f:
    document = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document), key=lambda e: list(e.absolute_path))
for e in errors:
    print(f"{document_path}: /{'/'.join(str(p) for p in e.absolute_path)}: {e.message}")
if errors:
    sys.exit(1)
print(f"{document_path}: valid against {schema_path}")
