# PyTorch's hook calls per iteration, the expectations of hook_calls_test.cpp
# for each libtorch build: run with Debian's python3 and python3-torch (1.13)
# and with the project's torch 2.11 wheel (ci/setup),
#   /usr/bin/python3 suites/ddp/golden/hook_calls.py
#   .venv-torch/bin/python suites/ddp/golden/hook_calls.py
# It prints, for each option pair, the buffer size of every hook call in each
# of the first three iterations (the fixture MLP, a 300-byte bucket cap and a
# 1-byte default first bucket, which PyTorch 2.x ignores once a cap is given).
import tempfile

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(),
                        rank=0, world_size=1)
dist._DEFAULT_FIRST_BUCKET_BYTES = 1


def calls_per_iteration(find_unused, static_graph):
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 4))
    ddp = DDP(model, bucket_cap_mb=300 / (1024 * 1024),
              find_unused_parameters=find_unused, static_graph=static_graph)
    calls = []

    def hook(state, bucket):
        calls[-1].append(bucket.buffer().numel())
        future = torch.futures.Future()
        future.set_result(bucket.buffer())
        return future

    ddp.register_comm_hook(None, hook)
    for _ in range(3):
        calls.append([])
        ddp(torch.randn(5, 8)).sum().backward()
    return calls


for find_unused, static_graph in [(False, False), (True, False),
                                  (False, True), (True, True)]:
    print(f"find_unused_parameters={find_unused} static_graph={static_graph}:",
          calls_per_iteration(find_unused, static_graph))
# Prints (1.13.1+dfsg-4, Debian):
# find_unused_parameters=False static_graph=False: [[212], [4, 80, 128], [4, 80, 128]]
# find_unused_parameters=True static_graph=False: [[4, 80, 128], [4, 80, 128], [4, 80, 128]]
# find_unused_parameters=False static_graph=True: [[212], [212], [4, 80, 128]]
# find_unused_parameters=True static_graph=True: [[212], [212], [4, 80, 128]]
# Prints (2.11.0+cu130, PyPI):
# find_unused_parameters=False static_graph=False: [[212], [84, 128], [84, 128]]
# find_unused_parameters=True static_graph=False: [[4, 80, 128], [4, 80, 128], [4, 80, 128]]
# find_unused_parameters=False static_graph=True: [[212], [212], [84, 128]]
# find_unused_parameters=True static_graph=True: [[212], [212], [84, 128]]
