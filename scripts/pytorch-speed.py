#!/usr/bin/env python3
"""The flipzero networks in PyTorch on the CPU: inference positions per second at batch 1,
64 and 256 and training samples per second (forward, backward, Adam step) at batch 128 and
256, for comparison with `cargo bench -p flipzero-nn --bench inference`.

The network mirrors crates/flipzero-nn/src/net.rs: a 3x3 stem, residual blocks of two 3x3
convolutions with batch normalisation (no bias), a policy head (1x1 conv to 2 planes, linear
to the decisions), a value trunk (1x1 conv to 1 plane, linear to the hidden units) with a
win/draw/loss head and a tanh score head.

    pip install torch --index-url https://download.pytorch.org/whl/cpu
    python3 scripts/pytorch-speed.py [--threads 2]
"""

import argparse
import time

import torch
from torch import nn
import torch.nn.functional as F

PLANES = 21  # flipzero_data::encoder::PLANES (encoder version 2)
# (name, board side, blocks, channels, value hidden units), as in the Rust bench.
NETWORKS = [("6x6-4x32", 6, 4, 32, 64), ("8x8-6x64", 8, 6, 64, 128)]


class ConvNorm(nn.Module):
    def __init__(self, inputs, outputs, kernel):
        super().__init__()
        self.conv = nn.Conv2d(inputs, outputs, kernel, padding="same", bias=False)
        self.norm = nn.BatchNorm2d(outputs)

    def forward(self, x):
        return self.norm(self.conv(x))


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.first = ConvNorm(channels, channels, 3)
        self.second = ConvNorm(channels, channels, 3)

    def forward(self, x):
        return F.relu(self.second(F.relu(self.first(x))) + x)


class PolicyValueNet(nn.Module):
    def __init__(self, side, blocks, channels, value_hidden):
        super().__init__()
        squares = side * side
        decisions = squares + 1  # every square and pass, as Othello's decision set
        self.stem = ConvNorm(PLANES, channels, 3)
        self.tower = nn.Sequential(*[Block(channels) for _ in range(blocks)])
        self.policy_conv = ConvNorm(channels, 2, 1)
        self.policy = nn.Linear(2 * squares, decisions)
        self.value_conv = ConvNorm(channels, 1, 1)
        self.value_hidden = nn.Linear(squares, value_hidden)
        self.wdl = nn.Linear(value_hidden, 3)
        self.score = nn.Linear(value_hidden, 1)
        self.decisions = decisions

    def forward(self, x):
        x = self.tower(F.relu(self.stem(x)))
        policy = F.relu(self.policy_conv(x)).flatten(1)
        hidden = F.relu(self.value_hidden(F.relu(self.value_conv(x)).flatten(1)))
        return self.policy(policy), self.wdl(hidden), torch.tanh(self.score(hidden))


def rate(work, units, seconds=3.0):
    """Units per second of `work`, run for about `seconds` after a warm-up."""
    for _ in range(3):
        work()
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        work()
        count += 1
    return count * units / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    for name, side, blocks, channels, value_hidden in NETWORKS:
        net = PolicyValueNet(side, blocks, channels, value_hidden)
        net.eval()
        for batch in (1, 64, 256):
            x = torch.rand(batch, PLANES, side, side)

            def infer():
                with torch.inference_mode():
                    net(x)

            print(f"inference {name} batch {batch:>3}: {rate(infer, batch):10.0f} positions/s")
        net.train()
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        for batch in (128, 256):
            x = torch.rand(batch, PLANES, side, side)
            policy_target = torch.softmax(torch.rand(batch, net.decisions), 1)
            wdl_target = torch.softmax(torch.rand(batch, 3), 1)
            score_target = torch.rand(batch, 1) - 0.5

            def step():
                policy, wdl, score = net(x)
                loss = (
                    -(F.log_softmax(policy, 1) * policy_target).sum(1).mean()
                    - (F.log_softmax(wdl, 1) * wdl_target).sum(1).mean()
                    + F.mse_loss(score, score_target)
                )
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            print(f"training  {name} batch {batch:>3}: {rate(step, batch):10.0f} samples/s")


if __name__ == "__main__":
    main()
