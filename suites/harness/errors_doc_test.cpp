// docs/errors.md and the code agree: every message the library and the
// harness throw is documented, and every documented message is thrown.
//
// A throw site (throw T(...), std::throw_with_nested(T(...)),
// DISTALGO_CHECK_ARG/STATE, the harness's RANKTEST_CHECK*/RANKTEST_FAIL*,
// TORCH_CHECK) gives its message as parts: string
// literals, named string constants and run-time values. Its *start* is the
// parts up to the first run-time value after the name has ended (the first
// ": "), the values as wildcards; e.g.
// kZeroStateDict, "consolidateStateDict: rank ", to, ... starts
// "distalgo::zero::ZeroRedundancyOptimizer::consolidateStateDict: rank ".
// A documented message is a `backticked` span of docs/errors.md that begins
// with a name and ": " (distalgo::..., ranktest..., or a start the code has).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace harness_suite {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text with comments blanked out, string and character literals kept.
std::string withoutComments(const std::string& code) {
  std::string out = code;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (c == '"' || c == '\'') {
      for (++i; i < out.size() && out[i] != c; ++i) {
        if (out[i] == '\\') ++i;
      }
    } else if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      const std::size_t end = out.find("*/", i);
      for (; i < out.size() && i < end + 2; ++i) {
        if (out[i] != '\n') out[i] = ' ';
      }
    }
  }
  return out;
}

// The index just past the literal that starts at `i`.
std::size_t skipLiteral(const std::string& code, std::size_t i) {
  const char quote = code[i];
  for (++i; i < code.size() && code[i] != quote; ++i) {
    if (code[i] == '\\') ++i;
  }
  return i + 1;
}

// The text between the parenthesis at `open` and its partner.
std::string balanced(const std::string& code, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < code.size();) {
    const char c = code[i];
    if (c == '"' || c == '\'') {
      i = skipLiteral(code, i);
      continue;
    }
    if (c == '(' || c == '{' || c == '[') ++depth;
    if ((c == ')' || c == '}' || c == ']') && --depth == 0) {
      return code.substr(open + 1, i - open - 1);
    }
    ++i;
  }
  return code.substr(open + 1);
}

// `text` split at top-level occurrences of `separator`, each part trimmed.
std::vector<std::string> splitTopLevel(const std::string& text,
                                       char separator) {
  std::vector<std::string> parts;
  std::string part;
  int depth = 0;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      const std::size_t end = skipLiteral(text, i);
      part += text.substr(i, end - i);
      i = end;
      continue;
    }
    if (c == '(' || c == '{' || c == '[') ++depth;
    if (c == ')' || c == '}' || c == ']') --depth;
    if (c == separator && depth == 0) {
      parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
    ++i;
  }
  parts.push_back(part);
  for (std::string& p : parts) {
    p = std::regex_replace(p, std::regex("^\\s+|\\s+$"), "");
  }
  return parts;
}

const std::regex& literalsOnly() {
  static const std::regex pattern(R"(^("([^"\\]|\\.)*"\s*)+$)");
  return pattern;
}

// The value of adjacent string literals.
std::string literalValue(const std::string& literals) {
  std::string value;
  for (std::size_t i = 0; i < literals.size(); ++i) {
    if (literals[i] != '"') continue;
    for (++i; i < literals.size() && literals[i] != '"'; ++i) {
      if (literals[i] == '\\' && i + 1 < literals.size()) {
        ++i;
        value += literals[i] == 'n' ? '\n' : literals[i];
      } else {
        value += literals[i];
      }
    }
  }
  return value;
}

using Constants = std::map<std::string, std::string>;

// Named string constants: `constexpr const char* kName = "...";` and alike.
void collectConstants(const std::string& code, Constants& constants) {
  static const std::regex definition(
      R"((?:constexpr|const)\s+(?:const\s+)?char\s*\*?\s*(k\w+)(?:\[\])?\s*=\s*((?:"(?:[^"\\]|\\.)*"\s*)+);)");
  for (std::sregex_iterator it(code.begin(), code.end(), definition), end;
       it != end; ++it) {
    constants[(*it)[1]] = literalValue((*it)[2]);
  }
}

// One part of a message: literal text, or a run-time value (nullopt).
using Part = std::optional<std::string>;

void flatten(const std::string& expression, const Constants& constants,
             std::vector<Part>& parts) {
  static const std::regex call(R"(^(c10::str|::c10::str|std::string)\s*\()");
  std::smatch match;
  if (std::regex_match(expression, literalsOnly())) {
    parts.push_back(literalValue(expression));
  } else if (constants.count(expression) != 0) {
    parts.push_back(constants.at(expression));
  } else if (std::regex_search(expression, match, call) &&
             balanced(expression, match.length() - 1).size() + match.length() +
                     1 ==
                 expression.size()) {
    for (const std::string& inner :
         splitTopLevel(balanced(expression, match.length() - 1), ',')) {
      flatten(inner, constants, parts);
    }
  } else if (const auto sum = splitTopLevel(expression, '+'); sum.size() > 1) {
    for (const std::string& term : sum) flatten(term, constants, parts);
  } else {
    parts.push_back(std::nullopt);
  }
}

struct ThrowSite {
  std::string where;  // file:line
  std::string start;  // as a regular expression
  std::string text;   // readable: run-time values as <...>
};

std::string escapeRegex(const std::string& text) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(text, special, "\\$&");
}

