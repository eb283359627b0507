#pragma once

// What a joined rank does in place of a Joinable's collectives while other
// ranks still train (uneven inputs).

namespace distalgo::join {

class JoinHook {
 public:
  virtual ~JoinHook() = default;
  // Shadows one iteration of the joinable's collectives; called once per
  // round while any rank has not joined.
  virtual void mainHook() {}
  // Called once after every rank has joined; `is_last_joiner` is true on the
  // ranks that joined last (e.g. to pick the rank whose state wins).
  virtual void postHook(bool /*is_last_joiner*/) {}
};

}  // namespace distalgo::join
