#include "distalgo/ddp/comm_hook.h"

namespace distalgo::ddp {

at::Tensor firstTensorOf(const c10::IValue& value) {
  if (value.isTensor()) return value.toTensor();
  if (value.isTensorList()) {
    const auto list = value.toTensorVector();
    if (!list.empty()) return list[0];
  }
  if (value.isList()) {
    const auto list = value.toListRef();
    if (!list.empty() && list[0].isTensor()) return list[0].toTensor();
  }
  return {};
}

}  // namespace distalgo::ddp
