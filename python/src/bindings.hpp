// Shared by the binding sources of the Python module `qkov` (python/src/*.cpp): the model a Python
// Model object holds, the conversions of qkov's arrays to NumPy, and one declaration per area.
//
// Every binding calls the library; none computes anything of its own. Calls that read a file or
// compute release the GIL (py::gil_scoped_release), so other Python threads run meanwhile; a
// Python callback reacquires it.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

#include "qkov/forward/forward_pass.hpp"
#include "qkov/io/memory_headroom.hpp"
#include "qkov/model/attention_model.hpp"
#include "qkov/numeric/blas_threads.hpp"
#include "qkov/numeric/parallel_blocks.hpp"

namespace qkov::python {

namespace py = pybind11;

/// An opened model and the path it was opened from (the documents name it, as the CLI's do). The
/// forward pass's weights are read once per dtype, on first use, and shared by later calls.
class model_handle {
public:
    model_handle(std::string path, model::attention_model m) : path_(std::move(path)), model_(std::move(m)) {}

    [[nodiscard]] const std::string& path() const { return path_; }
    [[nodiscard]] const model::attention_model& model() const { return model_; }

    /// The forward pass in T; call without the GIL (it may read every weight of the file). Its
    /// weights are resident, or streamed (one layer at a time) when they would take more than half
    /// of the memory the process may use (forward::residence_within), as `qkov detect` chooses.
    template <class T>
    std::shared_ptr<const forward::decoder<T>> decoder()
    {
        const std::lock_guard lock(mutex_);
        auto& slot = slot_of<T>();
        if (!slot)
            slot = std::make_shared<const forward::decoder<T>>(model_, forward::residence_within(forward::resident_weight_bytes<T>(model_), io::memory_headroom()));
        return slot;
    }

private:
    template <class T>
    std::shared_ptr<const forward::decoder<T>>& slot_of()
    {
        if constexpr (sizeof(T) == 4) return f32_;
        else return f64_;
    }

    std::string path_;
    model::attention_model model_;
    std::mutex mutex_;
    std::shared_ptr<const forward::decoder<float>> f32_;
    std::shared_ptr<const forward::decoder<double>> f64_;
};

using model_pointer = std::shared_ptr<model_handle>;

/// Opens the model at `path` (a str or os.PathLike) without the GIL.
model_pointer open_model(const py::object& path);
/// A Model as it is, or a path opened as one: what scan() and detect() accept.
model_pointer model_argument(const py::object& path_or_model);

/// A JSON value as the Python object json.loads would give.
py::object to_python(const nlohmann::json& j);

/// A copy of a row-major 2-D array as a NumPy array of the same element type.
template <class Tensor>
py::array_t<typename Tensor::value_type> to_numpy(const Tensor& t)
{
    py::array_t<typename Tensor::value_type> out({t.shape()[0], t.shape()[1]});
    std::copy(t.begin(), t.end(), out.mutable_data());
    return out;
}

/// A copy of a 1-D array.
template <class Tensor>
py::array_t<typename Tensor::value_type> vector_to_numpy(const Tensor& t)
{
    py::array_t<typename Tensor::value_type> out(t.size());
    std::copy(t.begin(), t.end(), out.mutable_data());
    return out;
}

/// The worker and BLAS thread counts for the duration of one call (qkov's --threads): the caller's
/// counts are put back afterwards, since NumPy in the same process may share the OpenBLAS whose
/// count it is.
class blas_threads_for_call {
public:
    explicit blas_threads_for_call(const std::optional<int>& threads)
    {
        if (!threads) return;
        const int cap = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        if (*threads < 1 || *threads > cap)
            throw std::invalid_argument("qkov: threads: " + std::to_string(*threads) + " is out of range, expected an integer in 1.." + std::to_string(cap));
        before_ = numeric::blas_threads();
        if (!numeric::set_blas_threads(*threads))
            throw std::invalid_argument("qkov: threads: the BLAS this module is linked with is not OpenBLAS, whose thread count it sets; "
                                        "use that BLAS's own setting (e.g. OMP_NUM_THREADS) instead");
        workers_before_ = numeric::worker_count_setting();
        numeric::set_worker_count(static_cast<std::size_t>(*threads));
    }
    ~blas_threads_for_call()
    {
        if (before_) numeric::set_blas_threads(*before_), numeric::set_worker_count(workers_before_);
    }
    blas_threads_for_call(const blas_threads_for_call&) = delete;
    blas_threads_for_call& operator=(const blas_threads_for_call&) = delete;

private:
    std::optional<int> before_;
    std::size_t workers_before_ = 0;
};

void bind_model(py::module_& m);
void bind_scan(py::module_& m);
void bind_detect(py::module_& m);
void bind_forward(py::module_& m);
void bind_precision(py::module_& m);

} // namespace qkov::python
