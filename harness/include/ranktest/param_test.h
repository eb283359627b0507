#pragma once

// Value-parameterised distributed tests: one test body, run for every row of
// a table (e.g. one row per communication hook).
//
// Example:
//   struct Row { std::string name; int factor; };
//   class Scaling : public ranktest::DistributedTestWithParam<Row> {
//    public:
//     static std::string paramName(const Row& row, std::size_t) {
//       return row.name;
//     }
//   };
//   RANKTEST_P(Scaling, MultipliesOnEveryRank) { ... param().factor ... }
//   const std::vector<Row> kRows = {{"double", 2}, {"triple", 3}};
//   RANKTEST_INSTANTIATE_P(Scaling, kRows);
// registers Scaling.MultipliesOnEveryRank/double/gloo_ws2, ... The tests and
// the rows may live in different files; ranktest::init() crosses them.

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ranktest/distributed_test.h"

namespace ranktest {

namespace internal {
// Runs `registration` from ranktest::init(), once every static initializer
// has run (tests and rows may come in any order).
bool deferRegistration(std::function<void()> registration);
// Called by init(): runs the deferred registrations.
void runDeferredRegistrations();
template <typename Fixture>
class ParamSuite;
}  // namespace internal

// Base of a parameterised fixture; T is one row of its table.
template <typename T>
class DistributedTestWithParam : public DistributedTest {
 public:
  using ParamType = T;
  // The row this test instance runs.
  const T& param() const { return *param_; }
  // The row's part of the test name; a fixture hides this with its own.
  static std::string paramName(const T&, std::size_t index) {
    return std::to_string(index);
  }

 private:
  template <typename Fixture>
  friend class internal::ParamSuite;
  const T* param_ = nullptr;
};

namespace internal {

// The bodies and the rows of one parameterised fixture.
template <typename Fixture>
class ParamSuite {
 public:
  using Param = typename Fixture::ParamType;
  using Make = std::unique_ptr<Fixture> (*)();

  static bool addTest(const char* suite, const char* name, const char* file,
                      int line, std::vector<TestTrait> traits, Make make) {
    get().tests_.push_back({name, file, line, std::move(traits), make});
    return get().scheduleOnce(suite);
  }
  static bool addRows(const char* suite, std::vector<Param> rows,
                      const std::vector<TestTrait>& traits) {
    for (Param& row : rows) {
      get().rows_.push_back({std::make_unique<Param>(std::move(row)), traits});
    }
    return get().scheduleOnce(suite);
  }

 private:
  struct Test {
    std::string name;
    const char* file;
    int line;
    std::vector<TestTrait> traits;
    Make make;
  };
  struct Row {
    std::unique_ptr<Param> value;  // stable address for param()
    std::vector<TestTrait> traits;
  };

  static ParamSuite& get() {
    static ParamSuite suite;
    return suite;
  }

  bool scheduleOnce(const char* suite) {
    if (scheduled_) return true;
    scheduled_ = true;
    return deferRegistration([suite] { get().registerAll(suite); });
  }

  void registerAll(const std::string& suite) {
    for (const Test& test : tests_) {
      for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Param* value = rows_[i].value.get();
        std::vector<TestTrait> traits = test.traits;
        traits.insert(traits.end(), rows_[i].traits.begin(),
                      rows_[i].traits.end());
        Make make = test.make;
        ::ranktest::registerTest(
            suite, test.name + "/" + Fixture::paramName(*value, i), test.file,
            test.line, Fixture::testOptions(), traits,
            [make, value]() -> std::unique_ptr<DistributedTest> {
              std::unique_ptr<Fixture> fixture = make();
              fixture->param_ = value;
              return fixture;
            });
      }
    }
  }

  std::vector<Test> tests_;
  std::vector<Row> rows_;
  bool scheduled_ = false;
};

}  // namespace internal
}  // namespace ranktest

#define RANKTEST_INTERNAL_CONCAT2_(a, b) a##b
#define RANKTEST_INTERNAL_CONCAT_(a, b) RANKTEST_INTERNAL_CONCAT2_(a, b)

// Defines a test body of the parameterised `fixture`, run once per row; extra
// arguments are TestTraits.
#define RANKTEST_P(fixture, name, ...)                                    \
  class RANKTEST_INTERNAL_CLASS_(fixture, name) : public fixture {        \
   private:                                                               \
    void rankBody() override;                                             \
                                                                          \
   public:                                                                \
    static std::unique_ptr<fixture> make() {                              \
      return std::make_unique<RANKTEST_INTERNAL_CLASS_(fixture, name)>(); \
    }                                                                     \
    static inline const bool registered_ =                                \
        ::ranktest::internal::ParamSuite<fixture>::addTest(               \
            #fixture, #name, __FILE__, __LINE__, {__VA_ARGS__}, &make);   \
  };                                                                      \
  void RANKTEST_INTERNAL_CLASS_(fixture, name)::rankBody()

// Adds `rows` (an expression convertible to std::vector<fixture::ParamType>,
// e.g. a table named above) to every RANKTEST_P of `fixture`; extra arguments
// are TestTraits for these rows, applied after the test's own.
#define RANKTEST_INSTANTIATE_P(fixture, rows, ...)                        \
  static const bool RANKTEST_INTERNAL_CONCAT_(ranktest_rows_##fixture##_, \
                                              __LINE__) =                 \
      ::ranktest::internal::ParamSuite<fixture>::addRows(                 \
          #fixture, std::vector<fixture::ParamType>(rows), {__VA_ARGS__})
