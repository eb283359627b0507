#include "harness_overhead/temp_file.h"

#include <stdlib.h>

#include <cstdlib>

namespace harness_overhead {

int createTempFile(const std::string& stem, int flags, std::string* path) {
  const char* tmp = std::getenv("TMPDIR");
  *path = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + stem + ".XXXXXX";
  return ::mkostemp(path->data(), flags);
}

}  // namespace harness_overhead
