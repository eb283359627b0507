#pragma once

// The warm process of a test binary (see warm_protocol.h): started by the
// ctest client with kWarmServeFlag, it keeps the binary's static
// initialisation (libtorch's, the registered tests) and forks a fresh child
// for each test a client asks for.

namespace ranktest::internal {

// Unless argv[1] is kWarmServeFlag, returns at once. Otherwise this process
// is a warm process: it serves until it has no reason to live (its ctest run
// ended, it was idle, its build changed) and exits, and returns only in each
// forked child, with *argc and argv holding that test's own arguments, its
// standard streams and working directory the client's.
void serveWarmIfAsked(int* argc, char** argv);

}  // namespace ranktest::internal
