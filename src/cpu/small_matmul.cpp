#include "cpu/small_matmul.h"

#include <oneapi/dnnl/dnnl.h>

#include <cstring>

namespace tc::cpu {

namespace {

// One primitive per operand layout, kept by the thread that made it (no
// lock; a oneDNN primitive and its memory objects then serve one thread at a
// time). Its own engine and stream: libtc's shared engine is remade by
// tc_shutdown/tc_init, which must not leave these dangling.
struct Entry {
  int64_t key[8] = {};
  dnnl_primitive_t prim = nullptr;  // null: oneDNN refused the layout; sgemm it is
  dnnl_memory_t a = nullptr, b = nullptr, c = nullptr;
  uint64_t last_use = 0;
  bool used = false;
};

struct Cache {
  static constexpr int kEntries = 8;
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  bool broken = false;  // no engine or stream: always sgemm
  Entry entries[kEntries];
  uint64_t clock = 0;
  // Layouts seen but not yet cached, with how often: a primitive is made (a
  // JIT compile, far dearer than one small sgemm) only for a layout that
  // repeats, so a stream of ever-new shapes stays on sgemm.
  static constexpr int kSeen = 16, kRepeats = 4;
  struct Seen {
    int64_t key[8] = {};
    int count = 0;
  } seen[kSeen];
  int seen_next = 0;
  bool repeated(const int64_t (&key)[8]) {
    for (Seen& s : seen) {
      if (s.count > 0 && std::memcmp(s.key, key, sizeof key) == 0) return ++s.count >= kRepeats;
    }
    Seen& s = seen[seen_next];
    seen_next = (seen_next + 1) % kSeen;
    std::memcpy(s.key, key, sizeof key);
    s.count = 1;
    return false;
  }
  Entry* find(const int64_t (&key)[8]) {
    for (Entry& e : entries) {
      if (e.used && std::memcmp(e.key, key, sizeof key) == 0) {
        e.last_use = ++clock;
        return &e;
      }
    }
    return nullptr;
  }

  Cache() {
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success)
      broken = true;
  }
  ~Cache() {
    for (Entry& e : entries) clear(e);
    if (stream) dnnl_stream_destroy(stream);
    if (engine) dnnl_engine_destroy(engine);
  }
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  static void destroy_objects(Entry& e) {
    if (e.a) dnnl_memory_destroy(e.a);
    if (e.b) dnnl_memory_destroy(e.b);
    if (e.c) dnnl_memory_destroy(e.c);
    if (e.prim) dnnl_primitive_destroy(e.prim);
    e.a = e.b = e.c = nullptr;
    e.prim = nullptr;
  }
  static void clear(Entry& e) {
    destroy_objects(e);
    e = Entry();
  }

  // Makes the primitive for a key find() did not have, in the least recently
  // used entry.
  Entry& add(const int64_t (&key)[8], bool ta, bool tb) {
    Entry* victim = &entries[0];
    for (Entry& e : entries)
      if (!e.used || (victim->used && e.last_use < victim->last_use)) victim = &e;
    clear(*victim);
    Entry& e = *victim;
    std::memcpy(e.key, key, sizeof key);
    e.used = true;
    e.last_use = ++clock;
    make(e, ta, tb);
    return e;
  }
  void make(Entry& e, bool ta, bool tb) {
    const int64_t m = e.key[2], n = e.key[3], k = e.key[4], lda = e.key[5], ldb = e.key[6], ldc = e.key[7];
    dnnl_dims_t da = {m, k}, db = {k, n}, dc = {m, n};
    dnnl_dims_t sa = {ta ? 1 : lda, ta ? lda : 1}, sb = {tb ? 1 : ldb, tb ? ldb : 1}, sc = {ldc, 1};
    dnnl_memory_desc_t ma, mb, mc;
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd = nullptr;
    bool ok = dnnl_memory_desc_init_by_strides(&ma, 2, da, dnnl_f32, sa) == dnnl_success &&
              dnnl_memory_desc_init_by_strides(&mb, 2, db, dnnl_f32, sb) == dnnl_success &&
              dnnl_memory_desc_init_by_strides(&mc, 2, dc, dnnl_f32, sc) == dnnl_success &&
              dnnl_matmul_desc_init(&md, &ma, &mb, nullptr, &mc) == dnnl_success &&
              dnnl_primitive_desc_create(&pd, &md, nullptr, engine, nullptr) == dnnl_success;
    if (ok) {
      // Only oneDNN's brgemm kernels beat sgemm here; a reference or gemm-based
      // implementation would not.
      const char* impl = nullptr;
      ok = dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl &&
           std::strncmp(impl, "brg", 3) == 0;
      // The primitive needs no scratchpad from us when oneDNN keeps it (the
      // default library-managed scratchpad).
      ok = ok && dnnl_primitive_create(&e.prim, pd) == dnnl_success;
      ok = ok && dnnl_memory_create(&e.a, &ma, engine, DNNL_MEMORY_NONE) == dnnl_success &&
           dnnl_memory_create(&e.b, &mb, engine, DNNL_MEMORY_NONE) == dnnl_success &&
           dnnl_memory_create(&e.c, &mc, engine, DNNL_MEMORY_NONE) == dnnl_success;
    }
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (!ok) destroy_objects(e);  // remembered as refused: prim null, the key kept (sgemm it is)
  }
};

}  // namespace

bool small_matmul_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                      int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  thread_local Cache cache;
  if (cache.broken) return false;
  const int64_t key[8] = {trans_a, trans_b, m, n, k, lda, ldb, ldc};
  Entry* found = cache.find(key);
  if (!found && !cache.repeated(key)) return false;
  Entry& e = found ? *found : cache.add(key, trans_a, trans_b);
  if (!e.prim) return false;
  if (dnnl_memory_set_data_handle(e.a, const_cast<float*>(a)) != dnnl_success ||
      dnnl_memory_set_data_handle(e.b, const_cast<float*>(b)) != dnnl_success ||
      dnnl_memory_set_data_handle(e.c, c) != dnnl_success)
    return false;
  const dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, e.a}, {DNNL_ARG_WEIGHTS, e.b}, {DNNL_ARG_DST, e.c}};
  return dnnl_primitive_execute(e.prim, cache.stream, 3, args) == dnnl_success;
}

}  // namespace tc::cpu
