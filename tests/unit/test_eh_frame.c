/* SPDX-License-Identifier: MIT */
/* The rules src/stacks/eh_frame.c reads from call frame information: the
 * functions below are never run; their CFI, written with the assembler's
 * directives (and .cfi_escape for the instructions it has no directive
 * for), is read at each label from this program's own .eh_frame, through
 * its .eh_frame_hdr, and the rule compared with what DWARF says the row
 * there is: x86_64's table, or aarch64's (AADWARF64: sp 31, x29 29, x30 30,
 * the return address column). */
#include "eh_frame.h"
#include "unit_check.h"

/* The labels are hidden: referenced PC-relative, not through GOT entries
 * (which lose a local label's offset in its section on aarch64). */
#pragma GCC visibility push(hidden)

#if defined(__aarch64__)
/* data_align is -8 and code_align 4 in the assembler's CIE; its row: CFA =
 * sp, x30 kept in its register. */
__asm__(".text\n"
        "cfi_walkable:\n"
        ".cfi_startproc\n"
        "nop\n"
        "at_entry: nop\n"
        "stp x29, x30, [sp, -32]!\n"
        ".cfi_def_cfa_offset 32\n"
        ".cfi_offset 29, -32\n"
        ".cfi_offset 30, -24\n"
        "at_saved: nop\n"
        "mov x29, sp\n"
        ".cfi_def_cfa_register 29\n"
        "at_fp_cfa: nop\n"
        ".cfi_def_cfa sp, 48\n"
        "at_def_cfa: nop\n"
        ".cfi_remember_state\n"
        ".cfi_restore 29\n"
        ".cfi_def_cfa_offset 64\n"
        "at_fp_restored: nop\n"
        ".cfi_restore_state\n"
        "at_restore_state: nop\n"
        ".cfi_negate_ra_state\n"
        "at_ra_signed: nop\n"
        ".cfi_negate_ra_state\n"
        "at_ra_unsigned: nop\n"
        ".cfi_remember_state\n"
        ".cfi_restore 30\n"
        "at_ra_in_x30: nop\n"
        ".cfi_restore_state\n"
        ".cfi_offset 30, -56\n"
        "at_ra_under_sp: nop\n"
        ".cfi_offset 30, -24\n"
        ".cfi_def_cfa_offset 52\n"
        "at_cfa_unaligned: nop\n"
        ".cfi_def_cfa_offset 32976\n"
        ".cfi_offset 29, -32976\n"
        ".cfi_offset 30, -32968\n"
        "at_big_frame: nop\n"
        ".cfi_def_cfa_offset 262144\n"
        "at_cfa_far: nop\n"
        ".cfi_def_cfa_offset 48\n"
        ".cfi_offset 29, -32\n"
        ".cfi_undefined 30\n"
        "at_ra_undefined: nop\n"
        ".cfi_offset 30, -24\n"
        ".cfi_register 29, 19\n"
        "at_fp_in_x19: nop\n"
        ".cfi_offset 29, -32\n"
        ".cfi_offset 31, -16\n"
        "at_sp_saved: nop\n"
        ".cfi_same_value 31\n"
        ".cfi_def_cfa 19, 16\n"
        "at_cfa_x19: nop\n"
        ".cfi_def_cfa sp, 48\n"
        ".cfi_escape 0x0f, 0x02, 0x8f, 0x10\n" /* def_cfa_expression: sp + 16 */
        "at_cfa_expression: nop\n"
        ".cfi_def_cfa sp, 48\n"
        "at_after_expression: nop\n"
        "ret\n"
        ".cfi_endproc\n"
        "cfi_b_key:\n"
        ".cfi_startproc\n"
        ".cfi_b_key_frame\n"
        "stp x29, x30, [sp, -16]!\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset 29, -16\n"
        ".cfi_offset 30, -8\n"
        "at_b_key: nop\n"
        ".cfi_negate_ra_state\n"
        "at_b_key_signed: nop\n"
        "ret\n"
        ".cfi_endproc\n");

