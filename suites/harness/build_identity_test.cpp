// What names a build for the warm processes and the cached test listing:
// the identities of the files a process mapped, its environment, and the
// process settings its tests inherit.

#include "warm/build_identity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "warm/warm_protocol.h"

namespace {

using ranktest::internal::environmentHash;
using ranktest::internal::identifyFiles;
using ranktest::internal::processSettingsHash;
using ranktest::internal::stillTheSame;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class HarnessBuildIdentity : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        std::filesystem::temp_directory_path() / "ranktest-identity-XXXXXX";
    const int fd = ::mkstemp(pattern.data());
    ASSERT_GE(fd, 0);
    ::close(fd);
    file_ = pattern;
    std::ofstream(file_) << "a library";
  }
  void TearDown() override { ::unlink(file_.c_str()); }
  std::string file_;
};

TEST_F(HarnessBuildIdentity, UnchangedFileIsStillTheSame) {
  const auto identities = identifyFiles({file_});
  ASSERT_THAT(identities, SizeIs(1));
  EXPECT_TRUE(stillTheSame(identities));
  std::ofstream(file_, std::ios::app) << ", rebuilt";
  EXPECT_FALSE(stillTheSame(identities));
}

// A library replaced while the process started shows in /proc/self/maps as
// "<path> (deleted)": the process runs the old code, so its build has
// changed already.
TEST_F(HarnessBuildIdentity, FileReplacedSinceItWasMappedCountsAsChanged) {
  const auto identities = identifyFiles({file_ + " (deleted)"});
  ASSERT_THAT(identities, SizeIs(1));
  EXPECT_EQ(identities[0].path, file_);
  EXPECT_FALSE(stillTheSame(identities));
}

// A temporary file mapped and deleted for good is no part of the build.
TEST_F(HarnessBuildIdentity, FileDeletedForGoodIsLeftOut) {
  EXPECT_THAT(identifyFiles({file_ + ".gone (deleted)", file_ + ".none"}),
              IsEmpty());
}

TEST(HarnessEnvironmentHash, OrderDoesNotMatterButEveryVariableDoes) {
  std::vector<std::string> one{"A=1", "GTEST_FILTER=Foo.*", "WORLD_SIZE=2"};
  std::vector<std::string> other{"WORLD_SIZE=2", "A=1", "GTEST_FILTER=Foo.*"};
  std::vector<std::string> unfiltered{"A=1", "WORLD_SIZE=2"};
  auto hashOf = [](std::vector<std::string>& variables) {
    std::vector<char*> envp;
    envp.reserve(variables.size() + 1);
    for (std::string& v : variables) envp.push_back(v.data());
    envp.push_back(nullptr);
    return environmentHash(envp.data());
  };
  EXPECT_EQ(hashOf(one), hashOf(other));
  EXPECT_NE(hashOf(one), hashOf(unfiltered));
}

// Each setting a forked test inherits counts: the umask, a resource limit,
// the CPU affinity.
TEST(HarnessProcessSettingsHash, UmaskLimitsAndAffinityEachCount) {
  const std::uint64_t base = processSettingsHash();
  EXPECT_EQ(processSettingsHash(), base);

  const mode_t mask = ::umask(0);
  ::umask(mask == 077 ? 022 : 077);
  EXPECT_NE(processSettingsHash(), base);
  ::umask(mask);
  EXPECT_EQ(processSettingsHash(), base);

  rlimit files{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &files), 0);
  rlimit fewer = files;
  fewer.rlim_cur = files.rlim_cur - 1;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &fewer), 0);
  EXPECT_NE(processSettingsHash(), base);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &files), 0);
  EXPECT_EQ(processSettingsHash(), base);

  cpu_set_t cpus;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(cpus), &cpus), 0);
  if (CPU_COUNT(&cpus) > 1) {
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &cpus)) {
        CPU_SET(cpu, &one);
        break;
      }
    }
    ASSERT_EQ(::sched_setaffinity(0, sizeof(one), &one), 0);
    EXPECT_NE(processSettingsHash(), base);
    ASSERT_EQ(::sched_setaffinity(0, sizeof(cpus), &cpus), 0);
    EXPECT_EQ(processSettingsHash(), base);
  }
}

// The server's "pid N" and "exit N": a packet that is not exactly the
// prefix and an integer gives nothing (an atoi would have read 0 or a
// prefix of it).
TEST(HarnessWarmPacket, NumberAfterItsPrefixOrNothing) {
  using ranktest::internal::numberAfter;
  EXPECT_EQ(numberAfter("pid 4242", "pid "), 4242);
  EXPECT_EQ(numberAfter("exit 0", "exit "), 0);
  EXPECT_EQ(numberAfter("exit -1", "exit "), -1);
  for (const char* other : {"pid ", "pid x", "pid 12\n", "pid 12 ", "exit 5",
                            "ending", "pid 99999999999999999999"}) {
    EXPECT_EQ(numberAfter(other, "pid "), std::nullopt) << other;
  }
}

}  // namespace
