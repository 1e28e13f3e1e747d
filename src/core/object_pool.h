// Per-thread free lists for the blocks every op allocates and frees: the
// std::make_shared blocks of TensorImpl, Storage and graph nodes (through
// PoolAllocator and std::allocate_shared), and a node's edge and saved-tensor
// vectors. A 1-element op makes and frees two of them, and
// glibc's malloc + free of such a block took ~125 instructions (its tcache
// holds only 7 blocks per size, and a graph's teardown frees more at once);
// a free-list hit is a few. A block freed on another thread joins that
// thread's list (no lock: each list is its thread's). Each list is capped
// (kPoolPerClass blocks) and given back when its thread exits.
//
// Under AddressSanitizer the pool is off (every block goes to operator new /
// delete), so that the tests still catch a use after free.
#pragma once
#include <cstddef>
#include <new>

namespace tc {

// Blocks up to kPoolMaxBytes, in kPoolStep-byte size classes.
constexpr size_t kPoolStep = 64;
constexpr size_t kPoolMaxBytes = 1024;
constexpr int kPoolPerClass = 64;

// A block of at least n bytes (n <= kPoolMaxBytes), aligned like operator
// new's; throws std::bad_alloc like it.
void* pool_alloc(size_t n);
// Gives back a block pool_alloc(n) returned, with the same n.
void pool_free(void* p, size_t n) noexcept;

template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                "pooled blocks are aligned like operator new's");

  // n objects: from the pool when they fit a block (a make_shared block, a
  // node's few edges), else from operator new.
  T* allocate(size_t n) {
    if (n <= kPoolMaxBytes / sizeof(T)) return static_cast<T*>(pool_alloc(n * sizeof(T)));
    if (n > size_t(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n <= kPoolMaxBytes / sizeof(T)) return pool_free(p, n * sizeof(T));
    ::operator delete(p);
  }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const PoolAllocator<U>&) const noexcept {
    return false;
  }
};

}  // namespace tc
