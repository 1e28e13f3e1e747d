// One T per thread, made on first use and destroyed when the thread exits,
// reachable through plain (trivially destructible) thread-locals: they stay
// readable while the thread's other thread-locals are destroyed, when
// tensors (and so blocks, caches, counters) may still die. After T is gone,
// get() returns nullptr for the rest of the thread's exit, so a caller falls
// back to the global path instead of touching a destroyed object. Used by
// the allocator's small-block cache (alloc.cpp), the object pool's free
// lists (object_pool.cpp) and the live-tensor counter (tensor.cpp).
#pragma once

namespace tc {

template <typename T>
class PerThread {
 public:
  // This thread's T (made now when create and not yet made), or nullptr
  // once it was destroyed at thread exit or when !create and none exists.
  // Making it may throw what T's constructor throws.
  static T* get(bool create = true) {
    if (t_obj || t_gone || !create) return t_obj;
    thread_local Owner owner;
    return t_obj;
  }

 private:
  struct Owner {
    T obj{};
    Owner() { t_obj = &obj; }
    // Runs before obj's destructor: from here on get() says "gone".
    ~Owner() {
      t_obj = nullptr;
      t_gone = true;
    }
    Owner(const Owner&) = delete;
    Owner& operator=(const Owner&) = delete;
  };
  static thread_local T* t_obj;
  static thread_local bool t_gone;
};

template <typename T>
thread_local T* PerThread<T>::t_obj = nullptr;
template <typename T>
thread_local bool PerThread<T>::t_gone = false;

}  // namespace tc
