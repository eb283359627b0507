#pragma once

// A binary that declares distributed tests but whose own main() never calls
// ranktest::init would pass silently: its parameterised tests register only
// in init(), so nothing runs and RUN_ALL_TESTS() returns 0. The guard makes
// such a binary fail at once, saying what to add.

namespace ranktest::internal {

// Notes a distributed test declared during static initialisation (RANKTEST_F,
// RANKTEST_P); the first call arms the guard.
void noteDeclaredTest();

// Called first thing by ranktest::init(): the guard stays silent. Processes
// forked or spawned from such a binary inherit or repeat the call.
void noteInitCalled();

}  // namespace ranktest::internal
