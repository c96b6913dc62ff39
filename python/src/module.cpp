// The extension module qkov._qkov; the package python/qkov/__init__.py re-exports it and adds the
// pandas table and the argument handling a Python user expects.
#include "bindings.hpp"

#include "qkov/io/model_file_error.hpp"

PYBIND11_MODULE(_qkov, m)
{
    m.doc() = "qkov's run-time half: model files, the scan, detection, the forward pass, the RoPE audit and the high-precision validation";
    // Every fault of a model file (missing, pickle, NaN weight, a tensor the reader or the forward
    // pass cannot use) is one exception type in C++, and one in Python, with the library's message.
    qkov::python::py::register_exception<qkov::io::model_file_error>(m, "ModelFileError");
    qkov::python::bind_model(m);
    qkov::python::bind_scan(m);
    qkov::python::bind_detect(m);
    qkov::python::bind_forward(m);
    qkov::python::bind_precision(m);
}
