// A backend that lacks a collective: the quantized wrappers throw
// UnsupportedCollective naming themselves and the backend, before anything
// is sent, instead of crashing or hanging.

#include <ATen/ATen.h>
#include <gmock/gmock.h>

#include "distalgo/quantization/collectives.h"
#include "distalgo/quantization/unsupported_collective.h"
#include "ranktest/ranktest.h"

namespace {

namespace q = distalgo::quantization;
using ::testing::HasSubstr;

// Forwards allgather only; every other collective is c10d's default, which
// throws "ProcessGroup <name> does not support <collective>".
class AllgatherOnlyGroup : public c10d::ProcessGroup {
 public:
  explicit AllgatherOnlyGroup(c10::intrusive_ptr<c10d::ProcessGroup> inner)
      : ProcessGroup(inner->getRank(), inner->getSize()),
        inner_(std::move(inner)) {}
  const std::string getBackendName() const override { return "allgather-only"; }
  c10::intrusive_ptr<c10d::Work> allgather(
      std::vector<std::vector<at::Tensor>>& outputs,
      std::vector<at::Tensor>& inputs,
      const c10d::AllgatherOptions& opts) override {
    return inner_->allgather(outputs, inputs, opts);
  }

 private:
  c10::intrusive_ptr<c10d::ProcessGroup> inner_;
};

class QuantizationUnsupported : public ranktest::DistributedTest {};

RANKTEST_F(QuantizationUnsupported, ThrowsAClearErrorWhereTheBackendLacksIt) {
  auto group = c10::make_intrusive<AllgatherOnlyGroup>(pg());
  for (q::DQuantType qtype : {q::DQuantType::FP16, q::DQuantType::BFP16}) {
    at::Tensor tensor = at::ones({4});
    try {
      q::allReduce(group, tensor, qtype);
      ADD_FAILURE() << "allReduce did not throw";
    } catch (const q::UnsupportedCollective& error) {
      EXPECT_THAT(error.what(), HasSubstr("distalgo::quantization::allReduce"));
      EXPECT_THAT(error.what(), HasSubstr("backend allgather-only"));
      EXPECT_THAT(error.what(), HasSubstr("does not support"));
    }
    at::Tensor output = at::empty({2});
    EXPECT_THROW(q::allToAllSingle(group, output, at::ones({2}), qtype),
                 q::UnsupportedCollective);
    const std::vector<at::Tensor> parts(worldSize(), at::ones({2}));
    EXPECT_THROW(q::scatter(group, output, parts, /*src=*/0, qtype),
                 q::UnsupportedCollective);
    // The one it has still works.
    std::vector<at::Tensor> gathered;
    for (int r = 0; r < worldSize(); ++r) gathered.push_back(at::empty({4}));
    q::allGather(group, gathered, at::full({4}, static_cast<float>(rank())),
                 qtype);
    EXPECT_EQ(gathered.back()[0].item<float>(), worldSize() - 1);
  }
}

RANKTEST_F(QuantizationUnsupported, RejectsListsOfTheWrongLength) {
  std::vector<at::Tensor> outputs{at::empty({2})};
  EXPECT_THROW(q::allGather(pg(), outputs, at::ones({2}), q::DQuantType::FP16),
               std::invalid_argument);
  EXPECT_THROW(
      q::allToAll(pg(), outputs, {at::ones({2})}, q::DQuantType::BFP16),
      std::invalid_argument);
}

}  // namespace
