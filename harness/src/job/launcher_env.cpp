#include "job/launcher_env.h"

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <vector>

#include "wire/check.h"
#include "wire/host_port.h"
#include "wire/number_text.h"

namespace ranktest::internal {
namespace {

[[noreturn]] void refuse(const std::string& launcher,
                         const std::string& problem) {
  RANKTEST_FAIL_ARG("ranktest: started by " + launcher +
                    ", but its environment " + problem);
}

// The variables of one launcher, read and checked together.
class LauncherVariables {
 public:
  LauncherVariables(const Environment& env, std::string launcher)
      : env_(env), launcher_(std::move(launcher)) {}

  static constexpr int kLargest = 1 << 30;

  std::optional<int> optional(const char* name, int min = 0,
                              int max = kLargest) {
    const std::optional<std::string> text = env_(name);
    if (!text) return std::nullopt;
    const std::optional<std::int64_t> value = parseInteger(*text, min, max);
    if (!value) {
      refuse(launcher_,
             "has " + std::string(name) + "='" + *text + "', not an integer " +
                 (max == kLargest ? ">= " + std::to_string(min)
                                  : "from " + std::to_string(min) + " to " +
                                        std::to_string(max)));
    }
    return static_cast<int>(*value);
  }

  // A TCP port: rank 0's store listens there.
  static constexpr int kLargestPort = 65535;
  std::optional<int> port(const char* name) {
    return optional(name, 1, kLargestPort);
  }

  // Missing ones are collected, so that one message names them all.
  int required(const char* name, int min = 0, int max = kLargest) {
    const std::optional<int> value = optional(name, min, max);
    if (!value) missing_ += (missing_.empty() ? "" : ", ") + std::string(name);
    return value.value_or(0);
  }

  void checkComplete(const std::string& set) const {
    if (!missing_.empty()) {
      refuse(launcher_, "is partial: " + set + " set, but not " + missing_);
    }
  }

  // value < bound, or value <= bound when `or_equal`.
  void checkBelow(const char* what, int value, const char* bound_name,
                  int bound, bool or_equal = false) const {
    if (value < bound || (or_equal && value == bound)) return;
    refuse(launcher_, "is inconsistent: " + std::string(what) + " " +
                          std::to_string(value) +
                          (or_equal ? " exceeds " : " is not below ") +
                          bound_name + " " + std::to_string(bound));
  }

