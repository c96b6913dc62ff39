"""The type stubs (python/qkov/__init__.pyi) name what the package has: every public name of the
module and every public member of its classes, no more and no fewer, so an editor completes the
API as it is."""
import ast
import inspect
from pathlib import Path

import qkov


def stub_names():
    """Top-level names and, per class, its members (inherited from the stub's own base classes)."""
    tree = ast.parse((Path(qkov.__file__).parent / "__init__.pyi").read_text())
    top, classes = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, (ast.AnnAssign)) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
        if isinstance(node, ast.ClassDef):
            members = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id in classes:
                    members |= classes[base.id]
            classes[node.name] = members
    return {n for n in top if not n.startswith("_")}, classes


def public_members(cls):
    return {n for n, _ in inspect.getmembers(cls) if not n.startswith("_")}


def test_the_stubs_name_the_module_and_its_classes():
    top, classes = stub_names()
    assert top == set(qkov.__all__) | {"BEHAVIOURS"}
    for name in ("Model", "Scan", "Detection", "TextBehaviour"):
        assert classes[name] == public_members(getattr(qkov, name)), name
