include(GoogleTest)

# In this tree, a target reuses the suites' precompiled headers; a project
# using the installed package has none to reuse. (ranktest::ranktest makes
# every executable export its symbols, which named stacks need.)
function(_ranktest_reuse_pch target)
  if(TARGET ranktest_pch)
    target_precompile_headers(${target} REUSE_FROM ranktest_pch)
  endif()
endfunction()

# ranktest_add_suite(<feature> SOURCES <files...> [LIBRARIES <targets...>])
# Builds one test binary, suite_<feature>, and makes every test in it visible
# to ctest under its gtest name with the label <feature>; the nccl instances
# (<Test>/nccl_wsN, in a build with NCCL) with the label <feature>-nccl, which
# `ctest -L <feature>` selects too (labels match as regular expressions) and
# `ctest -LE nccl` leaves out where they would only skip (no GPU).
function(ranktest_add_suite feature)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  set(target suite_${feature})
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ranktest::main ranktest::ranktest
                                          ${ARG_LIBRARIES})
  _ranktest_reuse_pch(${target})
  # A skip is the binary's exit code 77, never a match in the output:
  # googletest's default, a "[  SKIPPED ]" anywhere in it, also matched the
  # failure of a test whose message quotes an inner run's skipped test, and
  # ctest reported that failure as a skip.
  foreach(instances IN ITEMS other nccl)
    if(instances STREQUAL "nccl")
      set(filter "*/nccl_ws*")
      set(labels "${feature}-nccl")
    else()
      set(filter "-*/nccl_ws*")
      set(labels "${feature}")
    endif()
    gtest_discover_tests(${target}
      TEST_FILTER "${filter}"
      DISCOVERY_MODE PRE_TEST
      DISCOVERY_TIMEOUT 60
      PROPERTIES LABELS "${labels}"
        SKIP_REGULAR_EXPRESSION "^RANKTEST_NEVER_SKIPS_BY_OUTPUT$"
        SKIP_RETURN_CODE 77
        ENVIRONMENT RANKTEST_SKIPPED_EXIT_CODE=77)
  endforeach()
endfunction()

# ranktest_add_inner_binary(<name> SOURCES <files...> [LIBRARIES <targets...>])
# A test binary whose tests misbehave on purpose (hang, crash, mismatch), not
# registered with ctest: a suite runs it and checks what its parent reported.
function(ranktest_add_inner_binary name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ranktest::main ranktest::ranktest
                                        ${ARG_LIBRARIES})
  _ranktest_reuse_pch(${name})
endfunction()
