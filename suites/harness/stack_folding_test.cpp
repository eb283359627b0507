// Library frames fold into one line per run; the test's frames and ranktest's
// own stay in full; very long template names are shortened.

#include "verdict/stack_folding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace harness_suite {
namespace {

using namespace ranktest::internal;
using ::testing::ElementsAre;

const std::string kTorchLib =
    "/work/.venv/lib/python3.11/site-packages/torch/lib/";

TEST(HarnessStackFolding, RunsOfLibraryFramesFoldIntoOneLineEach) {
  const std::vector<std::string> stack = {
      "[ranktest] stack of rank 1 (pid 436, where)",
      kTorchLib + "libc10.so(c10::detail::torchCheckFail()+0xe6)[0x7eff1c5]",
      kTorchLib + "libtorch_cpu.so(+0x2f63baf)[0x7eff1f5]",
      "at::Tensor::add(at::Tensor const&) const at " + kTorchLib +
          "../include/ATen/core/TensorBody.h:1680",
      "addShapes() at /home/u/project/test.cpp:63",
      std::string("std::_Function_handler<void (), X>::_M_invoke(") +
          "std::_Any_data const&) at /usr/include/c++/12/bits/"
          "std_function.h:290",
      "/usr/lib/x86_64-linux-gnu/libc.so.6(+0x29d90)[0x7f5]",
      "runBody() at harness/src/rank_runner.cpp:120",
      "(ranktest frames below)",
      "[ranktest] end of stack"};
  EXPECT_THAT(
      foldLibraryFrames(stack),
      ElementsAre("[ranktest] stack of rank 1 (pid 436, where)",
                  "... 3 frames in libc10.so, libtorch_cpu.so, ATen headers",
                  "addShapes() at /home/u/project/test.cpp:63",
                  "... 2 frames in libstdc++, libc.so.6",
                  "runBody() at harness/src/rank_runner.cpp:120",
                  "(ranktest frames below)", "[ranktest] end of stack"));
}

TEST(HarnessStackFolding, ALoneLibraryFrameKeepsItsFunction) {
  EXPECT_THAT(
      foldLibraryFrames({"/usr/lib/x86_64-linux-gnu/libc.so.6(raise+0x1)[0x7]",
                         "crash() at /home/u/t.cpp:3"}),
      ElementsAre("libc.so.6(raise+0x1)", "crash() at /home/u/t.cpp:3"));
}

// The executable's unresolved frames and a user's own library stay.
TEST(HarnessStackFolding, TheTestBinaryAndUserLibrariesAreNotLibraryFrames) {
  EXPECT_EQ(libraryOf("/home/u/build/suite_join(+0x1234)[0x55]"), "");
  EXPECT_EQ(libraryOf("/home/u/build/libmyhooks.so(myHook()+0x12)[0x7f]"), "");
  EXPECT_EQ(libraryOf("/home/u/build/libtorch_cpu.so(+0x12)[0x7f]"),
            "libtorch_cpu.so");
  EXPECT_EQ(libraryOf("[ranktest] stack of rank 0 (pid 1, at the deadline)"),
            "");
  EXPECT_EQ(libraryOf("f() at /usr/include/gloo/allreduce.h:12"),
            "gloo headers");
}

TEST(HarnessStackFolding, LongTemplateArgumentsAreShortened) {
  const std::string lambda(300, 'x');
  EXPECT_EQ(shortenFrame("std::_Function_handler<void (), " + lambda +
                         ">::_M_invoke(std::_Any_data const&) at /u/a.h:1"),
            "std::_Function_handler<...>::_M_invoke(std::_Any_data const&) at "
            "/u/a.h:1");
  const std::string shift = "operator<< <std::vector<" + lambda + "> >(a, b)";
  EXPECT_EQ(shortenFrame(shift), "operator<< <...>(a, b)");
  EXPECT_EQ(shortenFrame("f<int>()"), "f<int>()");
}

}  // namespace
}  // namespace harness_suite
