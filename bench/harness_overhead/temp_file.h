#pragma once

// Temporary files of the benchmark, where the harness puts its own: in
// $TMPDIR, else /tmp.

#include <string>

namespace harness_overhead {

// mkostemp of "<temp dir>/<stem>.XXXXXX" with `flags`; returns the descriptor
// (-1 and errno on failure) and leaves the file's name in `*path`.
int createTempFile(const std::string& stem, int flags, std::string* path);

}  // namespace harness_overhead
