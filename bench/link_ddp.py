#!/usr/bin/python3
"""The Python side of the link benchmark (bench/README.md, "Link").

Times the step that bench_algorithms link times in C++ (zero the gradients,
forward, MSE loss, backward, SGD with lr 0.01) of the same model (link_mlp:
6 layers of 2048 x 2048) through PyTorch's own DistributedDataParallel over
Gloo, for the hooks PyTorch 1.13 runs on CPU (--hooks): the plain
allreduce, the fp16 compress hook and PowerSGD, in one bucket as there
(bench/run leaves PowerSGD out: it aborts in most runs, bench/README.md).
It runs as a job of torchrun (bench/run link
starts it across ci/cluster's hosts), one process per rank, one intra-op
thread each, with the C++ side's schedule and samples; rank 0 appends them
to --out with side "python". Run it with Debian's /usr/bin/python3.
"""

import argparse
import fcntl
import os
import socket
import struct
import sys
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks as default
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powersgd
from torch.nn.parallel import DistributedDataParallel

import pytorch_steps

HEADER = ["side", "link", "hosts", "model", "ranks", "mode", "round",
          "metric", "value"]
SEED, WIDTH, LAYERS = 7, 2048, 6


def _model():
    torch.manual_seed(SEED)
    layers = []
    for i in range(LAYERS):
        layers += ([nn.ReLU()] if i else []) + [nn.Linear(WIDTH, WIDTH)]
    return nn.Sequential(*layers)


def _powersgd(rank):
    # From the third iteration, as on the C++ side.
    def install(ddp):
        state = powersgd.PowerSGDState(process_group=None,
                                       matrix_approximation_rank=rank,
                                       start_powerSGD_iter=2)
        ddp.register_comm_hook(state, powersgd.powerSGD_hook)
    return install


# The C++ side's modes that PyTorch 1.13 runs on CPU, under the same names
# (its batched PowerSGD fails past its start iteration there).
HOOKS = {
    "allreduce": lambda ddp: None,
    "fp16_compress": lambda ddp: ddp.register_comm_hook(
        None, default.fp16_compress_hook),
    "powersgd(rank=1)": _powersgd(1),
    "powersgd(rank=4)": _powersgd(4),
}


def _time_modes(rank, world_size, args):
    """As bench/common/runner.cpp's timeModes; returns rank 0's rows."""
    batches = pytorch_steps.batches(rank, args.rows, WIDTH, WIDTH)
    modes = []
    for name, install in HOOKS.items():
        if name not in args.hooks.split(","):
            continue
        ddp = DistributedDataParallel(
            _model(), bucket_cap_mb=args.bucket_cap_mb,
            gradient_as_bucket_view=True)
        install(ddp)
        modes.append((name, ddp, torch.optim.SGD(ddp.parameters(), lr=0.01)))

    times, rounds = pytorch_steps.time_modes(
        [(ddp, sgd) for _, ddp, sgd in modes], batches, args)

    key = ["python", args.link, str(args.hosts), "link_mlp", str(world_size)]
    rows = []
    for (name, _, _), mine in zip(modes, times):
        rows += pytorch_steps.step_rows(
            key, name, rounds, pytorch_steps.slowest_rank(mine, world_size))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--link", default="loopback")
    parser.add_argument("--bucket_cap_mb", type=float, default=128)
    parser.add_argument("--hooks", default=",".join(HOOKS),
                        help="the modes to run, comma-separated")
    for name, default_value in [("hosts", 1), ("rows", 16), ("warmup", 4),
                                ("steps", 12), ("block", 4)]:
        parser.add_argument("--" + name, type=int, default=default_value)
    # The C++ side's flags that do not apply here.
    parser.add_argument("--models", default="link_mlp")
    parser.add_argument("--world_sizes", default="")
    args = parser.parse_args()
    if args.models != "link_mlp":
        parser.error("only link_mlp is built here")
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    # The interface toward rank 0 (eth0 on a ci/cluster host), as the C++
    # side's groups bind to.
    os.environ.setdefault("GLOO_SOCKET_IFNAME", _interface_toward(
        os.environ["MASTER_ADDR"]))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=timedelta(minutes=30))
    rows = _time_modes(rank, world_size, args)
    if rank == 0:
        pytorch_steps.append(args.out, HEADER, rows)
    dist.barrier()
    dist.destroy_process_group()
    return 0


def _interface_toward(host):
    """The name of the interface whose address routes to `host`."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.connect((host, 9))
    local = probe.getsockname()[0]
    probe.close()
    for _, name in socket.if_nameindex():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            packed = fcntl.ioctl(s.fileno(), 0x8915,  # SIOCGIFADDR
                                 struct.pack("256s", name.encode()[:15]))
            if socket.inet_ntoa(packed[20:24]) == local:
                return name
        except OSError:
            pass
        finally:
            s.close()
    return "lo"


if __name__ == "__main__":
    sys.exit(main())
