# Run by ctest to register a suite's tests (see ranktest_add_suite).
set(_ranktest_discover_script
    "${CMAKE_CURRENT_LIST_DIR}/ranktest_discover_tests.cmake")

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
# to ctest under its gtest name with the label <feature>. ctest runs each
# through ranktest_warm_client, which has a warm process of the binary fork
# it (RANKTEST_WARM=0 when ctest starts: the binary itself). The nccl instances
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
  if(TARGET ranktest_warm_client)
    add_dependencies(${target} ranktest_warm_client)  # this tree's
  endif()
  # Its tests are listed when ctest starts (ranktest_discover_tests.cmake),
  # so that they match the binary just built.
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_ctest_include.cmake")
  file(GENERATE OUTPUT "${include_file}" CONTENT
"set(RANKTEST_BINARY [==[$<TARGET_FILE:${target}>]==])
set(RANKTEST_FEATURE [==[${feature}]==])
set(RANKTEST_WORKING_DIR [==[${CMAKE_CURRENT_BINARY_DIR}]==])
set(RANKTEST_WARM_CLIENT [==[$<TARGET_FILE:ranktest::warm_client>]==])
set(RANKTEST_LIST_CACHE [==[${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.list]==])
include([==[${_ranktest_discover_script}]==])
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
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
