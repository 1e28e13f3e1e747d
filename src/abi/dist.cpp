// tc_* functions of tc.h's distributed section: process groups, collectives
// and works (the core is src/dist/process_group.h).
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "abi/api.h"
#include "dist/process_group.h"

using namespace tc;

namespace {

// One tc_process_group handle. Its death tells the group that no handle
// names it any more (works in flight then keep it alive for good).
struct GroupHandle {
  std::shared_ptr<dist::Group> group;
  ~GroupHandle() {
    if (group) group->release_handle();
  }
};

std::shared_ptr<dist::Group> get_group(tc_process_group h, const char* arg) {
  return std::static_pointer_cast<GroupHandle>(
             handle_get(reinterpret_cast<uint64_t>(h), HandleKind::process_group, arg))
      ->group;
}

std::shared_ptr<dist::Work> get_work(tc_work h, const char* arg) {
  return std::static_pointer_cast<dist::Work>(
      handle_get(reinterpret_cast<uint64_t>(h), HandleKind::work, arg));
}

std::string backend_arg(const char* backend) {
  in_ptr(backend, "backend");
  return backend;
}

dist::Options options_arg(const tc_process_group_options* o) {
  dist::Options opts;
  double timeout = 0;
  if (o) {
    TC_CHECK(o->size >= sizeof(tc_process_group_options) && o->size <= 4096, TC_ERR_INVALID_ARGUMENT,
             "options->size is ", o->size, " (set it to sizeof(tc_process_group_options))");
    TC_CHECK(o->skip_checks == 0 || o->skip_checks == 1, TC_ERR_INVALID_ARGUMENT, "options->skip_checks is ",
             o->skip_checks, " (0 or 1)");
    TC_CHECK(std::isfinite(o->timeout_seconds) && o->timeout_seconds >= 0, TC_ERR_INVALID_ARGUMENT,
             "options->timeout_seconds is ", o->timeout_seconds, " (> 0, or 0 for the default)");
    opts.checks = o->skip_checks == 0;
    timeout = o->timeout_seconds;
  }
  if (timeout == 0) {
    timeout = 300;
    if (const char* env = std::getenv("TC_DIST_TIMEOUT"); env && *env) {
      char* end = nullptr;
      const double v = std::strtod(env, &end);
      TC_CHECK(end && *end == '\0' && std::isfinite(v) && v > 0, TC_ERR_INVALID_ARGUMENT,
               "TC_DIST_TIMEOUT=\"", env, "\" is not a positive number of seconds");
      timeout = v;
    }
  }
  opts.timeout_seconds = timeout;
  return opts;
}

// A work: a handle when the caller asked for one, else waited for here.
void finish(std::shared_ptr<dist::Work> w, tc_work* work) {
  if (work) {
    *work = reinterpret_cast<tc_work>(handle_insert(HandleKind::work, std::move(w)));
  } else {
    w->wait(0);
  }
}

}  // namespace

TC_API int32_t tc_process_group_create(const char* backend, const tc_process_group_options* options,
                                       tc_process_group* out) {
  return api(__func__, [&] {
    const std::string b = backend_arg(backend);
    const dist::Options opts = options_arg(options);
    out_ptr(out, "out");
    auto h = std::make_shared<GroupHandle>();
    h->group = dist::Group::create(b, opts);
    *out = reinterpret_cast<tc_process_group>(handle_insert(HandleKind::process_group, std::move(h)));
  });
}

TC_API int32_t tc_process_group_free(tc_process_group pg) {
  return api(__func__,
             [&] { handle_remove(reinterpret_cast<uint64_t>(pg), HandleKind::process_group, "pg"); });
}

TC_API int32_t tc_process_group_rank(tc_process_group pg, int32_t* out) {
  return api(__func__, [&] {
    const auto g = get_group(pg, "pg");
    *out_ptr(out, "out") = g->rank();
  });
}

TC_API int32_t tc_process_group_size(tc_process_group pg, int32_t* out) {
  return api(__func__, [&] {
    const auto g = get_group(pg, "pg");
    *out_ptr(out, "out") = g->size();
  });
}

TC_API int32_t tc_process_group_backend(tc_process_group pg, char* buf, int64_t cap, int64_t* needed) {
  return api(__func__, [&] {
    const auto g = get_group(pg, "pg");
    copy_out(g->backend(), buf, cap, needed);
  });
}

TC_API int32_t tc_dist_backend_available(const char* backend, int32_t* out) {
  return api(__func__, [&] {
    const std::string b = backend_arg(backend);
    out_ptr(out, "out");
    int32_t code = TC_OK;
    std::string why;
    *out = dist::backend_available(b, &code, &why) ? 1 : 0;
  });
}

TC_API int32_t tc_all_reduce(tc_process_group pg, tc_tensor t, int32_t op, tc_work* work) {
  return api(__func__, [&] {
    const auto g = get_group(pg, "pg");
    const Tensor x = get_tensor(t, "t");
    finish(g->all_reduce(x, op), work);
  });
}

TC_API int32_t tc_broadcast(tc_process_group pg, tc_tensor t, int32_t root, tc_work* work) {
  return api(__func__, [&] {
    const auto g = get_group(pg, "pg");
    const Tensor x = get_tensor(t, "t");
    finish(g->broadcast(x, root), work);
  });
}

TC_API int32_t tc_all_gather(tc_process_group pg, tc_tensor out, tc_tensor t, tc_work* work) {
  return api(__func__, [&] {
    const auto g = get_group(pg, "pg");
    const Tensor o = get_tensor(out, "out");
    const Tensor x = get_tensor(t, "t");
    finish(g->all_gather(o, x), work);
  });
}

TC_API int32_t tc_reduce_scatter(tc_process_group pg, tc_tensor out, tc_tensor t, int32_t op, tc_work* work) {
  return api(__func__, [&] {
    const auto g = get_group(pg, "pg");
    const Tensor o = get_tensor(out, "out");
    const Tensor x = get_tensor(t, "t");
    finish(g->reduce_scatter(o, x, op), work);
  });
}

TC_API int32_t tc_barrier(tc_process_group pg, tc_work* work) {
  return api(__func__, [&] {
    const auto g = get_group(pg, "pg");
    finish(g->barrier(), work);
  });
}

TC_API int32_t tc_send(tc_process_group pg, tc_tensor t, int32_t peer, int32_t tag, tc_work* work) {
  return api(__func__, [&] {
    const auto g = get_group(pg, "pg");
    const Tensor x = get_tensor(t, "t");
    finish(g->send(x, peer, tag), work);
  });
}

TC_API int32_t tc_recv(tc_process_group pg, tc_tensor t, int32_t peer, int32_t tag, tc_work* work) {
  return api(__func__, [&] {
    const auto g = get_group(pg, "pg");
    const Tensor x = get_tensor(t, "t");
    finish(g->recv(x, peer, tag), work);
  });
}

TC_API int32_t tc_work_wait(tc_work work, double timeout_seconds) {
  return api(__func__, [&] {
    const auto w = get_work(work, "work");
    w->wait(timeout_seconds);
  });
}

TC_API int32_t tc_work_test(tc_work work, int32_t* out) {
  return api(__func__, [&] {
    const auto w = get_work(work, "work");
    out_ptr(out, "out");
    *out = w->test() ? 1 : 0;
  });
}

TC_API int32_t tc_work_free(tc_work work) {
  return api(__func__, [&] { handle_remove(reinterpret_cast<uint64_t>(work), HandleKind::work, "work"); });
}
