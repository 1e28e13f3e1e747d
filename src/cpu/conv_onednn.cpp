#include "cpu/conv_onednn.h"

#include <omp.h>

#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/init.h"

namespace tc::cpu {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

// One engine for every cached primitive, made on first use and kept for the
// life of the process (deliberately never destroyed: cached primitives hold
// it, and a static's destructor would run after oneDNN's own teardown).
dnnl::engine& engine() {
  static auto* e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *e;
}

Tag plain_tag(int ndims) {
  switch (ndims) {
    case 1:
      return Tag::a;
    case 2:
      return Tag::ab;
    case 3:
      return Tag::abc;
    case 4:
      return Tag::abcd;
    case 5:
      return Tag::abcde;
    default:
      return Tag::abcdef;
  }
}

memory::desc plain(const memory::dims& d) { return memory::desc(d, Dt::f32, plain_tag(int(d.size()))); }
memory::desc any(const memory::dims& d) { return memory::desc(d, Dt::f32, Tag::any); }

struct Descs {
  memory::dims src, wei, dst, bias, stride, dil, pad_l, pad_r;
};

Descs descs_of(const ConvNd& g) {
  Descs d;
  d.src = {g.n, g.c};
  d.dst = {g.n, g.o};
  if (g.groups > 1)
    d.wei = {g.groups, g.o / g.groups, g.c / g.groups};
  else
    d.wei = {g.o, g.c};
  for (int i = 0; i < g.nd; ++i) {
    d.src.push_back(g.in[i]);
    d.dst.push_back(g.out[i]);
    d.wei.push_back(g.k[i]);
    d.stride.push_back(g.stride[i]);
    d.dil.push_back(g.dil[i] - 1);
    d.pad_l.push_back(g.pad_l[i]);
    d.pad_r.push_back(g.pad_r[i]);
  }
  d.bias = {g.o};
  return d;
}

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

// A plain <-> blocked conversion, present only when the layouts differ.
struct Reorder {
  bool needed = false;
  dnnl::reorder prim;
  memory::desc to;
  static Reorder make(const memory::desc& from, const memory::desc& to) {
    Reorder r;
    r.to = to;
    if (from != to) {
      r.needed = true;
      r.prim = dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from, engine(), to));
    }
    return r;
  }
};

// Per-call buffers come from libtc's allocator (its out-of-memory error and
// the allocation-failure injection of the tests apply), live until the call
// returns.
struct Buffers {
  std::vector<std::shared_ptr<Storage>> held;
  void* get(size_t bytes) {
    held.push_back(allocate_storage(int64_t(bytes > 0 ? bytes : 1), kCPU));
    return held.back()->data;
  }
  memory mem(const memory::desc& md) { return memory(md, engine(), get(md.get_size())); }
};

// `plain` converted to r's layout (itself when no conversion is needed).
memory to_layout(const Reorder& r, memory plain_mem, Buffers& bufs, dnnl::stream& s) {
  if (!r.needed) return plain_mem;
  memory m = bufs.mem(r.to);
  r.prim.execute(s, plain_mem, m);
  return m;
}

struct FwdEntry {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  memory::desc src_p, wei_p, dst_p, bias_p;
  Reorder src, wei, dst;
  // A blocked copy of the weights, kept across calls while the weights'
  // storage, offset and version stay the same (an in-place write, an
  // optimizer step, set_data each change one of them); only when wei.needed.
  std::mutex mu;
  std::weak_ptr<Storage> w_storage;
  int64_t w_offset = -1, w_version = -1;
  std::shared_ptr<memory> w_blocked;
};

struct BwdEntry {
  dnnl::convolution_backward_data::primitive_desc dpd;
  dnnl::convolution_backward_data dprim;
  dnnl::convolution_backward_weights::primitive_desc wpd;
  dnnl::convolution_backward_weights wprim;
  memory::desc src_p, wei_p, dst_p, bias_p;
  Reorder d_gy, d_wei, d_gx;  // backward data: gy, w in; gx out
  Reorder w_x, w_gy, w_gw;    // backward weights: x, gy in; gw out
};

std::vector<int64_t> key_of(int kind, const ConvNd& g, bool bias) {
  std::vector<int64_t> k = {kind, g.nd, g.n, g.c, g.o, g.groups, bias, omp_get_max_threads()};
  for (int i = 0; i < g.nd; ++i) {
    k.insert(k.end(), {g.in[i], g.k[i], g.stride[i], g.pad_l[i], g.pad_r[i], g.dil[i]});
  }
  return k;
}