extern const char at_entry[], at_saved[], at_fp_cfa[], at_def_cfa[], at_fp_restored[],
    at_restore_state[], at_ra_signed[], at_ra_unsigned[], at_ra_in_x30[], at_ra_under_sp[],
    at_cfa_unaligned[], at_big_frame[], at_cfa_far[], at_ra_undefined[], at_fp_in_x19[],
    at_sp_saved[], at_cfa_x19[], at_cfa_expression[], at_after_expression[], at_b_key[],
    at_b_key_signed[];
#else
/* data_align is -8 and code_align 1 in the assembler's CIE. */
__asm__(".text\n"
        "cfi_walkable:\n"
        ".cfi_startproc\n"
        "nop\n"
        "at_entry: nop\n"
        "push %rbp\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_offset %rbp, -16\n"
        "at_rbp_saved: nop\n"
        "mov %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "at_rbp_cfa: nop\n"
        ".cfi_def_cfa %rsp, 32\n"
        "at_def_cfa: nop\n"
        ".cfi_escape 0x13, 0x7a\n" /* def_cfa_offset_sf -6: 48 */
        "at_offset_sf: nop\n"
        ".cfi_escape 0x12, 0x07, 0x78\n" /* def_cfa_sf rsp, -8: 64 */
        "at_def_cfa_sf: nop\n"
        ".cfi_remember_state\n"
        ".cfi_escape 0x05, 0x06, 0x04\n" /* offset_extended rbp, 4: -32 */
        "at_offset_extended: nop\n"
        ".cfi_escape 0x06, 0x06\n" /* restore_extended rbp: the CIE's, kept */
        ".cfi_def_cfa_offset 24\n"
        "at_restored: nop\n"
        ".cfi_restore_state\n"
        "at_restore_state: nop\n"
        ".cfi_escape 0x2e, 0x10\n" /* GNU_args_size 16: nothing for the walk */
        ".skip 300, 0x90\n"        /* advance_loc2 to the next row */
        "at_args_size: nop\n"
        ".cfi_same_value %rbp\n"
        ".skip 70000, 0x90\n" /* advance_loc4 */
        "at_same_value: nop\n"
        ".cfi_offset %rbp, -24\n"
        ".cfi_undefined %rip\n"
        "at_ra_undefined: nop\n"
        ".cfi_restore %rip\n"
        "at_ra_restored: nop\n"
        ".cfi_undefined %rbp\n"
        "at_rbp_undefined: nop\n"
        ".cfi_restore %rbp\n"
        ".cfi_register %rbp, %rbx\n"
        "at_rbp_in_rbx: nop\n"
        ".cfi_restore %rbp\n"
        "at_rbp_restored: nop\n"
        ".cfi_escape 0x2f, 0x06, 0x01\n" /* GNU_negative_offset_extended rbp, 1: +8 */
        "at_rbp_above: nop\n"
        ".cfi_restore %rbp\n"
        ".cfi_offset %rsp, -24\n"
        "at_rsp_saved: nop\n"
        ".cfi_same_value %rsp\n"
        ".cfi_offset %rip, -16\n"
        "at_ra_elsewhere: nop\n"
        ".cfi_offset %rip, -8\n"
        ".cfi_def_cfa_offset 4\n"
        "at_cfa_low: nop\n"
        ".cfi_def_cfa %rbx, 16\n"
        "at_cfa_rbx: nop\n"
        ".cfi_def_cfa %rsp, 8\n"
        ".cfi_escape 0x0f, 0x02, 0x77, 0x10\n" /* def_cfa_expression: rsp + 16 */
        "at_cfa_expression: nop\n"
        ".cfi_def_cfa %rsp, 8\n"
        "at_after_expression: nop\n"
        "ret\n"
        ".cfi_endproc\n");

