"""What the Python sides of the DDP benchmarks (ddp_step.py, link_ddp.py)
share: timing DDP training steps side by side as bench/common/runner.cpp's
timeModes does, and appending samples."""

import time

import torch
import torch.distributed as dist
import torch.nn.functional as F


DISTINCT_BATCHES = 16


def batches(rank, rows, inputs, outputs):
    """The (input, target) batches a rank cycles through, as
    fixtures::rankBatch: one generator seeded per batch and rank."""
    out = []
    for i in range(DISTINCT_BATCHES):
        g = torch.Generator().manual_seed(1000003 * i + 101 * rank + 7)
        out.append((torch.randn(rows, inputs, generator=g),
                    torch.randn(rows, outputs, generator=g)))
    return out


def time_modes(modes, rank_batches, args):
    """Each (ddp, sgd) of `modes` runs args.warmup untimed steps, then
    args.steps timed steps in rounds of args.block steps of every mode, the
    order rotating by round. A step: zero the gradients, forward, MSE loss,
    backward, SGD. Returns each mode's step times (µs, this rank's) and the
    round of each timed step."""
    def block(mode, first, n, times):
        ddp, sgd = mode
        for i in range(first, first + n):
            x, y = rank_batches[i % len(rank_batches)]
            start = time.monotonic_ns()
            sgd.zero_grad()
            F.mse_loss(ddp(x), y).backward()
            sgd.step()
            if times is not None:
                times.append((time.monotonic_ns() - start) / 1e3)

    for mode in modes:
        block(mode, 0, args.warmup, None)
    dist.barrier()
    times = [[] for _ in modes]
    rounds = []
    done, round_ = 0, 0
    while done < args.steps:
        n = min(args.block, args.steps - done)
        for j in range(len(modes)):
            m = (round_ + j) % len(modes)
            block(modes[m], args.warmup + done, n, times[m])
        rounds += [round_] * n
        done += n
        round_ += 1
    return times, rounds


def slowest_rank(mine, world_size):
    """Step by step, the slowest rank's time. Collective."""
    mine = torch.tensor(mine, dtype=torch.float64)
    everyone = [torch.empty_like(mine) for _ in range(world_size)]
    dist.all_gather(everyone, mine)
    return torch.stack(everyone).max(dim=0).values.tolist()


def step_rows(key, name, rounds, slowest):
    return [key + [name, str(r), "step_us", f"{us:.6g}"]
            for r, us in zip(rounds, slowest)]


def append(path, header, rows):
    """Appends `rows` to the samples file, with `header` first if new."""
    with open(path, "a+") as out:
        out.seek(0)
        if not any(line[0] != "#" for line in out if line.strip()):
            out.write("\t".join(header) + "\n")
        out.writelines("\t".join(row) + "\n" for row in rows)
