/* SPDX-License-Identifier: MIT */
/* The call frame information of a loaded object, read as the Linux Standard
 * Base (Core, "Exception Frames") and DWARF (4 and 5, section 6.4 "Call
 * Frame Information") describe it:
 *  - PT_GNU_EH_FRAME points at .eh_frame_hdr: version 1, the encodings of
 *    eh_frame_ptr, fde_count and the table, then eh_frame_ptr, fde_count and
 *    a table of (initial location, FDE address) pairs sorted by location.
 *    Only the table linkers write is searched: DW_EH_PE_datarel |
 *    DW_EH_PE_sdata4, relative to the start of .eh_frame_hdr.
 *  - .eh_frame holds CIEs and FDEs: a 4-byte length (0xffffffff: a 64-bit
 *    length follows; never written for x86_64, refused), a 4-byte id: 0 in a
 *    CIE, in an FDE the distance back from this field to its CIE.
 *  - A CIE: version (1 or 3), augmentation string, code and data alignment
 *    factors, the return address column (a byte in version 1, ULEB128
 *    after), with "z" the augmentation data: its length, then per letter L
 *    (the LSDA's encoding), P (the personality's encoding and pointer), R
 *    (the FDEs' pointer encoding), S (a signal frame); then the initial
 *    instructions, which every FDE of the CIE starts from.
 *  - An FDE: the CIE pointer, the first address and the range (R's
 *    encoding; the range without its application part), with "z" the
 *    augmentation data's length and data, then the instructions.
 * The row of an address: the instructions at locations up to it are run
 * (each advance starts a new row at its new location, inclusive), as
 * libunwind runs them. Registers without a rule keep their value ("same
 * value"), as libunwind takes them; remember_state saves the whole row, the
 * CFA's rule with it, as GCC and libunwind do.
 * aarch64 (DWARF for the Arm 64-bit Architecture, AADWARF64): sp is
 * register 31, x29 (the frame pointer) 29, x30 (the link register) 30 and
 * the CIEs' return address column; GCC's frames save x29 and x30 at CFA
 * offsets (def_cfa, def_cfa_offset, offset, restore, remember_state and
 * restore_state, advance_loc). DW_CFA_AARCH64_negate_ra_state (0x2d)
 * toggles whether x30 holds a return address signed by pointer
 * authentication (paciasp, -mbranch-protection=pac-ret: RA_SIGN_STATE);
 * the rule says so and the walk strips the code (xpaclri: either key, so a
 * CIE's "B", the B key, is taken too). libunwind before 1.7 does not (its
 * walk ends at the first signed return address). */
#include "eh_frame.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>

#if defined(__aarch64__)
/* AADWARF64's register numbers: x29, sp, and x30 the return address. */
#define REG_RBP 29
#define REG_RSP 31
#define REG_RA 30
#else
/* DWARF's x86_64 register numbers (System V psABI, figure 3.36). */
#define REG_RBP 6
#define REG_RSP 7
#endif

#define PE_OMIT 0xff
#define PE_HDR_TABLE 0x3b /* DW_EH_PE_datarel | DW_EH_PE_sdata4 */
#define PE_INDIRECT 0x80

#define MAX_REMEMBERED 8

struct reader {
    const uint8_t *p, *end;
    int bad;
};

/* N bytes, little-endian, unsigned. */
static uint64_t read_fixed(struct reader *r, size_t n)
{
    uint64_t v = 0;
    if ((size_t)(r->end - r->p) < n) {
        r->bad = 1;
        r->p = r->end;
        return 0;
    }
    memcpy(&v, r->p, n);
    r->p += n;
    return v;
}

/* An LEB128's bits, and in *SHIFT how many it held (7 a byte): the
 * unsigned value, or the signed one's before its sign is extended. */
