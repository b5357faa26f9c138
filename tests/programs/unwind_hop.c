/* SPDX-License-Identifier: MIT */
/* libunwind_hop_a.so and libunwind_hop_b.so (tests/test_unwind.py): the same
 * bytes but one, so that B loaded where A was has code at A's addresses:
 * hop(fn) calls FN from a frame of HOP_FRAME bytes (0x108 in A, 0x208 in
 * B, both encoded as 32-bit immediates). A stack walked through B with A's
 * rules reads its return address at B's rsp + 0x108, which B zeroes first
 * (A zeroes rsp + 8, a slot of its own, with the same instruction's
 * length): the walk ends there, short, every time. */
#define STR(x) #x
#define XSTR(x) STR(x)

__asm__(".text\n"
        ".globl hop\n"
        ".type hop, @function\n"
        "hop:\n"
        ".cfi_startproc\n"
        "sub $" XSTR(HOP_FRAME) ", %rsp\n"
        ".cfi_adjust_cfa_offset " XSTR(HOP_FRAME) "\n"
        "{disp32} movq $0, " XSTR(HOP_FRAME) " - 0x100(%rsp)\n"
        "call *%rdi\n"
        "add $" XSTR(HOP_FRAME) ", %rsp\n"
        ".cfi_adjust_cfa_offset -" XSTR(HOP_FRAME) "\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size hop, .-hop\n");
