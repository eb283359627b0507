#!/usr/bin/python3
"""The PyTorch side of bench/run_harness_overhead.

Times the same no-op distributed test as bench_harness_overhead (FileStore
rendezvous, a Gloo group on loopback, one barrier) through PyTorch's own
harness, torch.testing._internal.common_distributed.MultiProcessTestCase,
with forked and with spawned ranks. Each test is timed around TestCase.run
(setUp, the test, tearDown) with time.monotonic_ns (CLOCK_MONOTONIC), like
the googletest listener on the C++ side times OnTestStart..OnTestEnd.

Writes tab-separated lines to --bench-out:
  meta   <key>  <value>
  sample <mode> <world size> <test> <microseconds> <ok|failed|skipped>

Run it with Debian's interpreter (/usr/bin/python3), which sees python3-torch.
Options use a --bench- prefix so that common_utils' own argument parser (it
reads sys.argv on import) leaves them alone; a spawned rank re-imports this
file with the same sys.argv and so defines the same test classes.
"""

import argparse
import os
import sys
import time
import types
import unittest


def _parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-runs", type=int, default=30,
                        help="tests per fork cell")
    parser.add_argument("--bench-spawn-runs", type=int, default=20,
                        help="tests per spawn cell")
    parser.add_argument("--bench-world-sizes", default="2,4,8")
    parser.add_argument("--bench-modes", default="fork,spawn")
    parser.add_argument("--bench-out", default="",
                        help="TSV of samples (default: none, print only)")
    args, _ = parser.parse_known_args()
    args.world_sizes = [int(w) for w in args.bench_world_sizes.split(",") if w]
    args.modes = [m for m in args.bench_modes.split(",") if m]
    return args


ARGS = _parse_args()
NOTES = []

# common_utils imports expecttest, which Debian does not package. Its TestCase
# only adds assertExpectedInline and friends, so a stand-in with the two names
# common_utils uses changes nothing that runs here.
try:
    import expecttest  # noqa: F401

    EXPECTTEST = "expecttest (installed)"
except ImportError:
    _shim = types.ModuleType("expecttest")
    _shim.ACCEPT = False

    class _ExpectTestCase(unittest.TestCase):
        longMessage = True

    _shim.TestCase = _ExpectTestCase
    sys.modules["expecttest"] = _shim
    EXPECTTEST = "stand-in module (expecttest is not packaged by Debian)"

from datetime import timedelta  # noqa: E402

import torch  # noqa: E402
import torch.distributed as c10d  # noqa: E402
from torch.testing._internal.common_distributed import (  # noqa: E402
    MultiProcessTestCase,
)

SAMPLES = []  # (mode, world size, test name, microseconds, outcome)


class _BarrierCase(MultiProcessTestCase):
    MODE = "fork"
    WORLD_SIZE = 2

    @property
    def world_size(self):
        return self.WORLD_SIZE

    def setUp(self):
        super().setUp()
        if self.MODE == "spawn":
            self._spawn_processes()
        elif hasattr(self, "_fork_processes"):
            self._fork_processes()
        else:
            # What _fork_processes() does in PyTorch releases that have it;
            # Debian's 1.13 lacks the method.
            self._start_processes(torch.multiprocessing.get_context("fork").Process)

    def tearDown(self):
        super().tearDown()
        try:
            os.remove(self.file_name)
        except OSError:
            pass

    def run(self, result=None):
        start = time.monotonic_ns()
        failures = len(result.failures) + len(result.errors) if result else 0
        skips = len(result.skipped) if result else 0
        try:
            return super().run(result)
        finally:
            micros = (time.monotonic_ns() - start) // 1000
            outcome = "ok"
            if result is not None:
                if len(result.failures) + len(result.errors) > failures:
                    outcome = "failed"
                elif len(result.skipped) > skips:
                    outcome = "skipped"
            SAMPLES.append((self.MODE, self.WORLD_SIZE, self._testMethodName,
                            micros, outcome))

    # The body, in every rank: what ranktest's Barrier fixture does.
    def _barrier(self):
        store = c10d.FileStore(self.file_name, self.world_size)
        options = c10d.ProcessGroupGloo._Options()
        options._timeout = timedelta(seconds=60)
        options._devices = [
            c10d.ProcessGroupGloo.create_device(hostname="127.0.0.1")
        ]
        pg = c10d.ProcessGroupGloo(store, self.rank, self.world_size, options)
        pg.barrier().wait()


def _runs(mode):
    return ARGS.bench_spawn_runs if mode == "spawn" else ARGS.bench_runs


def _class_name(mode, world_size):
    return "PyTorch_%s_ws%d" % (mode, world_size)


def _define_classes():
    def test(self):
        self._barrier()

    for mode in ARGS.modes:
        for world_size in ARGS.world_sizes:
            body = {"MODE": mode, "WORLD_SIZE": world_size,
                    "__module__": __name__}
            for i in range(_runs(mode)):
                body["test_run_%03d" % i] = test
            name = _class_name(mode, world_size)
            cls = type(name, (_BarrierCase,), body)
            cls.__qualname__ = name
            globals()[name] = cls


# Module level: a spawned rank imports this file again and looks its class up.
_define_classes()


def _median(values):
    values = sorted(values)
    mid = len(values) // 2
    if not values:
        return float("nan")
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def main():
    lines = [
        ("meta", "python3-torch", torch.__version__),
        ("meta", "python", sys.version.split()[0] + " (" + sys.executable + ")"),
        ("meta", "note", "PyTorch's expecttest: " + EXPECTTEST),
    ]
    if not hasattr(MultiProcessTestCase, "_fork_processes"):
        lines.append(("meta", "note",
                      "PyTorch fork mode: this MultiProcessTestCase has no "
                      "_fork_processes(); setUp calls "
                      "_start_processes(get_context('fork').Process), its body "
                      "in PyTorch releases that have it"))
    failed = 0
    for mode in ARGS.modes:
        for world_size in ARGS.world_sizes:
            cls = globals()[_class_name(mode, world_size)]
            suite = unittest.TestSuite(
                cls("test_run_%03d" % i) for i in range(_runs(mode)))
            result = unittest.TestResult()
            first = len(SAMPLES)
            suite.run(result)
            for _, message in result.failures + result.errors:
                print(message, file=sys.stderr)
            failed += len(result.failures) + len(result.errors)
            ok = [s[3] / 1000 for s in SAMPLES[first:] if s[4] == "ok"]
            print("[pytorch] %-6s %d ranks: %3d samples, median %.1f ms"
                  % (mode, world_size, len(ok), _median(ok)), flush=True)
    for mode, world_size, name, micros, outcome in SAMPLES:
        lines.append(("sample", mode, str(world_size), name, str(micros),
                      outcome))
    if ARGS.bench_out:
        with open(ARGS.bench_out, "w") as out:
            for line in lines:
                out.write("\t".join(line) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
