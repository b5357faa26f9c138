# SPDX-License-Identifier: MIT
# Sourced by the benchmark scripts: builds BUILD_DIR ($1, default build) if
# needed and sets build, lib (the tracer), out (a scratch folder removed at
# exit) and LD_LIBRARY_PATH (the stand-in CUDA libraries); the symbol cache off.
cd "$(dirname "$0")/../.."
build=${1:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
export LD_LIBRARY_PATH="$PWD/$build/tests/standin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
lib="$PWD/$build/libvramtrace.so"
export VRAMTRACE_QUIET=1 # the traced runs' line naming their dump is not the benchmark's output
# reports symbolize as a first report does (report_torch.sh times the cache itself)
export VRAMTRACE_SYMBOL_CACHE=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# instructions plain|traced|LIBRARY CMD...: instructions the whole run
# executed (callgrind, with the options in callgrind_args); traced preloads
# this build's tracer, LIBRARY another one. With heap=1, a second figure:
# the instructions inside the stand-in driver's host allocation and release
# (do_alloc, do_free, inclusive: the C library's malloc and free).
callgrind_args=()
heap=0
instructions() {
    local what=$1 env=() f
    shift
    [ "$what" = traced ] && what=$lib
    [ "$what" != plain ] && env=(LD_PRELOAD="$what" VRAMTRACE_OUTPUT="$out/i.%p.vtr")
    env "${env[@]}" valgrind --tool=callgrind "${callgrind_args[@]}" \
        --callgrind-out-file="$out/cg.%p" "$@" 2>&1 >/dev/null |
        awk '/refs:/ { gsub(",", "", $NF); t += $NF } END { printf "%d", t }'
    if [ "$heap" = 1 ]; then
        for f in "$out"/cg.*; do
            callgrind_annotate --inclusive=yes --auto=no --threshold=100 "$f"
        done | awk '/driver_allocs\.c:do_(alloc|free) / { gsub(",", "", $1); h += $1 }
                    END { printf " %d", h }'
    fi
    echo
    rm -f "$out"/i.*.vtr "$out"/cg.*
}

# instructions_per_pair LABEL N CMD-BEFORE-PAIRS... -- CMD-AFTER-PAIRS...:
# instructions per alloc/free pair untraced, traced and added, from runs of
# N and 2N pairs (the difference leaves start-up and exit out). Then the
# added figure less the change in the stand-in's host allocation: glibc's
# memalign and free cost some hundreds of instructions more or less a pair
# from where earlier allocations left the heap (traced or not, one
# interpreter or another), which is the program's heap, not the tracer.
instructions_per_pair() {
    local label=$1 n=$2 before=() after=()
    shift 2
    while [ "$1" != -- ]; do before+=("$1"); shift; done
    shift
    after=("$@")
    local p1 p2 t1 t2
    p1=$(heap=1 instructions plain "${before[@]}" "$n" "${after[@]}")
    p2=$(heap=1 instructions plain "${before[@]}" $((2 * n)) "${after[@]}")
    t1=$(heap=1 instructions traced "${before[@]}" "$n" "${after[@]}")
    t2=$(heap=1 instructions traced "${before[@]}" $((2 * n)) "${after[@]}")
    awk -v l="$label" -v w="${label_width:-34}" -v n="$n" -v p1="$p1" -v p2="$p2" -v t1="$t1" -v t2="$t2" 'BEGIN {
        split(p1, a); split(p2, b); split(t1, c); split(t2, d)
        added = ((d[1] - c[1]) - (b[1] - a[1])) / n
        heap = ((d[2] - c[2]) - (b[2] - a[2])) / n
        printf "%-" w "s untraced %6.0f  traced %6.0f  added %6.0f instructions per pair" \
               "  (%.0f without the stand-in heap'"'"'s %+.0f)\n",
               l, (b[1] - a[1]) / n, (d[1] - c[1]) / n, added, added - heap, heap }'
}
