"""What a Python user can do to a long call or to the model it reads, and the named error or
exception it gets: calibrate sequences of the wrong type, a model file truncated while it is open,
Ctrl-C during a detection, more detection samples than the tool takes. The cases that could kill an
interpreter run in a child interpreter, so that a crash fails the test instead of the test runner."""
import shutil
import signal
import subprocess
import sys
import textwrap
import time

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


def test_ctrl_c_ends_a_long_detection_with_keyboard_interrupt():
    """A detection releases the GIL while it computes, so Python's own check of signals waited for the
    call's end: SIGINT one second into a detection of minutes must end it within a few seconds."""
    path = str(fixture_model("llama"))
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import signal, sys, time, qkov
        # Python's own SIGINT handler even where the runner started this child with SIGINT ignored
        # (a background job of a shell ignores it, and the child would inherit that).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        model = qkov.open_model({path!r})
        print("started", flush=True)
        start = time.monotonic()
        try:
            qkov.detect(model, samples=100000, length=50)  # minutes uninterrupted
        except KeyboardInterrupt:
            print(f"KeyboardInterrupt after {{time.monotonic() - start:.1f}} s", flush=True)
            sys.exit(0)
        print("the detection ran to its end")
        sys.exit(1)
        """)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "started"
        time.sleep(1.0)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, f"exit status {child.returncode}:\n{out}{err}"
    assert "KeyboardInterrupt after" in out


def test_detection_samples_beyond_the_tools_bound_are_a_value_error():
    """qkov detect --samples takes 1..100000; Python took any count (a billion samples ran for days).
    The length is also out of range, so that without the bound the call fails at once on the length."""
    path = str(fixture_model("llama"))
    with pytest.raises(ValueError, match=r"samples 100001 is out of range, expected an integer in 1\.\.100000"):
        qkov.detect(path, samples=100001, length=10**6)