// Thread-safe: lookups and inserts under one lock; entries are immutable
// once made (but for the forward weight copy, which has its own lock) and
// oneDNN primitives may run on several threads at once.
struct Cache {
  static constexpr size_t kMaxEntries = 256;
  std::mutex mu;
  std::map<std::vector<int64_t>, std::shared_ptr<FwdEntry>> fwd;
  std::map<std::vector<int64_t>, std::shared_ptr<BwdEntry>> bwd;
};

Cache& cache() {
  static auto* c = new Cache;  // never destroyed, like the engine its entries hold
  return *c;
}

template <typename Entry, typename Make>
std::shared_ptr<Entry> lookup(std::map<std::vector<int64_t>, std::shared_ptr<Entry>>& map,
                              const std::vector<int64_t>& key, Make make) {
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = map.find(key);
    if (it != map.end()) return it->second;
  }
  // Made outside the lock (a JIT compile); a racing thread's twin is dropped.
  std::shared_ptr<Entry> e = make();
  std::lock_guard<std::mutex> lock(c.mu);
  if (map.size() >= Cache::kMaxEntries) map.clear();
  return map.emplace(key, e).first->second;
}

std::shared_ptr<FwdEntry> make_fwd(const ConvNd& g, bool bias, bool training) {
  const Descs d = descs_of(g);
  auto e = std::make_shared<FwdEntry>();
  e->src_p = plain(d.src), e->wei_p = plain(d.wei), e->dst_p = plain(d.dst), e->bias_p = plain(d.bias);
  const auto prop = training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  auto desc =
      bias
          ? dnnl::convolution_forward::desc(prop, dnnl::algorithm::convolution_direct, any(d.src), any(d.wei),
                                            e->bias_p, any(d.dst), d.stride, d.dil, d.pad_l, d.pad_r)
          : dnnl::convolution_forward::desc(prop, dnnl::algorithm::convolution_direct, any(d.src), any(d.wei),
                                            any(d.dst), d.stride, d.dil, d.pad_l, d.pad_r);
  e->pd = dnnl::convolution_forward::primitive_desc(desc, user_scratchpad(), engine());
  e->prim = dnnl::convolution_forward(e->pd);
  e->src = Reorder::make(e->src_p, e->pd.src_desc());
  e->wei = Reorder::make(e->wei_p, e->pd.weights_desc());
  e->dst = Reorder::make(e->pd.dst_desc(), e->dst_p);
  return e;
}

std::shared_ptr<BwdEntry> make_bwd(const ConvNd& g, bool bias) {
  const Descs d = descs_of(g);
  auto e = std::make_shared<BwdEntry>();
  e->src_p = plain(d.src), e->wei_p = plain(d.wei), e->dst_p = plain(d.dst), e->bias_p = plain(d.bias);
  const auto alg = dnnl::algorithm::convolution_direct;
  auto fdesc = dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, alg, any(d.src), any(d.wei),
                                               e->bias_p, any(d.dst), d.stride, d.dil, d.pad_l, d.pad_r);
  auto hint = dnnl::convolution_forward::primitive_desc(fdesc, engine());
  auto ddesc = dnnl::convolution_backward_data::desc(alg, any(d.src), any(d.wei), any(d.dst), d.stride, d.dil,
                                                     d.pad_l, d.pad_r);
  e->dpd = dnnl::convolution_backward_data::primitive_desc(ddesc, user_scratchpad(), engine(), hint);
  e->dprim = dnnl::convolution_backward_data(e->dpd);
  auto wdesc = bias ? dnnl::convolution_backward_weights::desc(alg, any(d.src), any(d.wei), e->bias_p,
                                                               any(d.dst), d.stride, d.dil, d.pad_l, d.pad_r)
                    : dnnl::convolution_backward_weights::desc(alg, any(d.src), any(d.wei), any(d.dst),
                                                               d.stride, d.dil, d.pad_l, d.pad_r);
  e->wpd = dnnl::convolution_backward_weights::primitive_desc(wdesc, user_scratchpad(), engine(), hint);
  e->wprim = dnnl::convolution_backward_weights(e->wpd);
  e->d_gy = Reorder::make(e->dst_p, e->dpd.diff_dst_desc());
  e->d_wei = Reorder::make(e->wei_p, e->dpd.weights_desc());
  e->d_gx = Reorder::make(e->dpd.diff_src_desc(), e->src_p);
  e->w_x = Reorder::make(e->src_p, e->wpd.src_desc());
  e->w_gy = Reorder::make(e->dst_p, e->wpd.diff_dst_desc());
  e->w_gw = Reorder::make(e->wpd.diff_weights_desc(), e->wei_p);
  return e;
}

