// The oneDNN CPU engine, made once by the cpu init stage and shared by every
// primitive (conv, pooling, matmul) until tc_shutdown.
#include <oneapi/dnnl/dnnl.h>

#include "core/init.h"
#include "cpu/conv_onednn.h"

namespace tc {

namespace {
dnnl_engine_t g_engine = nullptr;
}

void onednn_init() {
  if (g_engine) return;
  const dnnl_status_t st = dnnl_engine_create(&g_engine, dnnl_cpu, 0);
  TC_CHECK(st == dnnl_success, TC_ERR_INTERNAL, "oneDNN: dnnl_engine_create failed with status ", int(st));
}

void onednn_shutdown() {
  cpu::onednn_conv_cache_clear();
  if (g_engine) dnnl_engine_destroy(g_engine);
  g_engine = nullptr;
}

void* onednn_engine() { return g_engine; }

}  // namespace tc
