#pragma once

// SIGINT and SIGTERM in the parent: the handler only notes the signal and
// makes a pipe readable, so that the supervisor's poll wakes at once, stops
// the ranks and reports the running test as interrupted; the test listener
// (interrupted_run.h) then ends the run in order, XML included.

namespace ranktest::internal {

// Installs the handlers, once; a signal ignored at start (a background job's
// SIGINT) stays ignored. Parent only: a rank keeps the default dispositions.
void installInterruptHandlers();

// The first SIGINT or SIGTERM received, or 0.
int interruptSignal();

// Readable from the first interrupt on (never drained, so every poller sees
// it); -1 before installInterruptHandlers().
int interruptFd();

// Called by a distributed test that stopped its ranks for the interrupt and
// reports it as its failure, so that it is not reported twice.
void markInterruptReported();
bool interruptReported();

}  // namespace ranktest::internal
