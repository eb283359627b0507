// ctest runs each test through ranktest_warm_client: a child forked by the
// suite binary's warm process. These run the real ctest, discovery script
// and client on the inner binary (inner/warm_tests.cpp) from a shell script,
// and check what ran where: one warm process for a run's tests, a fresh
// child per test, never an old build, nothing left behind when ctest or the
// warm process is killed, exit codes and signals as the binary's own.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "inner_run.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// What a test of inner/warm_tests.cpp said about the process it ran in.
struct WarmReport {
  std::string name;
  long pid = 0;
  long ppid = 0;
  bool warm = false;  // its parent is a warm process
  int runs = 0;       // tests its process ran: 1 in a fresh one
  long long start_ms = 0;
};

std::vector<WarmReport> reportsIn(const std::string& output) {
  static const std::regex line(
      "warm-report (\\w+) pid=(\\d+) ppid=(\\d+) warm=(\\d) runs=(\\d+) "
      "start=(\\d+)");
  std::vector<WarmReport> reports;
  for (std::sregex_iterator it(output.begin(), output.end(), line), end;
       it != end; ++it) {
    reports.push_back({(*it)[1], std::stol((*it)[2]), std::stol((*it)[3]),
                       (*it)[4] == "1", std::stoi((*it)[5]),
                       std::stoll((*it)[6])});
  }
  return reports;
}

// Shell functions for the scripts: $INNER is the inner binary, $XML its
// --gtest_output flag; `project <dir>` writes a ctest project of its tests
// registered as ranktest_add_suite registers a suite's; `until_running`
// waits for a test of inner/warm_tests.cpp to say it runs, and prints the
// pid of that test's parent.
constexpr char kPrelude[] = R"sh(
INNER="$0"; XML="$2"; cd "$TMPDIR"
project() {
  mkdir -p "$1"
  cat >"$1/CTestTestfile.cmake" <<END_OF_PROJECT
set(RANKTEST_BINARY [==[$INNER]==])
set(RANKTEST_FEATURE warm)
set(RANKTEST_WORKING_DIR [==[$TMPDIR/$1]==])
set(RANKTEST_WARM_CLIENT [==[$CLIENT]==])
set(RANKTEST_LIST_CACHE [==[$TMPDIR/$1/tests.list]==])
include([==[$DISCOVER]==])
END_OF_PROJECT
}
until_running() {
  i=0
  while [ ! -e "$TMPDIR/warm-running" ] && [ $i -lt 600 ]; do
    sleep 0.05; i=$((i + 1))
  done
  cat "$TMPDIR/warm-running"; rm -f "$TMPDIR/warm-running"
}
)sh";

InnerResult runScript(const std::string& script,
                      std::map<std::string, std::string> env = {}) {
  InnerOptions options;
  options.launcher = {"/bin/sh", "-c", kPrelude + script};
  options.filter = "unused";
  env["CLIENT"] = RANKTEST_WARM_CLIENT;
  env["CTEST"] = RANKTEST_CTEST;
  env["DISCOVER"] = RANKTEST_DISCOVER_SCRIPT;
  env["NO_INIT"] = RANKTEST_NO_INIT_BINARY;
  options.env = std::move(env);
  InnerResult result = runInner(options);
  EXPECT_THAT(result.processes_left, IsEmpty()) << result.output;
  return result;
}

std::set<long> parentsOf(const std::vector<WarmReport>& reports) {
  std::set<long> parents;
  for (const WarmReport& r : reports) parents.insert(r.ppid);
  return parents;
}

TEST(HarnessWarm, CtestRunsEachTestInAFreshChildOfOneWarmProcess) {
  const InnerResult r = runScript(R"sh(
project p
"$CTEST" --test-dir p -R '^InnerWarm\.ReportsItsProcess' -V
)sh");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("100% tests passed"),
                              HasSubstr("Test command: " +
                                        std::string(RANKTEST_WARM_CLIENT))));
  const std::vector<WarmReport> reports = reportsIn(r.output);
  ASSERT_EQ(reports.size(), 2u) << r.output;
  for (const WarmReport& report : reports) {
    EXPECT_TRUE(report.warm) << r.output;
    EXPECT_EQ(report.runs, 1) << "a test ran in a used process\n" << r.output;
  }
  EXPECT_EQ(parentsOf(reports).size(), 1u) << "one warm process\n" << r.output;
  EXPECT_NE(reports[0].pid, reports[1].pid) << r.output;
}

