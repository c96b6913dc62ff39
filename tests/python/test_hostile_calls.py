"""What a Python user can do to a long call or to the model it reads, and the named error or
exception it gets: calibrate sequences of the wrong type, a model file truncated while it is open.
The cases that could kill an interpreter run in a child interpreter, so that a crash fails the test
instead of the test runner."""
import shutil
import subprocess
import sys
import textwrap

import pytest

import qkov
from conftest import fixture_model


def run_child(script, timeout=120):
    """Runs `script` in a child interpreter (the same module path); returns its completed process."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=timeout)


def test_calibrate_sequences_of_the_wrong_type_are_a_value_error_naming_calibrate():
    """Lists that are not sequences of token ids were pybind11's RuntimeError "Unable to cast Python
    instance ...", which names neither the argument nor what it takes."""
    path = str(fixture_model("llama"))
    for wrong in ([["a", "b"]], [[1.5, 2.0]], [[[1, 2]]], [1, 2, 3], [[-1, 2]]):
        with pytest.raises(ValueError, match=r'calibrate: expected None, "random", "self", a path to a file of token ids, or sequences of token ids'):
            qkov.scan(path, layers=0, calibrate=wrong)


def test_a_model_file_truncated_while_it_is_open_raises_instead_of_killing_python(tmp_path):
    """The weights are read from the file's memory map when a call asks for them; a file cut to half
    after it was opened made that read SIGBUS, which ended the interpreter."""
    model = tmp_path / "model"
    model.mkdir()
    for file in fixture_model("llama").iterdir():
        shutil.copyfile(file, model / file.name)  # the contents alone: the fixture's files are read-only
    done = run_child(f"""
        import os, qkov
        model = qkov.open_model({str(model)!r})
        file = {str(model / "model.safetensors")!r}
        os.truncate(file, os.path.getsize(file) // 2)
        try:
            qkov.scan(model)
        except qkov.ModelFileError as e:
            print("ModelFileError:", e)
        """)
    assert done.returncode == 0, f"the child interpreter ended with {done.returncode} (-7 is SIGBUS):\n{done.stderr}"
    assert "model.safetensors: the file shrank from" in done.stdout, done.stdout + done.stderr
    assert "while qkov held it open" in done.stdout
