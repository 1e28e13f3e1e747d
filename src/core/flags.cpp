#include "core/flags.h"

#include <dlfcn.h>

#include <cstring>
#include <sstream>

#include "backend/cuda_loader.h"
#include "backend/cuda_probe.h"
#include "core/alloc.h"
#include "core/init.h"
#include "core/tensor.h"

namespace tc {

namespace {

// The kernel sets compiled in (CMakeLists.txt: TC_NATIVE, src/cpu/kernels.h).
constexpr const char* kKernelSets =
#if defined(TC_CPU_NATIVE)
    "built for this machine: -march=native";
#elif defined(TC_CPU_MULTI_ISA)
    "built: avx512, avx2, baseline x86-64";
#else
    "built: baseline only";
#endif

// TC_HAVE_LAPACK: set by CMakeLists.txt on this file when LAPACKE was found.
constexpr bool kHasLapack =
#ifdef TC_HAVE_LAPACK
    true;
#else
    false;
#endif

// Which LAPACK libtc runs on, asked at run time of the library the loader
// mapped (Debian switches liblapack.so.3 between vendors with
// update-alternatives): OpenBLAS answers openblas_get_config; anything else
// is reported as the reference LAPACK's soname.
std::string lapack_vendor() {
  if (!kHasLapack) return "no";
  for (const char* lib : {"libopenblas.so.0", "liblapack.so.3"}) {
    void* h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    auto config = reinterpret_cast<const char* (*)()>(dlsym(h, "openblas_get_config"));
    std::string name = config ? std::string("OpenBLAS (") + config() + ")" : std::string();
    dlclose(h);
    if (!name.empty()) return "yes, LAPACKE on " + name;
  }
  return "yes, LAPACKE on liblapack.so.3 (not OpenBLAS)";
}

constexpr bool kHasCuda =
#ifdef TC_HAVE_CUDA
    true;
#else
    false;
#endif

// The probe (driver, GPUs) and the module (present, its stage not failed).
bool cuda_usable() { return cuda_probe().available && cuda_module_unusable_reason().empty(); }

struct Flag {
  const char* name;
  int64_t (*get)();
  void (*set)(int64_t);  // nullptr: read-only
  const char* help;
};

void set_bool(const char* name, int64_t v) {
  TC_CHECK(v == 0 || v == 1, TC_ERR_INVALID_ARGUMENT, "flag ", name, " takes 0 or 1, got ", v);
}

const Flag kFlags[] = {
    {"has_cuda", [] { return int64_t(kHasCuda); }, nullptr, "built with the CUDA backend"},
    // The CUDA matmul is cuBLAS (src/cuda/blas.cpp): in the module whenever CUDA is built.
    {"has_cublas", [] { return int64_t(kHasCuda); }, nullptr, "built with cuBLAS (in the CUDA module)"},
    {"has_cudnn", [] { return int64_t(cuda_module_has_cudnn()); }, nullptr,
     "the loaded CUDA module computes conv/pooling with cuDNN (0 until it is loaded)"},
    {"has_onednn", [] { return int64_t(1); }, nullptr, "built with oneDNN (matmul, conv, pooling)"},
    {"has_openmp", [] { return int64_t(1); }, nullptr, "built with OpenMP"},
    {"has_mkl", [] { return int64_t(0); }, nullptr, "built with Intel MKL"},
    {"has_lapack", [] { return int64_t(kHasLapack); }, nullptr, "built with LAPACK (LAPACKE: torch.linalg)"},
    {"cxx11_abi", [] { return int64_t(_GLIBCXX_USE_CXX11_ABI); }, nullptr, "libstdc++'s C++11 ABI"},
    {"cuda_available", [] { return int64_t(cuda_usable()); }, nullptr,
     "a GPU, driver and CUDA module usable now (probed without a CUDA context or loading the module)"},
    {"cuda_initialized", [] { return int64_t(cuda_backend_initialized()); }, nullptr,
     "the cuda stage has run successfully"},
    {"cuda_device_count", [] { return int64_t(cuda_usable() ? cuda_probe().device_count : 0); }, nullptr,
     "GPUs usable now"},
    {"num_threads", [] { return int64_t(num_threads()); },
     [](int64_t v) {
       TC_CHECK(v >= 1 && v <= 4096, TC_ERR_INVALID_ARGUMENT, "flag num_threads must be in [1, 4096], got ",
                v);
       set_num_threads(int(v));
     },
     "intra-op threads"},
    {"grad_enabled", [] { return int64_t(grad_enabled()); },
     [](int64_t v) {
       set_bool("grad_enabled", v);
       set_grad_enabled(v != 0);
     },
     "autograd records graphs (this thread)"},
    {"deterministic", [] { return int64_t(deterministic()); },
     [](int64_t v) {
       set_bool("deterministic", v);
       set_deterministic(v != 0);
     },
     "only deterministic algorithms"},
    {"default_dtype", [] { return int64_t(default_dtype()); },
     [](int64_t v) {
       TC_CHECK(v == TC_FLOAT32 || v == TC_FLOAT64, TC_ERR_INVALID_ARGUMENT,
                "flag default_dtype must be TC_FLOAT32 (0) or TC_FLOAT64 (1), got ", v);
       set_default_dtype(DType(v));
     },
     "dtype of float results from integer inputs"},
    {"live_tensors", [] { return live_tensor_count(); }, nullptr, "tensors alive now"},
    {"cpu_allocated_bytes", [] { return cpu_allocated_bytes(); }, nullptr,
     "bytes of CPU tensor data allocated now (the allocator's caches not counted)"},
    {"cpu_peak_allocated_bytes", [] { return cpu_peak_allocated_bytes(); },
     [](int64_t v) {
       TC_CHECK(v == 0, TC_ERR_INVALID_ARGUMENT, "flag cpu_peak_allocated_bytes takes only 0 (reset), got ",
                v);
       reset_cpu_peak_bytes();
     },
     "the highest cpu_allocated_bytes since the start or the last reset (setting it to 0 resets it to "
     "cpu_allocated_bytes)"},
    {"live_handles", [] { return abi_hooks().live_handles ? abi_hooks().live_handles() : int64_t(0); },
     nullptr, "handles of any kind alive now"},
#ifdef TC_TEST_HOOKS
    // Only in the test build (tc_static, tests/ and fuzz/); libtc.so has no such flag.
    {"fail_alloc_at", [] { return fail_alloc_at(); },
     [](int64_t v) {
       TC_CHECK(v >= 0, TC_ERR_INVALID_ARGUMENT, "flag fail_alloc_at must be >= 0, got ", v);
       set_fail_alloc_at(v);
     },
     "test builds: the Nth CPU allocation from now fails (0 = none)"},
#endif
};
constexpr int64_t kFlagCount = int64_t(sizeof(kFlags) / sizeof(kFlags[0]));

const Flag& find(const char* name) {
  TC_CHECK(name != nullptr, TC_ERR_INVALID_ARGUMENT, "name must not be NULL");
  for (const Flag& f : kFlags)
    if (std::strcmp(f.name, name) == 0) return f;
  std::ostringstream known;
  for (int64_t i = 0; i < kFlagCount; ++i) known << (i ? ", " : "") << kFlags[i].name;
  fail(TC_ERR_INVALID_ARGUMENT, str("unknown flag '", name, "' (known: ", known.str(), ")"));
}

}  // namespace

int64_t flag_count() noexcept { return kFlagCount; }
const char* flag_name(int64_t i) noexcept { return i >= 0 && i < kFlagCount ? kFlags[i].name : nullptr; }
bool flag_settable(int64_t i) noexcept { return i >= 0 && i < kFlagCount && kFlags[i].set != nullptr; }

int64_t get_flag(const char* name) { return find(name).get(); }

void set_flag(const char* name, int64_t value) {
  const Flag& f = find(name);
  TC_CHECK(f.set != nullptr, TC_ERR_INVALID_ARGUMENT, "flag ", name, " is read-only");
  f.set(value);
}

// The CPU FFT's backend (TC_HAVE_FFTW: set by CMakeLists.txt on this file and
// cpu/fft.cpp when TC_WITH_FFTW=ON).
#ifdef TC_HAVE_FFTW
constexpr const char* kFftBackend =
    "FFTW 3 (libfftw3/libfftw3f; TC_WITH_FFTW=ON: FFTW is GPL, so this libtc binary is under the GPL)";
#else
constexpr const char* kFftBackend = "libtc's own (mixed-radix 4/2/3/5 + Bluestein, float32/float64)";
#endif

std::string config_report() {
  std::ostringstream os;
  os << "libtc " << TC_VERSION_STRING << " (ABI " << TC_ABI_VERSION << ")\n"
     << "  build type:   " << TC_BUILD_TYPE << "\n"
     << "  compiler:     " << TC_CXX_COMPILER << ", C++" << (__cplusplus / 100 % 100) << "\n"
     << "  CPU features: " << cpu_features() << "\n"
     << "  CPU kernels:  " << cpu_kernel_set()
     << " (elementwise, reductions, generator, optimizer steps, softmax, losses, norms; " << kKernelSets
     << ")\n"
     << "  OpenMP:       yes, " << num_threads() << " threads\n"
     << "  oneDNN:       " << TC_DNNL_VERSION << "\n"
     << "  MKL:          no\n"
     << "  LAPACK:       " << lapack_vendor() << "\n"
     << "  FFT:          " << kFftBackend << "\n";
  const CudaProbe& p = cuda_probe();
  os << "  CUDA:         " << (kHasCuda ? "built" : "not built");
  const std::string module_reason = p.available ? cuda_module_unusable_reason() : "";
  if (!p.available)
    os << ", unavailable: " << p.reason;
  else if (!module_reason.empty())
    os << ", unavailable: " << module_reason;
  else
    os << ", available, " << p.device_count << " device(s)";
  if (cuda_stage_configured()) os << "\n  CUDA module:  " << cuda_module_status();
  os << "\n  flags:\n";
  for (const Flag& f : kFlags) {
    char line[160];
    std::snprintf(line, sizeof line, "    %-18s = %-6lld %s%s\n", f.name, static_cast<long long>(f.get()),
                  f.set ? "(settable) " : "", f.help);
    os << line;
  }
  // Every op registered by a loaded library (tc_load_library), with the library.
  if (abi_hooks().op_library_report) os << "  " << abi_hooks().op_library_report();
  return os.str();
}

}  // namespace tc
