// Running out of memory at the command's edge: a reserve that lets a std::bad_alloc unwind to
// main's message, and the advice each kind of command gives with it.
#pragma once

#include <string>

namespace qkov::app {

/// Sets aside a reserve of memory and installs a std::new_handler that releases it at the first
/// allocation that fails, then fails that allocation (as operator new would without a handler).
void keep_memory_reserve();

/// What to reduce when a command whose input is a model runs out of memory: its sizes or the
/// options that scale the work (--layers, --length, --context).
std::string model_out_of_memory_advice();

} // namespace qkov::app
