#include "ddp_step/models.h"

#include "fixtures/models.h"

namespace ddp_step {

const std::vector<ModelRow>& modelRows() {
  static const std::vector<ModelRow> rows = {
      {"mlp", &fixtures::makeMlp, fixtures::kMlpInputs, fixtures::kMlpOutputs},
      {"convnet", &fixtures::makeConvNet, fixtures::kMlpInputs,
       fixtures::kMlpOutputs},
  };
  return rows;
}

const ModelRow* findModel(const std::string& name) {
  for (const ModelRow& row : modelRows()) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

}  // namespace ddp_step
