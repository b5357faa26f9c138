/* SPDX-License-Identifier: MIT */
/* A program whose allocations all go through a framework's library (the
 * PyTorch-named tests/programs/fake_torch.c): what each leaks, at its own
 * line, is the ground truth of tests/test_folding.py. Two tensors made on
 * one line by two framework calls tell apart only by those calls. */
#include <stddef.h>
#include "check.h"

#define WEIGHTS_BYTES 3000017
#define ACTIVATION_BYTES 1000003
#define GRADIENT_BYTES 1000033

void *torch_standin_empty(size_t bytes);
void *torch_standin_ones(size_t bytes);

static void *kept[2];

static void keep(void *a, void *b)
{
    kept[0] = a;
    kept[1] = b;
}

NOINLINE void *load_weights(void)
{
    return torch_standin_ones(WEIGHTS_BYTES); /* LEAK:weights */
}

NOINLINE void train_step(void)
{
    keep(torch_standin_empty(ACTIVATION_BYTES), torch_standin_ones(GRADIENT_BYTES)); /* LEAK:step */
}

int main(void)
{
    vt_sink = load_weights();
    train_step();
    return 0;
}