static uint64_t read_leb(struct reader *r, unsigned *shift, uint8_t *last)
{
    uint64_t v = 0;
    uint8_t b;
    *shift = 0;
    do {
        if (r->p >= r->end) {
            r->bad = 1;
            *last = 0;
            return 0;
        }
        b = *r->p++;
        if (*shift < 64)
            v |= (uint64_t)(b & 0x7f) << *shift;
        *shift += 7;
    } while (b & 0x80);
    *last = b;
    return v;
}

static uint64_t read_uleb(struct reader *r)
{
    unsigned shift;
    uint8_t last;
    return read_leb(r, &shift, &last);
}

static int64_t read_sleb(struct reader *r)
{
    unsigned shift;
    uint8_t b;
    uint64_t v = read_leb(r, &shift, &b);
    if (shift < 64 && (b & 0x40))
        v |= ~(uint64_t)0 << shift;
    return (int64_t)v;
}

/* A pointer in encoding ENC (DW_EH_PE_*): absolute, pc-relative, or
 * relative to DATAREL (0: not allowed here). The indirect bit is the
 * caller's to refuse or ignore. */
static uint64_t read_encoded(struct reader *r, uint8_t enc, uintptr_t datarel)
{
    uintptr_t at = (uintptr_t)r->p;
    uint64_t v;
    switch (enc & 0x0f) {
    case 0x00: /* absptr */
    case 0x04: /* udata8 */
    case 0x0c: /* sdata8 */
        v = read_fixed(r, 8);
        break;
    case 0x01:
        v = read_uleb(r);
        break;
    case 0x02:
        v = read_fixed(r, 2);
        break;
    case 0x03:
        v = read_fixed(r, 4);
        break;
    case 0x09:
        v = (uint64_t)read_sleb(r);
        break;
    case 0x0a:
        v = (uint64_t)(int64_t)(int16_t)read_fixed(r, 2);
        break;
    case 0x0b:
        v = (uint64_t)(int64_t)(int32_t)read_fixed(r, 4);
        break;
    default:
        r->bad = 1;
        return 0;
    }
    switch (enc & 0x70) {
    case 0x00:
        return v;
    case 0x10: /* pcrel */
        return v + at;
    case 0x30: /* datarel */
        if (datarel)
            return v + datarel;
        break;
    default:
        break;
    }
    r->bad = 1;
    return 0;
}

struct cie {
    uint64_t code_align;
    int64_t data_align;
    uint64_t ra_column;
    uint8_t fde_enc;
    int has_data; /* "z": FDEs carry augmentation data */
    int signal;   /* "S" */
    const uint8_t *insns, *insns_end;
};

/* The augmentation data of a "z" CIE, letter by letter; -1 for a letter not
 * known (its meaning could change the frame). */
static int read_augmentation(const char *letters, struct reader *data, struct cie *cie)
{
    for (const char *c = letters; *c; c++) {
        switch (*c) {
        case 'L':
            read_fixed(data, 1);
            break;
        case 'P':
            read_encoded(data, (uint8_t)(read_fixed(data, 1) & ~PE_INDIRECT), 0);
            break;
        case 'R':
            cie->fde_enc = (uint8_t)read_fixed(data, 1);
            break;
        case 'S':
            cie->signal = 1;
            break;
#if defined(__aarch64__)
        case 'B': /* signed with the B key: stripped alike */
            break;
#endif
        default:
            return -1;
        }
    }
    return data->bad ? -1 : 0;
}

