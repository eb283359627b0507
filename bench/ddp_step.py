#!/usr/bin/python3
"""The Python side of the ddp_step benchmark (bench/README.md, "DDP step").

Times the step that bench_algorithms ddp_step times in C++ (zero the
gradients, forward, MSE loss, backward, SGD with lr 0.01) through PyTorch's
torch.nn.parallel.DistributedDataParallel over Gloo on loopback, for every
hook that PyTorch 1.13 can run on CPU, with the same models, batches,
schedule and samples: one forked process per rank, one intra-op thread each,
a FileStore rendezvous, a DDP per hook, interleaved rounds, a step as slow as
its slowest rank. Rank 0 appends the samples to --out, with side "python".
Run it with Debian's /usr/bin/python3, which has python3-torch.
"""

import argparse
import os
import sys
import tempfile
import traceback
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.algorithms.ddp_comm_hooks import debugging_hooks
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks as default
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powersgd
from torch.nn.parallel import DistributedDataParallel

import pytorch_steps

HEADER = ["side", "model", "ranks", "mode", "round", "metric", "value"]
SEED, INPUTS, OUTPUTS = 7, 8, 4

MODELS = {
    "mlp": lambda: nn.Sequential(nn.Linear(INPUTS, 16), nn.ReLU(),
                                 nn.Linear(16, OUTPUTS)),
    "convnet": lambda: nn.Sequential(
        nn.Unflatten(1, (1, 2, 4)), nn.Conv2d(1, 3, 2), nn.ReLU(),
        nn.Flatten(), nn.Linear(3 * 1 * 3, OUTPUTS)),
}


def _hook(hook):
    return lambda ddp: ddp.register_comm_hook(None, hook)


def _powersgd(ddp):
    # Rank 1 from the third iteration, as on the C++ side.
    state = powersgd.PowerSGDState(process_group=None,
                                   matrix_approximation_rank=1,
                                   start_powerSGD_iter=2)
    ddp.register_comm_hook(state, powersgd.powerSGD_hook)


# The C++ side's hooks that PyTorch 1.13 runs on CPU: name -> (install,
# bytes per gradient element sent, or None where not known ahead).
HOOKS = {
    "reference": (lambda ddp: None, 4),
    "builtin_allreduce": (lambda ddp: ddp._register_builtin_comm_hook(
        dist.BuiltinCommHookType.ALLREDUCE), 4),
    "allreduce": (_hook(default.allreduce_hook), 4),
    "fp16_compress": (_hook(default.fp16_compress_hook), 2),
    "fp16_wrapper(allreduce)": (
        _hook(default.fp16_compress_wrapper(default.allreduce_hook)), 2),
    "noop": (_hook(debugging_hooks.noop_hook), 0),
    "powersgd(rank=1)": (_powersgd, None),
}


def _time_modes(rank, world_size, model, args):
    """As bench/common/runner.cpp's timeModes; returns rank 0's rows."""
    batches = pytorch_steps.batches(rank, args.rows, INPUTS, OUTPUTS)
    modes = []
    for name, (install, wire_bytes) in HOOKS.items():
        torch.manual_seed(SEED)
        ddp = DistributedDataParallel(MODELS[model]())
        install(ddp)
        sgd = torch.optim.SGD(ddp.parameters(), lr=0.01)
        modes.append((name, ddp, sgd, wire_bytes))

    times, rounds = pytorch_steps.time_modes(
        [(ddp, sgd) for _, ddp, sgd, _ in modes], batches, args)

    key = ["python", model, str(world_size)]
    rows = []
    for (name, ddp, _, wire_bytes), mine in zip(modes, times):
        rows += pytorch_steps.step_rows(
            key, name, rounds, pytorch_steps.slowest_rank(mine, world_size))
        if wire_bytes is not None:
            # DDP reduces each gradient once a step, in one bucket here.
            numel = sum(p.numel() for p in ddp.parameters())
            rows += [key + [name, "-", "sent_bytes:allreduce",
                            str(numel * wire_bytes)]] * world_size
    return rows


def _run_cell(model, world_size, args):
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"  # as the C++ side's 127.0.0.1
    fd, store_path = tempfile.mkstemp(prefix="ddp_step_py.")
    os.close(fd)
    pids = []
    for rank in range(world_size):
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                torch.set_num_threads(1)
                dist.init_process_group(
                    "gloo", store=dist.FileStore(store_path, world_size),
                    rank=rank, world_size=world_size,
                    timeout=timedelta(minutes=30))
                rows = _time_modes(rank, world_size, model, args)
                if rank == 0:
                    pytorch_steps.append(args.out, HEADER, rows)
            except BaseException:
                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        pids.append(pid)
    failed = 0
    for _ in pids:
        pid, status = os.wait()
        if os.waitstatus_to_exitcode(status) != 0:
            failed += 1
            for other in pids:  # they would wait for it until the timeout
                try:
                    os.kill(other, 9)
                except ProcessLookupError:
                    pass
    os.unlink(store_path)
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default="mlp,convnet")
    parser.add_argument("--world_sizes", default="2,4")
    for name, default_value in [("rows", 32), ("warmup", 10), ("steps", 120),
                                ("block", 10)]:
        parser.add_argument("--" + name, type=int, default=default_value)
    args = parser.parse_args()
    failed = 0
    for model in args.models.split(","):
        for world_size in map(int, args.world_sizes.split(",")):
            failed += _run_cell(model, world_size, args)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
