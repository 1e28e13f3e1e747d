// libtc_mpi.so: the MPI module libtc loads on the first "mpi" process group
// (src/dist/mpi_api.h). Only MPI calls here; libtc does the rest.
// The C API only: no MPI C++ bindings (their symbols live in another library).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "dist/mpi_api.h"
#include "tc_constants.h"

namespace {

int32_t report(int rc, const char* what, char* err, int64_t cap) {
  if (rc == MPI_SUCCESS) return 0;
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  if (err && cap > 0) std::snprintf(err, size_t(cap), "%s failed: %s", what, text);
  return rc == 0 ? -1 : rc;
}

int32_t fail(const char* message, char* err, int64_t cap) {
  if (err && cap > 0) std::snprintf(err, size_t(cap), "%s", message);
  return -1;
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

MPI_Datatype datatype(int32_t dtype) {
  switch (dtype) {
    case TC_FLOAT32:
      return MPI_FLOAT;
    case TC_FLOAT64:
      return MPI_DOUBLE;
    case TC_INT8:
      return MPI_INT8_T;
    case TC_INT16:
      return MPI_INT16_T;
    case TC_INT32:
      return MPI_INT32_T;
    case TC_INT64:
      return MPI_INT64_T;
    case TC_UINT8:
      return MPI_UINT8_T;
    case TC_BOOL:
      return MPI_C_BOOL;
    default:
      return MPI_DATATYPE_NULL;
  }
}

MPI_Op reduce_op(int32_t dtype, int32_t op) {
  if (dtype == TC_BOOL) {
    if (op == TC_REDUCE_SUM || op == TC_REDUCE_MAX) return MPI_LOR;
    if (op == TC_REDUCE_MIN || op == TC_REDUCE_PRODUCT) return MPI_LAND;
    return MPI_OP_NULL;
  }
  switch (op) {
    case TC_REDUCE_SUM:
      return MPI_SUM;
    case TC_REDUCE_MAX:
      return MPI_MAX;
    case TC_REDUCE_MIN:
      return MPI_MIN;
    case TC_REDUCE_PRODUCT:
      return MPI_PROD;
    default:
      return MPI_OP_NULL;
  }
}

// A send of a copy that the all-reduce no longer waits for (see Doubling):
// the copy lives until MPI reports the send complete.
struct DetachedSend {
  MPI_Request req;
  void* copy;
};

// Scratch buffers kept for the next all-reduce: a fresh malloc of a large
// buffer is a fresh mmap, whose page faults cost more than the exchange.
struct Scratch {
  void* p;
  size_t cap;
};
constexpr size_t kPoolMax = 8;

// A communicator of libtc's: the MPI one, and how many ring or doubling
// all-reduces it started (their tags: ranks start collectives in the same order, so the
// count agrees across ranks and concurrent rings never match each other's
// messages); the sends it no longer waits for, and scratch buffers.
struct Comm {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  unsigned ring_seq = 0;
  std::vector<DetachedSend> detached;
  std::vector<Scratch> pool;
};

// The smallest pooled buffer that fits (a small call never takes the large
// buffer a large call will want again), else a new one.
void* take_scratch(Comm* c, size_t bytes) {
  if (bytes == 0) bytes = 1;
  size_t best = c->pool.size();
  for (size_t i = 0; i < c->pool.size(); ++i)
    if (c->pool[i].cap >= bytes && (best == c->pool.size() || c->pool[i].cap < c->pool[best].cap)) best = i;
  if (best < c->pool.size()) {
    void* p = c->pool[best].p;
    c->pool[best] = c->pool.back();
    c->pool.pop_back();
    return p;
  }
  void* p = std::malloc(bytes + sizeof(size_t));
  if (!p) return nullptr;
  *static_cast<size_t*>(p) = bytes;  // its capacity, read back by give_scratch
  return static_cast<char*>(p) + sizeof(size_t);
}

void free_scratch(void* q) { std::free(static_cast<char*>(q) - sizeof(size_t)); }

// Back into the pool; a full pool drops its smallest buffer (or this one,
// when that is smaller): the large buffers are the ones whose fresh pages
// cost (a ring's 8 MiB block was freed and page-faulted again on every
// 16 MiB call once small calls' send copies had filled the pool).
void give_scratch(Comm* c, void* q) {
  if (!q) return;
  const size_t cap = *reinterpret_cast<size_t*>(static_cast<char*>(q) - sizeof(size_t));
  if (c->pool.size() >= kPoolMax) {
    size_t smallest = 0;
    for (size_t i = 1; i < c->pool.size(); ++i)
      if (c->pool[i].cap < c->pool[smallest].cap) smallest = i;
    if (c->pool.empty() || c->pool[smallest].cap >= cap) {
      free_scratch(q);
      return;
    }
    free_scratch(c->pool[smallest].p);
    c->pool[smallest] = {q, cap};
    return;
  }
  try {
    c->pool.push_back({q, cap});
  } catch (...) {
    free_scratch(q);
  }
}

void free_pool(Comm* c) {
  for (const Scratch& s : c->pool) free_scratch(s.p);
  c->pool.clear();
}

// Frees the copies of the detached sends that completed.
void reap_detached(Comm* c) {
  for (size_t i = 0; i < c->detached.size();) {
    int flag = 0;
    if (MPI_Test(&c->detached[i].req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag) {
      // (A failed send's copy is reused too: MPI is done with the request.)
      give_scratch(c, c->detached[i].copy);
      c->detached[i] = c->detached.back();
      c->detached.pop_back();
    } else {
      ++i;
    }
  }
}

MPI_Comm comm_of(void* c) { return static_cast<Comm*>(c)->comm; }

// Sends a copy of src and detaches the send: the all-reduce then waits
// only for what it receives. A send of the buffer itself would keep
// a rank waiting until the peer had run again to take the data (Open MPI's
// shared memory moves anything above 4 KiB by rendezvous: the receiver
// pulls it, then acknowledges), one more scheduling round trip per
// exchange; on a loaded machine each costs a time slice (milliseconds).
int send_copy(Comm* owner, const void* src, int count, MPI_Datatype type, int esize, int peer, int tag,
              MPI_Comm comm) {
  const size_t bytes = size_t(count) * size_t(esize);
  void* copy = take_scratch(owner, bytes);
  if (!copy) return MPI_ERR_NO_MEM;
  if (bytes) std::memcpy(copy, src, bytes);
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = MPI_Isend(copy, count, type, peer, tag, comm, &r);
  if (rc != MPI_SUCCESS) {
    give_scratch(owner, copy);
    return rc;
  }
  try {
    owner->detached.push_back({r, copy});
  } catch (...) {  // no room to remember it: wait for it here instead
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    give_scratch(owner, copy);
  }
  return MPI_SUCCESS;
}

// Tags of the ring all-reduce's messages: above the 0..32767 that
// tc_send/tc_recv use, cycling through kRingTags values.
constexpr int kRingTagBase = 1 << 16;
constexpr unsigned kRingTags = 1u << 14;
int g_tag_ub = 0;  // MPI_TAG_UB (the ring is used only when its tags fit)

// All-reduce of large buffers: a ring (reduce-scatter, then all-gather) of
// MPI_Isend/MPI_Irecv with MPI_Reduce_local, in place, stepped by test().
// Open MPI's nonblocking MPI_Iallreduce (libnbc) sends the whole buffer
// through a binomial tree for in-place calls, i.e. about twice the bytes of
// a ring, and is slower than the blocking call's tuned algorithms there.
struct Ring {
  Comm* owner;
  MPI_Comm comm;
  char* buf;
  int64_t count;
  MPI_Datatype type;
  MPI_Op op;
  int esize;
  int rank, size, tag;
  int step = 0;  // 0 .. 2(size-1): the first size-1 reduce, the rest gather
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  char* tmp = nullptr;  // one block, received before it is reduced in
  int64_t begin(int b) const { return count * b / size; }
  int64_t len(int b) const { return begin(b + 1) - begin(b); }
  int block(int k) const { return ((k % size) + size) % size; }
};

// Below this many bytes the ring's extra steps cost more than its bandwidth saves.
constexpr int64_t kRingMinBytes = 64 * 1024;

// post_recv false: the first step's receive waits for the peer's descriptor
// (post_ring_recv posts it once the descriptors agree).
int post_ring_step(Ring* g, bool post_recv = true) {
  const int right = (g->rank + 1) % g->size, left = (g->rank - 1 + g->size) % g->size;
  const bool reducing = g->step < g->size - 1;
  const int s = reducing ? g->step : g->step - (g->size - 1);
  // Reduce-scatter: send block rank - s, receive block rank - s - 1 (to reduce).
  // All-gather: send the finished block rank + 1 - s, receive block rank - s.
  const int sb = reducing ? g->block(g->rank - s) : g->block(g->rank + 1 - s);
  const int rb = reducing ? g->block(g->rank - s - 1) : g->block(g->rank - s);
  char* into = reducing ? g->tmp : g->buf + g->begin(rb) * g->esize;
  int rc =
      post_recv ? MPI_Irecv(into, int(g->len(rb)), g->type, left, g->tag, g->comm, &g->reqs[0]) : MPI_SUCCESS;
  if (rc == MPI_SUCCESS)
    rc = MPI_Isend(g->buf + g->begin(sb) * g->esize, int(g->len(sb)), g->type, right, g->tag, g->comm,
                   &g->reqs[1]);
  return rc;
}

// The first step's receive, deferred by post_ring_step(g, false).
int post_ring_recv(Ring* g) {
  const int left = (g->rank - 1 + g->size) % g->size;
  const int rb = g->block(g->rank - 1);
  return MPI_Irecv(g->tmp, int(g->len(rb)), g->type, left, g->tag, g->comm, &g->reqs[0]);
}

// Advances the ring as far as its messages allow; *done once finished.
int step_ring(Ring* g, int* done) {
  *done = 0;
  for (;;) {
    int flag = 0;
    const int rc = MPI_Testall(2, g->reqs, &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    if (!flag) return MPI_SUCCESS;
    if (g->step < g->size - 1) {
      const int rb = g->block(g->rank - g->step - 1);
      MPI_Reduce_local(g->tmp, g->buf + g->begin(rb) * g->esize, int(g->len(rb)), g->type, g->op);
    }
    if (++g->step == 2 * (g->size - 1)) {
      *done = 1;
      return MPI_SUCCESS;
    }
    if (int prc = post_ring_step(g); prc != MPI_SUCCESS) return prc;
  }
}

void free_ring(Ring* g) {
  give_scratch(g->owner, g->tmp);
  delete g;
}

// All-reduce of small buffers: recursive doubling (what Open MPI's blocking
// MPI_Allreduce runs there: one exchange per doubling, a message latency
// each), in place, stepped by test(). Open MPI's MPI_Iallreduce (libnbc)
// builds a schedule per call and, in place, reduces to a root and
// broadcasts back: twice the latency; at 4 KiB it was what kept libtc at
// 0.91x MPI_Allreduce. A size that is not a power of two folds the first
// 2 * rem ranks in pairs (the even one hands its buffer to the odd one and
// gets the result back at the end). Every rank applies the same reductions
// with the operands swapped, and the ops are commutative, so every rank
// ends with the same bits.
struct Doubling {
  Comm* owner;
  MPI_Comm comm;
  char* buf;
  int count;
  MPI_Datatype type;
  MPI_Op op;
  int rank, size, tag;
  int pof2 = 1, rem = 0;
  int newrank = -1;  // in the power-of-two group; -1: an even rank that folded out
  int mask = 1;      // the doubling's current distance
  int phase = 0;     // 0 fold, 1 doubling, 2 unfold, 3 done
  static constexpr int kMaxParts = 8;
  MPI_Request reqs[kMaxParts] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                                 MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                                 MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // the receive's parts
  bool reduce_pending = false;  // tmp holds a partner's buffer to reduce in once the exchange completes
  char* tmp = nullptr;
  int esize = 0;
  int real_rank(int nr) const { return nr < rem ? 2 * nr + 1 : nr + rem; }
};

// Messages of a doubling above Open MPI's shared-memory eager limit (4 KiB
// with its header) go as several eager messages of kEagerPart bytes: a
// message above the limit goes by rendezvous (the receiver pulls it with
// process_vm_readv, then acknowledges), more round trips, each a chance to
// lose the core on a loaded machine (a 4 KiB all-reduce took ~3x as long as
// with the limit raised to 8 KiB; 16 KiB in one message ran at 0.90-0.93x
// MPI_Allreduce). Up to Doubling::kMaxParts parts (24 KiB); larger buffers
// stay whole: there the single copy pays.
constexpr int64_t kEagerPart = 3072;  // bytes, a multiple of every element size

// Parts of an exchange of the whole buffer (1..kMaxParts); *per: elements in
// every part but the last.
int parts_of(int64_t count, int esize, int64_t* per) {
  const int64_t bytes = count * esize;
  const int64_t per_part = kEagerPart / esize;
  if (bytes > kEagerPart && bytes <= Doubling::kMaxParts * kEagerPart && per_part >= 1) {
    *per = per_part;
    return int((count + per_part - 1) / per_part);
  }
  *per = count;
  return 1;
}

int exchange_parts(const Doubling* g, int* per) {
  int64_t p = 0;
  const int parts = parts_of(g->count, g->esize, &p);
  *per = int(p);
  return parts;
}

// Calls post(offset in elements, count, part index) for each part of an
// exchange of the whole buffer, stopping at the first MPI error.
template <typename Post>
int for_each_part(const Doubling* g, Post post) {
  int per = 0;
  const int parts = exchange_parts(g, &per);
  int rc = MPI_SUCCESS;
  for (int i = 0; i < parts && rc == MPI_SUCCESS; ++i) {
    const int64_t first = int64_t(i) * per;
    rc = post(first, int(std::min<int64_t>(per, g->count - first)), i);
  }
  return rc;
}

// Receives the peer's buffer into `into`, one request per part.
int recv_parts(Doubling* g, char* into, int peer) {
  return for_each_part(g, [&](int64_t first, int n, int i) {
    return MPI_Irecv(into + first * g->esize, n, g->type, peer, g->tag, g->comm, &g->reqs[i]);
  });
}

// Sends (copies of) the buffer to the peer, in the parts recv_parts expects.
int send_parts(Doubling* g, int peer) {
  return for_each_part(g, [&](int64_t first, int n, int) {
    return send_copy(g->owner, g->buf + first * g->esize, n, g->type, g->esize, peer, g->tag, g->comm);
  });
}

// Below kRingMinBytes, recursive doubling (latency-bound sizes).
int post_doubling(Doubling* g) {
  g->reduce_pending = false;
  for (;;) {
    if (g->phase == 0) {  // fold: ranks < 2 * rem pair up
      g->phase = 1;
      if (g->rank < 2 * g->rem) {
        if (g->rank % 2 == 0) {
          g->newrank = -1;
          return send_parts(g, g->rank + 1);
        }
        g->newrank = g->rank / 2;
        g->reduce_pending = true;
        return recv_parts(g, g->tmp, g->rank - 1);
      }
      g->newrank = g->rank - g->rem;
      continue;
    }
    if (g->phase == 1) {  // doubling among the pof2 ranks left
      if (g->newrank < 0 || g->mask >= g->pof2) {
        g->phase = 2;
        continue;
      }
      const int peer = g->real_rank(g->newrank ^ g->mask);
      g->mask <<= 1;
      g->reduce_pending = true;
      int rc = recv_parts(g, g->tmp, peer);
      if (rc == MPI_SUCCESS) rc = send_parts(g, peer);
      return rc;
    }
    if (g->phase == 2) {  // unfold: the odd ranks hand the result back
      g->phase = 3;
      if (g->rank < 2 * g->rem) {
        if (g->rank % 2 == 0) return recv_parts(g, g->buf, g->rank + 1);
        return send_parts(g, g->rank - 1);
      }
      continue;
    }
    return MPI_SUCCESS;  // phase 3: nothing left to post
  }
}

// Advances the doubling as far as its messages allow; *done once finished.
int step_doubling(Doubling* g, int* done) {
  *done = 0;
  for (;;) {
    int flag = 0;
    const int rc = MPI_Testall(Doubling::kMaxParts, g->reqs, &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    if (!flag) return MPI_SUCCESS;
    if (g->reduce_pending) MPI_Reduce_local(g->tmp, g->buf, g->count, g->type, g->op);
    if (g->phase == 3) {
      *done = 1;
      return MPI_SUCCESS;
    }
    if (const int prc = post_doubling(g); prc != MPI_SUCCESS) return prc;
  }
}

void free_doubling(Doubling* g) {
  give_scratch(g->owner, g->tmp);
  delete g;
}

// MPI counts are int: larger buffers are refused (libtc checks first).
bool fits(int64_t n) { return n >= 0 && n <= INT_MAX; }

// The descriptor check of a group of two, riding with an all-reduce: the
// peer's descriptor arrives next to its first data message, and the data
// is reduced only once it equals ours (the ring also posts its first
// receive only then; the doubling receives into scratch meanwhile).
struct Header {
  MPI_Request recv = MPI_REQUEST_NULL;
  std::vector<int64_t> mine, theirs;
  int64_t* out = nullptr;  // libtc's copy of theirs, written on completion
  bool resolved = false, mismatch = false;
};

// Receives of what a peer's all-reduce sends, discarded: after a mismatch,
// so that the messages cannot match a later receive.
struct Drain {
  MPI_Request reqs[Doubling::kMaxParts] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                                           MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                                           MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  char* buf = nullptr;  // malloc'ed: one slot per message
};

// A request of the module: MPI's, or a ring or a doubling of its own (with
// the descriptor check of a group of two), or a drain.
struct Req {
  MPI_Request r = MPI_REQUEST_NULL;
  Ring* ring = nullptr;
  Doubling* doubling = nullptr;
  Header* header = nullptr;
  Drain* drain = nullptr;
  unsigned seq = 0;  // the communicator's all-reduce number (its tags)
};

// The ring's condition (iallreduce): large buffers, tags to spare.
bool uses_ring(const Comm* c, int64_t count, int esize) {
  return c->size > 1 && count >= c->size && count * esize >= kRingMinBytes &&
         g_tag_ub >= kRingTagBase + int(kRingTags);
}

// The tag of an all-reduce's data. In a group of two (fused) a doubling's
// tag also carries its byte count (below kRingMinBytes: 16 bits): ranks
// whose all-reduces differ in bytes never match each other's messages, so
// the doubling posts its receives before the peer's descriptor arrived and
// a mismatch cancels them; equal bytes mean equal messages, received into
// scratch and not reduced. The ring's receive waits for the descriptor.
int data_tag(unsigned seq, bool ring, bool fused, int64_t bytes) {
  const int tag = kRingTagBase + int(seq % kRingTags);
  return ring || !fused ? tag : tag + int(kRingTags) * int(bytes + 1);
}

// Whether all-reduces on c carry the descriptor check (fused_check): a
// group of two, with tags for data_tag's byte counts.
bool fuses_check(const Comm* c) {
  return c->size == 2 && int64_t(g_tag_ub) >= kRingTagBase + int64_t(kRingTags) * (kRingMinBytes + 2);
}

// The data tag of the all-reduce a peer's descriptor describes (number
// seq), or -1 when it is no all-reduce (it sends no data); *count, *esize.
int peer_tag(const Comm* c, const int64_t* peer, unsigned seq, int64_t* count, int* esize) {
  if (peer[0] != TC_MPI_KIND_ALL_REDUCE || peer[2] < 0 || peer[2] > INT_MAX) return -1;
  const MPI_Datatype type = datatype(int32_t(peer[2]));
  if (type == MPI_DATATYPE_NULL || !fits(peer[4])) return -1;
  MPI_Type_size(type, esize);
  *count = peer[4];
  return data_tag(seq, uses_ring(c, *count, *esize), true, *count * *esize);
}

// Posts receives, into a Drain, for the first exchange of the all-reduce
// number seq that the peer of a group of two described (peer: its
// descriptor): one message (the ring's half) or the doubling's parts.
// Nothing when the peer's collective is not an all-reduce.
int post_drain(Comm* c, const int64_t* peer, unsigned seq, Drain** out) {
  *out = nullptr;
  int64_t count = 0;
  int esize = 1;
  const int tag = peer_tag(c, peer, seq, &count, &esize);
  if (tag < 0) return MPI_SUCCESS;
  int64_t per = 0;
  const int n = uses_ring(c, count, esize) ? 1 : parts_of(count, esize, &per);
  const int64_t slot = std::max<int64_t>(n == 1 ? count * esize : per * esize, 1);
  if (!fits(slot)) return MPI_ERR_COUNT;
  auto* d = new (std::nothrow) Drain();
  if (d) d->buf = static_cast<char*>(std::malloc(size_t(slot) * size_t(n)));
  if (!d || !d->buf) {
    delete d;
    return MPI_ERR_NO_MEM;
  }
  *out = d;
  int rc = MPI_SUCCESS;
  for (int i = 0; i < n && rc == MPI_SUCCESS; ++i)
    rc = MPI_Irecv(d->buf + i * slot, int(slot), MPI_BYTE, 1 - c->rank, tag, c->comm, &d->reqs[i]);
  return rc;
}

// Once the peer's descriptor arrived: when it equals ours, the ring's
// deferred receive (the doubling's are posted); else the drain of the
// peer's data, after cancelling the doubling's receives unless the peer's
// messages carry the same tag (then they are those receives' messages).
int resolve_header(Req* box) {
  Header* h = box->header;
  h->resolved = true;
  if (h->theirs == h->mine) return box->ring ? post_ring_recv(box->ring) : MPI_SUCCESS;
  h->mismatch = true;
  Comm* c = box->ring ? box->ring->owner : box->doubling->owner;
  const int tag = box->ring ? box->ring->tag : box->doubling->tag;
  if (box->doubling) {
    int64_t count = 0;
    int esize = 1;
    if (peer_tag(c, h->theirs.data(), box->seq, &count, &esize) == tag) return MPI_SUCCESS;
    for (MPI_Request& r : box->doubling->reqs)
      if (r != MPI_REQUEST_NULL) MPI_Cancel(&r);  // (completed by the Testall that waits for them)
  }
  return post_drain(c, h->theirs.data(), box->seq, &box->drain);
}

// Advances a request as far as its messages allow; *flag once finished.
int progress(Req* box, int* flag) {
  *flag = 0;
  if (Header* h = box->header; h && !h->resolved) {
    int got = 0;
    if (const int rc = MPI_Test(&h->recv, &got, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) return rc;
    if (!got) return MPI_SUCCESS;
    if (const int rc = resolve_header(box); rc != MPI_SUCCESS) return rc;
  }
  if (box->drain || (box->header && box->header->mismatch)) {
    // The drain, the ring's first send (from the caller's buffer), which the
    // peer drains, and the doubling's receives (completed or cancelled);
    // the doubling's sends are detached copies.
    int drained = 1, sent = 1;
    if (box->drain) {
      if (const int rc = MPI_Testall(Doubling::kMaxParts, box->drain->reqs, &drained, MPI_STATUSES_IGNORE);
          rc != MPI_SUCCESS)
        return rc;
    }
    if (box->ring) {
      if (const int rc = MPI_Testall(2, box->ring->reqs, &sent, MPI_STATUSES_IGNORE); rc != MPI_SUCCESS)
        return rc;
    }
    if (box->doubling) {
      if (const int rc = MPI_Testall(Doubling::kMaxParts, box->doubling->reqs, &sent, MPI_STATUSES_IGNORE);
          rc != MPI_SUCCESS)
        return rc;
    }
    *flag = drained && sent;
    return MPI_SUCCESS;
  }
  if (box->ring) return step_ring(box->ring, flag);
  if (box->doubling) return step_doubling(box->doubling, flag);
  return MPI_Test(&box->r, flag, MPI_STATUS_IGNORE);
}

void free_drain(Drain* d) {
  if (!d) return;
  std::free(d->buf);
  delete d;
}

int32_t start(int rc, MPI_Request r, const char* what, void** req, char* err, int64_t cap) {
  if (rc != MPI_SUCCESS) return report(rc, what, err, cap);
  auto* box = new (std::nothrow) Req();
  if (!box) return fail("out of memory for an MPI request", err, cap);
  box->r = r;
  *req = box;
  return 0;
}

int32_t init(int32_t* rank, int32_t* size, char* err, int64_t cap) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized) return fail("MPI was already finalized in this process", err, cap);
  if (!initialized) {
    int provided = 0;
    const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS) return report(rc, "MPI_Init_thread", err, cap);
    std::atexit(finalize_at_exit);
  }
  int r = 0, s = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  int* ub = nullptr;
  int has_ub = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &has_ub);
  g_tag_ub = has_ub && ub ? *ub : 32767;
  *rank = r;
  *size = s;
  return 0;
}

int32_t comm_dup(void** out, char* err, int64_t cap) {
  MPI_Comm c = MPI_COMM_NULL;
  const int rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
  if (rc != MPI_SUCCESS) return report(rc, "MPI_Comm_dup", err, cap);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  auto* box = new (std::nothrow) Comm();
  if (!box) {
    MPI_Comm_free(&c);
    return fail("out of memory for an MPI communicator", err, cap);
  }
  box->comm = c;
  MPI_Comm_rank(c, &box->rank);
  MPI_Comm_size(c, &box->size);
  *out = box;
  return 0;
}

void comm_free(void* c) {
  if (!c) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  auto* box = static_cast<Comm*>(c);
  if (!finalized) {
    reap_detached(box);
    // Sends still in flight (a peer that never received) keep their copies:
    // MPI may still read them. MPI_Comm_free waits for nothing.
    MPI_Comm_free(&box->comm);
  }
  free_pool(box);
  delete box;
}

int32_t reduces(int32_t dtype, int32_t op) {
  return datatype(dtype) != MPI_DATATYPE_NULL && reduce_op(dtype, op) != MPI_OP_NULL ? 1 : 0;
}

int32_t fused_check(void* comm) { return fuses_check(static_cast<Comm*>(comm)) ? 1 : 0; }

// The descriptor check's half of iallreduce: mine goes to the peer (a
// detached copy), the peer's is received into a new Header.
int start_header(Comm* c, Comm* check, const int64_t* mine, int64_t* theirs, int64_t desc_len, Header** out) {
  auto* h = new (std::nothrow) Header();
  if (!h) return MPI_ERR_NO_MEM;
  try {
    h->mine.assign(mine, mine + desc_len);
    h->theirs.assign(size_t(desc_len), 0);
  } catch (...) {
    delete h;
    return MPI_ERR_NO_MEM;
  }
  h->out = theirs;
  const int peer = 1 - c->rank;
  // Bytes, as libtc's own exchange of descriptors (check_pair) sends them.
  const int bytes = int(desc_len * 8);
  int rc = MPI_Irecv(h->theirs.data(), bytes, MPI_BYTE, peer, TC_MPI_HEADER_TAG, check->comm, &h->recv);
  if (rc == MPI_SUCCESS) rc = send_copy(c, mine, bytes, MPI_BYTE, 1, peer, TC_MPI_HEADER_TAG, check->comm);
  if (rc != MPI_SUCCESS) {
    if (h->recv == MPI_REQUEST_NULL) delete h;  // (else MPI may still write it: kept)
    return rc;
  }
  *out = h;
  return MPI_SUCCESS;
}

int32_t iallreduce(void* comm, void* buf, int64_t count, int32_t dtype, int32_t op, void* check_comm,
                   const int64_t* mine, int64_t* theirs, int64_t desc_len, void** req, char* err,
                   int64_t cap) {
  if (!fits(count)) return fail("more than INT_MAX elements in one MPI call", err, cap);
  auto* c = static_cast<Comm*>(comm);
  int esize = 0;
  MPI_Type_size(datatype(dtype), &esize);
  reap_detached(c);
  Header* header = nullptr;
  if (mine) {
    if (!fuses_check(c) || !check_comm || !theirs || desc_len <= 0 || desc_len > 4096)
      return fail("the all-reduce's descriptor check rides with the data only in a group of two", err, cap);
    if (const int rc = start_header(c, static_cast<Comm*>(check_comm), mine, theirs, desc_len, &header);
        rc != MPI_SUCCESS)
      return report(rc, "the all-reduce's descriptor exchange", err, cap);
  }
  // This all-reduce's number: ranks start them in the same order, so it
  // agrees across ranks (its tags; a drain's on the peer).
  const unsigned seq = c->ring_seq++;
  if (uses_ring(c, count, esize)) {
    auto* g = new (std::nothrow) Ring{
        c,       c->comm, static_cast<char*>(buf),      count, datatype(dtype), reduce_op(dtype, op), esize,
        c->rank, c->size, data_tag(seq, true, false, 0)};
    auto* box = g ? new (std::nothrow) Req() : nullptr;
    if (g) g->tmp = static_cast<char*>(take_scratch(c, size_t(g->len(0) + 1) * size_t(esize)));
    if (!g || !box || !g->tmp) {
      if (g) free_ring(g);
      delete box;
      return fail("out of memory for a ring all-reduce", err, cap);  // (a header in flight is kept)
    }
    box->ring = g;
    box->header = header;
    box->seq = seq;
    if (const int rc = post_ring_step(g, header == nullptr); rc != MPI_SUCCESS) {
      // The first step's requests are not waited for: MPI reports the error
      // on a bad argument before anything moves.
      free_ring(g);
      delete box;
      return report(rc, "the ring all-reduce's MPI_Isend/MPI_Irecv", err, cap);
    }
    *req = box;
    return 0;
  }
  if (c->size > 1 && g_tag_ub >= kRingTagBase + int(kRingTags)) {  // (always, when header)
    auto* g = new (std::nothrow)
        Doubling{c,          c->comm,         static_cast<char*>(buf),
                 int(count), datatype(dtype), reduce_op(dtype, op),
                 c->rank,    c->size,         data_tag(seq, false, header != nullptr, count * esize)};
    auto* box = g ? new (std::nothrow) Req() : nullptr;
    if (g) g->tmp = static_cast<char*>(take_scratch(c, size_t(count) * size_t(esize)));
    if (!g || !box || !g->tmp) {
      if (g) free_doubling(g);
      delete box;
      return fail("out of memory for an all-reduce", err, cap);  // (a header in flight is kept)
    }
    g->esize = esize;
    box->header = header;
    box->seq = seq;
    while (g->pof2 * 2 <= g->size) g->pof2 *= 2;
    g->rem = g->size - g->pof2;
    box->doubling = g;
    if (const int rc = post_doubling(g); rc != MPI_SUCCESS) {
      free_doubling(g);  // as the ring: MPI refuses a bad argument before anything moves
      delete box;
      return report(rc, "the all-reduce's MPI_Isend/MPI_Irecv", err, cap);
    }
    *req = box;
    return 0;
  }
  MPI_Request r;
  const int rc =
      MPI_Iallreduce(MPI_IN_PLACE, buf, int(count), datatype(dtype), reduce_op(dtype, op), comm_of(comm), &r);
  return start(rc, r, "MPI_Iallreduce", req, err, cap);
}

int32_t idrain_allreduce(void* comm, const int64_t* peer_desc, void** req, char* err, int64_t cap) {
  auto* c = static_cast<Comm*>(comm);
  if (!fuses_check(c)) return fail("a drain is for groups of two", err, cap);
  auto* box = new (std::nothrow) Req();
  if (!box) return fail("out of memory for an MPI request", err, cap);
  // The tag the peer's all-reduce took: both ranks count their all-reduces.
  if (const int rc = post_drain(c, peer_desc, c->ring_seq++, &box->drain); rc != MPI_SUCCESS) {
    free_drain(box->drain);  // (a bad argument: MPI refuses it before anything moves)
    delete box;
    return report(rc, "the drain of the peer's all-reduce", err, cap);
  }
  *req = box;
  return 0;
}

int32_t ireduce_scatter(void* comm, const void* in, void* out, int64_t count, int32_t dtype, int32_t op,
                        void** req, char* err, int64_t cap) {
  if (!fits(count)) return fail("more than INT_MAX elements in one MPI call", err, cap);
  MPI_Request r;
  const int rc = MPI_Ireduce_scatter_block(in, out, int(count), datatype(dtype), reduce_op(dtype, op),
                                           comm_of(comm), &r);
  return start(rc, r, "MPI_Ireduce_scatter_block", req, err, cap);
}

int32_t iallgather(void* comm, const void* in, void* out, int64_t nbytes, void** req, char* err,
                   int64_t cap) {
  if (!fits(nbytes)) return fail("more than INT_MAX bytes in one MPI call", err, cap);
  MPI_Request r;
  const int rc = MPI_Iallgather(in, int(nbytes), MPI_BYTE, out, int(nbytes), MPI_BYTE, comm_of(comm), &r);
  return start(rc, r, "MPI_Iallgather", req, err, cap);
}

int32_t ibcast(void* comm, void* buf, int64_t nbytes, int32_t root, void** req, char* err, int64_t cap) {
  if (!fits(nbytes)) return fail("more than INT_MAX bytes in one MPI call", err, cap);
  MPI_Request r;
  const int rc = MPI_Ibcast(buf, int(nbytes), MPI_BYTE, root, comm_of(comm), &r);
  return start(rc, r, "MPI_Ibcast", req, err, cap);
}

int32_t ibarrier(void* comm, void** req, char* err, int64_t cap) {
  MPI_Request r;
  const int rc = MPI_Ibarrier(comm_of(comm), &r);
  return start(rc, r, "MPI_Ibarrier", req, err, cap);
}

int32_t isend(void* comm, const void* buf, int64_t nbytes, int32_t peer, int32_t tag, void** req, char* err,
              int64_t cap) {
  if (!fits(nbytes)) return fail("more than INT_MAX bytes in one MPI call", err, cap);
  MPI_Request r;
  const int rc = MPI_Isend(buf, int(nbytes), MPI_BYTE, peer, tag, comm_of(comm), &r);
  return start(rc, r, "MPI_Isend", req, err, cap);
}

int32_t irecv(void* comm, void* buf, int64_t nbytes, int32_t peer, int32_t tag, void** req, char* err,
              int64_t cap) {
  if (!fits(nbytes)) return fail("more than INT_MAX bytes in one MPI call", err, cap);
  MPI_Request r;
  const int rc = MPI_Irecv(buf, int(nbytes), MPI_BYTE, peer, tag, comm_of(comm), &r);
  return start(rc, r, "MPI_Irecv", req, err, cap);
}

int32_t test(void* req, int32_t* done, char* err, int64_t cap) {
  auto* box = static_cast<Req*>(req);
  int flag = 0;
  const int rc = progress(box, &flag);
  if (rc != MPI_SUCCESS) {
    // A failed ring's other requests may still be posted: they are left to
    // MPI (the buffers stay alive, libtc keeps the tensor of a failed work).
    *done = 1;
    const char* what = box->ring ? "the ring all-reduce" : box->doubling ? "the all-reduce" : "MPI_Test";
    if (box->ring) {
      box->ring->reqs[0] = box->ring->reqs[1] = MPI_REQUEST_NULL;
      box->ring->tmp = nullptr;  // may still be written: leaked on purpose
      free_ring(box->ring);
    }
    if (box->doubling) {
      box->doubling->tmp = nullptr;  // the same
      delete box->doubling;
    }
    // A header's and a drain's buffers may still be written too: leaked.
    delete box;
    return report(rc, what, err, cap);
  }
  *done = flag ? 1 : 0;
  if (flag) {
    if (box->header) std::copy(box->header->theirs.begin(), box->header->theirs.end(), box->header->out);
    if (box->ring) free_ring(box->ring);
    if (box->doubling) free_doubling(box->doubling);
    delete box->header;
    free_drain(box->drain);
    delete box;
  }
  return 0;
}

const tc_mpi_api kApi = {
    TC_MPI_API_VERSION, init,       comm_dup, comm_free, reduces, iallreduce, fused_check, idrain_allreduce,
    ireduce_scatter,    iallgather, ibcast,   ibarrier,  isend,   irecv,      test};

}  // namespace

extern "C" __attribute__((visibility("default"))) const tc_mpi_api* tc_mpi_module_api(int32_t version) {
  return version == TC_MPI_API_VERSION ? &kApi : nullptr;
}
