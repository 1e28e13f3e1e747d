// Storages in POSIX shared memory, for passing tensors between processes
// without copying them (PyTorch's storage sharing: torch.multiprocessing's
// reductions and libshm).
//
// Two strategies, as PyTorch's:
//  - file_descriptor: the segment is unlinked right after it is made, so only
//    its file descriptor names it. Another process receives the descriptor
//    (SCM_RIGHTS over a Unix socket) and maps it. The kernel counts the
//    mappings and descriptors: the memory goes when the last process lets go,
//    however it ends (SIGKILL included).
//  - file_system: the segment keeps its name in /dev/shm, so a process maps
//    it by name. A reference count in the segment's first 64 bytes counts the
//    storages that map it, in every process; the one that drops it to 0
//    unlinks the name. A process killed before it drops its references leaves
//    the name behind: a cleanup process (tc.multiprocessing's manager) unlinks
//    what is left once all the processes that registered with it are gone.
// Segment files are made with mode 0600 and O_EXCL.
#pragma once
#include <cstdint>
#include <string>

#include "core/tensor.h"

namespace tc {

// The strategy share_memory_ uses in this process (TC_SHARE_*).
void set_sharing_strategy(int32_t strategy);
int32_t sharing_strategy() noexcept;

// Moves t's storage into a new shared segment in place: every view of the
// storage then reads and writes the segment. Nothing happens when it is
// shared already, or when t is not on the CPU (PyTorch: a no-op for CUDA).
// Throws TC_ERR_OUT_OF_MEMORY naming the size when /dev/shm is full.
void share_memory_(const Tensor& t);
bool is_shared(const Tensor& t) noexcept;

// What another process needs to map t's storage.
struct SharedHandle {
  int32_t kind = 0;    // TC_SHARE_FILE_DESCRIPTOR or TC_SHARE_FILE_SYSTEM
  int32_t fd = -1;     // file_descriptor: this process's descriptor (still owned by the storage)
  std::string name;    // file_system: the segment's name ("/tc_...")
  int64_t nbytes = 0;  // the storage's bytes
};
// Throws TC_ERR_INVALID_ARGUMENT when t's storage is not shared.
SharedHandle shared_handle(const Tensor& t);

// Maps a segment another process exported (fd is the caller's: it is
// duplicated, not taken) as a tensor of the given shape/strides/offset
// (elements) and dtype. Throws TC_ERR_IO when the segment does not exist, was
// released, or is smaller than nbytes; TC_ERR_INVALID_ARGUMENT when the view
// reaches past nbytes.
Tensor import_shared(int32_t kind, int32_t fd, const std::string& name, int64_t nbytes, const Dims& shape,
                     const Dims& strides, int64_t offset, DType dtype);

// Adds (delta 1) or drops (delta -1) one reference to the file_system
// segment name without mapping it as a storage (a message in flight holds
// one); dropping the last unlinks the name. Throws TC_ERR_IO when the segment
// does not exist, or (adding) when it was released already.
void shared_segment_ref(const std::string& name, int delta);

// Test builds (TC_TEST_HOOKS): true when the allocation-failure countdown
// (set_fail_alloc_at) falls on this call, counted like a cpu_alloc, so the OOM
// walk covers the segments too; always false in libtc.so. Defined in alloc.cpp.
bool injected_alloc_failure() noexcept;

}  // namespace tc
