#!/usr/bin/python3
"""Renders bench/results/<name>.md and <name>.svg from the samples in
bench/results/<name>.tsv, for each benchmark named (or all of them that
have samples).

    bench/summarise.py [--results=DIR] all | NAME...

Standard library only; bench/run calls it after a run.
"""

import importlib
import os
import sys

from summary import report
from summary.samples import Samples

BENCHMARKS = ["harness_overhead", "ddp_step", "join", "zero", "averaging",
              "quantization", "checkpoint", "collective_check", "codec",
              "link", "ctest_speed"]


def main(args):
    results = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "results")
    if args and args[0].startswith("--results="):
        results = args.pop(0).partition("=")[2]
    names = args
    if names == ["all"]:
        # Each benchmark's samples come from its own run; some have none yet.
        names = [name for name in BENCHMARKS if os.path.exists(
            os.path.join(results, name + ".tsv"))]
    unknown = set(names) - set(BENCHMARKS)
    if not names or unknown:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    for name in names:
        samples = Samples(os.path.join(results, name + ".tsv"))
        module = importlib.import_module("summary." + name)
        report.write(results, name, module.summarise(samples), samples)
        print(f"wrote {os.path.join(results, name)}.md and .svg")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