 private:
  const Environment& env_;
  std::string launcher_;
  std::string missing_;
};

void checkLayout(const LaunchedRank& r, LauncherVariables& vars,
                 const char* rank, const char* size, const char* local_rank,
                 const char* local_size) {
  vars.checkBelow(rank, r.rank, size, r.world_size);
  if (r.local_world_size) {
    vars.checkBelow(local_rank, *r.local_rank, local_size, *r.local_world_size);
    vars.checkBelow(local_size, *r.local_world_size, size, r.world_size,
                    /*or_equal=*/true);
  }
}

// `prefix` and the `parts` joined by `separator`, or "" where one is unset.
std::string jobName(const std::string& prefix,
                    std::initializer_list<std::optional<std::string>> parts,
                    const std::string& separator = "") {
  std::string name = prefix;
  bool first = true;
  for (const std::optional<std::string>& part : parts) {
    if (!part) return "";
    name += (first ? "" : separator) + *part;
    first = false;
  }
  return name;
}

// LOCAL_RANK alone makes no torchrun job: ranktest itself exports it (with
// LOCAL_WORLD_SIZE and GROUP_RANK) to the ranks of other launchers' jobs.
std::optional<LaunchedRank> torchrun(const Environment& env) {
  if (!env("TORCHELASTIC_RUN_ID") && !env("RANK")) return std::nullopt;
  LauncherVariables vars(env, "torchrun");
  LaunchedRank r;
  r.launcher = "torchrun";
  r.rank = vars.required("RANK");
  r.world_size = vars.required("WORLD_SIZE", 1);
  r.local_rank = vars.required("LOCAL_RANK");
  r.local_world_size = vars.required("LOCAL_WORLD_SIZE", 1);
  r.master_addr = env("MASTER_ADDR");
  if (!r.master_addr) vars.required("MASTER_ADDR");
  r.master_port =
      vars.required("MASTER_PORT", 1, LauncherVariables::kLargestPort);
  r.node_rank = vars.optional("GROUP_RANK");
  r.restart_count = vars.optional("TORCHELASTIC_RESTART_COUNT");
  r.job = jobName("torchrun run ", {env("TORCHELASTIC_RUN_ID")});
  vars.checkComplete("RANK or TORCHELASTIC_RUN_ID is");
  checkLayout(r, vars, "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE");
  return r;
}

std::optional<LaunchedRank> openMpi(const Environment& env) {
  if (!env("OMPI_COMM_WORLD_RANK")) return std::nullopt;
  LauncherVariables vars(env, "Open MPI");
  LaunchedRank r;
  r.launcher = "Open MPI";
  r.rank = vars.required("OMPI_COMM_WORLD_RANK");
  r.world_size = vars.required("OMPI_COMM_WORLD_SIZE", 1);
  r.local_rank = vars.required("OMPI_COMM_WORLD_LOCAL_RANK");
  r.local_world_size = vars.required("OMPI_COMM_WORLD_LOCAL_SIZE", 1);
  r.job = jobName("Open MPI job ", {env("OMPI_MCA_ess_base_jobid")});
  vars.checkComplete("OMPI_COMM_WORLD_RANK is");
  checkLayout(r, vars, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
              "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE");
  return r;
}

// srun sets SLURM_STEP_ID in the processes of a step; a batch script has
// SLURM_PROCID too, but is no rank of a step.
std::optional<LaunchedRank> srun(const Environment& env) {
  if (!env("SLURM_PROCID") || !env("SLURM_STEP_ID")) return std::nullopt;
  LauncherVariables vars(env, "srun");
  LaunchedRank r;
  r.launcher = "srun";
  r.rank = vars.required("SLURM_PROCID");
  r.world_size = vars.required("SLURM_NTASKS", 1);
  r.local_rank = vars.required("SLURM_LOCALID");
  r.node_rank = vars.required("SLURM_NODEID");
  const std::optional<std::string> per_node = env("SLURM_TASKS_PER_NODE");
  if (!per_node) vars.required("SLURM_TASKS_PER_NODE");
  vars.checkComplete("SLURM_PROCID and SLURM_STEP_ID are");
  try {
    r.local_world_size = slurmTasksOnNode(*per_node, *r.node_rank);
  } catch (const std::invalid_argument& error) {
    refuse("srun", std::string("is inconsistent: ") + error.what());
  }
  checkLayout(r, vars, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
              "the tasks on this node (SLURM_TASKS_PER_NODE)");
  r.master_addr = env("MASTER_ADDR");
  r.master_port = vars.port("MASTER_PORT");
  r.job = jobName("Slurm job ", {env("SLURM_JOB_ID"), env("SLURM_STEP_ID")},
                  " step ");
  return r;
}

// MPICH's Hydra and other PMI-1/PMI-2 launchers.
std::optional<LaunchedRank> pmi(const Environment& env) {
  if (!env("PMI_RANK") && !env("PMIX_RANK")) return std::nullopt;
  LauncherVariables vars(env, "PMI");
  LaunchedRank r;
  r.launcher = "PMI";
  const bool pmix = !env("PMI_RANK");
  r.rank = vars.required(pmix ? "PMIX_RANK" : "PMI_RANK");
  r.world_size = vars.required(pmix ? "PMIX_SIZE" : "PMI_SIZE", 1);
  vars.checkComplete(pmix ? "PMIX_RANK is" : "PMI_RANK is");
  r.local_rank = vars.optional("MPI_LOCALRANKID");
  r.local_world_size = vars.optional("MPI_LOCALNRANKS", 1);
  if (r.local_rank.has_value() != r.local_world_size.has_value()) {
    refuse("PMI",
           "is partial: one of MPI_LOCALRANKID and MPI_LOCALNRANKS is "
           "set without the other");
  }
  checkLayout(r, vars, pmix ? "PMIX_RANK" : "PMI_RANK",
              pmix ? "PMIX_SIZE" : "PMI_SIZE", "MPI_LOCALRANKID",
              "MPI_LOCALNRANKS");
  // PMI names no job; inside a Slurm allocation (mpiexec.hydra there) the
  // allocation's step does.
  r.job = jobName("Slurm job ", {env("SLURM_JOB_ID"), env("SLURM_STEP_ID")},
                  " step ");
  return r;
}

// A port in [20000, 40000) for a job: below Linux's ephemeral ports. A
// hash, so that jobs whose numbers differ by a multiple of the range (Slurm
// numbers its jobs one after another) do not meet on one.
// Below Linux's ephemeral ports (32768 and up by default): a derived port
// in that range could be the local port of any outgoing connection on the
// host (seen: a job's store port taken by another job's Gloo connection).
constexpr int kFirstDerivedPort = 20000;
constexpr int kDerivedPortsEnd = 32768;

int portForJob(const std::string& job) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a
  for (const unsigned char c : job) hash = (hash ^ c) * 0x100000001b3ULL;
  return kFirstDerivedPort +
         static_cast<int>(hash % (kDerivedPortsEnd - kFirstDerivedPort));
}

}  // namespace