/* The CIE at AT (inside [START, END)). 0, or -1 for one not read. */
static int read_cie(const uint8_t *at, const uint8_t *end, struct cie *cie)
{
    struct reader r = {at, end, 0};
    uint64_t len = read_fixed(&r, 4);
    if (r.bad || len == 0 || len == 0xffffffffu || len > (uint64_t)(end - r.p))
        return -1;
    r.end = r.p + len;
    if (read_fixed(&r, 4) != 0) /* a CIE's id */
        return -1;
    uint64_t version = read_fixed(&r, 1);
    if (version != 1 && version != 3)
        return -1;
    const char *aug = (const char *)r.p;
    size_t aug_len = strnlen(aug, (size_t)(r.end - r.p));
    if (aug_len == (size_t)(r.end - r.p))
        return -1;
    r.p += aug_len + 1;
    cie->code_align = read_uleb(&r);
    cie->data_align = read_sleb(&r);
    cie->ra_column = version == 1 ? read_fixed(&r, 1) : read_uleb(&r);
    cie->fde_enc = 0; /* absptr */
    cie->signal = 0;
    cie->has_data = aug[0] == 'z';
    if (cie->has_data) {
        uint64_t n = read_uleb(&r);
        if (r.bad || n > (uint64_t)(r.end - r.p))
            return -1;
        struct reader data = {r.p, r.p + n, 0};
        r.p += n;
        if (read_augmentation(aug + 1, &data, cie) < 0)
            return -1;
    } else if (aug[0]) {
        return -1; /* "eh" and other old forms */
    }
    cie->insns = r.p;
    cie->insns_end = r.end;
    return r.bad ? -1 : 0;
}

enum how { SAME = 0, UNDEFINED, AT_CFA, OTHER };

struct reg_rule {
    uint8_t how;
    int64_t off; /* AT_CFA: saved at CFA + off */
};

struct row {
    uint64_t cfa_reg;
    int64_t cfa_off;
    int cfa_defined; /* by a register and offset (not by an expression) */
    int ra_signed;   /* aarch64: the return address signed (negate_ra_state) */
    struct reg_rule rbp, rsp, ra;
};

struct cfi_state {
    const struct cie *cie;
    uintptr_t loc;
    struct row row, initial; /* initial: after the CIE's instructions */
    struct row remembered[MAX_REMEMBERED];
    int depth;
};

/* The rule of register REG kept in ROW, or NULL for one the walk ignores. */
static struct reg_rule *tracked(struct row *row, uint64_t reg, uint64_t ra_column)
{
    if (reg == ra_column)
        return &row->ra;
    if (reg == REG_RBP)
        return &row->rbp;
    if (reg == REG_RSP)
        return &row->rsp;
    return NULL;
}

static void set_rule(struct cfi_state *s, uint64_t reg, uint8_t how, int64_t off)
{
    struct reg_rule *rule = tracked(&s->row, reg, s->cie->ra_column);
    if (rule) {
        rule->how = how;
        rule->off = off;
    }
}

static void restore_rule(struct cfi_state *s, uint64_t reg)
{
    struct reg_rule *rule = tracked(&s->row, reg, s->cie->ra_column);
    if (rule)
        *rule = *tracked(&s->initial, reg, s->cie->ra_column);
}

/* Skips a DWARF expression block (ULEB128 length, then its bytes). */
static void skip_block(struct reader *r)
{
    uint64_t n = read_uleb(r);
    if (n > (uint64_t)(r->end - r->p))
        r->bad = 1;
    else
        r->p += n;
}

/* One instruction with an opcode of the low six bits' space (no operand
 * in the opcode); 0, or -1 for one the walk cannot take. */
