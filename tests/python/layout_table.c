/* Prints the tracer's layout for 3.MINOR as layout_probe prints the one
 * computed from that version's headers: the built-in table (3.8-3.12), or
 * (3.13+) what the tracer derives from the _Py_DebugOffsets of the
 * libpython named on the command line.
 *     layout_table MINOR [LIBPYTHON] */
#include "pylayout.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define FIELD(name) printf(#name " %ld\n", L->name)

int main(int argc, char **argv)
{
    struct vt_pylayout derived;
    const struct vt_pylayout *L;
    int minor = argc > 1 ? atoi(argv[1]) : 0;
    if (minor >= 13) {
        const char *why = "no library named";
        void *lib = argc > 2 ? dlopen(argv[2], RTLD_NOW | RTLD_LOCAL) : NULL;
        if (!lib || vt_pylayout_from_debug_offsets(dlsym(lib, "_PyRuntime"), &derived, &why) < 0) {
            fprintf(stderr, "layout_table: %s\n", lib ? why : dlerror());
            return 1;
        }
        L = &derived;
    } else if (!(L = vt_pylayout_builtin(minor))) {
        fprintf(stderr, "layout_table: no table for 3.%d\n", minor);
        return 1;
    }
    printf("version 3.%d\n", L->minor);
    FIELD(interp_running_main);
    FIELD(interp_threads_head);
    FIELD(ts_next);
    FIELD(ts_interp);
    FIELD(ts_thread_id);
    printf("free_threaded %d\n", L->free_threaded);
    printf("entry %d\n", (int)L->entry);
    FIELD(frame_is_entry);
    FIELD(frame_tlbc_index);
    printf("executable_tagged %d\n", L->executable_tagged);
    FIELD(code_tlbc);
    FIELD(ts_frame);
    FIELD(cframe_current);
    FIELD(ts_root_cframe);
    FIELD(ts_datastack_chunk);
    FIELD(ts_datastack_top);
    FIELD(chunk_previous);
    FIELD(chunk_data);
    FIELD(frame_code);
    FIELD(frame_back);
    FIELD(frame_instr);
    FIELD(frame_owner);
    FIELD(owner_generator);
    FIELD(owner_cstack);
    FIELD(code_filename);
    FIELD(code_name);
    FIELD(code_firstlineno);
    FIELD(code_linetable);
    FIELD(code_qualname);
    FIELD(code_bytecode);
    FIELD(code_firsttraceable);
    FIELD(ob_type);
    FIELD(var_size);
    FIELD(str_length);
    FIELD(str_hash);
    FIELD(str_state);
    printf("str_kind_bit %d\n", L->str_kind_bit);
    FIELD(str_ascii_size);
    FIELD(str_compact_size);
    FIELD(bytes_size);
    FIELD(bytes_data);
    return 0;
}
/* SPDX-License-Identifier: MIT */