// An entry, or null when oneDNN has no primitive for the geometry (the caller
// then runs the reference path; the null is cached too, so it is asked once).
template <typename Make>
auto or_null(Make make) -> decltype(make()) {
  try {
    return make();
  } catch (const dnnl::error& err) {
    if (err.status == dnnl_unimplemented) return nullptr;
    throw;
  }
}

// The forward entry's blocked weights for w, reordered anew when w changed.
std::shared_ptr<memory> blocked_weights(FwdEntry& e, const Tensor& w, dnnl::stream& s) {
  {
    std::lock_guard<std::mutex> lock(e.mu);
    if (e.w_blocked && !e.w_storage.expired() && !e.w_storage.owner_before(w->storage) &&
        !w->storage.owner_before(e.w_storage) && e.w_offset == w->offset && e.w_version == w->version())
      return e.w_blocked;
  }
  const int64_t version = w->version();  // read before the copy: a racing write invalidates it
  auto m = std::make_shared<memory>(e.wei.to, engine());
  memory src(e.wei_p, engine(), w->data());
  e.wei.prim.execute(s, src, *m);
  s.wait();
  std::lock_guard<std::mutex> lock(e.mu);
  e.w_storage = w->storage, e.w_offset = w->offset, e.w_version = version, e.w_blocked = m;
  return m;
}

void scratchpad(std::unordered_map<int, memory>& args, const memory::desc& md, Buffers& bufs) {
  if (md.get_size() > 0) args.insert({DNNL_ARG_SCRATCHPAD, bufs.mem(md)});
}

// oneDNN's C++ API throws dnnl::error; libtc reports TC errors.
template <typename F>
void guarded(const char* what, F&& f) {
  try {
    f();
  } catch (const dnnl::error& err) {
    TC_CHECK(false, err.status == dnnl_out_of_memory ? TC_ERR_OUT_OF_MEMORY : TC_ERR_INTERNAL, "oneDNN ",
             what, ": ", err.what());
  }
}

}  // namespace

ConvNd conv_nd_of(const ConvGeom& g) {
  ConvNd c;
  c.n = g.n, c.c = g.c, c.o = g.o, c.groups = g.groups;
  const bool d3 = g.is_3d();
  c.nd = d3 ? 3 : 2;
  const int64_t in[3] = {g.id, g.h, g.w}, k[3] = {g.kd, g.kh, g.kw}, out[3] = {g.od, g.ho, g.wo},
                s[3] = {g.sd, g.sh, g.sw}, p[3] = {g.pd, g.ph, g.pw}, d[3] = {g.dd, g.dh, g.dw};
  for (int i = 0; i < c.nd; ++i) {
    const int j = d3 ? i : i + 1;
    c.in[i] = in[j], c.k[i] = k[j], c.out[i] = out[j], c.stride[i] = s[j], c.dil[i] = d[j];
    // Symmetric: oneDNN's output size is then PyTorch's floor formula.
    c.pad_l[i] = c.pad_r[i] = p[j];
  }
  return c;
}

bool onednn_conv_wanted(const ConvNd& g, DType dtype, bool backward) {
  if (dtype != DType::f32 || deterministic()) return false;
  // Empty sizes stay on the reference path (oneDNN refuses zero dims).
  if (g.n < 1 || g.c < 1 || g.o < 1) return false;
  double macs = double(g.n) * double(g.o) * double(g.c / g.groups);
  double out_vol = 1;
  bool pointwise = true;
  for (int i = 0; i < g.nd; ++i) {
    if (g.in[i] < 1 || g.out[i] < 1) return false;
    macs *= double(g.k[i]) * double(g.out[i]);
    out_vol *= double(g.out[i]);
    pointwise = pointwise && g.k[i] == 1;
  }
  // Measured (one thread, AVX2, against im2col + GEMM): below about a million
  // multiply-adds the primitive's fixed costs (reorders, a parallel region
  // even for tiny work) outweigh its kernel; in the backward pass a 1x1
  // kernel is one plain GEMM per sample, and few output pixels in all
  // (batch 1 at 7x7) leave oneDNN's weight gradient slower than one GEMM.
  if (macs < double(1 << 20)) return false;
  if (backward && (pointwise || double(g.n) * out_vol <= 256)) return false;
  return true;
}

