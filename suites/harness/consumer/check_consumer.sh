#!/usr/bin/env bash
# Installs this build into a temporary prefix and, from that prefix only:
# builds the consumer project (find_package(ranktest ... COMPONENTS distalgo
# parity), ranktest_add_suite), runs its tests with ctest (through the
# package's warm client, or the binary itself under RANKTEST_WARM=0), checks
# that its own hook ran through the hook parity kit at world sizes 2 and 3
# in a suite of at most 40 lines, that a rank's stack names the consumer's
# own functions (exported, and with file:line in a hung
# rank's stack), and that asking for an unknown component fails with a
# message naming it.
set -euo pipefail
build_dir="$1"
consumer_dir="$2"
work="$(mktemp -d "${TMPDIR:-/tmp}/ranktest-consumer.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" --component Unspecified >/dev/null
# -g1: line tables only, which is what a stack's file:line needs; the
# check takes about a third less time than with full debug information.
cmake -S "$consumer_dir" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
ctest --test-dir "$work/build" --no-tests=error --output-on-failure \
  | tee "$work/ctest.log"

# ctest ran the tests through the package's own warm client (a warm process
# of the suite binary forks each test), not the binary itself; or, with
# RANKTEST_WARM=0 in the environment (its off switch), the binary itself.
# (Read whole first: grep -q would end the pipe early, and ctest's SIGPIPE
# would fail it under pipefail.)
ctest --test-dir "$work/build" -N -V >"$work/commands.log"
expected="$work/prefix/bin/ranktest_warm_client "
[[ ${RANKTEST_WARM:-1} != 0 ]] || expected="$work/build/suite_"
if ! grep -q "Test command: $expected" "$work/commands.log"; then
  echo "check_consumer: ctest does not run the consumer's tests as" \
    "'$expected...' (RANKTEST_WARM=${RANKTEST_WARM-unset})" >&2
  exit 1
fi

# The user's hook suite: short, and every parity body ran at both sizes.
suite="$consumer_dir/topk_parity_test.cpp"
if (($(wc -l <"$suite") > 40)); then
  echo "check_consumer: $suite has $(wc -l <"$suite") lines; the kit" \
    "promises a hook suite in at most 40" >&2
  exit 1
fi
# docs/distalgo/hooks.md shows this suite as it is.
doc="$consumer_dir/../../../docs/distalgo/hooks.md"
if ! python3 -c 'import sys; sys.exit(open(sys.argv[1]).read() not in open(sys.argv[2]).read())' \
  "$suite" "$doc"; then
  echo "check_consumer: $doc does not show $suite as it is" >&2
  exit 1
fi
for body in MatchesReferenceDdp MatchesReferenceDdpInThreeBuckets \
  MatchesSingleProcessGroundTruth SendsThePredictedBytes; do
  for size in 2 3; do
    test="CommHookParity.$body/topk_error_feedback/gloo_ws$size"
    if ! grep -Eq "Test +#[0-9]+: $test \.+ +Passed" "$work/ctest.log"; then
      echo "check_consumer: $test did not pass (or did not run)" >&2
      exit 1
    fi
  done
done

# Named stacks: the installed package links with exported symbols.
nm -D --defined-only "$work/build/suite_consumer" >"$work/exported"
if ! grep -q sumThenHalve "$work/exported"; then
  echo "check_consumer: suite_consumer does not export its symbols;" \
    "a rank's stack would show bare addresses" >&2
  exit 1
fi

# A hung rank's stack names the consumer's own functions with file:line
# (the consumer is built with debug information).
if RANKTEST_TIMEOUT=3 "$work/build/suite_consumer" \
  --gtest_also_run_disabled_tests --gtest_filter='ConsumerHang.*' \
  >"$work/hang.log" 2>&1; then
  echo "check_consumer: the hanging test passed" >&2
  exit 1
fi
for frame in waitForAPeerThatNeverComes sleepThroughTheDeadline; do
  if ! grep -Eq "$frame.* at .*consumer_test\.cpp:[0-9]+" "$work/hang.log"; then
    echo "check_consumer: no frame '$frame ... at consumer_test.cpp:N'" \
      "in the hung ranks' stacks:" >&2
    cat "$work/hang.log" >&2
    exit 1
  fi
done

mkdir "$work/unknown"
cat >"$work/unknown/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(unknown_component LANGUAGES CXX)
find_package(ranktest CONFIG REQUIRED COMPONENTS nosuch)
CMAKE
if cmake -S "$work/unknown" -B "$work/unknown/build" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/unknown.log" 2>&1; then
  echo "check_consumer: COMPONENTS nosuch was accepted" >&2
  exit 1
fi
if ! grep -q "ranktest has no component 'nosuch'" "$work/unknown.log"; then
  echo "check_consumer: COMPONENTS nosuch failed without naming it:" >&2
  cat "$work/unknown.log" >&2
  exit 1
fi
echo "check_consumer: installed package, distalgo and parity components, a" \
  "user's hook suite at world sizes 2 and 3, named stacks with file:line and" \
  "the unknown-component error all work"
