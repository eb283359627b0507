#include "ranktest/hang_notes.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "rank/hang_notes_print.h"

namespace ranktest {
namespace {

// A slot is written only by the thread that moved it to kBusy; readers (the
// signal handlers) copy a kReady slot and keep the copy only if its id did
// not change meanwhile (a seqlock, the id being the sequence).
enum SlotState : int { kFree, kBusy, kReady };

struct NoteSlot {
  std::atomic<int> state{kFree};
  std::atomic<std::uint64_t> id{0};
  std::atomic<std::int64_t> since_ns{0};
  std::atomic<char> text[kMaxHangNoteBytes + 1];
};

NoteSlot g_note_slots[kMaxHangNotes];
std::atomic<std::uint64_t> g_next_note_id{1};
std::atomic<std::uint64_t> g_dropped_notes{0};

std::int64_t monotonicNs() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal safe
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

}  // namespace

std::uint64_t addHangNote(std::string_view text) {
  const std::size_t size =
      std::min<std::size_t>(text.size(), kMaxHangNoteBytes);
  for (NoteSlot& slot : g_note_slots) {
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kBusy)) continue;
    // Orders the writes below after kBusy for a reader that sees them.
    std::atomic_thread_fence(std::memory_order_release);
    for (std::size_t i = 0; i < size; ++i) {
      slot.text[i].store(text[i], std::memory_order_relaxed);
    }
    slot.text[size].store('\0', std::memory_order_relaxed);
    slot.since_ns.store(monotonicNs(), std::memory_order_relaxed);
    const std::uint64_t id = g_next_note_id.fetch_add(1);
    slot.id.store(id, std::memory_order_relaxed);
    slot.state.store(kReady, std::memory_order_release);
    return id;
  }
  g_dropped_notes.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

void removeHangNote(std::uint64_t id) {
  if (id == 0) return;
  for (NoteSlot& slot : g_note_slots) {
    if (slot.id.load(std::memory_order_acquire) != id) continue;
    int expected = kReady;
    if (!slot.state.compare_exchange_strong(expected, kBusy)) return;
    // Removed and reused by another note between the two loads: not ours.
    if (slot.id.load(std::memory_order_relaxed) != id) {
      slot.state.store(kReady, std::memory_order_release);
      return;
    }
    slot.id.store(0, std::memory_order_relaxed);
    slot.state.store(kFree, std::memory_order_release);
    return;
  }
}

namespace internal {
namespace {

// A line assembled in place: a signal handler may not allocate.
class NoteLine {
 public:
  void add(const char* text) {
    while (*text != '\0') addChar(*text++);
  }
  void addChar(char c) {
    if (size_ < sizeof(buffer_) - 1) buffer_[size_++] = c;
  }
  void addNumber(std::int64_t value) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value > 0 && n < 23);
    while (n > 0) addChar(digits[--n]);
  }
  // "12.3 s"
  void addAge(std::int64_t ns) {
    const std::int64_t tenths = std::max<std::int64_t>(ns, 0) / 100000000;
    addNumber(tenths / 10);
    addChar('.');
    addNumber(tenths % 10);
    add(" s");
  }
  void write() {
    addChar('\n');
    ssize_t ignored = ::write(STDERR_FILENO, buffer_, size_);
    (void)ignored;
  }

 private:
  char buffer_[kMaxHangNoteBytes + 128];
  std::size_t size_ = 0;
};

constexpr char kAgeField[] = "{age}";

}  // namespace

void printHangNotes(const char* when) {
  const std::int64_t now = monotonicNs();
  for (NoteSlot& slot : g_note_slots) {
    if (slot.state.load(std::memory_order_acquire) != kReady) continue;
    const std::uint64_t id = slot.id.load(std::memory_order_relaxed);
    char text[kMaxHangNoteBytes + 1];
    for (int i = 0; i <= kMaxHangNoteBytes; ++i) {
      text[i] = slot.text[i].load(std::memory_order_relaxed);
      if (text[i] == '\0') break;
    }
    text[kMaxHangNoteBytes] = '\0';
    const std::int64_t since = slot.since_ns.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (slot.state.load(std::memory_order_relaxed) != kReady ||
        slot.id.load(std::memory_order_relaxed) != id) {
      continue;  // removed or replaced while being copied
    }
    NoteLine line;
    line.add("[ranktest] pending ");
    line.add(when);
    line.add(": ");
    for (const char* c = text; *c != '\0';) {
      if (std::strncmp(c, kAgeField, sizeof(kAgeField) - 1) == 0) {
        line.addAge(now - since);
        c += sizeof(kAgeField) - 1;
      } else {
        line.addChar(*c++);
      }
    }
    line.write();
  }
  const std::uint64_t dropped = g_dropped_notes.load();
  if (dropped > 0) {
    NoteLine line;
    line.add("[ranktest] pending ");
    line.add(when);
    line.add(": ");
    line.addNumber(static_cast<std::int64_t>(dropped));
    line.add(" more notes were dropped (the table holds ");
    line.addNumber(kMaxHangNotes);
    line.add(")");
    line.write();
  }
}

}  // namespace internal
}  // namespace ranktest

extern "C" std::uint64_t ranktest_add_hang_note(const char* text) {
  return ranktest::addHangNote(text == nullptr ? "" : text);
}

extern "C" void ranktest_remove_hang_note(std::uint64_t id) {
  ranktest::removeHangNote(id);
}
