# Shell helpers of the benchmark drivers (bench/run_ddp_step, bench/run_join,
# bench/run_zero, bench/run_averaging): source it after defining log(). Timings on a shared 2-core machine mean
# little while something else runs, so the drivers wait for a quiet machine
# and report how much CPU other processes used meanwhile.

# Busy share of all CPUs over one second, in percent, from /proc/stat.
busy_percent() {
  local a b
  read -r -a a < <(grep '^cpu ' /proc/stat)
  sleep 1
  read -r -a b < <(grep '^cpu ' /proc/stat)
  local total=0 idle i
  for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
  idle=$((b[4] - a[4] + b[5] - a[5]))
  echo $(((total - idle) * 100 / (total > 0 ? total : 1)))
}

# CPU ticks the whole machine spent busy, from /proc/stat.
machine_busy() {
  local c
  read -r -a c < <(grep '^cpu ' /proc/stat)
  echo $((c[1] + c[2] + c[3] + c[6] + c[7]))
}

# CPU ticks of the sourcing script's finished children (cutime + cstime):
# the benchmark's runs with all their ranks.
children_cpu() {
  local stat fields
  stat=$(</proc/$$/stat)
  read -r -a fields <<<"${stat##*) }"
  echo $((fields[13] + fields[14]))
}

# Waits (at most $1 seconds) for five quiet seconds in a row; sets
# idle_note to what happened, for the report.
wait_for_idle() {
  local idle_wait=$1 quiet=0 waited=0 busy=0
  while ((quiet < 5 && waited < idle_wait)); do
    busy=$(busy_percent)
    waited=$((waited + 1))
    if ((busy <= 10)); then quiet=$((quiet + 1)); else quiet=0; fi
  done
  if ((quiet < 5)); then
    idle_note="the machine was not idle for 5 s in a row within ${idle_wait} s (last second ${busy}% busy): absolute times are inflated, the side-by-side ratios less so"
    log "$idle_note"
  else
    idle_note="started after the machine had been idle (<= 10% busy) for 5 s (waited ${waited} s)"
  fi
}

# Starts the clock for foreign_cpu_note.
start_cpu_clock() {
  busy0=$(machine_busy) own0=$(children_cpu) t0=$SECONDS
}

# "during the cells, other processes used ..." since start_cpu_clock.
foreign_cpu_note() {
  local busy1 own1 t1 ticks foreign wall
  busy1=$(machine_busy) own1=$(children_cpu) t1=$SECONDS
  ticks=$(getconf CLK_TCK)
  foreign=$(((busy1 - busy0) - (own1 - own0)))
  ((foreign > 0)) || foreign=0
  wall=$((t1 > t0 ? t1 - t0 : 1))
  awk -v f="$foreign" -v hz="$ticks" -v w="$wall" \
    -v n="$(nproc)" 'BEGIN { share = 100 * f / hz / (w * n); printf "during the cells, other processes used %.1f s of CPU over %d s (%.1f%% of %d CPUs)%s", f / hz, w, share, n, (share > 10 ? ": **disturbed, absolute times are inflated**" : "") }'
}

# "abc1234", with a note when lib/, bench/ or fixtures/ have uncommitted
# changes (results aside).
source_revision() {
  local root=$1 revision
  revision=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [[ -n $(git -C "$root" status --porcelain -- lib bench fixtures \
    ':!bench/results' 2>/dev/null) ]]; then
    revision="$revision, with uncommitted changes in lib/, bench/ or fixtures/"
  fi
  echo "$revision"
}

# Builds benchmark target $2 in build directory $1 (configuring it with the
# benchmarks on when it is new) unless SKIP_BUILD=1; sets bin to the binary.
build_bench_binary() {
  local build=$1 target=$2
  if [[ ${SKIP_BUILD:-0} != 1 ]]; then
    if [[ ! -f $build/build.ninja ]]; then
      cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DRANKTEST_BUILD_BENCH=ON >/dev/null
    fi
    ninja -C "$build" "$target" >/dev/null
  fi
  bin=$build/bench/$target
  [[ -x $bin ]] || { log "no $bin (build it, or unset SKIP_BUILD)"; exit 1; }
}

# The body of a modes benchmark's driver (bench/run_zero, bench/run_averaging):
# builds bench_$1, waits for an idle machine, runs every cell of $models x
# $world_sizes and writes the report to $out. Reads build, steps, block,
# warmup, rows, bucket_cap_mb, world_sizes, models, out, idle_wait, command,
# root, MODES and RAW; returns 1 when a cell or the report failed.
# shellcheck disable=SC2154  # the settings come from the driver
run_mode_bench() {
  local name=$1
  build_bench_binary "$build" "bench_$name"

  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  samples=$tmp/samples.tsv
  : >"$samples"

  # The modes run interleaved, so noise that remains inflates them all.
  wait_for_idle "$idle_wait"
  start_loadavg=$(cut -d' ' -f1-3 /proc/loadavg)

  IFS=, read -r -a model_list <<<"$models"
  IFS=, read -r -a world_list <<<"$world_sizes"
  revision=$(source_revision "$root")

  cell_flags=(--bench_warmup="$warmup" --bench_rows="$rows"
    --bench_steps="$steps" --bench_block="$block"
    --bench_bucket_cap_mb="$bucket_cap_mb")
  mode_flags=()
  if [[ -n ${MODES:-} ]]; then mode_flags=(--bench_modes="$MODES"); fi
  start_cpu_clock
  failures=0
  for model in "${model_list[@]}"; do
    for world in "${world_list[@]}"; do
      cell="$model,$world"
      log "$cell"
      if ! "$bin" --bench_cell="$cell" --bench_out="$samples" \
        "${cell_flags[@]}" "${mode_flags[@]}" 2>>"$tmp/cells.log"; then
        log "$cell failed; its log ends with:"
        tail -n 10 "$tmp/cells.log" >&2
        printf 'failed\t%s\t%s\tsee the run log\n' "$model" "$world" >>"$samples"
        failures=$((failures + 1))
      fi
    done
  done
  foreign_note=$(foreign_cpu_note)

  mkdir -p "$(dirname "$out")"
  status=0
  "$bin" --bench_report="$samples" --bench_markdown="$out" \
    --bench_command="$command" --bench_note="source: git $revision" \
    --bench_note="$idle_note" --bench_note="$foreign_note" \
    --bench_start_loadavg="$start_loadavg" "${cell_flags[@]}" || status=$?
  if [[ -n ${RAW:-} ]]; then cp "$samples" "$RAW"; fi
  if ((failures > 0)); then
    log "$failures run(s) failed"
    status=1
  fi
  return "$status"
}