bool onednn_conv_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias,
                         const ConvNd& g) {
  sync_omp_threads();
  const bool training = grad_enabled();
  bool ran = false;
  guarded("convolution forward", [&] {
    std::shared_ptr<FwdEntry> e = lookup(cache().fwd, key_of(training ? 0 : 1, g, bool(bias)), [&] {
      return or_null([&] { return make_fwd(g, bool(bias), training); });
    });
    if (!e) return;
    ran = true;
    dnnl::stream s(engine());
    Buffers bufs;
    memory xm(e->src_p, engine(), x->data()), ym(e->dst_p, engine(), y->data());
    std::unordered_map<int, memory> args;
    args.insert({DNNL_ARG_SRC, to_layout(e->src, xm, bufs, s)});
    std::shared_ptr<memory> wb;
    if (e->wei.needed) {
      wb = blocked_weights(*e, w, s);
      args.insert({DNNL_ARG_WEIGHTS, *wb});
    } else {
      args.insert({DNNL_ARG_WEIGHTS, memory(e->wei_p, engine(), w->data())});
    }
    if (bias) args.insert({DNNL_ARG_BIAS, memory(e->bias_p, engine(), bias->data())});
    memory out = e->dst.needed ? bufs.mem(e->pd.dst_desc()) : ym;
    args.insert({DNNL_ARG_DST, out});
    scratchpad(args, e->pd.scratchpad_desc(), bufs);
    e->prim.execute(s, args);
    if (e->dst.needed) e->dst.prim.execute(s, out, ym);
    s.wait();
  });
  return ran;
}

bool onednn_conv_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& x,
                          const Tensor& w, const Tensor& gy, const ConvNd& g) {
  sync_omp_threads();
  const bool bias = bool(gb);
  bool ran = false;
  guarded("convolution backward", [&] {
    std::shared_ptr<BwdEntry> e =
        lookup(cache().bwd, key_of(2, g, bias), [&] { return or_null([&] { return make_bwd(g, bias); }); });
    if (!e) return;
    ran = true;
    dnnl::stream s(engine());
    Buffers bufs;
    memory gym(e->dst_p, engine(), gy->data());
    memory gy_blocked;  // gy in backward data's layout, when it was made
    if (gx) {
      memory gxm(e->src_p, engine(), gx->data()), wm(e->wei_p, engine(), w->data());
      std::unordered_map<int, memory> args;
      gy_blocked = to_layout(e->d_gy, gym, bufs, s);
      args.insert({DNNL_ARG_DIFF_DST, gy_blocked});
      args.insert({DNNL_ARG_WEIGHTS, to_layout(e->d_wei, wm, bufs, s)});
      memory out = e->d_gx.needed ? bufs.mem(e->dpd.diff_src_desc()) : gxm;
      args.insert({DNNL_ARG_DIFF_SRC, out});
      scratchpad(args, e->dpd.scratchpad_desc(), bufs);
      e->dprim.execute(s, args);
      if (e->d_gx.needed) e->d_gx.prim.execute(s, out, gxm);
    }
    if (gw || gb) {
      memory xm(e->src_p, engine(), x->data());
      memory gwm = gw ? memory(e->wei_p, engine(), gw->data()) : bufs.mem(e->wei_p);
      std::unordered_map<int, memory> args;
      args.insert({DNNL_ARG_SRC, to_layout(e->w_x, xm, bufs, s)});
      // Backward data may have put gy in this same layout already; a second
      // reorder costs as much again, so reuse it.
      const bool reuse = gx && e->d_gy.needed && e->d_gy.to == e->w_gy.to;
      args.insert({DNNL_ARG_DIFF_DST, reuse ? gy_blocked : to_layout(e->w_gy, gym, bufs, s)});
      memory out = e->w_gw.needed ? bufs.mem(e->wpd.diff_weights_desc()) : gwm;
      args.insert({DNNL_ARG_DIFF_WEIGHTS, out});
      if (bias) args.insert({DNNL_ARG_DIFF_BIAS, memory(e->bias_p, engine(), gb->data())});
      scratchpad(args, e->wpd.scratchpad_desc(), bufs);
      e->wprim.execute(s, args);
      if (e->w_gw.needed) e->w_gw.prim.execute(s, out, gwm);
    }
    s.wait();
  });
  return ran;
}

void onednn_conv_cache_clear() noexcept {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  c.fwd.clear();
  c.bwd.clear();
}

}  // namespace tc::cpu
