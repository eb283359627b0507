#!/usr/bin/python3
"""The PyTorch side of the harness_overhead benchmark (bench/README.md).

Times the test that bench_harness_overhead times (FileStore rendezvous, a
Gloo group on loopback, one barrier) in PyTorch's own harness,
torch.testing._internal.common_distributed.MultiProcessTestCase, with forked
and spawned ranks, in the same interleaved rounds: each test around
TestCase.run (setUp, the test, tearDown) on CLOCK_MONOTONIC. Appends the
samples to --out with side "pytorch". Run it with Debian's /usr/bin/python3.

A spawned rank imports this file again with the same sys.argv, so the test
classes are defined at import, from the arguments.
"""

import argparse
import os
import sys
import time
import types
import unittest
from datetime import timedelta

HEADER = ["side", "mode", "ranks", "round", "metric", "value"]


def _parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="")
    parser.add_argument("--world_sizes", default="2,4,8")
    parser.add_argument("--modes", default="fork,spawn")
    for name, default_value in [("rounds", 3), ("tests", 10),
                                ("spawn_tests", 4)]:
        parser.add_argument("--" + name, type=int, default=default_value)
    # common_utils parses sys.argv on import too: leave it the rest.
    args, _ = parser.parse_known_args()
    args.world_sizes = [int(w) for w in args.world_sizes.split(",")]
    args.modes = args.modes.split(",")
    return args


ARGS = _parse_args()

# common_utils imports expecttest, which Debian does not package; its
# TestCase only adds assertExpectedInline and friends, unused here.
try:
    import expecttest  # noqa: F401
except ImportError:
    _shim = types.ModuleType("expecttest")
    _shim.ACCEPT = False
    _shim.TestCase = unittest.TestCase
    sys.modules["expecttest"] = _shim

import torch  # noqa: E402
import torch.distributed as c10d  # noqa: E402
from torch.testing._internal.common_distributed import (  # noqa: E402
    MultiProcessTestCase,
)

SAMPLES = []  # rows after the side


class _BarrierCase(MultiProcessTestCase):
    MODE, WORLD_SIZE = "fork", 2
    ROUND = 0

    @property
    def world_size(self):
        return self.WORLD_SIZE

    def setUp(self):
        super().setUp()
        if self.MODE == "spawn":
            self._spawn_processes()
        else:
            # _fork_processes() of later PyTorch releases; 1.13 lacks it.
            self._start_processes(
                torch.multiprocessing.get_context("fork").Process)

    def tearDown(self):
        super().tearDown()
        if os.path.exists(self.file_name):
            os.remove(self.file_name)

    def run(self, result=None):
        start = time.monotonic_ns()
        failures = len(result.failures) + len(result.errors)
        super().run(result)
        micros = (time.monotonic_ns() - start) / 1000
        if len(result.failures) + len(result.errors) == failures:
            SAMPLES.append([self.MODE, str(self.WORLD_SIZE), str(self.ROUND),
                            "test_us", f"{micros:.6g}"])

    # The body, in every rank: what ranktest's Barrier test does.
    def _barrier(self):
        store = c10d.FileStore(self.file_name, self.world_size)
        options = c10d.ProcessGroupGloo._Options()
        options._timeout = timedelta(seconds=60)
        options._devices = [
            c10d.ProcessGroupGloo.create_device(hostname="127.0.0.1")]
        c10d.ProcessGroupGloo(store, self.rank, self.world_size,
                              options).barrier().wait()


def _suites():
    """(class name, mode, world size, round, tests) in the order they run:
    a round runs a suite of every cell, rotating as the C++ side does."""
    cells = [(m, w) for m in ARGS.modes for w in ARGS.world_sizes]
    for round_ in range(ARGS.rounds):
        for j in range(len(cells)):
            mode, world_size = cells[(round_ + j) % len(cells)]
            tests = ARGS.spawn_tests if mode == "spawn" else ARGS.tests
            yield (f"PyTorch_{mode}_ws{world_size}_r{round_}", mode,
                   world_size, round_, tests)


# At import: a spawned rank looks its class up by name.
for _name, _mode, _world_size, _round, _tests in _suites():
    _body = {"MODE": _mode, "WORLD_SIZE": _world_size, "ROUND": _round,
             "__module__": __name__, "__qualname__": _name}
    for _i in range(_tests):
        _body[f"test_{_i:03d}"] = lambda self: self._barrier()
    globals()[_name] = type(_name, (_BarrierCase,), _body)


def main():
    result = unittest.TestResult()
    for name, _, _, _, tests in _suites():
        cls = globals()[name]
        unittest.TestSuite(cls(f"test_{i:03d}") for i in range(tests)).run(
            result)
    for _, message in result.failures + result.errors:
        print(message, file=sys.stderr)
    with open(ARGS.out, "a+") as out:
        out.seek(0)
        if not any(line[0] != "#" for line in out if line.strip()):
            out.write("\t".join(HEADER) + "\n")
        out.writelines("\t".join(["pytorch"] + s) + "\n" for s in SAMPLES)
    return 1 if result.failures or result.errors else 0


if __name__ == "__main__":
    sys.exit(main())