// The start of a message: parts up to the first run-time value after ": ".
std::optional<ThrowSite> startOf(const std::vector<Part>& parts) {
  ThrowSite site;
  for (const Part& part : parts) {
    if (!part) {
      if (site.text.find(": ") != std::string::npos) break;
      site.start += ".*?";
      site.text += "<...>";
      continue;
    }
    site.start += escapeRegex(*part);
    site.text += *part;
  }
  // A message that is all run-time values, or one with no literal word,
  // cannot be documented by its start.
  if (!std::regex_search(site.text, std::regex("[A-Za-z]{3}"))) {
    return std::nullopt;
  }
  return site;
}

std::vector<ThrowSite> throwSites(const fs::path& root) {
  std::vector<std::pair<fs::path, std::string>> files;
  Constants constants;
  for (const char* dir :
       {"lib/src", "lib/include", "harness/src", "harness/include"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".h") continue;
      files.emplace_back(entry.path(), withoutComments(readFile(entry.path())));
      collectConstants(files.back().second, constants);
    }
  }
  static const std::regex site(
      R"(\b(throw\s+(?:std::\w+|[A-Z]\w*)|std::throw_with_nested\s*\(\s*(?:std::\w+|[A-Z]\w*)|DISTALGO_CHECK_(?:ARG|STATE)|RANKTEST_CHECK(?:_ARG|_STATE|_ERRNO)?|RANKTEST_FAIL(?:_ARG|_STATE)?|TORCH_CHECK)\s*\()");
  std::vector<ThrowSite> sites;
  for (const auto& [path, code] : files) {
    // The macros' own definitions are no throw sites.
    if (path.filename() == "check.h") continue;
    for (std::sregex_iterator it(code.begin(), code.end(), site), end;
         it != end; ++it) {
      const std::size_t open = it->position() + it->length() - 1;
      std::vector<std::string> arguments =
          splitTopLevel(balanced(code, open), ',');
      const bool is_check = (*it)[1].str().find("CHECK") != std::string::npos;
      if (is_check) arguments.erase(arguments.begin());  // the condition
      std::vector<Part> parts;
      for (const std::string& argument : arguments) {
        flatten(argument, constants, parts);
      }
      std::optional<ThrowSite> start = startOf(parts);
      if (!start) continue;
      const auto line =
          1 + std::count(code.begin(), code.begin() + it->position(), '\n');
      start->where =
          fs::relative(path, root).string() + ":" + std::to_string(line);
      sites.push_back(*start);
    }
  }
  return sites;
}

// Whether a documented `span` gives the message of `site`: the site's start
// (its run-time values matching anything) begins the span, or the span,
// without a trailing "...", begins the site's literal text: a long message
// may be documented by its first words.
bool startsLike(const std::string& span, const ThrowSite& site) {
  if (std::regex_search(span, std::regex("^" + site.start))) return true;
  std::string words =
      std::regex_replace(span, std::regex(R"(\s*(\.\.\.)?$)"), "");
  const std::string literal = site.text.substr(0, site.text.find("<...>"));
  return words.size() >= 20 && literal.rfind(words, 0) == 0;
}

// Every `backticked` span of the document; ``double`` ones may hold a
// backtick (PyTorch's wording of some messages does).
std::vector<std::string> backticked(const std::string& document) {
  std::vector<std::string> spans;
  static const std::regex span("``([^\n]+?)``|`([^`\n]+)`");
  for (std::sregex_iterator it(document.begin(), document.end(), span), end;
       it != end; ++it) {
    spans.push_back((*it)[1].matched ? (*it)[1] : (*it)[2]);
  }
  return spans;
}

class HarnessErrorsDoc : public ::testing::Test {
 protected:
  void SetUp() override {
    sites_ = throwSites(root_);
    spans_ = backticked(readFile(root_ / "docs/errors.md"));
    ASSERT_GT(sites_.size(), 50u) << "the scan found too few throw sites";
    ASSERT_GT(spans_.size(), 50u);
  }

  bool documented(const ThrowSite& site) const {
    for (const std::string& span : spans_) {
      if (startsLike(span, site)) return true;
    }
    return false;
  }

  const fs::path root_ = RANKTEST_SOURCE_DIR;
  std::vector<ThrowSite> sites_;
  std::vector<std::string> spans_;
};

TEST_F(HarnessErrorsDoc, EveryThrownMessageIsDocumented) {
  std::string missing;
  for (const ThrowSite& site : sites_) {
    if (!documented(site)) missing += "\n  " + site.where + ": " + site.text;
  }
  EXPECT_EQ(missing, "")
      << "thrown, but no `span` of docs/errors.md starts like it:" << missing;
}

// A documented message: a name (distalgo::..., ranktest...) and ": ".
TEST_F(HarnessErrorsDoc, EveryDocumentedMessageIsThrown) {
  static const std::regex message(R"(^(distalgo|ranktest)[\w:]*[ \w]*: )");
  std::string stale;
  int checked = 0;
  for (const std::string& span : spans_) {
    if (!std::regex_search(span, message)) continue;
    ++checked;
    bool thrown = false;
    for (const ThrowSite& site : sites_) {
      if (startsLike(span, site)) {
        thrown = true;
        break;
      }
    }
    if (!thrown) stale += "\n  `" + span + "`";
  }
  EXPECT_GT(checked, 30);
  EXPECT_EQ(stale, "") << "documented, but no throw site starts so:" << stale;
}

}  // namespace
}  // namespace harness_suite
