// The "nccl" backend's half of process groups: bootstrap (rank and size from
// the launcher, the ncclUniqueId through a file or over MPI, the device from
// the local rank), the descriptor check over NCCL itself, and the works'
// CUDA events. The transport is the CUDA module's NCCL table
// (src/dist/nccl_api.h); libtc.so itself links neither CUDA nor NCCL.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>

#include "backend/cuda_loader.h"
#include "core/device_hooks.h"
#include "core/error.h"
#include "dist/dist_common.h"
#include "dist/process_group.h"

namespace tc::dist {

namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point deadline_after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::min(seconds, 1e9)));
}

// The first of the variables that is set, as an int (else fallback).
int32_t env_int(std::initializer_list<const char*> names, int32_t fallback, const char** which) {
  for (const char* name : names) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    char* end = nullptr;
    const long x = std::strtol(v, &end, 10);
    TC_CHECK(end && *end == '\0' && x >= 0 && x < (1L << 24), TC_ERR_INVALID_ARGUMENT, name, "=\"", v,
             "\" is not a rank or size");
    if (which) *which = name;
    return int32_t(x);
  }
  return fallback;
}

const tc_nccl_api* nccl_table(int32_t* code, std::string* why) {
  if (!cuda_stage_configured()) {
    *code = TC_ERR_NOT_COMPILED;
    *why = "libtc was built without CUDA (the nccl backend lives in its CUDA module, libtc_cuda.so)";
    return nullptr;
  }
  try {
    require_cuda(0);  // the lazy cuda stage: loads the module, finds the GPUs
  } catch (const Error& e) {
    *code = e.code() == TC_ERR_NOT_COMPILED ? TC_ERR_NOT_COMPILED : TC_ERR_DEVICE;
    *why = str("the nccl backend needs a CUDA GPU: ", e.what());
    return nullptr;
  }
  const tc_nccl_api* api = cuda_module_nccl();
  if (!api) {
    *code = TC_ERR_NOT_COMPILED;
    *why = "the CUDA module was built without NCCL (no nccl.h/libnccl found next to the CUDA toolkit)";
    return nullptr;
  }
  if (api->version != TC_NCCL_API_VERSION) {
    *code = TC_ERR_UNAVAILABLE;
    *why =
        str("the CUDA module's NCCL table is version ", api->version, ", libtc speaks ", TC_NCCL_API_VERSION);
    return nullptr;
  }
  return api;
}

// Rank 0 writes the id to path (atomically: a temporary, then rename); the
// others wait for the file until the deadline.
void exchange_through_file(const std::string& path, int32_t rank, uint8_t* id, double timeout) {
  if (rank == 0) {
    const std::string tmp = str(path, ".tmp.", ::getpid());
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    TC_CHECK(f, TC_ERR_IO, "cannot write the NCCL id file ", tmp);
    const size_t wrote = std::fwrite(id, 1, TC_NCCL_ID_BYTES, f);
    const bool closed = std::fclose(f) == 0;
    TC_CHECK(wrote == TC_NCCL_ID_BYTES && closed && std::rename(tmp.c_str(), path.c_str()) == 0, TC_ERR_IO,
             "cannot write the NCCL id file ", path);
    return;
  }
  const auto deadline = deadline_after(timeout);
  for (;;) {
    std::ifstream in(path, std::ios::binary);
    if (in && in.read(reinterpret_cast<char*>(id), TC_NCCL_ID_BYTES) && in.gcount() == TC_NCCL_ID_BYTES)
      return;
    TC_CHECK(Clock::now() < deadline, TC_ERR_TIMEOUT, "timed out after ", timeout, " s on rank ", rank,
             " waiting for rank 0 to write the NCCL id file ", path);
    usleep(10000);
  }
}

