#pragma once

// Which launcher started this process, read from the environment it sets:
// under torchrun, mpirun, a PMI launcher or srun each process is one rank of
// the job and runs every test's body itself (external-launcher mode).

#include <functional>
#include <optional>
#include <string>

namespace ranktest::internal {

// This process's place in a launched job.
struct LaunchedRank {
  std::string launcher;  // "torchrun", "Open MPI", "PMI" or "srun"
  int rank = 0;
  int world_size = 0;
  // Unset where the launcher does not say; the ranks then work the node
  // layout out among themselves.
  std::optional<int> local_rank;
  std::optional<int> local_world_size;
  std::optional<int> node_rank;
  // Where rank 0 serves the rendezvous store; unset where the launcher does
  // not say (see rendezvousAddress()).
  std::optional<std::string> master_addr;
  std::optional<int> master_port;
  // torchrun's restarts of the job so far (TORCHELASTIC_RESTART_COUNT): its
  // store outlives an attempt, so each attempt keeps to keys of its own.
  std::optional<int> restart_count;
  // What names the job, the same in each of its ranks, or "" where nothing
  // does: "torchrun run <TORCHELASTIC_RUN_ID>", "Open MPI job
  // <OMPI_MCA_ess_base_jobid>", "Slurm job <SLURM_JOB_ID> step
  // <SLURM_STEP_ID>" (srun's, and a PMI launcher's inside an allocation).
  // Its ranks claim the store with it (job_claim.h).
  std::string job;
};

// A variable's value, or nullopt when it is unset or empty.
using Environment = std::function<std::optional<std::string>(const char*)>;

// The process's own environment.
std::optional<std::string> processEnvironment(const char* name);

// The launcher's view of this process, or nullopt when no launcher started
// it or it started a job of one process (which forks its ranks as usual).
// Throws std::invalid_argument naming the launcher and the variables when they
// are partial (some set, some missing), not numbers, or inconsistent (a rank
// outside the world).
std::optional<LaunchedRank> detectLauncher(const Environment& env);

// "host:port" where rank 0 serves the store: MASTER_ADDR and MASTER_PORT
// when set (torchrun always sets them; with mpirun pass them with -x);
// otherwise, for a job on one node, 127.0.0.1 and a port in [20000, 40000)
// derived from the job's name (LaunchedRank::job) by a hash: two jobs share
// one by chance only, and then the second is refused (job_claim.h).
// Throws std::invalid_argument when neither applies, saying what to set.
std::string rendezvousAddress(const LaunchedRank& launched,
                              const Environment& env);

// Expands SLURM_TASKS_PER_NODE ("2(x3),1": two tasks on each of three nodes,
// then one) to the task count of node `node`. Throws std::invalid_argument
// on a malformed value or a node outside it.
int slurmTasksOnNode(const std::string& tasks_per_node, int node);

}  // namespace ranktest::internal
