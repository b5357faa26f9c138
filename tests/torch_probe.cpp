// SPDX-License-Identifier: MIT
// What a torch release's own headers say of what src/hooks/torch_tensors.c
// reads: CUDAAllocator's vtable slots of initialized() and
// attachAllocatorTraceTracker(), TraceEntry's field offsets, the actions'
// values and std::function's size; one number a line, in the order of the
// tracer's table (tests/test_torch_tensors.py compares them).
#include <c10/cuda/CUDACachingAllocator.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

using namespace c10::cuda::CUDACachingAllocator;

// An Itanium pointer to a virtual member: 1 + the slot's byte offset.
template <typename P> static long slot(P pmf)
{
    struct {
        uintptr_t ptr, adj;
    } raw;
    static_assert(sizeof(pmf) == sizeof(raw), "an Itanium pointer to member");
    std::memcpy(&raw, &pmf, sizeof raw);
    return (raw.ptr & 1) ? (long)((raw.ptr - 1) / sizeof(void *)) : -1;
}

int main()
{
    static_assert(sizeof(TraceEntry::Action) == 4 && sizeof(c10::DeviceIndex) == 1,
                  "the sizes the tracer reads");
    std::printf("%ld\n%ld\n", slot(&CUDAAllocator::initialized),
                slot(&CUDAAllocator::attachAllocatorTraceTracker));
    std::printf("%zu\n%zu\n%zu\n%zu\n%zu\n", offsetof(TraceEntry, action_),
                offsetof(TraceEntry, device_), offsetof(TraceEntry, addr_),
                offsetof(TraceEntry, stream_), offsetof(TraceEntry, size_));
    std::printf("%d\n%d\n%d\n%d\n%zu\n", (int)TraceEntry::ALLOC, (int)TraceEntry::FREE_REQUESTED,
                (int)TraceEntry::SEGMENT_ALLOC, (int)TraceEntry::SEGMENT_MAP,
                sizeof(AllocatorTraceTracker));
}
