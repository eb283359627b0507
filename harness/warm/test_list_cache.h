#pragma once

// The test listing that ctest's discovery asks of each suite binary when it
// starts (`--gtest_list_tests`), kept in a file beside it and reused while
// the binary, every file it mapped while listing and the environment are
// unchanged: a listing costs a process start (libtorch's static
// initialisation), for every suite at every ctest run, even one that selects
// a single feature. (The environment chooses what registers and what is
// listed: WORLD_SIZE, BACKEND, RANKTEST_*, GTEST_FILTER.)

#include <string>

namespace ranktest::warm {

// Prints the listing of `binary` in environment `envp` to stdout, from
// `cache_path` if it is still valid, else by running the binary (and then
// caching it). Returns an exit code: the listing run's own when it failed.
int printTestList(const std::string& cache_path, const std::string& binary,
                  char** envp);

}  // namespace ranktest::warm