// Rank 0's id to every rank with the MPI module's broadcast.
void exchange_over_mpi(const tc_mpi_api* mpi, uint8_t* id, double timeout, int32_t rank) {
  void* comm = nullptr;
  void* req = nullptr;
  char err[512] = {0};
  TC_CHECK(mpi->comm_dup(&comm, err, sizeof err) == 0, TC_ERR_IO, "the NCCL id exchange over MPI: ", err);
  // The buffer outlives a timeout (MPI may still write it).
  auto buf = std::make_shared<std::vector<uint8_t>>(id, id + TC_NCCL_ID_BYTES);
  if (mpi->ibcast(comm, buf->data(), TC_NCCL_ID_BYTES, 0, &req, err, sizeof err) != 0) {
    mpi->comm_free(comm);
    fail(TC_ERR_IO, str("the NCCL id exchange over MPI: ", err));
  }
  const auto deadline = deadline_after(timeout);
  int iteration = 0;
  for (;;) {
    int32_t done = 0;
    if (mpi->test(req, &done, err, sizeof err) != 0)
      fail(TC_ERR_IO, str("the NCCL id exchange over MPI: ", err));
    if (done) break;
    if (Clock::now() > deadline) {
      detail::keep_forever(buf);
      fail(TC_ERR_TIMEOUT, str("timed out after ", timeout, " s on rank ", rank,
                               " in the NCCL id exchange over MPI: a peer died or never came"));
    }
    detail::spin(iteration);
  }
  mpi->comm_free(comm);
  std::copy(buf->begin(), buf->end(), id);
}

}  // namespace

bool nccl_available(int32_t* code, std::string* why) {
  *code = TC_OK;
  return nccl_table(code, why) != nullptr;
}

