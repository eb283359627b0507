#pragma once

// ranktest: multiprocess distributed tests on real c10d process groups.
// Include this header; link ranktest::ranktest and ranktest::main (or call
// init() and runAllTests() from your own main).

#include "ranktest/backends.h"
#include "ranktest/collective_check.h"
#include "ranktest/counting_process_group.h"
#include "ranktest/distributed_test.h"
#include "ranktest/param_test.h"
#include "ranktest/run_ranks.h"
#include "ranktest/settings.h"
#include "ranktest/skip_codes.h"
#include "ranktest/test_options.h"

namespace ranktest {

// Initialises googletest and ranktest. In a spawned rank it runs the rank and
// never returns; in the parent it returns normally.
void init(int* argc, char** argv);

// RUN_ALL_TESTS(), for symmetry with init(). After SIGINT or SIGTERM (the
// running test fails as interrupted, the rest are skipped, the XML is
// written) it returns 128 + the signal's number: 130 or 143.
int runAllTests();

}  // namespace ranktest
