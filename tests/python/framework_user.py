# SPDX-License-Identifier: MIT
"""A script whose allocations all go through the stand-in torch package
(tests/python/site-packages/torch): what it keeps, at its own lines, is the
ground truth of tests/test_folding.py."""
import torch

WEIGHTS_BYTES = 3000017
ACTIVATION_BYTES = 1000003
GRADIENT_BYTES = 1000033
kept = []


def load_weights():
    kept.append(torch.ones(WEIGHTS_BYTES))                                  # LEAK:weights


def train_step():
    kept.append((torch.empty(ACTIVATION_BYTES), torch.ones(GRADIENT_BYTES)))  # LEAK:step


def main():
    load_weights()
    train_step()


if __name__ == "__main__":
    main()
