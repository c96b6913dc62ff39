// Ctrl-C during a long call: the library's progress callbacks (a scan's per layer, a detection's per
// sample, the RoPE audit's per implementation) ask Python whether a signal arrived.
//
// The calls release the GIL while they compute, so Python's own check of signals, which runs
// between bytecodes, waits until the call returns: minutes of a scan in which Ctrl-C did nothing.
// Each callback takes the GIL for the moment of PyErr_CheckSignals (which runs the SIGINT handler
// when the signal arrived since) and, when the handler raised KeyboardInterrupt, throws it as
// py::error_already_set: the library's frames unwind, and the call ends with that exception.
#pragma once

#include <pybind11/pybind11.h>

namespace qkov::python {

/// Throws the KeyboardInterrupt (or whatever a signal handler raised) pending for this thread;
/// call without the GIL. Signal handlers run in Python's main thread only: from any other thread
/// this returns at once.
inline void raise_pending_signal()
{
    const pybind11::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
}

} // namespace qkov::python