TEST(HarnessWarm, OffSwitchRunsTheBinaryItself) {
  const InnerResult r = runScript(R"sh(
project p
"$CTEST" --test-dir p -R '^InnerWarm\.ReportsItsProcess' -V
)sh",
                                  {{"RANKTEST_WARM", "0"}});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("100% tests passed"),
                              Not(HasSubstr(RANKTEST_WARM_CLIENT))));
  const std::vector<WarmReport> reports = reportsIn(r.output);
  ASSERT_EQ(reports.size(), 2u) << r.output;
  for (const WarmReport& report : reports) EXPECT_FALSE(report.warm);
}

// ctest -j4: four clients at once start one warm process between them (the
// others find its name taken), which runs the four tests side by side.
TEST(HarnessWarm, ParallelJobsShareOneWarmProcessAndRunSideBySide) {
  const InnerResult r = runScript(R"sh(
project p
"$CTEST" --test-dir p -R '^Jobs/InnerWarmParallel' -j4 -V
)sh");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::vector<WarmReport> reports = reportsIn(r.output);
  ASSERT_EQ(reports.size(), 4u) << r.output;
  EXPECT_EQ(parentsOf(reports).size(), 1u) << r.output;
  long long first = reports[0].start_ms;
  long long last = reports[0].start_ms;
  for (const WarmReport& report : reports) {
    EXPECT_TRUE(report.warm && report.runs == 1) << r.output;
    first = std::min(first, report.start_ms);
    last = std::max(last, report.start_ms);
  }
  // Each holds its process for a second: one after another, the last would
  // start at least 3 s after the first.
  EXPECT_LT(last - first, 3000) << r.output;
}

// One owner (the script) and one environment throughout: only the build
// tells the warm processes apart. A library it maps touched, the binary
// replaced, the binary touched in place: each time a new warm process.
TEST(HarnessWarm, RebuiltBinaryOrLibraryIsNeverServedByTheOldWarmProcess) {
  const InnerResult r = runScript(R"sh(
cp "$INNER" suite
for lib in /usr/lib/x86_64-linux-gnu/libdl.so.2 /lib64/libdl.so.2; do
  [ -e "$lib" ] && cp "$lib" libprobe.so && break
done
export LD_PRELOAD="$TMPDIR/libprobe.so"
run() {
  "$CLIENT" "$TMPDIR/suite" --gtest_filter=InnerWarm.ReportsItsProcess
  echo "client-exit=$?"
}
run; run
touch libprobe.so; run
cp "$INNER" suite.new; mv suite.new suite; run
sleep 0.01; touch suite; run
rm -f suite libprobe.so
)sh");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(countOccurrences(r.output, "client-exit=0"), 5u) << r.output;
  const std::vector<WarmReport> reports = reportsIn(r.output);
  ASSERT_EQ(reports.size(), 5u) << r.output;
  for (const WarmReport& report : reports) {
    EXPECT_TRUE(report.warm && report.runs == 1) << r.output;
  }
  EXPECT_EQ(reports[0].ppid, reports[1].ppid) << "unchanged\n" << r.output;
  EXPECT_NE(reports[1].ppid, reports[2].ppid) << "library\n" << r.output;
  EXPECT_NE(reports[2].ppid, reports[3].ppid) << "replaced\n" << r.output;
  EXPECT_NE(reports[3].ppid, reports[4].ppid) << "touched\n" << r.output;
}

// ctest killed mid-test: its orphaned client, the warm process, the test's
// child and its ranks all end (the warm process watches its ctest run).
TEST(HarnessWarm, KilledCtestLeavesNoProcessBehind) {
  const InnerResult r = runScript(R"sh(
project p
"$CTEST" --test-dir p -R 'InnerWarmRanks\.RanksRunUntilStopped' &
ctest=$!
echo "running under $(until_running)"
kill -KILL $ctest; wait $ctest; echo "ctest-status=$?"
)sh");
  EXPECT_THAT(r.output, AllOf(HasSubstr("running under "),
                              HasSubstr("ctest-status=137")));
  // runScript checked that nothing of the run is left.
}

// ctest's own timeout kills the test's client: the warm process stops the
// test (SIGTERM, then SIGKILL) and its ranks with it.
TEST(HarnessWarm, CtestTimeoutStopsTheTestWithItsClient) {
  const InnerResult r = runScript(R"sh(
project p
"$CTEST" --test-dir p -R 'InnerWarmRanks\.RanksRunUntilStopped' --timeout 3
echo "ctest-exit=$?"
)sh");
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("***Timeout"), HasSubstr("ctest-exit=8")));
  // runScript checked that nothing of the run is left.
}

