/* SPDX-License-Identifier: MIT */
/* The rules src/stacks/eh_frame.c reads from call frame information: the
 * functions below are never run; their CFI, written with the assembler's
 * directives (and .cfi_escape for the instructions it has no directive
 * for), is read at each label from this program's own .eh_frame, through
 * its .eh_frame_hdr, and the rule compared with what DWARF says the row
 * there is. x86_64 only (meson.build). */
#include "eh_frame.h"
#include "unit_check.h"

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
        ".cfi_endproc\n"
        "cfi_signal:\n"
        ".cfi_startproc\n"
        ".cfi_signal_frame\n"
        "nop\n"
        "at_signal: nop\n"
        "ret\n"
        ".cfi_endproc\n"
        "at_no_cfi: nop\n"
        "ret\n");

extern const char at_entry[], at_rbp_saved[], at_rbp_cfa[], at_def_cfa[], at_offset_sf[],
    at_def_cfa_sf[], at_offset_extended[], at_restored[], at_restore_state[], at_args_size[],
    at_same_value[], at_ra_undefined[], at_ra_restored[], at_rbp_undefined[], at_rbp_in_rbx[],
    at_rbp_restored[], at_rbp_above[], at_rsp_saved[], at_ra_elsewhere[], at_cfa_low[],
    at_cfa_rbx[], at_cfa_expression[], at_after_expression[], at_signal[], at_no_cfi[];

static void expect_rule(const char *what, const char *at, int how, int cfa_off, int rbp_off)
{
    struct vt_unwind_rule rule;
    vt_eh_frame_rule((uintptr_t)at, &rule);
    if (rule.how != how ||
        (how < VT_UNWIND_END && (rule.cfa_off != cfa_off || rule.rbp_off != rbp_off))) {
        fprintf(stderr, "%s: expected how %d cfa_off %d rbp_off %d, got %d %d %d\n", what, how,
                cfa_off, rbp_off, rule.how, (int)rule.cfa_off, (int)rule.rbp_off);
        unit_failures++;
    }
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
