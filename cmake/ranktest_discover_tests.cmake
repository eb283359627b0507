# Run by ctest before it runs anything (ranktest_add_suite puts an include
# file that sets RANKTEST_BINARY, RANKTEST_FEATURE, RANKTEST_WORKING_DIR,
# RANKTEST_WARM_CLIENT and RANKTEST_LIST_CACHE into the directory's
# TEST_INCLUDE_FILES): lists the suite binary's tests and adds each under its
# gtest name, labelled <feature>, or <feature>-nccl for an nccl instance.
# With the warm client (unless RANKTEST_WARM=0), the listing comes from a
# cache while the binary and its libraries are unchanged, and each test runs
# as `<client> <binary> <args>`: a child forked by the binary's warm
# process. googletest's own module does the same but gives every test the
# skip regex "[  SKIPPED ]", which ctest cannot take back (it adds up
# every skip regex it is given): a failing test whose output quoted an inner
# run's skipped line was shown as skipped. Here a skip is exit code 77 alone.
if(NOT EXISTS "${RANKTEST_BINARY}")
  # Not built: a test that fails, as googletest's module adds.
  add_test("${RANKTEST_FEATURE}_NOT_BUILT" "${RANKTEST_BINARY}")
  return()
endif()
set(command_prefix "${RANKTEST_BINARY}")
set(list_command "${RANKTEST_BINARY}" --gtest_list_tests)
if(RANKTEST_WARM_CLIENT AND EXISTS "${RANKTEST_WARM_CLIENT}"
   AND NOT "$ENV{RANKTEST_WARM}" STREQUAL "0")
  set(command_prefix "${RANKTEST_WARM_CLIENT}" "${RANKTEST_BINARY}")
  set(list_command "${RANKTEST_WARM_CLIENT}" --list-tests
                   "${RANKTEST_LIST_CACHE}" "${RANKTEST_BINARY}")
endif()
execute_process(
  COMMAND ${list_command}
  WORKING_DIRECTORY "${RANKTEST_WORKING_DIR}"
  TIMEOUT 60
  OUTPUT_VARIABLE listing
  ERROR_VARIABLE errors
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  list(JOIN list_command " " shown)
  message(FATAL_ERROR "ranktest: '${shown}' exited with ${result}:\n${errors}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(suite "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #]+\\.)")
    # "Suite." (typed suites: "Suite/0.  # TypeParam = int")
    set(suite "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^  ([^ #]+)(  # GetParam\\(\\) = (.*))?$")
    set(name "${suite}${CMAKE_MATCH_1}")
    # The ctest name keeps gtest's parameter comment, as googletest's
    # module names it.
    set(ctest_name "${name}")
    if(CMAKE_MATCH_2)
      set(ctest_name "${name}  # GetParam() = ${CMAKE_MATCH_3}")
    endif()
    set(labels "${RANKTEST_FEATURE}")
    if(name MATCHES "/nccl_ws[0-9]+$")
      set(labels "${RANKTEST_FEATURE}-nccl")
    endif()
    add_test("${ctest_name}" ${command_prefix} "--gtest_filter=${name}"
             "--gtest_also_run_disabled_tests")
    set_tests_properties("${ctest_name}" PROPERTIES
      LABELS "${labels}"
      WORKING_DIRECTORY "${RANKTEST_WORKING_DIR}"
      SKIP_RETURN_CODE 77
      ENVIRONMENT "RANKTEST_SKIPPED_EXIT_CODE=77")
    if(name MATCHES "(^|\\.)DISABLED_")
      set_tests_properties("${ctest_name}" PROPERTIES DISABLED TRUE)
    endif()
  endif()
endforeach()
