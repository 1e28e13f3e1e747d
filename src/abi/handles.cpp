#include "abi/handles.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include "abi/status.h"

namespace tc {

namespace {

constexpr uint32_t kChunkBits = 14;
constexpr uint32_t kChunkSize = 1u << kChunkBits;
constexpr uint32_t kMaxChunks = 1u << (24 - kChunkBits);  // 24-bit slot numbers

struct Slot {
  std::atomic<uint8_t> lock{0};
  uint8_t kind = 0;
  uint32_t generation = 1;
  std::shared_ptr<void> obj;

  void acquire() {
    while (lock.exchange(1, std::memory_order_acquire)) {
      while (lock.load(std::memory_order_relaxed)) {
      }
    }
  }
  void release() { lock.store(0, std::memory_order_release); }
};

// A test-and-test-and-set lock: the free list's critical sections are a few
// instructions, and an uncontended std::mutex costs more than they do.
class SpinLock {
 public:
  void lock() {
    while (flag_.exchange(true, std::memory_order_acquire)) {
      while (flag_.load(std::memory_order_relaxed)) {
      }
    }
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

struct Table {
  std::atomic<Slot*> chunks[kMaxChunks] = {};
  SpinLock mu;  // guards free_slots, used, chunk creation
  std::vector<uint32_t> free_slots;
  uint32_t used = 0;  // slots ever handed out
  // Live handles, counted under mu (which insert and remove take anyway),
  // not with an atomic of its own: two lock-prefixed instructions fewer per
  // handle made and freed.
  int64_t live = 0;

  Slot* slot(uint32_t index) {
    Slot* chunk = chunks[index >> kChunkBits].load(std::memory_order_acquire);
    return chunk ? &chunk[index & (kChunkSize - 1)] : nullptr;
  }
};

Table& table() {
  static Table* t = new Table();  // never destroyed: handles may outlive statics
  return *t;
}

uint64_t encode(uint32_t generation, HandleKind kind, uint32_t index) {
  return (uint64_t(generation) << 32) | (uint64_t(kind) << 24) | uint64_t(index + 1);
}

struct Decoded {
  uint32_t generation;
  uint8_t kind;
  uint32_t index;
};
Decoded decode(uint64_t h) {
  return {uint32_t(h >> 32), uint8_t((h >> 24) & 0xff), uint32_t(h & 0xffffff) - 1};
}

[[noreturn]] void bad_handle(const char* arg, HandleKind kind, const char* why) {
  fail(TC_ERR_INVALID_HANDLE, str(arg, " is not a valid ", handle_kind_name(kind), " handle (", why, ")"));
}

// The checks of locked_slot without the message: the slot, locked, or null.
Slot* try_locked_slot(uint64_t h, HandleKind kind) noexcept {
  if (h == 0 || (h & 0xffffff) == 0) return nullptr;
  const Decoded d = decode(h);
  if (d.kind != uint8_t(kind)) return nullptr;
  Slot* s = table().slot(d.index);
  if (!s) return nullptr;
  s->acquire();
  if (s->generation != d.generation || !s->obj || s->kind != uint8_t(kind)) {
    s->release();
    return nullptr;
  }
  return s;
}

// Why h is not a valid handle of kind (try_locked_slot refused it): the
// error naming arg. Cold: a refused handle never becomes valid (generations
// only grow), so looking again gives the reason try_locked_slot had.
[[noreturn]] void explain_bad_handle(uint64_t h, HandleKind kind, const char* arg) {
  if (h == 0) bad_handle(arg, kind, "it is NULL");
  const Decoded d = decode(h);
  if (d.kind != uint8_t(kind) && d.kind >= 1 && d.kind <= kHandleKindMax)
    bad_handle(arg, kind, str("it is a ", handle_kind_name(HandleKind(d.kind)), " handle").c_str());
  Slot* s = d.kind != uint8_t(kind) || (h & 0xffffff) == 0 ? nullptr : table().slot(d.index);
  if (!s) bad_handle(arg, kind, "not a handle libtc made");
  s->acquire();
  const bool newer = s->generation > d.generation;
  s->release();
  bad_handle(arg, kind,
             newer ? "it was freed, or is stale from before tc_shutdown" : "not a handle libtc made");
}

// Looks the slot up and checks it; on success the slot is locked.
Slot* locked_slot(uint64_t h, HandleKind kind, const char* arg) {
  if (Slot* s = try_locked_slot(h, kind)) return s;
  explain_bad_handle(h, kind, arg);
}

}  // namespace

const char* handle_kind_name(HandleKind kind) noexcept {
  switch (kind) {
    case HandleKind::tensor:
      return "tensor";
    case HandleKind::optimizer:
      return "optimizer";
    case HandleKind::tensor_dict:
      return "tensor dict";
    case HandleKind::hook:
      return "hook";
    case HandleKind::node:
      return "node";
    case HandleKind::op:
      return "op";
    case HandleKind::library:
      return "op library";
    case HandleKind::process_group:
      return "process group";
    case HandleKind::work:
      return "work";
  }
  return "unknown";
}

uint64_t handle_insert(HandleKind kind, std::shared_ptr<void> obj) {
  Table& t = table();
  uint32_t index;
  {
    std::lock_guard<SpinLock> g(t.mu);
    if (!t.free_slots.empty()) {
      index = t.free_slots.back();
      t.free_slots.pop_back();
    } else {
      TC_CHECK(t.used < kMaxChunks * kChunkSize, TC_ERR_OUT_OF_MEMORY, "the handle table is full (",
               kMaxChunks * kChunkSize, " live handles)");
      index = t.used;
      const uint32_t c = index >> kChunkBits;
      if (!t.chunks[c].load(std::memory_order_relaxed)) {
        t.chunks[c].store(new Slot[kChunkSize], std::memory_order_release);
      }
      ++t.used;
      // Keep room for every slot on the free list, so that freeing a handle
      // (release_slot) never allocates and so never fails.
      if (t.free_slots.capacity() < t.used) {
        t.free_slots.reserve(std::max<size_t>(t.used, 2 * t.free_slots.capacity()));
      }
    }
    ++t.live;  // the slot is ours: nothing below throws
  }
  Slot* s = t.slot(index);
  s->acquire();
  s->kind = uint8_t(kind);
  s->obj = std::move(obj);
  const uint32_t generation = s->generation;
  s->release();
  return encode(generation, kind, index);
}

std::shared_ptr<void> handle_get(uint64_t h, HandleKind kind, const char* arg) {
  Slot* s = locked_slot(h, kind, arg);
  std::shared_ptr<void> obj = s->obj;
  s->release();
  return obj;
}

std::shared_ptr<TensorImpl> handle_get_tensor(uint64_t h, const char* arg) {
  Slot* s = locked_slot(h, HandleKind::tensor, arg);
  // The aliasing constructor: shares the slot's ownership, points at the
  // TensorImpl the slot holds (a tensor slot only ever holds one).
  std::shared_ptr<TensorImpl> t(s->obj, static_cast<TensorImpl*>(s->obj.get()));
  s->release();
  return t;
}

static void release_slot(Table& t, Slot* s, uint32_t index, std::shared_ptr<void>& keep) {
  keep = std::move(s->obj);
  s->obj.reset();
  s->kind = 0;
  if (++s->generation == 0) s->generation = 1;
  s->release();
  std::lock_guard<SpinLock> g(t.mu);
  --t.live;
  t.free_slots.push_back(index);  // never reallocates: see handle_insert
}

void handle_remove(uint64_t h, HandleKind kind, const char* arg) {
  Table& t = table();
  Slot* s = locked_slot(h, kind, arg);
  std::shared_ptr<void> dying;
  release_slot(t, s, decode(h).index, dying);
  // `dying` is destroyed here, outside every lock: destructors may free
  // other handles' objects (a graph of tensors) without deadlock.
}

int64_t handle_remove_many(const uint64_t* hs, int64_t n, HandleKind kind, int64_t* first_bad) noexcept {
  Table& t = table();
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    // A repeat of an entry freed earlier in this loop finds its slot's
    // generation bumped: it is skipped like any freed handle.
    Slot* s = try_locked_slot(hs[i], kind);
    if (!s) {
      if (bad++ == 0) *first_bad = i;
      continue;
    }
    std::shared_ptr<void> dying;
    release_slot(t, s, decode(hs[i]).index, dying);
    // `dying` dies here, outside every lock (see handle_remove).
  }
  return bad;
}

void handle_clear_all() {
  Table& t = table();
  uint32_t used;
  {
    std::lock_guard<SpinLock> g(t.mu);
    used = t.used;
  }
  for (uint32_t i = 0; i < used; ++i) {
    Slot* s = t.slot(i);
    std::shared_ptr<void> dying;
    s->acquire();
    if (s->obj) {
      release_slot(t, s, i, dying);
    } else {
      s->release();
    }
  }
}

int64_t live_handle_count() noexcept {
  Table& t = table();
  std::lock_guard<SpinLock> g(t.mu);
  return t.live;
}

}  // namespace tc