std::shared_ptr<Group> Group::create_nccl(const Options& options) {
  int32_t code = TC_OK;
  std::string why;
  const tc_nccl_api* api = nccl_table(&code, &why);
  if (!api) fail(code, why);

  // Rank and size: the launcher's (mpirun, torchrun-style, Slurm), else one.
  const char* size_var = nullptr;
  int32_t rank = env_int({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "RANK", "SLURM_PROCID"}, 0, nullptr);
  int32_t size = env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "WORLD_SIZE", "SLURM_NTASKS"}, 1, &size_var);
  std::string file;  // where the ranks exchange the unique id, else MPI
  if (const char* env = std::getenv("TC_NCCL_ID_FILE"); env && *env) file = env;
  const bool under_mpirun = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE");
  const tc_mpi_api* mpi = nullptr;
  if (file.empty() && under_mpirun) {
    std::string mpi_why;
    mpi = detail::mpi_for_bootstrap(&rank, &size, &mpi_why);
    TC_CHECK(mpi || size == 1, TC_ERR_UNAVAILABLE,
             "the nccl group's unique id goes over MPI under mpirun, but: ", mpi_why,
             " (or set TC_NCCL_ID_FILE to a path every rank sees)");
  }
  TC_CHECK(rank < size, TC_ERR_INVALID_ARGUMENT, "rank ", rank, " is not below the world size ", size, " (",
           size_var ? size_var : "default", ")");
  TC_CHECK(
      size == 1 || mpi || !file.empty(), TC_ERR_INVALID_ARGUMENT, "a nccl group of ", size,
      " ranks needs its unique id exchanged: launch with mpirun (with libtc's MPI module), or give every "
      "rank the same file path in TC_NCCL_ID_FILE");

  // The device: the local rank's, modulo the devices this process sees.
  int32_t count = 0;
  char err[512] = {0};
  TC_CHECK(api->device_count(&count, err, sizeof err) == 0 && count > 0, TC_ERR_DEVICE,
           "the nccl backend found no CUDA device: ", err);
  const int32_t local = env_int(
      {"OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}, rank, nullptr);
  const int32_t device = local % count;

  uint8_t id[TC_NCCL_ID_BYTES] = {0};
  if (rank == 0)
    TC_CHECK(api->unique_id(id, err, sizeof err) == 0, TC_ERR_IO, "making the NCCL unique id: ", err);
  if (size > 1) {
    if (!file.empty()) {
      exchange_through_file(file, rank, id, options.timeout_seconds);
    } else {
      exchange_over_mpi(mpi, id, options.timeout_seconds, rank);
    }
  }

  std::shared_ptr<Group> g(new Group());
  g->backend_ = "nccl";
  g->nccl_ = api;
  g->rank_ = rank;
  g->size_ = size;
  g->device_ = device;
  g->checks_ = options.checks;
  g->timeout_ = options.timeout_seconds;
  TC_CHECK(api->comm_init(rank, size, id, device, &g->ncomm_, err, sizeof err) == 0, TC_ERR_IO,
           "making the NCCL communicator (rank ", rank, " of ", size, ", cuda:", device, "): ", err);
  // Nonblocking init: a rank that never comes is a timeout.
  const auto deadline = deadline_after(g->timeout_);
  int iteration = 0;
  for (;;) {
    int32_t state = 0;
    if (api->comm_state(g->ncomm_, &state, err, sizeof err) != 0)
      fail(TC_ERR_IO, str("making the NCCL communicator (rank ", rank, " of ", size, "): ", err));
    if (state == 0) break;
    if (Clock::now() > deadline) {
      api->comm_abort(g->ncomm_);
      fail(TC_ERR_TIMEOUT, str("timed out after ", g->timeout_, " s making the NCCL communicator on rank ",
                               rank, " of ", size, ": a peer died or never came"));
    }
    detail::spin(iteration);
  }
  // Every rank has joined, so every rank has read the id: the file can go.
  if (rank == 0 && size > 1 && !file.empty()) ::unlink(file.c_str());
  return g;
}

void Group::nccl_abort_locked() {
  if (aborted_) return;
  aborted_ = true;
  nccl_->comm_abort(ncomm_);
  // The aborted kernels' tensors: kept for good rather than trusting that no
  // write of theirs is still in flight.
  for (auto& w : pending_) detail::keep_forever(std::make_shared<std::vector<Tensor>>(w->keep_));
}

std::shared_ptr<Work> Group::nccl_start(const char* what, std::vector<Tensor> keep,
                                        const std::function<int32_t(void** done, char* err)>& call) {
  std::lock_guard<std::mutex> lock(mu_);
  TC_CHECK(!aborted_, TC_ERR_INVALID_ARGUMENT, what,
           ": this nccl group was aborted after a timeout (free it; the job's ranks no longer match)");
  progress_pending_locked();
  auto w = std::make_shared<Work>(shared_from_this(), what);
  void* done = nullptr;
  char err[512] = {0};
  if (call(&done, err) != 0) fail(TC_ERR_IO, str("NCCL ", what, " failed to start: ", err));
  w->requests_.push_back(done);
  w->keep_ = std::move(keep);
  pending_.push_back(w);
  return w;
}

void Group::nccl_wait_event(void* done, const std::string& what) {
  const auto deadline = deadline_after(timeout_);
  int iteration = 0;
  for (;;) {
    int32_t finished = 0;
    char err[512] = {0};
    int32_t rc = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      rc = nccl_->test(ncomm_, done, &finished, err, sizeof err);
      if (finished) nccl_->event_free(done);
    }
    if (rc != 0) fail(TC_ERR_IO, str(what, " failed: ", err));
    if (finished) return;
    if (Clock::now() > deadline) {
      std::lock_guard<std::mutex> lock(mu_);
      nccl_abort_locked();
      fail(TC_ERR_TIMEOUT,
           str("timed out after ", timeout_, " s in ", what, " on rank ", rank_, " of ", size_,
               " (nccl): a peer died, hangs, or called a different collective; the "
               "communicator was aborted"));
    }
    detail::spin(iteration);
  }
}

void Group::nccl_check(const char* op, const std::vector<int64_t>& mine) {
  void* done = nullptr;
  char err[512] = {0};
  {
    std::lock_guard<std::mutex> lock(mu_);
    TC_CHECK(!aborted_, TC_ERR_INVALID_ARGUMENT, op,
             ": this nccl group was aborted after a timeout (free it; the job's ranks no longer match)");
    if (nccl_->exchange(ncomm_, mine.data(), int64_t(mine.size()), &done, err, sizeof err) != 0)
      fail(TC_ERR_IO, str("the descriptor exchange of ", op, " failed: ", err));
  }
  nccl_wait_event(done, str("the descriptor exchange of ", op));
  detail::compare_descriptors(nccl_->gathered(ncomm_), size_, rank_);
}

}  // namespace tc::dist
