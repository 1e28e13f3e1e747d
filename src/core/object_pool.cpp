#include "core/object_pool.h"

#include <cstdint>

#include "core/per_thread.h"

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
  ~ThreadLists() {
    for (int c = 0; c < kClasses; ++c) {
      while (FreeBlock* b = head[c]) {
        head[c] = b->next;
        ::operator delete(b);
      }
    }
  }
};
// nullptr while the thread exits after its lists were given back (a tensor
// held by a thread_local may die then): such blocks go straight to operator
// delete.
ThreadLists* lists() noexcept { return PerThread<ThreadLists>::get(); }

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
