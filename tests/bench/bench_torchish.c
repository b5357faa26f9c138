/* SPDX-License-Identifier: MIT */
/* tests/bench/deep.sh's native caller of libtorchish.so (torchish.cpp):
 * Usage: bench_torchish PAIRS; prints "ns_per_pair N". */
#include <stdio.h>
#include <stdlib.h>

double torchish_pairs(long pairs);

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 100000;
    double ns;
    torchish_pairs(100); /* warm up */
    ns = torchish_pairs(pairs);
    if (ns < 0)
        return 1;
    printf("ns_per_pair %.1f\n", ns);
    return 0;
}