static int run_extended(struct cfi_state *s, uint8_t op, struct reader *r)
{
    const struct cie *cie = s->cie;
    uint64_t reg;
    switch (op) {
    case 0x00: /* nop */
        return 0;
    case 0x2e: /* GNU_args_size: the caller's own business */
        read_uleb(r);
        return 0;
    case 0x01: /* set_loc */
        if (cie->fde_enc & PE_INDIRECT)
            return -1;
        s->loc = (uintptr_t)read_encoded(r, cie->fde_enc, 0);
        return 0;
    case 0x02: /* advance_loc1 */
    case 0x03: /* advance_loc2 */
    case 0x04: /* advance_loc4 */
        s->loc += read_fixed(r, op == 0x02 ? 1 : op == 0x03 ? 2 : 4) * cie->code_align;
        return 0;
    case 0x05: /* offset_extended */
        reg = read_uleb(r);
        set_rule(s, reg, AT_CFA, (int64_t)read_uleb(r) * cie->data_align);
        return 0;
    case 0x11: /* offset_extended_sf */
        reg = read_uleb(r);
        set_rule(s, reg, AT_CFA, read_sleb(r) * cie->data_align);
        return 0;
    case 0x2f: /* GNU_negative_offset_extended */
        reg = read_uleb(r);
        set_rule(s, reg, AT_CFA, -(int64_t)read_uleb(r) * cie->data_align);
        return 0;
    case 0x06: /* restore_extended */
        restore_rule(s, read_uleb(r));
        return 0;
    case 0x07: /* undefined */
        set_rule(s, read_uleb(r), UNDEFINED, 0);
        return 0;
    case 0x08: /* same_value */
        set_rule(s, read_uleb(r), SAME, 0);
        return 0;
    case 0x09: /* register: in another register, which the walk does not follow */
        reg = read_uleb(r);
        read_uleb(r);
        set_rule(s, reg, OTHER, 0);
        return 0;
    case 0x0a: /* remember_state */
        if (s->depth == MAX_REMEMBERED)
            return -1;
        s->remembered[s->depth++] = s->row;
        return 0;
    case 0x0b: /* restore_state */
        if (s->depth == 0)
            return -1;
        s->row = s->remembered[--s->depth];
        return 0;
    case 0x0c: /* def_cfa */
        s->row.cfa_reg = read_uleb(r);
        s->row.cfa_off = (int64_t)read_uleb(r);
        s->row.cfa_defined = 1;
        return 0;
    case 0x12: /* def_cfa_sf */
        s->row.cfa_reg = read_uleb(r);
        s->row.cfa_off = read_sleb(r) * cie->data_align;
        s->row.cfa_defined = 1;
        return 0;
    case 0x0d: /* def_cfa_register: the offset stays */
        s->row.cfa_reg = read_uleb(r);
        return 0;
    case 0x0e: /* def_cfa_offset: the register stays */
        s->row.cfa_off = (int64_t)read_uleb(r);
        return 0;
    case 0x13: /* def_cfa_offset_sf */
        s->row.cfa_off = read_sleb(r) * cie->data_align;
        return 0;
#if defined(__aarch64__)
    case 0x2d: /* AARCH64_negate_ra_state */
        s->row.ra_signed = !s->row.ra_signed;
        return 0;
#endif
    default:
        /* Expressions (def_cfa_expression, expression, val_expression),
         * val_offset(_sf), and anything newer or vendor's. */
        return -1;
    }
}

/* Runs the instructions [P, END) while the location is at most TARGET.
 * 0, or -1 for what the walk cannot take. */
static int run_program(struct cfi_state *s, const uint8_t *p, const uint8_t *end, uintptr_t target)
{
    struct reader r = {p, end, 0};
    while (r.p < r.end && s->loc <= target && !r.bad) {
        uint8_t op = (uint8_t)read_fixed(&r, 1), operand = op & 0x3f;
        switch (op >> 6) {
        case 1: /* advance_loc */
            s->loc += operand * s->cie->code_align;
            break;
        case 2: /* offset */
            set_rule(s, operand, AT_CFA, (int64_t)read_uleb(&r) * s->cie->data_align);
            break;
        case 3: /* restore */
            restore_rule(s, operand);
            break;
        default:
            if (run_extended(s, op, &r) < 0)
                return -1;
            break;
        }
    }
    return r.bad ? -1 : 0;
}

#if defined(__aarch64__)
/* A register saved at CFA + off, off in [LOWEST, -8], a multiple of 8. */
static int saved_in_frame(const struct reg_rule *reg, int64_t lowest)
{
    return reg->how == AT_CFA && reg->off <= -8 && reg->off >= lowest && reg->off % 8 == 0;
}

/* The walk keeps aarch64's offsets in 8-byte units, in 16 bits. */
#define OFF_LIMIT (8 * 32768)

/* What the walk makes of ROW: the CFA from sp or x29, x30 saved in the
 * frame, x29 saved there or kept; every offset a multiple of 8 inside
 * OFF_LIMIT. */
