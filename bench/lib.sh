# shellcheck shell=bash
# Shell functions that bench/run and bench/ctest_speed source: their usage
# and messages, waiting for an idle machine, and the facts that begin a
# samples file (bench/README.md, "Facts"). They expect $root, the source tree.

# The sourcing script's header comment, from its second line up to `set`.
usage() { sed -n '2,/^set/p' "$0" | sed '$d' >&2; }

log() { printf '[bench/%s] %s\n' "$(basename "$0")" "$*" >&2; }

# Busy and idle CPU ticks of the whole machine, from /proc/stat.
cpu_ticks() {
  local c
  read -r -a c < <(grep '^cpu ' /proc/stat)
  echo $((c[1] + c[2] + c[3] + c[6] + c[7])) $((c[4] + c[5]))
}

# Waits (at most IDLE_WAIT s) for 5 seconds in a row of <= 10% busy CPUs.
wait_for_idle() {
  local quiet=0 waited=0 busy=100 a b
  while ((quiet < 5 && waited < ${IDLE_WAIT:-60})); do
    read -r -a a < <(cpu_ticks)
    sleep 1
    read -r -a b < <(cpu_ticks)
    busy=$((100 * (b[0] - a[0]) / (b[0] - a[0] + b[1] - a[1] + 1)))
    waited=$((waited + 1))
    if ((busy <= 10)); then quiet=$((quiet + 1)); else quiet=0; fi
  done
  if ((quiet < 5)); then
    echo "not idle for 5 s in a row within ${IDLE_WAIT:-60} s (last second ${busy}% busy)"
  else
    echo "idle (<= 10% busy) for 5 s in a row (waited ${waited} s)"
  fi
}

load_average() { cut -d' ' -f1-3 /proc/loadavg; }

# How idle the machine is once wait_for_idle returns: a fact's value.
idle_state() { echo "$(wait_for_idle); load average $(load_average)"; }

# The value of $2 (NAME:TYPE) in build directory $1's CMakeCache.txt.
cache_value() { sed -n "s/^$2=//p" "$1/CMakeCache.txt"; }

# The first facts: date, command ($1), machine and source revision, "with
# uncommitted changes" where the paths after $1 differ from it.
head_facts() {
  local command=$1 revision
  shift
  revision=$(git -C "$root" rev-parse --short HEAD)
  if [[ -n $(git -C "$root" status --porcelain -- "$@" ':!bench/results') ]]
  then
    revision+=" with uncommitted changes"
  fi
  echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "# command: $command"
  echo "# machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' \
    /proc/cpuinfo | head -1), Linux $(uname -r)"
  echo "# source: git $revision"
}