extern const char at_entry[], at_rbp_saved[], at_rbp_cfa[], at_def_cfa[], at_offset_sf[],
    at_def_cfa_sf[], at_offset_extended[], at_restored[], at_restore_state[], at_args_size[],
    at_same_value[], at_ra_undefined[], at_ra_restored[], at_rbp_undefined[], at_rbp_in_rbx[],
    at_rbp_restored[], at_rbp_above[], at_rsp_saved[], at_ra_elsewhere[], at_cfa_low[],
    at_cfa_rbx[], at_cfa_expression[], at_after_expression[];
#endif

/* On both machines: a signal frame's FDE, and code without one. */
__asm__(".text\n"
        "cfi_signal:\n"
        ".cfi_startproc\n"
        ".cfi_signal_frame\n"
        "nop\n"
        "at_signal: nop\n"
        "ret\n"
        ".cfi_endproc\n"
        "at_no_cfi: nop\n"
        "ret\n");

extern const char at_signal[], at_no_cfi[];
#pragma GCC visibility pop

/* The rule at AT: HOW, and for a rule that goes on its offsets (rbp's:
 * x29's on aarch64; the return address's, -8 on x86_64). */
static void expect_ra_rule(const char *what, const char *at, int how, int cfa_off, int rbp_off,
                           int ra_off)
{
    struct vt_unwind_rule rule;
    vt_eh_frame_rule((uintptr_t)at, &rule);
    if (rule.how != how ||
        (how < VT_UNWIND_END &&
         (rule.cfa_off != cfa_off || rule.rbp_off != rbp_off || rule.ra_off != ra_off))) {
        fprintf(stderr, "%s: expected how %d cfa_off %d rbp_off %d ra_off %d, got %d %d %d %d\n",
                what, how, cfa_off, rbp_off, ra_off, rule.how, (int)rule.cfa_off, (int)rule.rbp_off,
                (int)rule.ra_off);
        unit_failures++;
    }
}

#if defined(__aarch64__)
/* The rule at AT says x30 is saved signed (pointer authentication) or not. */
static void expect_signed(const char *what, const char *at, int ra_signed)
{
    struct vt_unwind_rule rule;
    vt_eh_frame_rule((uintptr_t)at, &rule);
    if (rule.ra_signed != ra_signed) {
        fprintf(stderr, "%s: expected x30 %s, got %s\n", what, ra_signed ? "signed" : "unsigned",
                rule.ra_signed ? "signed" : "unsigned");
        unit_failures++;
    }
}