static void rule_of_row(const struct row *row, struct vt_unwind_rule *rule)
{
    if (!row->cfa_defined || (row->cfa_reg != REG_RSP && row->cfa_reg != REG_RBP) ||
        row->cfa_off <= -OFF_LIMIT || row->cfa_off >= OFF_LIMIT || row->cfa_off % 8)
        return;
    if (row->ra.how == UNDEFINED) {
        rule->how = VT_UNWIND_END; /* DWARF's end of the stack (glibc's _start) */
        return;
    }
    /* On sp, the saved registers lie between sp and the CFA. */
    int64_t lowest = row->cfa_reg == REG_RSP ? -row->cfa_off : -OFF_LIMIT + 8;
    int saved = saved_in_frame(&row->rbp, lowest);
    if (!saved_in_frame(&row->ra, lowest) || row->rsp.how != SAME ||
        (!saved && row->rbp.how != SAME))
        return;
    if (row->cfa_reg == REG_RSP)
        rule->how = saved ? VT_UNWIND_RSP_SAVED_RBP : VT_UNWIND_RSP;
    else
        rule->how = VT_UNWIND_RBP;
    rule->cfa_off = (int32_t)row->cfa_off;
    rule->rbp_off = saved ? (int32_t)row->rbp.off : 0;
    rule->ra_off = (int32_t)row->ra.off;
    rule->ra_signed = (uint8_t)row->ra_signed;
}
#else
/* What the walk makes of ROW. */
static void rule_of_row(const struct row *row, struct vt_unwind_rule *rule)
{
    if (!row->cfa_defined || (row->cfa_reg != REG_RSP && row->cfa_reg != REG_RBP) ||
        row->cfa_off <= -(1 << 28) || row->cfa_off >= (1 << 28))
        return;
    if (row->ra.how == UNDEFINED || row->rbp.how == UNDEFINED) {
        /* libunwind's end of the stack: DWARF's undefined return address,
         * the psABI's undefined rbp. */
        rule->how = VT_UNWIND_END;
        return;
    }
    if (row->ra.how != AT_CFA || row->ra.off != -8 || row->rsp.how != SAME)
        return;
    int saved = row->rbp.how == AT_CFA;
    if (saved ? row->rbp.off >= 0 || row->rbp.off < -(1 << 14) : row->rbp.how != SAME)
        return;
    if (row->cfa_reg == REG_RSP) {
        /* The return address and rbp's slot lie between rsp and the CFA. */
        if (row->cfa_off < 8 || (saved && row->rbp.off < -row->cfa_off))
            return;
        rule->how = saved ? VT_UNWIND_RSP_SAVED_RBP : VT_UNWIND_RSP;
    } else {
        rule->how = VT_UNWIND_RBP;
    }
    rule->cfa_off = (int32_t)row->cfa_off;
    rule->rbp_off = saved ? (int16_t)row->rbp.off : 0;
    rule->ra_off = -8;
}

#endif

/* The FDE that may cover ADDR, from the sorted table of .eh_frame_hdr
 * (HDR, SIZE bytes), or NULL. */
static const uint8_t *find_fde(const uint8_t *hdr, size_t size, uintptr_t addr)
{
    struct reader r = {hdr + 4, hdr + size, 0};
    if (size < 4 || hdr[0] != 1 || hdr[1] == PE_OMIT || hdr[2] == PE_OMIT ||
        hdr[3] != PE_HDR_TABLE || ((hdr[1] | hdr[2]) & PE_INDIRECT))
        return NULL;
    read_encoded(&r, hdr[1], (uintptr_t)hdr); /* eh_frame_ptr: not needed */
    uint64_t count = read_encoded(&r, hdr[2], (uintptr_t)hdr);
    if (r.bad || count == 0 || count > (uint64_t)(r.end - r.p) / 8)
        return NULL;
    const uint8_t *table = r.p;
    uint64_t lo = 0, hi = count; /* the last entry at or below ADDR is in [lo, hi) */
    int32_t entry[2];
    memcpy(entry, table, sizeof entry);
    if ((uintptr_t)hdr + (intptr_t)entry[0] > addr)
        return NULL;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        memcpy(entry, table + mid * 8, sizeof entry);
        if ((uintptr_t)hdr + (intptr_t)entry[0] <= addr)
            lo = mid;
        else
            hi = mid;
    }
    memcpy(entry, table + lo * 8, sizeof entry);
    return hdr + (intptr_t)entry[1];
}

