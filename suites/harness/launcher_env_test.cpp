// Reading a launcher's environment: torchrun, Open MPI, srun and PMI, each
// complete, partial and inconsistent. srun cannot run here; its parsing is
// tested on the variables it documents.

#include "job/launcher_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace {

using ranktest::internal::detectLauncher;
using ranktest::internal::Environment;
using ranktest::internal::LaunchedRank;
using ranktest::internal::rendezvousAddress;
using ranktest::internal::slurmTasksOnNode;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Optional;

using Variables = std::map<std::string, std::string>;

Environment environment(const Variables& variables) {
  return [variables](const char* name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    if (it == variables.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

std::string refusal(const Variables& variables) {
  try {
    detectLauncher(environment(variables));
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(accepted)";
}

const Variables kTorchrun = {{"RANK", "3"},
                             {"WORLD_SIZE", "4"},
                             {"LOCAL_RANK", "1"},
                             {"LOCAL_WORLD_SIZE", "2"},
                             {"GROUP_RANK", "1"},
                             {"MASTER_ADDR", "10.0.0.1"},
                             {"MASTER_PORT", "29500"},
                             {"TORCHELASTIC_RUN_ID", "none"}};

TEST(HarnessLauncherEnv, NoLauncherWhenNoneOfItsVariablesIsSet) {
  EXPECT_FALSE(detectLauncher(environment({})));
  // A forced matrix cell is no launcher.
  EXPECT_FALSE(detectLauncher(environment({{"WORLD_SIZE", "4"}})));
  // A batch script of a SLURM allocation has SLURM_PROCID, but no step.
  EXPECT_FALSE(detectLauncher(
      environment({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}})));
  // A job of one process (ctest under `srun -n 1`) forks its ranks.
  EXPECT_FALSE(detectLauncher(environment({{"SLURM_PROCID", "0"},
                                           {"SLURM_NTASKS", "1"},
                                           {"SLURM_LOCALID", "0"},
                                           {"SLURM_NODEID", "0"},
                                           {"SLURM_STEP_ID", "0"},
                                           {"SLURM_TASKS_PER_NODE", "1"}})));
}

TEST(HarnessLauncherEnv, TorchrunGivesRankLayoutAndAddress) {
  const std::optional<LaunchedRank> r = detectLauncher(environment(kTorchrun));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "torchrun");
  EXPECT_EQ(r->rank, 3);
  EXPECT_EQ(r->world_size, 4);
  EXPECT_THAT(r->local_rank, Optional(1));
  EXPECT_THAT(r->local_world_size, Optional(2));
  EXPECT_THAT(r->node_rank, Optional(1));
  EXPECT_EQ(r->job, "torchrun run none");
  EXPECT_EQ(rendezvousAddress(*r, environment(kTorchrun)), "10.0.0.1:29500");
}

TEST(HarnessLauncherEnv, PartialTorchrunNamesWhatIsMissing) {
  EXPECT_THAT(refusal({{"RANK", "0"}, {"WORLD_SIZE", "2"}}),
              AllOf(HasSubstr("started by torchrun"), HasSubstr("partial"),
                    HasSubstr("LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, "
                              "MASTER_PORT")));
}

// What ranktest exports to the ranks of an mpirun job (their spawned bodies
// detect the launcher again) is no torchrun environment.
TEST(HarnessLauncherEnv, ExportedNodeVariablesLeaveOpenMpiDetected) {
  const auto r =
      detectLauncher(environment({{"OMPI_COMM_WORLD_RANK", "1"},
                                  {"OMPI_COMM_WORLD_SIZE", "4"},
                                  {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                  {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                                  {"LOCAL_RANK", "1"},
                                  {"LOCAL_WORLD_SIZE", "2"},
                                  {"GROUP_RANK", "0"}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "Open MPI");
  EXPECT_EQ(r->world_size, 4);
}

TEST(HarnessLauncherEnv, InconsistentOrNonNumericValuesAreRefused) {
  Variables outside = kTorchrun;
  outside["RANK"] = "4";
  EXPECT_THAT(refusal(outside), HasSubstr("RANK 4 is not below WORLD_SIZE 4"));
  Variables local = kTorchrun;
  local["LOCAL_WORLD_SIZE"] = "8";
  EXPECT_THAT(refusal(local),
              HasSubstr("LOCAL_WORLD_SIZE 8 exceeds WORLD_SIZE 4"));
  Variables text = kTorchrun;
  text["MASTER_PORT"] = "http";
  EXPECT_THAT(refusal(text),
              HasSubstr("MASTER_PORT='http', not an integer from 1 to 65535"));
  // Not wrapped into another port: 70000 would listen on 4464.
  Variables too_high = kTorchrun;
  too_high["MASTER_PORT"] = "70000";
  EXPECT_THAT(refusal(too_high),
              HasSubstr("MASTER_PORT='70000', not an integer from 1 to 65535"));
}

// torchrun's store outlives an attempt of the job: a restarted one knows
// which it is.
TEST(HarnessLauncherEnv, TorchrunRestartCountIsRead) {
  EXPECT_EQ(detectLauncher(environment(kTorchrun))->restart_count,
            std::nullopt);
  Variables restarted = kTorchrun;
  restarted["TORCHELASTIC_RESTART_COUNT"] = "2";
  EXPECT_EQ(detectLauncher(environment(restarted))->restart_count, 2);
  restarted["TORCHELASTIC_RESTART_COUNT"] = "-1";
  EXPECT_THAT(
      refusal(restarted),
      HasSubstr("TORCHELASTIC_RESTART_COUNT='-1', not an integer >= 0"));
}

TEST(HarnessLauncherEnv, OpenMpiWithoutAddressOnOneNodeDerivesOne) {
  const Variables mpi = {{"OMPI_COMM_WORLD_RANK", "2"},
                         {"OMPI_COMM_WORLD_SIZE", "3"},
                         {"OMPI_COMM_WORLD_LOCAL_RANK", "2"},
                         {"OMPI_COMM_WORLD_LOCAL_SIZE", "3"},
                         {"OMPI_MCA_ess_base_jobid", "2905145345"},
                         {"PMIX_RANK", "2"}};
  const std::optional<LaunchedRank> r = detectLauncher(environment(mpi));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "Open MPI");
  EXPECT_EQ(r->rank, 2);
  EXPECT_FALSE(r->node_rank);  // worked out among the ranks
  EXPECT_EQ(r->job, "Open MPI job 2905145345");
  const std::string address = rendezvousAddress(*r, environment(mpi));
  ASSERT_THAT(address, HasSubstr("127.0.0.1:"));
  const int port = std::stoi(address.substr(address.find(':') + 1));
  EXPECT_GE(port, 20000);
  EXPECT_LT(port, 32768);  // below the ephemeral ports
}

// Slurm numbers jobs one after another: jobs 20000 apart (or 200, as the
// port once was derived) must not derive one port.
TEST(HarnessLauncherEnv, SrunJobsOnOneNodeDeriveTheirOwnPorts) {
  auto portOf = [](const std::string& job_id) {
    const Variables step = {
        {"SLURM_PROCID", "0"},   {"SLURM_NTASKS", "2"},
        {"SLURM_LOCALID", "0"},  {"SLURM_NODEID", "0"},
        {"SLURM_STEP_ID", "0"},  {"SLURM_TASKS_PER_NODE", "2"},
        {"SLURM_JOB_ID", job_id}};
    const LaunchedRank r = *detectLauncher(environment(step));
    EXPECT_EQ(r.job, "Slurm job " + job_id + " step 0");
    const std::string address = rendezvousAddress(r, environment(step));
    return std::stoi(address.substr(address.find(':') + 1));
  };
  std::set<int> ports;
  for (const char* job : {"100", "300", "20100", "40100", "100100"}) {
    const int port = portOf(job);
    EXPECT_GE(port, 20000);
    EXPECT_LT(port, 32768);  // below the ephemeral ports
    ports.insert(port);
  }
  EXPECT_EQ(ports.size(), 5u);
}

TEST(HarnessLauncherEnv, OpenMpiAcrossNodesNeedsMasterAddrAndPort) {
  Variables mpi = {{"OMPI_COMM_WORLD_RANK", "0"},
                   {"OMPI_COMM_WORLD_SIZE", "4"},
                   {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                   {"OMPI_MCA_ess_base_jobid", "7"}};
  const LaunchedRank r = *detectLauncher(environment(mpi));
  try {
    rendezvousAddress(r, environment(mpi));
    ADD_FAILURE() << "no address to derive across nodes";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("set MASTER_ADDR"),
                                    HasSubstr("-x MASTER_PORT")));
  }
  mpi["MASTER_ADDR"] = "10.0.0.1";
  EXPECT_THROW(rendezvousAddress(r, environment(mpi)), std::invalid_argument);
  mpi["MASTER_PORT"] = "29400";
  EXPECT_EQ(
      rendezvousAddress(*detectLauncher(environment(mpi)), environment(mpi)),
      "10.0.0.1:29400");
  // An IPv6 MASTER_ADDR, bracketed or not, is written in brackets.
  for (const char* v6 : {"fd00::1", "[fd00::1]"}) {
    mpi["MASTER_ADDR"] = v6;
    EXPECT_EQ(
        rendezvousAddress(*detectLauncher(environment(mpi)), environment(mpi)),
        "[fd00::1]:29400");
  }
  EXPECT_THAT(refusal({{"OMPI_COMM_WORLD_RANK", "0"}}),
              AllOf(HasSubstr("started by Open MPI"),
                    HasSubstr("OMPI_COMM_WORLD_SIZE")));
}

TEST(HarnessLauncherEnv, SrunStepGivesNodeAndTasksOnIt) {
  const Variables step = {
      {"SLURM_PROCID", "5"},  {"SLURM_NTASKS", "7"},
      {"SLURM_LOCALID", "1"}, {"SLURM_NODEID", "2"},
      {"SLURM_STEP_ID", "0"}, {"SLURM_TASKS_PER_NODE", "2(x3),1"}};
  const std::optional<LaunchedRank> r = detectLauncher(environment(step));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "srun");
  EXPECT_EQ(r->rank, 5);
  EXPECT_EQ(r->world_size, 7);
  EXPECT_THAT(r->local_rank, Optional(1));
  EXPECT_THAT(r->local_world_size, Optional(2));
  EXPECT_THAT(r->node_rank, Optional(2));
  Variables bad_node = step;
  bad_node["SLURM_NODEID"] = "4";
  EXPECT_THAT(refusal(bad_node), HasSubstr("SLURM_NODEID 4 is not among"));
  Variables partial = step;
  partial.erase("SLURM_LOCALID");
  EXPECT_THAT(refusal(partial), AllOf(HasSubstr("started by srun"),
                                      HasSubstr("not SLURM_LOCALID")));
}

TEST(HarnessLauncherEnv, SlurmTasksPerNodeExpands) {
  EXPECT_EQ(slurmTasksOnNode("4", 0), 4);
  EXPECT_EQ(slurmTasksOnNode("2(x3),1", 0), 2);
  EXPECT_EQ(slurmTasksOnNode("2(x3),1", 2), 2);
  EXPECT_EQ(slurmTasksOnNode("2(x3),1", 3), 1);
  EXPECT_EQ(slurmTasksOnNode("1,3(x2)", 2), 3);
  EXPECT_THROW(slurmTasksOnNode("2(x3),1", 4), std::invalid_argument);
  for (const char* malformed : {"", "x", "2(3)", "2(x)", "2(x3", "0", "2,"}) {
    EXPECT_THROW(slurmTasksOnNode(malformed, 0), std::invalid_argument)
        << malformed;
  }
}

TEST(HarnessLauncherEnv, PmiNeedsASizeAndBothLocalVariables) {
  const std::optional<LaunchedRank> r =
      detectLauncher(environment({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "PMI");
  EXPECT_FALSE(r->local_rank);
  EXPECT_EQ(r->job, "");  // PMI names none
  EXPECT_EQ(detectLauncher(environment({{"PMI_RANK", "1"},
                                        {"PMI_SIZE", "2"},
                                        {"SLURM_JOB_ID", "7"},
                                        {"SLURM_STEP_ID", "1"}}))
                ->job,
            "Slurm job 7 step 1");
  EXPECT_THAT(refusal({{"PMIX_RANK", "1"}}), HasSubstr("not PMIX_SIZE"));
  EXPECT_THAT(
      refusal({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"MPI_LOCALRANKID", "1"}}),
      HasSubstr("without the other"));
}

}  // namespace
