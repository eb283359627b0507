#pragma once

// A suite binary started by a launcher (torchrun, mpirun, srun; see
// launcher_env.h): each process is one rank of the job, and gtest runs the
// same tests in the same order in every rank. Per distributed test a rank
// runs its body in a child it supervises as the forked mode does, publishes
// its report to the job's TCPStore (rank 0 serves it at MASTER_ADDR), and
// reads every other rank's: all ranks then judge the same reports alike and
// end the test, and the run, with the same outcome and exit code. A rank
// that fails sets the test's abort key, which stops the others' bodies at
// once. Rank 0 alone prints and writes the XML.

#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "ranktest/internal/launcher_env.h"
#include "ranktest/internal/registry.h"
#include "ranktest/internal/supervisor.h"

namespace ranktest::internal {

class LaunchedJob {
 public:
  // Detects a launcher and joins its job's store (waiting up to `timeout`
  // for rank 0's); nullptr when no launcher started this process. Throws
  // std::invalid_argument on a partial or inconsistent environment and
  // std::runtime_error when the store cannot be reached.
  static std::unique_ptr<LaunchedJob> join(std::chrono::milliseconds timeout);

  // The job joined by init(), or nullptr.
  static LaunchedJob* current();
  static void setCurrent(std::unique_ptr<LaunchedJob> job);

  const LaunchedRank& launched() const { return launched_; }

  // Runs test `t` as this rank: agrees with the other ranks on the test and
  // on skipping (`local_skip`, this host's conditions), runs the body in a
  // child supervised with `options`, and returns every rank's report.
  SuperviseResult run(const TestInstance& t, SuperviseOptions options,
                      const std::optional<Skip>& local_skip);

  // After the last test: rank 0 serves the store until every rank is done.
  void finish();

 private:
  LaunchedJob(LaunchedRank launched, std::string store_address);

  std::string get(const std::string& key);

  LaunchedRank launched_;
  std::string store_address_;  // host:port
  std::string gloo_host_;      // this host's address toward rank 0
  std::string where_;          // "host h, pid p"
  c10::intrusive_ptr<c10d::Store> store_;
  long sequence_ = 0;
};

}  // namespace ranktest::internal
