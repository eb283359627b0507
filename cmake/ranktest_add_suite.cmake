include(GoogleTest)

# ranktest_add_suite(<feature> SOURCES <files...> [LIBRARIES <targets...>])
# Builds one test binary, suite_<feature>, and makes every test in it visible
# to ctest under its gtest name with the label <feature>.
function(ranktest_add_suite feature)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  set(target suite_${feature})
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ranktest::main ranktest::ranktest
                                          ${ARG_LIBRARIES})
  # Exported symbols let a rank's stack dump name the test's functions.
  set_target_properties(${target} PROPERTIES ENABLE_EXPORTS ON)
  target_precompile_headers(${target} REUSE_FROM ranktest_pch)
  gtest_discover_tests(${target}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS ${feature})
endfunction()

# ranktest_add_inner_binary(<name> SOURCES <files...> [LIBRARIES <targets...>])
# A test binary whose tests misbehave on purpose (hang, crash, mismatch), not
# registered with ctest: a suite runs it and checks what its parent reported.
function(ranktest_add_inner_binary name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ranktest::main ranktest::ranktest
                                        ${ARG_LIBRARIES})
  set_target_properties(${name} PROPERTIES ENABLE_EXPORTS ON)
  target_precompile_headers(${name} REUSE_FROM ranktest_pch)
endfunction()
