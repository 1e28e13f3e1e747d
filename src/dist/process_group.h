// Process groups and collectives (tc.h's distributed section). A Group is
// one communicator set of one backend; a Work one collective in flight. The
// backend's transport is the MPI module's C table (mpi_api.h); this file
// holds what every backend shares: argument checks, the descriptor check
// that catches ranks disagreeing on dtype or shape, timeouts (MPI has none:
// nonblocking calls polled against a deadline) and the works' progress.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "dist/mpi_api.h"
#include "dist/nccl_api.h"

namespace tc::dist {

class Group;

// One collective in flight. Holds its tensors (and the group) until done.
class Work {
 public:
  Work(std::shared_ptr<Group> group, std::string what) : group_(std::move(group)), what_(std::move(what)) {}
  // Drives the requests on; true once complete (successfully or not).
  bool test();
  // Waits up to timeout_seconds (<= 0: the group's), then throws
  // TC_ERR_TIMEOUT; throws the work's own failure once complete.
  void wait(double timeout_seconds);

 private:
  friend class Group;
  bool progress_locked();  // the group's mutex held
  void throw_if_failed() const;
  std::shared_ptr<Group> group_;
  std::string what_;
  std::vector<void*> requests_;
  std::vector<Tensor> keep_;
  std::vector<char> scratch_;
  std::function<void()> finish_;  // on success (AVG's division)
  bool done_ = false;
  int32_t code_ = 0;
  std::string message_;
};

struct Options {
  bool checks = true;
  double timeout_seconds = 300;
};

class Group : public std::enable_shared_from_this<Group> {
 public:
  static std::shared_ptr<Group> create(const std::string& backend, const Options& options);
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  int32_t rank() const { return rank_; }
  int32_t size() const { return size_; }
  const std::string& backend() const { return backend_; }
  double timeout() const { return timeout_; }

  std::shared_ptr<Work> all_reduce(const Tensor& t, int32_t op);
  std::shared_ptr<Work> broadcast(const Tensor& t, int32_t root);
  std::shared_ptr<Work> all_gather(const Tensor& out, const Tensor& in);
  std::shared_ptr<Work> reduce_scatter(const Tensor& out, const Tensor& in, int32_t op);
  std::shared_ptr<Work> barrier();
  std::shared_ptr<Work> send(const Tensor& t, int32_t peer, int32_t tag);
  std::shared_ptr<Work> recv(const Tensor& t, int32_t peer, int32_t tag);

  // The handle (tc_process_group) is gone: works still pending keep the
  // group (and their tensors) alive for good, since MPI may still write.
  void release_handle();

 private:
  friend class Work;
  Group() = default;
  // Blocks (with the timeout) until every rank has sent its descriptor.
  void check_collective(const char* op, const std::vector<int64_t>& mine);
  // A group of two: the descriptors point to point (pair_checks_).
  void check_pair(const char* op, const std::vector<int64_t>& mine);
  void check_recv(const Tensor& t, int32_t peer, int32_t tag);
  void send_descriptor(const Tensor& t, int32_t peer, int32_t tag);
  // Polls a request (the group's mutex taken per test) to completion; on a
  // timeout, buffers (what the request writes or reads) are kept for good.
  void wait_request(void* req, const std::string& what, std::shared_ptr<void> buffers);
  std::shared_ptr<Work> start(const char* what, const std::function<void(Work&)>& post);
  void progress_pending_locked();
  // The checks and the descriptor exchange of whichever backend this is.
  void check_tensor(const Tensor& t, const char* arg, bool written) const;
  void check_op(int32_t op, DType dtype) const;
  void check(const char* op, const std::vector<int64_t>& mine);

  // ---- nccl (src/dist/nccl_group.cpp) ----
  static std::shared_ptr<Group> create_nccl(const Options& options);
  // Enqueues one NCCL call (call returns the module's status and sets the
  // completion event) as a Work holding keep.
  std::shared_ptr<Work> nccl_start(const char* what, std::vector<Tensor> keep,
                                   const std::function<int32_t(void** done, char* err)>& call);
  void nccl_check(const char* op, const std::vector<int64_t>& mine);
  // Polls the event to completion or the deadline (then aborts: TC_ERR_TIMEOUT).
  void nccl_wait_event(void* done, const std::string& what);
  // ncclCommAbort after a timeout; pending works' tensors are kept for good.
  void nccl_abort_locked();

  std::string backend_;
  int32_t rank_ = 0, size_ = 1;
  double timeout_ = 300;
  bool checks_ = true;
  // Checks on, in a group of two: descriptors go point to point, and the
  // all-reduce's ride inside it (the MPI module's fused_check).
  bool pair_checks_ = false;
  const tc_mpi_api* api_ = nullptr;
  void* comm_ = nullptr;               // the data
  void* check_ = nullptr;              // descriptors, so they never reorder with data
  const tc_nccl_api* nccl_ = nullptr;  // the nccl backend's transport (else MPI's api_)
  void* ncomm_ = nullptr;
  int32_t device_ = -1;  // nccl: the CUDA device index
  bool aborted_ = false;
  std::mutex issue_mu_;  // one collective issued at a time (check, then start)
  std::mutex mu_;        // the transport's calls and pending_
  std::vector<std::shared_ptr<Work>> pending_;
};

// Whether backend can make groups here (its reason in *why when not).
bool backend_available(const std::string& backend, int32_t* code, std::string* why);
// The same for "nccl" (src/dist/nccl_group.cpp): runs the lazy cuda stage.
bool nccl_available(int32_t* code, std::string* why);

}  // namespace tc::dist
