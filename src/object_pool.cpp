#include "object_pool.h"

#include <cstdint>

namespace tc {

#if defined(__SANITIZE_ADDRESS__)
#define TC_POOL_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TC_POOL_OFF 1
#endif
#endif

#ifdef TC_POOL_OFF

void* pool_alloc(size_t n) { return ::operator new(n); }
void pool_free(void* p, size_t) noexcept { ::operator delete(p); }

#else

namespace {

constexpr int kClasses = int(kPoolMaxBytes / kPoolStep);
int class_of(size_t n) { return n == 0 ? 0 : int((n - 1) / kPoolStep); }  // 1..64 bytes: class 0

struct FreeBlock {
  FreeBlock* next;
};
struct ThreadLists {
  FreeBlock* head[kClasses];
  int32_t count[kClasses];
  void release() noexcept {
    for (int c = 0; c < kClasses; ++c) {
      while (FreeBlock* b = head[c]) {
        head[c] = b->next;
        ::operator delete(b);
      }
      count[c] = 0;
    }
  }
};
// Plain (trivially destructible) thread-locals, as in alloc.cpp: blocks may
// still be freed while the thread's other thread-locals are destroyed (a
// tensor held by a thread_local dies then); after the lists are gone they go
// straight to operator delete.
thread_local ThreadLists* t_lists = nullptr;
thread_local bool t_lists_gone = false;
struct ListsOwner {
  ThreadLists lists{};
  ListsOwner() { t_lists = &lists; }
  ~ListsOwner() {
    t_lists = nullptr;
    t_lists_gone = true;
    lists.release();
  }
  ListsOwner(const ListsOwner&) = delete;
  ListsOwner& operator=(const ListsOwner&) = delete;
};
ThreadLists* lists() noexcept {
  if (t_lists || t_lists_gone) return t_lists;
  thread_local ListsOwner owner;
  return t_lists;
}

}  // namespace

// Every block of a class has the class's full size, so a block may serve any
// request of its class whichever size freed it.
void* pool_alloc(size_t n) {
  const int c = class_of(n);
  if (ThreadLists* l = lists()) {
    if (FreeBlock* b = l->head[c]) {
      l->head[c] = b->next;
      --l->count[c];
      return b;
    }
  }
  return ::operator new(size_t(c + 1) * kPoolStep);
}

void pool_free(void* p, size_t n) noexcept {
  const int c = class_of(n);
  ThreadLists* l = lists();
  if (!l || l->count[c] >= kPoolPerClass) {
    ::operator delete(p);
    return;
  }
  FreeBlock* b = static_cast<FreeBlock*>(p);
  b->next = l->head[c];
  l->head[c] = b;
  ++l->count[c];
}

#endif

}  // namespace tc
