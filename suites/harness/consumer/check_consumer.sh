#!/usr/bin/env bash
# Installs this build into a temporary prefix, builds the consumer project
# against it with find_package(ranktest), and runs its distributed test.
set -euo pipefail
build_dir="$1"
consumer_dir="$2"
work="$(mktemp -d "${TMPDIR:-/tmp}/ranktest-consumer.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" --component Unspecified >/dev/null
cmake -S "$consumer_dir" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer" --gtest_brief=1