int main(void)
{
    enum { SP = VT_UNWIND_RSP, SP_SAVED_FP = VT_UNWIND_RSP_SAVED_RBP, FP = VT_UNWIND_RBP };
    expect_ra_rule("the CIE's row: x30 in its register", at_entry, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("x29, x30 stored", at_saved, SP_SAVED_FP, 32, -32, -24);
    expect_ra_rule("def_cfa_register x29", at_fp_cfa, FP, 32, -32, -24);
    expect_ra_rule("def_cfa sp, 48", at_def_cfa, SP_SAVED_FP, 48, -32, -24);
    expect_ra_rule("restore x29", at_fp_restored, SP, 64, 0, -24);
    expect_ra_rule("restore_state: the CFA too", at_restore_state, SP_SAVED_FP, 48, -32, -24);
    expect_ra_rule("negate_ra_state: x30 signed", at_ra_signed, SP_SAVED_FP, 48, -32, -24);
    expect_signed("negate_ra_state", at_ra_signed, 1);
    expect_ra_rule("negate_ra_state again", at_ra_unsigned, SP_SAVED_FP, 48, -32, -24);
    expect_signed("negate_ra_state again", at_ra_unsigned, 0);
    expect_signed("x29, x30 stored", at_saved, 0);
    expect_ra_rule("restore x30: in its register", at_ra_in_x30, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("x30 under sp", at_ra_under_sp, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("a CFA not 8-aligned", at_cfa_unaligned, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("a frame of 32 KiB", at_big_frame, SP_SAVED_FP, 32976, -32976, -32968);
    expect_ra_rule("a CFA beyond 256 KiB", at_cfa_far, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("x30 undefined", at_ra_undefined, VT_UNWIND_END, 0, 0, 0);
    expect_ra_rule("x29 in x19", at_fp_in_x19, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("sp saved", at_sp_saved, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("CFA from x19", at_cfa_x19, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("CFA expression", at_cfa_expression, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("after an expression", at_after_expression, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("B key (augmentation \"B\")", at_b_key, SP_SAVED_FP, 16, -16, -8);
    expect_signed("B key, before negate_ra_state", at_b_key, 0);
    expect_ra_rule("B key, signed", at_b_key_signed, SP_SAVED_FP, 16, -16, -8);
    expect_signed("B key, signed", at_b_key_signed, 1);
    expect_ra_rule("signal frame", at_signal, VT_UNWIND_CANNOT, 0, 0, 0);
    expect_ra_rule("no FDE", at_no_cfi, VT_UNWIND_CANNOT, 0, 0, 0);
    return unit_result("eh_frame");
}
#else
static void expect_rule(const char *what, const char *at, int how, int cfa_off, int rbp_off)
{
    expect_ra_rule(what, at, how, cfa_off, rbp_off, -8);
}

int main(void)
{
    expect_rule("the CIE's row", at_entry, VT_UNWIND_RSP, 8, 0);
    expect_rule("rbp pushed", at_rbp_saved, VT_UNWIND_RSP_SAVED_RBP, 16, -16);
    expect_rule("def_cfa_register rbp", at_rbp_cfa, VT_UNWIND_RBP, 16, -16);
    expect_rule("def_cfa rsp, 32", at_def_cfa, VT_UNWIND_RSP_SAVED_RBP, 32, -16);
    expect_rule("def_cfa_offset_sf", at_offset_sf, VT_UNWIND_RSP_SAVED_RBP, 48, -16);
    expect_rule("def_cfa_sf", at_def_cfa_sf, VT_UNWIND_RSP_SAVED_RBP, 64, -16);
    expect_rule("offset_extended", at_offset_extended, VT_UNWIND_RSP_SAVED_RBP, 64, -32);
    expect_rule("restore_extended", at_restored, VT_UNWIND_RSP, 24, 0);
    expect_rule("restore_state: the CFA too", at_restore_state, VT_UNWIND_RSP_SAVED_RBP, 64, -16);
    expect_rule("GNU_args_size, advance_loc2", at_args_size, VT_UNWIND_RSP_SAVED_RBP, 64, -16);
    expect_rule("same_value, advance_loc4", at_same_value, VT_UNWIND_RSP, 64, 0);
    expect_rule("return address undefined", at_ra_undefined, VT_UNWIND_END, 0, 0);
    expect_rule("restore of the return address", at_ra_restored, VT_UNWIND_RSP_SAVED_RBP, 64, -24);
    expect_rule("rbp undefined", at_rbp_undefined, VT_UNWIND_END, 0, 0);
    expect_rule("rbp in rbx", at_rbp_in_rbx, VT_UNWIND_CANNOT, 0, 0);
    expect_rule("restore of rbp", at_rbp_restored, VT_UNWIND_RSP, 64, 0);
    expect_rule("rbp above the CFA", at_rbp_above, VT_UNWIND_CANNOT, 0, 0);
    expect_rule("rsp saved", at_rsp_saved, VT_UNWIND_CANNOT, 0, 0);
    expect_rule("return address not at CFA - 8", at_ra_elsewhere, VT_UNWIND_CANNOT, 0, 0);
    expect_rule("CFA under rsp + 8", at_cfa_low, VT_UNWIND_CANNOT, 0, 0);
    expect_rule("CFA from rbx", at_cfa_rbx, VT_UNWIND_CANNOT, 0, 0);
    expect_rule("CFA expression", at_cfa_expression, VT_UNWIND_CANNOT, 0, 0);
    expect_rule("after an expression", at_after_expression, VT_UNWIND_CANNOT, 0, 0);
    expect_rule("signal frame", at_signal, VT_UNWIND_CANNOT, 0, 0);
    expect_rule("no FDE", at_no_cfi, VT_UNWIND_CANNOT, 0, 0);
    return unit_result("eh_frame");
}
#endif
