#include "ddp/internal/hang_note.h"

// Weak: null unless the program links ranktest, which defines them in a
// translation unit every ranktest binary links (its rank signal handlers
// print the notes). A weak reference keeps distalgo free of any dependency
// on the harness, at build time and at run time, in a static or a shared
// build alike (-rdynamic exports the harness's definitions).
extern "C" [[gnu::weak]] std::uint64_t ranktest_add_hang_note(const char* text);
extern "C" [[gnu::weak]] void ranktest_remove_hang_note(std::uint64_t id);

namespace distalgo::ddp::internal {

std::uint64_t addHangNote(const std::string& text) {
  if (ranktest_add_hang_note == nullptr) return 0;
  return ranktest_add_hang_note(text.c_str());
}

void removeHangNote(std::uint64_t id) {
  if (id == 0 || ranktest_remove_hang_note == nullptr) return;
  ranktest_remove_hang_note(id);
}

}  // namespace distalgo::ddp::internal