/* The loaded segment of INFO holding P: [*START, *END). 0, or -1. */
static int segment_of(const struct dl_phdr_info *info, const uint8_t *p, const uint8_t **start,
                      const uint8_t **end)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (uintptr_t)p - lo < ph->p_filesz) {
            *start = (const uint8_t *)lo;
            *end = (const uint8_t *)(lo + ph->p_filesz);
            return 0;
        }
    }
    return -1;
}

/* The rule at ADDR from the FDE at FDE (inside [START, END)). */
static void rule_from_fde(const uint8_t *fde, const uint8_t *start, const uint8_t *end,
                          uintptr_t addr, struct vt_unwind_rule *rule)
{
    struct reader r = {fde, end, 0};
    struct cie cie;
    uint64_t len = read_fixed(&r, 4);
    if (r.bad || len == 0 || len == 0xffffffffu || len > (uint64_t)(end - r.p))
        return;
    r.end = r.p + len;
    const uint8_t *id_at = r.p;
    uint64_t cie_off = read_fixed(&r, 4);
    if (cie_off == 0 || cie_off > (uint64_t)(id_at - start) ||
        read_cie(id_at - cie_off, end, &cie) < 0 || cie.signal || (cie.fde_enc & PE_INDIRECT) ||
        cie.ra_column == REG_RBP || cie.ra_column == REG_RSP)
        return;
#if defined(__aarch64__)
    if (cie.ra_column != REG_RA) /* libunwind's fast trace takes x30's only */
        return;
#endif
    uintptr_t pc_begin = (uintptr_t)read_encoded(&r, cie.fde_enc, 0);
    uint64_t pc_range = read_encoded(&r, cie.fde_enc & 0x0f, 0);
    if (r.bad || addr - pc_begin >= pc_range)
        return;
    if (cie.has_data)
        skip_block(&r);
    if (r.bad)
        return;
    struct cfi_state s = {.cie = &cie, .loc = 0};
    if (run_program(&s, cie.insns, cie.insns_end, UINTPTR_MAX) < 0)
        return;
    s.initial = s.row;
    s.depth = 0;
    s.loc = pc_begin;
    if (run_program(&s, r.p, r.end, addr) < 0)
        return;
    rule_of_row(&s.row, rule);
}

struct lookup {
    uintptr_t addr;
    struct vt_unwind_rule *rule;
};

/* dl_iterate_phdr: the object holding the address, read under the dynamic
 * linker's lock (it cannot be unloaded meanwhile). */
static int read_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct lookup *l = data;
    const ElfW(Phdr) *eh = NULL;
    int inside = 0;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && l->addr - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz)
            inside = 1;
        else if (ph->p_type == PT_GNU_EH_FRAME)
            eh = ph;
    }
    if (!inside)
        return 0;
    if (eh) {
        const uint8_t *hdr = (const uint8_t *)(info->dlpi_addr + eh->p_vaddr), *start, *end;
        const uint8_t *fde = find_fde(hdr, eh->p_memsz, l->addr);
        if (fde && segment_of(info, fde, &start, &end) == 0)
            rule_from_fde(fde, start, end, l->addr, l->rule);
    }
    return 1; /* no CFI: the rule stays "cannot" */
}

void vt_eh_frame_rule(uintptr_t addr, struct vt_unwind_rule *rule)
{
    struct lookup l = {addr, rule};
    rule->how = VT_UNWIND_CANNOT;
    rule->cfa_off = 0;
    rule->rbp_off = 0;
    rule->ra_off = 0;
    rule->ra_signed = 0;
    dl_iterate_phdr(read_object, &l);
}
