// What the backends' halves of process_group.cpp and nccl_group.cpp share:
// the wait loop's pacing, the memory kept for good after a timeout, and the
// comparison of the ranks' descriptors.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace tc::dist::detail {

// Between polls: spin, then yield, then sleep a little (oversubscribed ranks
// leave the core to the peers they wait for).
void spin(int& iteration);
// Keeps p alive until exit (what a transport may still write after a timeout).
void keep_forever(std::shared_ptr<void> p);
// Fails (every rank the same way) when the size rows of the gathered
// descriptors (rank-major) disagree; rank is this process's.
void compare_descriptors(const int64_t* all, int32_t size, int32_t rank);
// int64_t count of one descriptor.
int64_t descriptor_length();

}  // namespace tc::dist::detail

#include "dist/mpi_api.h"
namespace tc::dist::detail {
// The MPI module with MPI initialized (its world's rank and size), or
// nullptr with the reason in *why: how nccl groups exchange their unique id
// when launched with mpirun.
const tc_mpi_api* mpi_for_bootstrap(int32_t* rank, int32_t* size, std::string* why);
}  // namespace tc::dist::detail
