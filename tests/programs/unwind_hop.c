/* SPDX-License-Identifier: MIT */
/* libunwind_hop_a.so and libunwind_hop_b.so (tests/test_unwind.py): the same
 * bytes but one, so that B loaded where A was has code at A's addresses:
 * hop(fn) calls FN from a frame of HOP_FRAME bytes (0x108 in A, 0x208 in
 * B, both encoded as 32-bit immediates). A stack walked through B with A's
 * rules reads its return address at B's rsp + 0x108, which B zeroes first
 * (A zeroes rsp + 8, a slot of its own, with the same instruction's
 * length): the walk ends there, short, every time. On aarch64 the frames
 * are 0x110 and 0x210 bytes with x30 saved at CFA - 8: B zeroes its
 * sp + 0x108, where A's rules find the return address. */
#define STR(x) #x
#define XSTR(x) STR(x)

#if defined(__aarch64__)
__asm__(".text\n"
        ".globl hop\n"
        ".type hop, %function\n"
        "hop:\n"
        ".cfi_startproc\n"
        "sub sp, sp, " XSTR(HOP_FRAME) "\n"
        ".cfi_def_cfa_offset " XSTR(HOP_FRAME) "\n"
        "str x30, [sp, " XSTR(HOP_FRAME) " - 8]\n"
        ".cfi_offset x30, -8\n"
        "str xzr, [sp, " XSTR(HOP_FRAME) " - 0x108]\n"
        "blr x0\n"
        "ldr x30, [sp, " XSTR(HOP_FRAME) " - 8]\n"
        ".cfi_restore x30\n"
        "add sp, sp, " XSTR(HOP_FRAME) "\n"
        ".cfi_def_cfa_offset 0\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size hop, .-hop\n");
#else
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
#endif
