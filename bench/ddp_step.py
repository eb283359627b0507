#!/usr/bin/python3
"""The PyTorch side of bench/run_ddp_step.

Times one cell (a model, a world size, a hook) of training through
torch.nn.parallel.DistributedDataParallel over Gloo on loopback, with the
step that bench_ddp_step times on the C++ side: zero the gradients, forward,
MSE loss, backward, SGD step (lr 0.01). One forked process per rank, a
FileStore rendezvous, one intra-op thread per rank; warm-up steps first,
then each timed step on its own (time.monotonic_ns, CLOCK_MONOTONIC like
std::chrono::steady_clock); a step counts as long as its slowest rank.

Appends tab-separated lines to --bench-out in the format of
bench/ddp_step/report.h ("python" side): step times, the bytes per step and
rank the hook is expected to send (not counted), or "na" when this PyTorch
cannot run the hook here.

Adding a hook: one entry in HOOKS, under the name of its row in
bench/ddp_step/hooks.cpp.

Run it with Debian's interpreter (/usr/bin/python3), which sees python3-torch.
"""

import argparse
import os
import platform
import sys
import tempfile
import time
import traceback
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks as default
from torch.distributed.algorithms.ddp_comm_hooks import debugging_hooks
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powersgd
from torch.nn.parallel import DistributedDataParallel

SEED = 7
LEARNING_RATE = 0.01
DISTINCT_BATCHES = 16
INPUTS, OUTPUTS = 8, 4


def make_mlp():
    return nn.Sequential(nn.Linear(INPUTS, 16), nn.ReLU(), nn.Linear(16, OUTPUTS))


def make_convnet():
    return nn.Sequential(nn.Unflatten(1, (1, 2, 4)), nn.Conv2d(1, 3, 2), nn.ReLU(),
                         nn.Flatten(), nn.Linear(3 * 1 * 3, OUTPUTS))


MODELS = {"mlp": make_mlp, "convnet": make_convnet}


def _powersgd(hook):
    def install(ddp):
        state = powersgd.PowerSGDState(process_group=None,
                                       matrix_approximation_rank=1,
                                       start_powerSGD_iter=2)
        ddp.register_comm_hook(state, hook)
    return install


def _comm_hook(hook):
    return lambda ddp: ddp.register_comm_hook(None, hook)


# name -> (install(ddp) or None for no hook, wire bytes per element or None
# when not known ahead), or a string: why this PyTorch cannot run it here.
BF16_NEEDS_NCCL = ("not available: PyTorch 1.13's bf16 hooks require CUDA 11+ "
                   "and NCCL 2.10+")
QUANTIZATION_NEEDS_CUDA = ("not available: PyTorch 1.13's quantization hooks "
                           "run on CUDA tensors only")
HOOKS = {
    "reference": (None, 4),
    "builtin_allreduce": (
        lambda ddp: ddp._register_builtin_comm_hook(
            dist.BuiltinCommHookType.ALLREDUCE), 4),
    "allreduce": (_comm_hook(default.allreduce_hook), 4),
    "fp16_compress": (_comm_hook(default.fp16_compress_hook), 2),
    "fp16_wrapper(allreduce)": (
        _comm_hook(default.fp16_compress_wrapper(default.allreduce_hook)), 2),
    "noop": (_comm_hook(debugging_hooks.noop_hook), 0),
    "bf16_compress": BF16_NEEDS_NCCL,
    "bf16_wrapper(allreduce)": BF16_NEEDS_NCCL,
    "quantization_per_tensor": QUANTIZATION_NEEDS_CUDA,
    "quantization_per_channel": QUANTIZATION_NEEDS_CUDA,
    "powersgd(rank=1)": (_powersgd(powersgd.powerSGD_hook), None),
    # Raises AssertionError in _orthogonalize once compression starts.
    "batched_powersgd(rank=1)": ("not available: PyTorch 1.13's batched "
                                 "PowerSGD hook fails past its start "
                                 "iteration"),
}


