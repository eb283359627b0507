#pragma once

// Where exceptions were thrown, so that a rank's uncaught exception is
// reported with the stack that threw it. The harness interposes the C++
// runtime's __cxa_throw (an executable's definition wins over libstdc++'s
// for every library, the executable being linked with -rdynamic) and, once
// recording is on, keeps the stacks of the last few throws in the process.

namespace ranktest::internal {

// Starts recording; ranks call it before any body runs.
void recordThrowSites();

// Prints the stack that threw the exception object at `object` (the most
// derived object: dynamic_cast<const void*>(&error)) between the stack
// markers of rank_signals.h, `reason` on the first marker. Returns false,
// printing nothing, when that throw was not recorded.
bool printThrowSite(
    const void* object,
    const char* reason = "where the uncaught exception was thrown");

}  // namespace ranktest::internal
