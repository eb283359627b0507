#pragma once

// Catches libtorch's warnings (TORCH_WARN) while alive: c10's handler
// interface changed in 2.0 (a Warning object instead of its parts), and its
// override cannot be picked by a trait.

#include <c10/util/Exception.h>
#include <torch/version.h>

#include <string>
#include <vector>

namespace torch_compat {

#if TORCH_VERSION_MAJOR >= 2
namespace warning_utils = c10::WarningUtils;
#else
namespace warning_utils = c10::Warning;
#endif

class WarningCollector : public c10::WarningHandler {
 public:
  WarningCollector() : previous_(warning_utils::get_warning_handler()) {
    warning_utils::set_warning_handler(this);
  }
  ~WarningCollector() override {
    warning_utils::set_warning_handler(previous_);
  }
  WarningCollector(const WarningCollector&) = delete;
  WarningCollector& operator=(const WarningCollector&) = delete;

#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning& warning) override {
    messages.push_back(warning.msg());
  }
#else
  void process(const c10::SourceLocation&, const std::string& msg,
               bool) override {
    messages.push_back(msg);
  }
#endif

  // The warnings' messages, in order.
  std::vector<std::string> messages;

 private:
  c10::WarningHandler* previous_;
};

}  // namespace torch_compat