def _parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-cell", default="",
                        help="MODEL,WORLD_SIZE,HOOK")
    parser.add_argument("--bench-out", default="")
    parser.add_argument("--bench-warmup", type=int, default=10)
    parser.add_argument("--bench-steps", type=int, default=200)
    parser.add_argument("--bench-rows", type=int, default=32)
    parser.add_argument("--bench-meta", action="store_true",
                        help="append the interpreter's versions and exit")
    return parser.parse_args()


def _batches(rank, rows):
    out = []
    for i in range(DISTINCT_BATCHES):
        g = torch.Generator().manual_seed(1000003 * i + 101 * rank + 7)
        out.append((torch.randn(rows, INPUTS, generator=g),
                    torch.randn(rows, OUTPUTS, generator=g)))
    return out


def _rank(rank, world_size, store_path, model_name, install, args):
    torch.set_num_threads(1)
    store = dist.FileStore(store_path, world_size)
    dist.init_process_group("gloo", store=store, rank=rank,
                            world_size=world_size,
                            timeout=timedelta(seconds=60))
    batches = _batches(rank, args.bench_rows)
    torch.manual_seed(SEED)
    ddp = DistributedDataParallel(MODELS[model_name]())
    if install is not None:
        install(ddp)
    sgd = torch.optim.SGD(ddp.parameters(), lr=LEARNING_RATE)

    def steps(first, n, times):
        for i in range(n):
            x, y = batches[(first + i) % len(batches)]
            start = time.monotonic_ns()
            sgd.zero_grad()
            loss = F.mse_loss(ddp(x), y)
            loss.backward()
            sgd.step()
            end = time.monotonic_ns()
            if times is not None:
                times.append((end - start) / 1e3)

    steps(0, args.bench_warmup, None)
    dist.barrier()
    times = []
    steps(args.bench_warmup, args.bench_steps, times)
    mine = torch.tensor(times, dtype=torch.float64)
    everyone = [torch.empty_like(mine) for _ in range(world_size)]
    dist.all_gather(everyone, mine)
    numel = sum(p.numel() for p in ddp.parameters())
    return torch.stack(everyone).max(dim=0).values.tolist(), numel


def _run_cell(args):
    model_name, world_text, hook_name = args.bench_cell.split(",", 2)
    world_size = int(world_text)
    key = f"python\t{model_name}\t{world_size}\t{hook_name}"
    hook = HOOKS.get(hook_name, "not in bench/ddp_step.py's HOOKS")
    with open(args.bench_out, "a") as out:
        if isinstance(hook, str):
            out.write(f"na\t{key}\t{hook}\n")
            return 0
    install, wire_bytes = hook
    # Gloo on loopback, as the C++ side's 127.0.0.1 device.
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    fd, store_path = tempfile.mkstemp(prefix="ddp_step_py.")
    os.close(fd)
    pids = []
    for rank in range(world_size):
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                slowest, numel = _rank(rank, world_size, store_path,
                                       model_name, install, args)
                if rank == 0:
                    with open(args.bench_out, "a") as out:
                        for us in slowest:
                            out.write(f"step\t{key}\t{us}\n")
                        if wire_bytes is not None:
                            # DDP reduces every parameter's gradient once a
                            # step, in one bucket at these sizes.
                            collective = "allreduce\t1" if wire_bytes else "none\t0"
                            out.write(f"bytes\t{key}\t{collective}\t"
                                      f"{numel * wire_bytes}\n")
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
            for other in pids:
                if other != pid:
                    try:
                        os.kill(other, 9)
                    except ProcessLookupError:
                        pass
    os.unlink(store_path)
    if failed:
        with open(args.bench_out, "a") as out:
            out.write(f"failed\t{key}\ta rank failed (see the log)\n")
    return 1 if failed else 0


def main():
    args = _parse_args()
    if args.bench_meta:
        with open(args.bench_out, "a") as out:
            out.write(f"meta\tPython\t{platform.python_version()} "
                      f"({sys.executable})\n")
            out.write(f"meta\tPyTorch (Python)\t{torch.__version__}\n")
        return 0
    return _run_cell(args)


if __name__ == "__main__":
    sys.exit(main())
