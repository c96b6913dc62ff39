// How many more bytes this process may allocate, asked before work whose memory is known in
// advance from its input's size (joining scan documents, reading one), so that work the machine
// cannot hold is refused by name before it starts instead of failing partway.
//
// The least of: the address-space limit (RLIMIT_AS, `ulimit -v`) less the address space already
// mapped (VmSize), the data limit (RLIMIT_DATA) less the data already held (VmData), and the
// system's available memory (MemAvailable). Linux's /proc gives the sizes; where a figure cannot be
// read it is left out, and with none at all the headroom is unknown (nothing is refused on a guess).
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

#include <sys/resource.h>

namespace qkov::io {

namespace detail {

/// The value in kB of the line "`key`: N kB" of a /proc file, in bytes.
inline std::optional<std::uint64_t> proc_kilobytes(const char* file, const std::string& key)
{
    std::ifstream in(file);
    const std::string prefix = key + ":";
    for (std::string line; std::getline(in, line);)
        if (line.starts_with(prefix)) {
            const auto digits = line.find_first_of("0123456789", prefix.size());
            if (digits == std::string::npos) return std::nullopt;
            return std::stoull(line.substr(digits)) * 1024;
        }
    return std::nullopt;
}

/// The soft limit `resource` less `used`; unset when the limit is infinite or `used` unknown.
inline std::optional<std::uint64_t> limit_less(int resource, std::optional<std::uint64_t> used)
{
    rlimit limit{};
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || !used) return std::nullopt;
    return limit.rlim_cur > *used ? limit.rlim_cur - *used : 0;
}

} // namespace detail

/// Bytes this process may still allocate, or unset when no limit or figure could be read.
inline std::optional<std::uint64_t> memory_headroom()
{
    std::optional<std::uint64_t> least;
    const auto consider = [&least](std::optional<std::uint64_t> bytes) {
        if (bytes) least = least ? std::min(*least, *bytes) : *bytes;
    };
    consider(detail::limit_less(RLIMIT_AS, detail::proc_kilobytes("/proc/self/status", "VmSize")));
    consider(detail::limit_less(RLIMIT_DATA, detail::proc_kilobytes("/proc/self/status", "VmData")));
    consider(detail::proc_kilobytes("/proc/meminfo", "MemAvailable"));
    return least;
}

/// Bytes as whole megabytes (10^6), as the messages state them.
inline std::string megabytes(std::uint64_t bytes)
{
    return std::to_string((bytes + 500000) / 1000000) + " MB";
}

} // namespace qkov::io