std::optional<std::string> processEnvironment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::optional<LaunchedRank> detectLauncher(const Environment& env) {
  // Open MPI also sets PMIX_RANK, and srun --mpi=pmix too: the specific
  // launchers first.
  for (auto detect : {&torchrun, &openMpi, &srun, &pmi}) {
    std::optional<LaunchedRank> launched = detect(env);
    if (!launched) continue;
    // A job of one process (ctest under `srun -n 1`, one torchrun worker)
    // cannot run a multi-rank test as its ranks: it forks them as usual.
    if (launched->world_size == 1) return std::nullopt;
    return launched;
  }
  return std::nullopt;
}

std::string rendezvousAddress(const LaunchedRank& launched,
                              const Environment& env) {
  if (launched.master_addr && launched.master_port) {
    return joinHostPort(*launched.master_addr, *launched.master_port);
  }
  const std::optional<std::string> addr = env("MASTER_ADDR");
  const std::optional<std::string> port = env("MASTER_PORT");
  if (addr && port) {
    LauncherVariables vars(env, launched.launcher);
    return joinHostPort(*addr, *vars.port("MASTER_PORT"));
  }
  if (addr || port) {
    refuse(launched.launcher,
           "is partial: set both MASTER_ADDR and MASTER_PORT, or neither");
  }
  const bool one_node = launched.local_world_size &&
                        *launched.local_world_size == launched.world_size;
  if (!one_node || launched.job.empty()) {
    refuse(launched.launcher,
           "names no rendezvous address: set MASTER_ADDR (a host every rank "
           "reaches, where rank 0 runs) and MASTER_PORT (a free port there), "
           "e.g. mpirun -x MASTER_ADDR=host0 -x MASTER_PORT=29500");
  }
  return joinHostPort("127.0.0.1", portForJob(launched.job));
}

int slurmTasksOnNode(const std::string& tasks_per_node, int node) {
  const auto malformed = [&](const std::string& why) {
    return std::invalid_argument("SLURM_TASKS_PER_NODE='" + tasks_per_node +
                                 "' " + why);
  };
  // (tasks, nodes) runs, all parsed before any is used.
  std::vector<std::pair<int, int>> runs;
  std::size_t start = 0;
  while (start <= tasks_per_node.size()) {
    std::size_t comma = tasks_per_node.find(',', start);
    if (comma == std::string::npos) comma = tasks_per_node.size();
    const std::string item = tasks_per_node.substr(start, comma - start);
    // "tasks" or "tasks(xrepeat)".
    const std::size_t open = item.find("(x");
    const std::optional<std::int64_t> tasks = parseInteger(
        std::string_view(item).substr(0, open), 1, LauncherVariables::kLargest);
    std::optional<std::int64_t> repeat = 1;
    if (open != std::string::npos) {
      repeat = item.back() == ')'
                   ? parseInteger(std::string_view(item).substr(
                                      open + 2, item.size() - open - 3),
                                  1, LauncherVariables::kLargest)
                   : std::nullopt;
    }
    if (!tasks || !repeat) throw malformed("is malformed");
    runs.emplace_back(static_cast<int>(*tasks), static_cast<int>(*repeat));
    start = comma + 1;
  }
  int first_node = 0;
  for (const auto& [tasks, nodes] : runs) {
    if (node < first_node + nodes) return tasks;
    first_node += nodes;
  }
  throw malformed("lists " + std::to_string(first_node) +
                  " nodes; SLURM_NODEID " + std::to_string(node) +
                  " is not among them");
}

}  // namespace ranktest::internal
