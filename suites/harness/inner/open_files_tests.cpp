// A parent that has used up its descriptors, so that the rank it starts next
// finds none free to set up its own: the rank must say so and exit at once.

#include <ATen/ATen.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "ranktest/ranktest.h"

// Leaves exactly five descriptors free, on purpose for the rest of the run:
// one for the FileStore's file and four for the rank's two pipes.
TEST(InnerOpenFilesPlain, A_LeavesFiveDescriptorsFree) {
  std::vector<int> taken;
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) {
    taken.push_back(fd);
  }
  ASSERT_EQ(errno, EMFILE);
  ASSERT_GE(taken.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    ::close(taken.back());
    taken.pop_back();
  }
}

class InnerOpenFiles : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {1}}; }
};

RANKTEST_F(InnerOpenFiles, B_RankFindsNoDescriptorFree) {}

// Tests at four sizes: with reused processes, a pool of ranks per size, each
// holding descriptors in the parent while the next starts.
class InnerOpenFilesSizes : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4, 8}};
  }
};

RANKTEST_F(InnerOpenFilesSizes, AllreduceSums) {
  std::vector<at::Tensor> t{at::ones({1})};
  pg()->allreduce(t)->wait();
  EXPECT_EQ(t[0].item<int>(), worldSize());
}