// The warm process killed while its test runs: the test's client says so
// and fails, the test's child and ranks end with it, and the next test
// starts a new warm process.
TEST(HarnessWarm, CrashedWarmProcessFailsItsTestAndTheNextStartsAnew) {
  const InnerResult r = runScript(R"sh(
"$CLIENT" "$INNER" --gtest_filter=InnerWarm.RunsUntilStopped & client=$!
warm=$(until_running); echo "killing warm process $warm"
kill -KILL "$warm"; wait $client; echo "client-exit=$?"
"$CLIENT" "$INNER" --gtest_filter=InnerWarm.ReportsItsProcess
echo "next-exit=$?"
)sh");
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("client-exit=1"), HasSubstr("next-exit=0"),
                    HasSubstr("ended while this test ran"),
                    HasSubstr("the test was stopped with it")));
  const std::vector<WarmReport> reports = reportsIn(r.output);
  ASSERT_EQ(reports.size(), 2u) << r.output;
  EXPECT_TRUE(reports[1].warm) << r.output;
  EXPECT_NE(reports[0].ppid, reports[1].ppid) << r.output;
}

// SIGTERM to the client reaches the test: it fails as interrupted, its XML
// is written, and the client exits as the test did (143).
TEST(HarnessWarm, InterruptOfTheClientReachesTheTest) {
  const InnerResult r = runScript(R"sh(
"$CLIENT" "$INNER" --gtest_filter=InnerWarm.RunsUntilStopped "$XML" &
client=$!
until_running >/dev/null
kill -TERM $client; wait $client; echo "client-exit=$?"
)sh");
  EXPECT_THAT(r.output, HasSubstr("client-exit=143"));
  EXPECT_THAT(
      r.xml, AllOf(HasSubstr("<failure"), HasSubstr("interrupted by SIGTERM")));
}

// What ctest reads: the exit code (77 for a skip) or the signal, as the
// binary run directly would end.
TEST(HarnessWarm, ClientEndsAsTheTestEnded) {
  const InnerResult r = runScript(R"sh(
c() { "$CLIENT" "$INNER" "--gtest_filter=$1"; echo "exit[$1]=$?"; }
c InnerWarm.FailsOnPurpose
c InnerWarm.CrashesOnPurpose
c InnerWarmRanks.AllreduceSums/gloo_ws2
RANKTEST_SKIPPED_EXIT_CODE=77; export RANKTEST_SKIPPED_EXIT_CODE
c InnerReports.AllRanksSkip/gloo_ws2
)sh");
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("exit[InnerWarm.FailsOnPurpose]=1"),
                    HasSubstr("failed on purpose"),
                    HasSubstr("exit[InnerWarm.CrashesOnPurpose]=139"),
                    HasSubstr("exit[InnerWarmRanks.AllreduceSums/gloo_ws2]=0"),
                    HasSubstr("exit[InnerReports.AllRanksSkip/gloo_ws2]=77")));
}

// A test that exits inside its body, or whose process crashes at exit (a
// static whose destructor aborts), fails under ctest as it fails run
// directly: with and without the warm process.
TEST(HarnessWarm, ExitInsideATestOrACrashAtExitFailsUnderCtest) {
  for (const char* warm : {"1", "0"}) {
    const InnerResult r = runScript(R"sh(
project p
"$CTEST" --test-dir p -R '^InnerExit\.(ExitsZero|PassesThenCrashesAtExit)$'
)sh",
                                    {{"RANKTEST_WARM", warm}});
    EXPECT_NE(r.exit_code, 0) << "RANKTEST_WARM=" << warm << "\n" << r.output;
    EXPECT_THAT(r.output, AllOf(HasSubstr("0% tests passed, 2 tests failed"),
                                HasSubstr("InnerExit.ExitsZero (Failed)"),
                                HasSubstr("InnerExit.PassesThenCrashesAtExit")))
        << "RANKTEST_WARM=" << warm;
  }
}

// A test forked by a warm process inherits the warm process's umask, limits
// and CPU affinity: a client whose differ (ctest's PROCESSOR_AFFINITY gives
// each test its own CPUs) gets a warm process of its own, so that each test
// runs with its own client's.
TEST(HarnessWarm, EachTestHasTheUmaskLimitsAndAffinityOfItsClient) {
  const InnerResult r = runScript(R"sh(
f=--gtest_filter=InnerWarm.ReportsItsSettings
umask 022
"$CLIENT" "$INNER" $f
(umask 077; exec "$CLIENT" "$INNER" $f)
(ulimit -Sn 512; exec "$CLIENT" "$INNER" $f)
if [ "$(nproc)" -gt 1 ]; then
  first_cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
  taskset -c "$first_cpu" "$CLIENT" "$INNER" $f
else
  echo "warm-settings umask=0022 nofile=0 cpus=1 warm=1 (one CPU here)"
fi
)sh");
  static const std::regex line(
      "warm-settings umask=(\\d+) nofile=(\\d+) cpus=(\\d+) warm=(\\d)");
  std::vector<std::smatch> runs;
  for (std::sregex_iterator it(r.output.begin(), r.output.end(), line), end;
       it != end; ++it) {
    runs.push_back(*it);
  }
  ASSERT_EQ(runs.size(), 4u) << r.output;
  EXPECT_EQ(runs[0][1], "0022") << r.output;
  EXPECT_EQ(runs[1][1], "0077") << r.output;
  EXPECT_NE(runs[0][2], "512") << r.output;
  EXPECT_EQ(runs[2][2], "512") << r.output;
  EXPECT_EQ(runs[3][3], "1") << r.output;
  for (const std::smatch& run : runs) EXPECT_EQ(run[4], "1") << r.output;
}

