// Join over test joinables (after PyTorch's test_join.py): totals of the
// shadowed allreduces, the order of hooks, enable=false, throwing on early
// termination, hook arguments and the errors of construction.

#include <gmock/gmock.h>

#include <string>
#include <vector>

#include "all_reducer.h"
#include "ranktest/ranktest.h"
#include "uneven_inputs.h"

namespace join_suite {
namespace {

using distalgo::join::Join;
using distalgo::join::JoinArgs;
using testing::HasSubstr;

class JoinBasics : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }

 protected:
  int inputs() const { return inputsOf(rank(), worldSize(), /*base=*/3); }
  int shadowedRounds() const { return maxInputs(worldSize(), 3) - inputs(); }
  bool isLastJoiner() const { return shadowedRounds() == 0; }
};

RANKTEST_F(JoinBasics, MainHooksShadowEveryMissingAllreduce) {
  std::vector<std::string> log;
  AllReducer reducer("a", pg(), &log);
  double total = 0;
  Join join({&reducer});
  for (int i = 0; i < inputs(); ++i) total += reducer();
  join.finish();
  EXPECT_EQ(total, countOf(rank(), worldSize(), 3));
  std::vector<std::string> expected(shadowedRounds(), "a main");
  expected.push_back(isLastJoiner() ? "a post last" : "a post");
  EXPECT_EQ(log, expected);
}

RANKTEST_F(JoinBasics, HooksOfSeveralJoinablesRunInTheirOrder) {
  std::vector<std::string> log;
  AllReducer a("a", pg(), &log), b("b", pg(), &log), c("c", pg(), &log);
  double total = 0;
  Join join({&a, &b, &c});
  for (int i = 0; i < inputs(); ++i) total += a() + b() + c();
  join.finish();
  EXPECT_EQ(total, 3 * countOf(rank(), worldSize(), 3));
  std::vector<std::string> expected;
  for (int round = 0; round < shadowedRounds(); ++round) {
    expected.insert(expected.end(), {"a main", "b main", "c main"});
  }
  const std::string post = isLastJoiner() ? " post last" : " post";
  expected.insert(expected.end(), {"a" + post, "b" + post, "c" + post});
  EXPECT_EQ(log, expected);
}

RANKTEST_F(JoinBasics, HookArgumentsReachEveryHook) {
  AllReducer a("a", pg()), b("b", pg());
  double total = 0;
  Join join({&a, &b}, {}, JoinArgs().set(kNumAllreduces, 2));
  // The hooks must shadow two allreduces each, or the ranks hang.
  for (int i = 0; i < inputs(); ++i) total += a(2) + b(2);
  join.finish();
  EXPECT_EQ(total, 4 * countOf(rank(), worldSize(), 3));
}

// Each input: the heartbeat and the joinable's allreduce; then one count
// per round of the join loop. Disabled: the joinable's allreduces only.
RANKTEST_F(JoinBasics, DisabledJoinSendsNoCollectiveOfItsOwn) {
  constexpr int kEvenInputs = 4;
  for (const bool enable : {false, true}) {
    auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
    AllReducer reducer("a", counting);
    double total = 0;
    Join join({&reducer}, {.enable = enable});
    EXPECT_EQ(reducer.joinConfig().enable, enable);
    for (int i = 0; i < kEvenInputs; ++i) total += reducer();
    join.finish();
    EXPECT_EQ(total, kEvenInputs * worldSize());
    EXPECT_EQ(counting->traffic("allreduce").calls,
              enable ? 2 * kEvenInputs + 1 : kEvenInputs)
        << "enable=" << enable;
    EXPECT_FALSE(reducer.joinConfig().enable) << "config kept after finish()";
  }
}

RANKTEST_F(JoinBasics, ThrowOnEarlyTerminationRaisesOnEveryRank) {
  AllReducer a("a", pg()), b("b", pg());
  // Rank 0 runs out first; every rank must throw, none may hang.
  const int my_inputs = rank() == 0 ? 2 : 4;
  try {
    Join::run({&a, &b}, {.throw_on_early_termination = true}, {}, [&] {
      for (int i = 0; i < my_inputs; ++i) {
        a();
        b();
      }
    });
    ADD_FAILURE() << "rank " << rank() << " did not throw";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(),
                HasSubstr(rank() == 0 ? "Rank 0 exhausted all inputs."
                                      : "Detected at least one rank that "
                                        "exhausted inputs. Throwing across "
                                        "all ranks."));
  }
  EXPECT_FALSE(a.joinConfig().enable);
}

RANKTEST_F(JoinBasics, ExceptionInTheTrainingLoopPropagates) {
  AllReducer a("a", pg());
  try {
    Join::run({&a}, {}, {}, [&] {
      a();
      throw std::domain_error("bad batch");
    });
    ADD_FAILURE() << "the exception was swallowed";
  } catch (const std::domain_error& error) {
    EXPECT_STREQ(error.what(), "bad batch");
  }
  EXPECT_FALSE(a.joinConfig().enable) << "config kept after the exception";
}

class JoinBadInput : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

RANKTEST_F(JoinBadInput, NoJoinablesIsAnError) {
  EXPECT_THROW(Join({}), std::invalid_argument);
}

RANKTEST_F(JoinBadInput, JoinablesOnDifferentGroupsAreRejected) {
  AllReducer a("a", pg());
  AllReducer b("b", c10::make_intrusive<ranktest::CountingProcessGroup>(pg()));
  try {
    Join join({&a, &b});
    ADD_FAILURE() << "joinables on two groups were accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(),
                HasSubstr("joinable 1 uses another process group than "
                          "joinable 0"));
  }
  EXPECT_FALSE(a.joinConfig().enable);
}

RANKTEST_F(JoinBadInput, ArgumentNoJoinableReadsIsRejected) {
  AllReducer a("a", pg());
  constexpr distalgo::join::JoinArg<int> kTypo{"num_allreduce", 1};
  try {
    Join join({&a}, {}, JoinArgs().set(kTypo, 2));
    ADD_FAILURE() << "an unread argument was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("no joinable reads the argument(s) "
                                        "'num_allreduce'"));
  }
}

RANKTEST_F(JoinBadInput, ArgumentOfTheWrongTypeIsRejected) {
  AllReducer a("a", pg());
  constexpr distalgo::join::JoinArg<double> kWrongType{"num_allreduces", 1.0};
  try {
    Join join({&a}, {}, JoinArgs().set(kWrongType, 2.0));
    ADD_FAILURE() << "an argument of the wrong type was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("'num_allreduces' was set with "
                                        "another type"));
  }
}

}  // namespace
}  // namespace join_suite
