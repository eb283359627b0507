// The gtest main of distributed test binaries (target ranktest::main).

#include "ranktest/ranktest.h"

int main(int argc, char** argv) {
  ranktest::init(&argc, argv);
  return ranktest::runAllTests();
}