// The listing ctest asks for at every start comes from the cache while the
// binary is unchanged (even one that could no longer run), and from the
// binary again once it changed.
TEST(HarnessWarm, TestListIsCachedUntilTheBinaryChanges) {
  const InnerResult r = runScript(R"sh(
cp "$INNER" suite
"$CLIENT" --list-tests list suite >l1; echo "list1=$?"
chmod -x suite
"$CLIENT" --list-tests list suite >l2; echo "list2=$?"
cmp -s l1 l2 && echo "cached listing the same"
cp "$NO_INIT" suite.new; mv suite.new suite
RANKTEST_INNER_CALL_INIT=1 "$CLIENT" --list-tests list suite >l3
echo "list3=$?"
grep -q InnerNoInit l3 && ! grep -q InnerWarm l3 && echo "listed anew"
rm -f list l1 l2 l3 suite
)sh");
  EXPECT_THAT(r.output, AllOf(HasSubstr("list1=0"), HasSubstr("list2=0"),
                              HasSubstr("cached listing the same"),
                              HasSubstr("list3=0"), HasSubstr("listed anew")));
}

// The environment chooses what a listing holds (GTEST_FILTER, WORLD_SIZE,
// BACKEND, RANKTEST_*): a listing cached in one is never served in another.
TEST(HarnessWarm, TestListIsListedAnewInAnotherEnvironment) {
  const InnerResult r = runScript(R"sh(
cp "$INNER" suite
GTEST_FILTER='InnerWarm.*' "$CLIENT" --list-tests list suite >l1
echo "list1=$?"
"$CLIENT" --list-tests list suite >l2; echo "list2=$?"
grep -q '^InnerWarm\.' l1 && ! grep -q '^InnerReports\.' l1 &&
  echo "filtered listing"
grep -q '^InnerWarm\.' l2 && grep -q '^InnerReports\.' l2 &&
  echo "whole listing"
GTEST_FILTER='InnerWarm.*' "$CLIENT" --list-tests list suite >l3
cmp -s l1 l3 && echo "filtered again"
rm -f list l1 l2 l3 suite
)sh");
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("list1=0"), HasSubstr("list2=0"),
                    HasSubstr("filtered listing"), HasSubstr("whole listing"),
                    HasSubstr("filtered again")));
}

// A main() that initialised googletest before ranktest::init cannot be
// served warm (its flags are parsed already): the client says so and runs
// the binary directly, and the test passes. Its warm process stays to say
// so to the next clients of the run, so that none starts another.
TEST(HarnessWarm, MainThatInitialisesGoogletestFirstRunsDirectly) {
  const InnerResult r =
      runScript(R"sh(
warm() { pgrep -f -- "^$NO_INIT --ranktest_warm_serve=" | tr '\n' ' '; }
for run in 1 2 3; do
  "$CLIENT" "$NO_INIT" --gtest_filter=InnerNoInit.Passes/gloo_ws2
  echo "exit=$?"
  echo "warm after run $run: [$(warm)]"
done
)sh",
                {{"RANKTEST_INNER_CALL_INIT", "after_googletest"}});
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("exit=0"), HasSubstr("[  PASSED  ] 1 test"),
                    HasSubstr("(main() initialised googletest before "
                              "ranktest::init): running it directly")));
  EXPECT_EQ(countOccurrences(r.output, "exit=0"), 3u) << r.output;
  // One warm process, the same after each run.
  static const std::regex after("warm after run (\\d): \\[(\\d+) \\]");
  std::set<std::string> pids;
  int runs = 0;
  for (std::sregex_iterator it(r.output.begin(), r.output.end(), after), end;
       it != end; ++it, ++runs) {
    pids.insert((*it)[2]);
  }
  EXPECT_EQ(runs, 3) << r.output;
  EXPECT_EQ(pids.size(), 1u) << r.output;
}

}  // namespace
}  // namespace harness_suite
