/** \file tc.h
 * tc.h — the whole public ABI of libtc, a tensor library with automatic
 * differentiation. Readable top to bottom; every function is documented where
 * it is declared.
 *
 * Rules that hold for every function below (see DEVELOPERS.md):
 *  - Every function returns an int32_t status: TC_OK (0) or one of TC_ERR_*.
 *    Results come back through out-params, which are always last. On failure
 *    out-params are left untouched (initialize handles to NULL to tell).
 *  - On failure the calling thread keeps a message (function, offending
 *    argument, shapes/dtypes) readable with tc_last_error() until that
 *    thread's next failure. Success never clears it.
 *  - Handles (tc_tensor, tc_optimizer, tc_tensor_dict, tc_hook, tc_node,
 *    tc_process_group, tc_work, tc_library, tc_op) are opaque and
 *    checked: a NULL, freed, stale (from before tc_shutdown) or wrong-kind
 *    handle gives TC_ERR_INVALID_HANDLE, never a crash. One handle is one
 *    owned reference: every handle a function gives you must be freed
 *    exactly once.
 *  - Nothing but tc_version, tc_abi_version, tc_status_name, tc_last_error*,
 *    tc_init, tc_shutdown and tc_is_initialized may be called before tc_init;
 *    everything else returns TC_ERR_NOT_INITIALIZED.
 *  - Strings copied out use one pattern: fn(..., char* buf, int64_t cap,
 *    int64_t* needed). *needed receives the full length including the NUL;
 *    up to cap bytes are written, always NUL-terminated when cap > 0. Call
 *    with buf = NULL, cap = 0 to learn the size.
 *  - Thread safety: every function may be called from any thread. A tensor
 *    may be read from many threads at once; writing to a tensor (in-place ops,
 *    backward into its grad) while another thread uses it is a data race on
 *    the tensor's data (never on libtc's own bookkeeping: handles, reference
 *    counts, .grad, graphs, optimizer state). Precisely (docs/RELIABILITY.md):
 *    a tensor's .grad is replaced, cleared and accumulated under a lock;
 *    backward passes over one graph may run at once when they retain it, and
 *    of passes that free it (retain_graph = 0) exactly one succeeds, the
 *    others fail with TC_ERR_AUTOGRAD before changing anything; an optimizer's
 *    step, zero_grad and lr are serialized; the last tc_shutdown waits for
 *    calls in flight on other threads.
 *  - Callbacks (deleters, hooks, custom functions' forward and backward, op
 *    libraries' functions) may call back into libtc, tc_shutdown included.
 *    Handles libtc passes to a callback are valid only during the call (libtc
 *    frees them afterwards: one stored past the call is stale, one the
 *    callback frees itself is simply gone); handles a callback writes to an
 *    out-param of its own belong to libtc from then on. A callback's failure
 *    (a non-zero status) fails the libtc call that ran it: a TC_ERR_* code
 *    comes back as is, any other value as TC_ERR_CALLBACK, with the message
 *    the callback left (its failing libtc call's, or tc_set_last_error's).
 *    A tc_shutdown inside a callback makes the call that ran it fail with
 *    TC_ERR_NOT_INITIALIZED once the callback returns.
 */
#ifndef TC_H
#define TC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TC_API __declspec(dllexport)
#else
#define TC_API __attribute__((visibility("default")))
#endif

/* ======================================================================== */
/* Versions                                                                  */
/* ======================================================================== */

#define TC_VERSION_MAJOR 0
#define TC_VERSION_MINOR 1
#define TC_VERSION_PATCH 0
/** Bumped on every incompatible change of this header. Bindings compare the
 * value the loaded library reports with the one they were written for. */
#define TC_ABI_VERSION 1

/** The library's version as major*10000 + minor*100 + patch, and as a string
 * ("0.1.0"); either out-param may be NULL. Callable before tc_init. */
TC_API int32_t tc_version(int32_t* number, const char** text);
/** The ABI version of the loaded library (TC_ABI_VERSION it was built with). */
TC_API int32_t tc_abi_version(int32_t* out);

/* ======================================================================== */
/* Status codes and errors                                                   */
/* ======================================================================== */

#define TC_OK 0
#define TC_ERR_INVALID_ARGUMENT 1 /* a bad value: NULL out-pointer, bad option */
#define TC_ERR_INVALID_HANDLE 2   /* NULL, freed, stale or wrong-kind handle */
#define TC_ERR_NOT_INITIALIZED 3  /* called before tc_init or after shutdown */
#define TC_ERR_SHAPE 4            /* shapes that do not fit together */
#define TC_ERR_DTYPE 5            /* unsupported or mismatched dtype */
#define TC_ERR_INDEX 6            /* a dim or index out of range */
#define TC_ERR_OUT_OF_MEMORY 7    /* an allocation failed */
#define TC_ERR_DEVICE 8           /* a device (CUDA, cuBLAS) call failed */
#define TC_ERR_NOT_COMPILED 9     /* the feature was not built into libtc */
#define TC_ERR_UNAVAILABLE 10     /* built in, but not usable now (no GPU) */
#define TC_ERR_NOT_IMPLEMENTED 11 /* valid request libtc cannot do yet */
#define TC_ERR_AUTOGRAD 12        /* backward misuse: freed graph, versions */
#define TC_ERR_IO 13              /* I/O or format error */
#define TC_ERR_INTERNAL 14        /* a bug in libtc: please report it */
#define TC_ERR_CALLBACK 15        /* a caller's callback failed (its message follows) */
#define TC_ERR_TIMEOUT 16         /* a blocking call gave up: a peer died or never came */
#define TC_STATUS_COUNT 17

/** The stable name of a status code ("TC_ERR_SHAPE"); unknown codes give
 * TC_ERR_INVALID_ARGUMENT. The string is static. Callable before tc_init. */
TC_API int32_t tc_status_name(int32_t code, const char** out);
/** The calling thread's last failure: its message, valid until this thread's
 * next failing call ("" if there was none). Callable before tc_init. */
TC_API int32_t tc_last_error(const char** out);
/** The status code of the calling thread's last failure (TC_OK if none). */
TC_API int32_t tc_last_error_code(int32_t* out);
/** Copy-out variant of tc_last_error (string pattern above). */
TC_API int32_t tc_last_error_copy(char* buf, int64_t cap, int64_t* needed);
/** Sets the calling thread's last error (code: a TC_ERR_* value other than
 * TC_OK; message: NULL for ""), so that a callback can say why it fails
 * before it returns code: the libtc call that ran it then fails with code and
 * this message. Callable before tc_init. */
TC_API int32_t tc_set_last_error(int32_t code, const char* message);

/* ======================================================================== */
/* Staged initialization                                                     */
/* ======================================================================== */

/** Options for tc_init. Set .size = sizeof(tc_init_options); fields added in
 * later versions go at the end, so an older caller's smaller struct keeps
 * working. Zero means "default" for every field. */
typedef struct tc_init_options {
  uint32_t size;
  /** Intra-op threads; 0 = TC_NUM_THREADS from the environment, else the
   * number of cores. */
  int32_t num_threads;
  /** Non-zero: seed the default generator with .seed; zero: from entropy
   * (or TC_SEED from the environment). */
  int32_t use_seed;
  uint32_t reserved0;
  uint64_t seed;
  /** Non-zero: initialize optional backends (CUDA) now instead of lazily.
   * Their failure still never fails tc_init. */
  int32_t eager_backends;
  uint32_t reserved1;
} tc_init_options;

/** Initializes libtc: runs the stages core, cpu, random, autograd in order and
 * registers the lazy cuda stage. options may be NULL (defaults). Idempotent
 * and reference-counted: every successful tc_init needs one tc_shutdown; a
 * second call only counts (its options are ignored). Safe from many threads.
 * A failing required stage fails tc_init with its reason; a failing optional
 * stage never does (see the report). */
TC_API int32_t tc_init(const tc_init_options* options);
/** Drops one reference taken by tc_init; the last one frees every object and
 * invalidates every handle (they become stale). Without a matching tc_init it
 * returns TC_ERR_NOT_INITIALIZED. tc_init works again afterwards. The last
 * tc_shutdown first waits for calls in flight on other threads (calls that
 * start after it began fail with TC_ERR_NOT_INITIALIZED), so no handle made
 * before it is ever valid after the next tc_init. Deleters of tc_from_blob
 * and DLPack tensors run during it without libtc's locks held: they may call
 * libtc; a tc_init from such a callback (or from any callback inside a tc_*
 * call while the last tc_shutdown tears down) is refused with
 * TC_ERR_INVALID_ARGUMENT rather than deadlock. A tc_init from another thread
 * waits for the teardown to finish. */
TC_API int32_t tc_shutdown(void);
/** 1 when initialized, else 0. Callable before tc_init. */
TC_API int32_t tc_is_initialized(int32_t* out);

#define TC_STAGE_PENDING 0
#define TC_STAGE_OK 1
#define TC_STAGE_FAILED 2
#define TC_STAGE_SKIPPED 3
#define TC_STAGE_LAZY 4 /* registered; runs on first use */

/** One stage of initialization, as tc_init_stage fills it. The strings stay
 * valid until tc_shutdown. Set .size = sizeof(tc_stage_info). */
typedef struct tc_stage_info {
  uint32_t size;
  int32_t state;       /**< TC_STAGE_* */
  const char* name;    /**< "core", "cpu", "random", "autograd", "cuda" */
  const char* message; /**< why it failed or was skipped, else "" */
  double duration_ms;  /**< time the stage took (0 while pending or lazy) */
  int32_t required;    /**< 1 if its failure fails tc_init */
  uint32_t reserved;
} tc_stage_info;

/** Number of stages, and one stage by index (0 .. count-1, in run order). */
TC_API int32_t tc_init_stage_count(int64_t* out);
TC_API int32_t tc_init_stage(int64_t index, tc_stage_info* out);
/** A text report of every stage with its state, time and message. */
TC_API int32_t tc_init_report(char* buf, int64_t cap, int64_t* needed);
/** Runs a lazy backend's stage now (name: "cuda"). Returns its status: TC_OK,
 * TC_ERR_NOT_COMPILED or TC_ERR_UNAVAILABLE with the reason. */
TC_API int32_t tc_backend_init(const char* name);
/** A build and runtime report like torch.__config__.show(): version, compiler,
 * flags, libraries, threads, and why CUDA is unavailable when it is. */
TC_API int32_t tc_config(char* buf, int64_t cap, int64_t* needed);

/* ======================================================================== */
/* Flags                                                                     */
/* ======================================================================== */

/** Flags are named int64 values. Read-only ones describe the build and the
 * machine; settable ones change behaviour. An unknown name, or setting a
 * read-only flag or an invalid value, is an error (TC_ERR_INVALID_ARGUMENT).
 *   has_cuda, has_cublas, has_onednn, has_openmp, has_mkl, has_lapack,
 *   cxx11_abi          build facts (0/1)
 *   has_cudnn          the loaded CUDA module uses cuDNN (0 until it is loaded)
 *   cuda_available     a GPU, driver and CUDA module usable now (no CUDA
 *                      context made, the module not loaded)
 *   cuda_initialized   the cuda stage has run successfully
 *   cuda_device_count  GPUs usable now
 *   num_threads        intra-op threads (settable, >= 1; 1, and kept at 1,
 *                      in a child forked from a process with libtc loaded:
 *                      GNU OpenMP's thread pool does not survive fork)
 *   grad_enabled       autograd records graphs (settable, per thread)
 *   deterministic      only deterministic algorithms (settable, 0/1)
 *   default_dtype      TC_FLOAT32 or TC_FLOAT64 (settable)
 *   live_tensors       tensors alive now (so tests can prove no leak)
 *   cpu_allocated_bytes       bytes of CPU tensor data allocated now (the
 *                             allocator's caches not counted)
 *   cpu_peak_allocated_bytes  the highest cpu_allocated_bytes since the start
 *                             or the last reset (settable to 0 only: resets it
 *                             to cpu_allocated_bytes)
 *   live_handles       handles of any kind alive now */
TC_API int32_t tc_get_flag(const char* name, int64_t* out);
TC_API int32_t tc_set_flag(const char* name, int64_t value);
/** Enumerates flags: their count, and one name (static string) by index with
 * whether it is settable (both out-params are required). */
TC_API int32_t tc_flag_count(int64_t* out);
TC_API int32_t tc_flag_info(int64_t index, const char** name, int32_t* settable);

/* ======================================================================== */
/* Registries: dtypes, devices, layouts                                      */
/* ======================================================================== */

#define TC_FLOAT32 0
#define TC_FLOAT64 1
#define TC_FLOAT16 2
#define TC_BFLOAT16 3
#define TC_INT8 4
#define TC_INT16 5
#define TC_INT32 6
#define TC_INT64 7
#define TC_UINT8 8
#define TC_BOOL 9
/* Complex numbers: pairs (real, imaginary) of float32 / float64, stored
 * interleaved (8 and 16 bytes an element), as C99's float _Complex. Only the
 * functions documented as taking complex tensors accept them (creation,
 * copies and conversions, views and shape ops, tc_add/sub/mul/div/neg and
 * their scalar forms, tc_eq/ne, tc_abs, tc_sum/mean, the tc_fft_* functions
 * and the complex section below); every other function refuses a complex
 * tensor or dtype with TC_ERR_DTYPE naming itself. */
#define TC_COMPLEX64 10
#define TC_COMPLEX128 11
#define TC_DTYPE_COUNT 12

/** A dtype's name ("float32") and element size in bytes. */
TC_API int32_t tc_dtype_name(int32_t dtype, const char** out);
TC_API int32_t tc_dtype_size(int32_t dtype, int64_t* out);
/** The dtype code of a name ("float32", "float", "int64", "long", "bool"...). */
TC_API int32_t tc_dtype_from_name(const char* name, int32_t* out);
/** The dtype PyTorch's promotion rules give to two tensor dtypes. */
TC_API int32_t tc_promote_types(int32_t a, int32_t b, int32_t* out);

/** A device is one int32: type in the high 16 bits, index in the low 16. */
#define TC_DEVICE_CPU 0
#define TC_DEVICE_CUDA 1
#define TC_DEVICE(type, index) ((int32_t)(((type) << 16) | ((index)&0xFFFF)))
#define TC_CPU TC_DEVICE(TC_DEVICE_CPU, 0)
#define TC_DEVICE_TYPE(device) ((device) >> 16)
#define TC_DEVICE_INDEX(device) ((device)&0xFFFF)

/** A device's name ("cpu", "cuda:0") copied out; a device from a string. */
TC_API int32_t tc_device_name(int32_t device, char* buf, int64_t cap, int64_t* needed);
TC_API int32_t tc_device_from_name(const char* name, int32_t* out);

#define TC_LAYOUT_STRIDED 0

/* ======================================================================== */
/* Tensors: handles and creation                                             */
/* ======================================================================== */

/** An opaque, checked handle to a tensor. */
typedef struct tc_tensor_s* tc_tensor;

/** The most dimensions a tensor may have. */
#define TC_MAX_DIMS 16

/** A second handle to the same tensor (same data, same autograd identity). */
TC_API int32_t tc_tensor_retain(tc_tensor t, tc_tensor* out);
/** Frees one handle. A handle freed twice gives TC_ERR_INVALID_HANDLE. */
TC_API int32_t tc_tensor_free(tc_tensor t);
/** Frees n handles in one call (a binding's batched finalizer: one foreign call
 * instead of n). n >= 0; handles may be NULL only when n is 0. Every entry is
 * checked, and every valid one is freed, in order. An invalid entry (NULL,
 * freed, stale, not a tensor handle, or a repeat of an entry this call already
 * freed) is skipped: it is never freed (so never freed twice) and does not
 * stop the call, so a bad entry in the middle loses nothing. If any entry was
 * invalid the call returns TC_ERR_INVALID_HANDLE after freeing the valid ones;
 * the message names the first bad entry (handles[i]), why, and how many were
 * skipped. A bad n or NULL handles frees nothing. */
TC_API int32_t tc_tensor_free_many(const tc_tensor* handles, int64_t n);

/** What tc_tensor_new fills a new tensor with (tc_tensor_options.fill). */
#define TC_FILL_UNINITIALIZED 0 /* like tc_empty */
#define TC_FILL_ZEROS 1         /* like tc_zeros */
#define TC_FILL_ONES 2          /* like tc_ones */
#define TC_FILL_VALUE 3         /* .value, checked like tc_full */
#define TC_FILL_DATA 4          /* a copy of .nbytes bytes at .data, like tc_from_data */
#define TC_FILL_UNIFORM 5       /* uniform in [.low, .high) (floating dtypes), like tc_rand */
#define TC_FILL_NORMAL 6        /* normal with .mean and .std (floating dtypes), like tc_randn */

/** Everything about a new tensor (PyTorch's TensorOptions plus the shape and
 * what fills it). Set .size = sizeof(tc_tensor_options); fields added later
 * go at the end and read as zero for an older caller's smaller struct. */
typedef struct tc_tensor_options {
  uint32_t size;
  int32_t dtype;        /**< a TC_* dtype code (0 is TC_FLOAT32) */
  const int64_t* shape; /**< ndim sizes, checked as below (NULL when ndim is 0) */
  int64_t ndim;
  int32_t device;        /**< a TC_DEVICE value (0 is the CPU) */
  int32_t requires_grad; /**< 0/1: a leaf that requires grad (floating dtypes) */
  int32_t fill;          /**< TC_FILL_* */
  uint32_t reserved0;    /**< 0 */
  double value;          /**< TC_FILL_VALUE */
  double low, high;      /**< TC_FILL_UNIFORM: low <= high, both finite */
  double mean, std;      /**< TC_FILL_NORMAL: finite, std >= 0 */
  const void* data;      /**< TC_FILL_DATA: nbytes = numel * element size; */
  int64_t nbytes;        /**< copied on the CPU, then moved to .device */
} tc_tensor_options;

/** The general constructor: a new tensor as options describe it. The other
 * constructors below are shorthands for it: tc_empty, tc_zeros, tc_ones,
 * tc_full, tc_from_data (on the CPU), tc_rand (low 0, high 1) and tc_randn
 * (mean 0, std 1) make the same tensor from the same generator state, with
 * requires_grad 0. A size outside [offsetof(fill) + 4, 4096], an unknown
 * fill, a non-zero reserved field or a bad value is TC_ERR_INVALID_ARGUMENT;
 * a bad dtype TC_ERR_DTYPE; shapes and sizes are checked like tc_empty's. */
TC_API int32_t tc_tensor_new(const tc_tensor_options* options, tc_tensor* out);

/** Creation. shape has ndim entries (0 <= ndim <= TC_MAX_DIMS, each >= 0; the
 * product must fit in int64 and in memory). dtype is a TC_* dtype code;
 * device a TC_DEVICE value. Too large a tensor gives TC_ERR_OUT_OF_MEMORY. */
TC_API int32_t tc_empty(const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device, tc_tensor* out);
TC_API int32_t tc_zeros(const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device, tc_tensor* out);
TC_API int32_t tc_ones(const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device, tc_tensor* out);
/** tc_full and tc_fill_ check value like PyTorch: a value the dtype cannot
 * hold gives TC_ERR_INVALID_ARGUMENT ("cannot be converted to type int8
 * without overflow"): NaN, inf or values out of range for integer dtypes,
 * finite values past a floating dtype's range (inf and NaN are fine); a
 * fractional value truncates toward zero; an integral negative value wraps
 * for uint8 (-1 gives 255, as a Python int does); bool takes value != 0. */
TC_API int32_t tc_full(const int64_t* shape, int64_t ndim, double value, int32_t dtype, int32_t device,
                       tc_tensor* out);
/** [start, end) by step, like torch.arange; step must be non-zero. */
TC_API int32_t tc_arange(double start, double end, double step, int32_t dtype, int32_t device,
                         tc_tensor* out);
/** A new CPU tensor holding a copy of nbytes of data; nbytes must equal
 * numel * element size. */
TC_API int32_t tc_from_data(const void* data, int64_t nbytes, const int64_t* shape, int64_t ndim,
                            int32_t dtype, tc_tensor* out);

/** Called once when libtc no longer needs a caller's buffer. */
typedef void (*tc_deleter)(void* data, void* context);
/** A CPU tensor over a caller's buffer, without copying. strides may be NULL
 * (contiguous), else ndim element strides (>= 0). deleter (may be NULL) is
 * called exactly once with (data, context): when the last tensor using the
 * buffer dies, or before returning if this call fails. data must be aligned
 * to the element size, and bool data must hold bytes 0 or 1 only. */
TC_API int32_t tc_from_blob(void* data, const int64_t* shape, const int64_t* strides, int64_t ndim,
                            int32_t dtype, tc_deleter deleter, void* context, tc_tensor* out);
/** Uniform [0, 1) and standard normal samples from the default generator
 * (floating dtypes only). */
TC_API int32_t tc_rand(const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device, tc_tensor* out);
TC_API int32_t tc_randn(const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device, tc_tensor* out);
/** Reseeds the default generator; the same seed gives the same samples. */
TC_API int32_t tc_manual_seed(uint64_t seed);
/** The seed the default generator was last seeded with. */
TC_API int32_t tc_initial_seed(uint64_t* out);
/** The default generator's whole state (like torch.get_rng_state): a new 1-D
 * uint8 tensor of TC_RNG_STATE_BYTES bytes, the Philox seed then the offset
 * of the next counter, each a little-endian uint64. Restoring it with
 * tc_set_rng_state makes the generator (CPU and CUDA) repeat the same samples
 * from that point. tc_set_rng_state takes a tensor of that dtype and shape
 * (TC_ERR_DTYPE, TC_ERR_SHAPE otherwise), on any device, and changes nothing
 * on failure. tc_initial_seed reports the restored seed afterwards. */
#define TC_RNG_STATE_BYTES 16
TC_API int32_t tc_get_rng_state(tc_tensor* out);
TC_API int32_t tc_set_rng_state(tc_tensor state);

/* ======================================================================== */
/* Tensors: accessors                                                        */
/* ======================================================================== */

TC_API int32_t tc_tensor_dtype(tc_tensor t, int32_t* out);
TC_API int32_t tc_tensor_device(tc_tensor t, int32_t* out);
TC_API int32_t tc_tensor_ndim(tc_tensor t, int64_t* out);
/** Copies ndim sizes (strides, in elements) to out; cap must be >= ndim. */
TC_API int32_t tc_tensor_shape(tc_tensor t, int64_t* out, int64_t cap);
TC_API int32_t tc_tensor_strides(tc_tensor t, int64_t* out, int64_t cap);
TC_API int32_t tc_tensor_numel(tc_tensor t, int64_t* out);
TC_API int32_t tc_tensor_storage_offset(tc_tensor t, int64_t* out);
TC_API int32_t tc_tensor_is_contiguous(tc_tensor t, int32_t* out);
TC_API int32_t tc_tensor_element_size(tc_tensor t, int64_t* out);
/** The address of element [0, 0, ...] (storage offset applied). Valid while
 * the tensor lives. NULL for an empty tensor. */
TC_API int32_t tc_tensor_data_ptr(tc_tensor t, void** out);
/** Copies the elements in row-major order into buf; nbytes must equal
 * numel * element size. Works for any strides and device. */
TC_API int32_t tc_tensor_copy_to(tc_tensor t, void* buf, int64_t nbytes);
/** The single element of a one-element tensor, as a double. */
TC_API int32_t tc_tensor_item(tc_tensor t, double* out);
/** A printout like PyTorch's: "tensor([[1., 2.],\n        [3., 4.]])". */
TC_API int32_t tc_tensor_to_string(tc_tensor t, char* buf, int64_t cap, int64_t* needed);
/** The version counter, bumped by every in-place change (shared by views). */
TC_API int32_t tc_tensor_version(tc_tensor t, int64_t* out);
/** 1 when a and b are handles of the same tensor. */
TC_API int32_t tc_tensor_same(tc_tensor a, tc_tensor b, int32_t* out);
/** Read-only memory. tc_tensor_set_readonly marks t's storage, and so every
 * view of it, read-only for good (numpy's writeable = False; PyTorch has no
 * such flag and would let the write through). Writing into a read-only
 * tensor then fails with TC_ERR_INVALID_ARGUMENT and changes nothing: in-place
 * ops, initializers, optimizer steps. tc_from_dlpack marks the tensors whose
 * producer flags them DLPACK_FLAG_BITMASK_READ_ONLY, and tc_to_dlpack passes
 * the flag on. Reading, copying out and out-of-place ops work as usual;
 * writing through tc_tensor_data_ptr is the caller's error. */
TC_API int32_t tc_tensor_set_readonly(tc_tensor t);
TC_API int32_t tc_tensor_is_readonly(tc_tensor t, int32_t* out);

/* ======================================================================== */
/* Tensors in shared memory (between processes)                             */
/* ======================================================================== */

/** Storages backed by POSIX shared memory, to pass tensors between processes
 * without copying them (torch.multiprocessing's storage sharing). Two
 * strategies, as PyTorch's, chosen per process for the segments it makes:
 *  - TC_SHARE_FILE_DESCRIPTOR (the default): the segment is unlinked as soon
 *    as it is made; only file descriptors reach it. Send the descriptor to
 *    another process (SCM_RIGHTS over a Unix socket, Python's
 *    multiprocessing.reduction.DupFd) and import it there. The kernel frees
 *    the memory once the last mapping and descriptor in any process is gone,
 *    also when processes are killed. Each shared storage keeps one
 *    descriptor open, so many of them may need a higher RLIMIT_NOFILE.
 *  - TC_SHARE_FILE_SYSTEM: the segment keeps its name in /dev/shm
 *    ("/tc_<pid>_<n>_<random>"). A count in the segment, over every process,
 *    of the storages that map it unlinks the name when it falls to 0. A
 *    process killed while holding references leaves the name behind, for a
 *    cleanup process to unlink (the Python package's tc.multiprocessing runs
 *    one, as PyTorch's torch_shm_manager).
 * Segments are made with mode 0600. Sharing applies to CPU storages. */
#define TC_SHARE_FILE_DESCRIPTOR 0
#define TC_SHARE_FILE_SYSTEM 1
/** The strategy tc_tensor_share_memory_ uses from now on in this process
 * (TC_SHARE_*; TC_ERR_INVALID_ARGUMENT for another value). */
TC_API int32_t tc_set_sharing_strategy(int32_t strategy);
TC_API int32_t tc_get_sharing_strategy(int32_t* out);
/** Moves t's storage into a new shared memory segment in place: t and every
 * view of its storage then read and write the segment (the data is copied
 * over once). Nothing happens when the storage is shared already, or when t
 * is not on the CPU (PyTorch's share_memory_ is a no-op for CUDA tensors).
 * When /dev/shm is full, TC_ERR_OUT_OF_MEMORY with a message naming the size
 * and the other strategy; t is unchanged then. Do not run it while another
 * thread computes with the storage. */
TC_API int32_t tc_tensor_share_memory_(tc_tensor t);
/** 1 when t's storage is in shared memory (made or imported), else 0. */
TC_API int32_t tc_tensor_is_shared(tc_tensor t, int32_t* out);
/** What another process needs to import t's storage: *kind (TC_SHARE_*),
 * *fd (file_descriptor: this process's descriptor, still owned by the
 * storage, so dup or send it before t dies; -1 for file_system), *nbytes (the
 * storage's bytes) and the segment's name (file_system; "" for
 * file_descriptor) copied into name (cap bytes, NUL-terminated; *needed, if
 * not NULL, gets the full length + 1). Describe the tensor itself with
 * tc_tensor_shape/strides/storage_offset/dtype. TC_ERR_INVALID_ARGUMENT when
 * the storage is not shared. Nothing is written on failure. */
TC_API int32_t tc_tensor_shared_handle(tc_tensor t, int32_t* kind, int32_t* fd, int64_t* nbytes, char* name,
                                       int64_t cap, int64_t* needed);
/** A reference to a file_system segment by name, without mapping it as a
 * tensor: what a message in flight holds, so that the sender may drop its
 * tensor before the receiver imports it (PyTorch's _shared_incref): the
 * sender retains, the receiver imports and then releases. Retain fails with
 * TC_ERR_IO when the segment does not exist or was released; release drops
 * one reference and unlinks the name when it was the last. */
TC_API int32_t tc_shared_memory_retain(const char* name);
TC_API int32_t tc_shared_memory_release(const char* name);
/** Maps a shared storage another process exported (tc_tensor_shared_handle)
 * as a tensor of shape/strides (elements; strides NULL = contiguous) at
 * element offset offset, of dtype: kind TC_SHARE_FILE_DESCRIPTOR reads fd
 * (the caller's: it is duplicated, the caller still closes it) and ignores
 * name; TC_SHARE_FILE_SYSTEM opens the segment name (fd ignored). nbytes is
 * the exported storage size. The storage is shared (tc_tensor_is_shared) and
 * can be exported again. Errors: TC_ERR_IO when the segment does not exist,
 * was already released by its last user, is smaller than nbytes, or fd is no
 * segment; TC_ERR_INVALID_ARGUMENT when the view reaches past nbytes or an
 * argument is bad. */
TC_API int32_t tc_tensor_from_shared(int32_t kind, int32_t fd, const char* name, int64_t nbytes,
                                     const int64_t* shape, const int64_t* strides, int64_t ndim,
                                     int64_t offset, int32_t dtype, tc_tensor* out);

/* ======================================================================== */
/* Tensors: conversions and views                                            */
/* ======================================================================== */

/** A copy converted to dtype (float16 and bfloat16 round to nearest even),
 * or to another device. Returns a new handle to the same tensor when nothing
 * changes, like torch's .to(). */
TC_API int32_t tc_to_dtype(tc_tensor t, int32_t dtype, tc_tensor* out);
TC_API int32_t tc_to_device(tc_tensor t, int32_t device, tc_tensor* out);

/** Views share storage with t (writes through one show in the other).
 * One size of reshape/view may be -1 (inferred). reshape copies when no view
 * is possible; view fails then with TC_ERR_SHAPE. */
TC_API int32_t tc_reshape(tc_tensor t, const int64_t* shape, int64_t ndim, tc_tensor* out);
TC_API int32_t tc_view(tc_tensor t, const int64_t* shape, int64_t ndim, tc_tensor* out);
/** Negative dims count from the end, as in PyTorch, everywhere. */
TC_API int32_t tc_transpose(tc_tensor t, int64_t dim0, int64_t dim1, tc_tensor* out);
TC_API int32_t tc_permute(tc_tensor t, const int64_t* dims, int64_t ndim, tc_tensor* out);
TC_API int32_t tc_narrow(tc_tensor t, int64_t dim, int64_t start, int64_t length, tc_tensor* out);
/** Python's t[start:end:step] along dim (step > 0; start/end clamped, and
 * negative ones count from the end). */
TC_API int32_t tc_slice(tc_tensor t, int64_t dim, int64_t start, int64_t end, int64_t step, tc_tensor* out);
/** t[..., index, ...] along dim: removes that dim. */
TC_API int32_t tc_select(tc_tensor t, int64_t dim, int64_t index, tc_tensor* out);
/** Removes dim when its size is 1; dim = TC_DIM_ALL removes every size-1 dim. */
#define TC_DIM_ALL INT64_MIN
TC_API int32_t tc_squeeze(tc_tensor t, int64_t dim, tc_tensor* out);
TC_API int32_t tc_unsqueeze(tc_tensor t, int64_t dim, tc_tensor* out);
/** Broadcasts size-1 dims to shape (-1 keeps a size), without copying. */
TC_API int32_t tc_expand(tc_tensor t, const int64_t* shape, int64_t ndim, tc_tensor* out);
/** t itself (a new handle) when contiguous, else a contiguous copy. */
TC_API int32_t tc_contiguous(tc_tensor t, tc_tensor* out);
/** A contiguous copy with its own storage (differentiable). */
TC_API int32_t tc_clone(tc_tensor t, tc_tensor* out);

/* ======================================================================== */
/* Ops (differentiable where the math is; float32 and float64 everywhere,    */
/* integer dtypes where the op makes sense)                                  */
/* ======================================================================== */

/* BEGIN GENERATED OPS (tools/gen_ops.py from ops/ops.toml; edit the table, not this) */

/* The elementwise families are declared in tc_binary_ops.h, tc_scalar_ops.h
 * and tc_unary_ops.h (generated from ops/ops.toml), which are part of this
 * header: tc.h includes each where its ops belong. Code may define
 * TC_WITHOUT_ELEMENTWISE_OPS before including tc.h and include only the
 * family headers it calls: adding an op to another family then does not
 * recompile it (libtc's own ABI layer, tests and benches do so). */

/* The elementwise binary ops and comparisons (tc_add, tc_mul, ..., tc_eq,
 * ...) are declared in tc_binary_ops.h. */
#ifndef TC_WITHOUT_ELEMENTWISE_OPS
#include "tc_binary_ops.h"
#endif

/** cond ? a : b, broadcasting all three; cond must be bool. */
TC_API int32_t tc_where(tc_tensor cond, tc_tensor a, tc_tensor b, tc_tensor* out);

/* The ops of a tensor and a double (tc_add_scalar, ..., tc_eq_scalar, ...)
 * are declared in tc_scalar_ops.h. */
#ifndef TC_WITHOUT_ELEMENTWISE_OPS
#include "tc_scalar_ops.h"
#endif

/* The elementwise unary ops (tc_neg, tc_exp, tc_sigmoid, ..., the special
 * functions) are declared in tc_unary_ops.h. */
#ifndef TC_WITHOUT_ELEMENTWISE_OPS
#include "tc_unary_ops.h"
#endif

/** Splits floating a into mantissa * 2^exponent with |mantissa| in [0.5, 1)
 * (a's dtype) and an int32 exponent; 0, inf and NaN give themselves and
 * exponent 0. Differentiable in the mantissa (its gradient is g /
 * 2^exponent), as PyTorch's torch.frexp. */
TC_API int32_t tc_frexp(tc_tensor a, tc_tensor* mantissa, tc_tensor* exponent);
/** Clamps to [lo, hi]; a NaN bound means "no bound on that side". */
TC_API int32_t tc_clamp(tc_tensor a, double lo, double hi, tc_tensor* out);

/* Reductions over dims (ndims entries; ndims = 0 means every dim), keeping
 * reduced dims as size 1 when keepdim is non-zero. sum of an integer or bool
 * tensor gives int64, like PyTorch. */
/** Sum over dims. */
TC_API int32_t tc_sum(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim, tc_tensor* out);
/** Mean over dims. */
TC_API int32_t tc_mean(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim, tc_tensor* out);

/* Variance and standard deviation with Bessel's correction (1 = unbiased). */
/** Variance over dims. */
TC_API int32_t tc_var(tc_tensor a, const int64_t* dims, int64_t ndims, int64_t correction, int32_t keepdim,
                      tc_tensor* out);
/** Standard deviation over dims. */
TC_API int32_t tc_std(tc_tensor a, const int64_t* dims, int64_t ndims, int64_t correction, int32_t keepdim,
                      tc_tensor* out);
/** log(sum(exp(a))) over dims, computed stably. */
TC_API int32_t tc_logsumexp(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim, tc_tensor* out);

/* Maximum/minimum of every element (a 0-dim tensor). */
/** The largest element. */
TC_API int32_t tc_max(tc_tensor a, tc_tensor* out);
/** The smallest element. */
TC_API int32_t tc_min(tc_tensor a, tc_tensor* out);

/* Along one dim: values and int64 indices (first occurrence). */
/** Maximum along dim, with its index. */
TC_API int32_t tc_max_dim(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* values, tc_tensor* indices);
/** Minimum along dim, with its index. */
TC_API int32_t tc_min_dim(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* values, tc_tensor* indices);

/* int64 index of the maximum/minimum along dim, or over the flattened
 * tensor when dim = TC_DIM_ALL. */
/** Index of the maximum. */
TC_API int32_t tc_argmax(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* out);
/** Index of the minimum. */
TC_API int32_t tc_argmin(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* out);

/* More reductions over dims (ndims = 0: every dim), like PyTorch's. prod of
 * an integer or bool tensor gives int64 (wrapping); prod of nothing is 1. */
/** Product over dims (its gradient handles zeros, like PyTorch's). */
TC_API int32_t tc_prod(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim, tc_tensor* out);
/** Whether every element is non-zero: bool (uint8 for a uint8 input, like
 * PyTorch). */
TC_API int32_t tc_all(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim, tc_tensor* out);
/** Whether some element is non-zero: bool (uint8 for a uint8 input, like
 * PyTorch). */
TC_API int32_t tc_any(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim, tc_tensor* out);
/** Maximum over dims (a reduced dim of size 0 is an error); ties share the
 * gradient evenly. */
TC_API int32_t tc_amax(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim, tc_tensor* out);
/** Minimum over dims (a reduced dim of size 0 is an error); ties share the
 * gradient evenly. */
TC_API int32_t tc_amin(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim, tc_tensor* out);
/** Vector p-norm over dims (p = 2 is also "fro"; p = INFINITY/-INFINITY: max/min
 * of |a|; p = 0: the count of non-zeros); the gradient at 0 is 0, like PyTorch's. */
TC_API int32_t tc_norm(tc_tensor a, double p, const int64_t* dims, int64_t ndims, int32_t keepdim,
                       tc_tensor* out);
/** int64 count of the non-zero elements over dims. */
TC_API int32_t tc_count_nonzero(tc_tensor a, const int64_t* dims, int64_t ndims, tc_tensor* out);
/** The minimum and maximum of a over dim (dim = TC_DIM_ALL: every element), both
 * of a's dtype; keepdim keeps the reduced dim as size 1. */
TC_API int32_t tc_aminmax(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* min, tc_tensor* max);
/** Variance (with correction) and mean over dims. */
TC_API int32_t tc_var_mean(tc_tensor a, const int64_t* dims, int64_t ndims, int64_t correction,
                           int32_t keepdim, tc_tensor* var, tc_tensor* mean);
/** Standard deviation (with correction) and mean over dims. */
TC_API int32_t tc_std_mean(tc_tensor a, const int64_t* dims, int64_t ndims, int64_t correction,
                           int32_t keepdim, tc_tensor* std, tc_tensor* mean);

/* Order statistics: the lower median (of n elements the one of rank (n-1)/2),
 * NaN when there is a NaN, like PyTorch; kthvalue's k counts from 1; mode is
 * the most frequent value (the smallest of equally frequent ones) with the
 * index of its last occurrence. */
/** The lower median of every element (a 0-dim tensor). */
TC_API int32_t tc_median(tc_tensor a, tc_tensor* out);
/** The lower median along dim, with its int64 index. */
TC_API int32_t tc_median_dim(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* values,
                             tc_tensor* indices);
/** The k-th smallest element along dim, with its int64 index. */
TC_API int32_t tc_kthvalue(tc_tensor a, int64_t k, int64_t dim, int32_t keepdim, tc_tensor* values,
                           tc_tensor* indices);
/** The most frequent value along dim, with its int64 index. */
TC_API int32_t tc_mode(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* values, tc_tensor* indices);

/* Scans along dim. cumprod: integer and bool inputs give int64 (like cumsum);
 * its gradient handles zeros. cummax/cummin: the running maximum/minimum and
 * the int64 index where it was reached (the last of equal values; NaN sticks).
 * logcumsumexp: log(cumsum(exp(a))), computed stably. */
/** Cumulative product along dim. */
TC_API int32_t tc_cumprod(tc_tensor a, int64_t dim, tc_tensor* out);
/** Running maximum along dim, with its indices. */
TC_API int32_t tc_cummax(tc_tensor a, int64_t dim, tc_tensor* values, tc_tensor* indices);
/** Running minimum along dim, with its indices. */
TC_API int32_t tc_cummin(tc_tensor a, int64_t dim, tc_tensor* values, tc_tensor* indices);
/** log(cumsum(exp(a))) along dim, stable. */
TC_API int32_t tc_logcumsumexp(tc_tensor a, int64_t dim, tc_tensor* out);

/* Sorting and searching. sort is always stable (equal elements keep their
 * order, as PyTorch's stable=True); NaN sorts as larger than every number.
 * unique flattens a and returns the sorted distinct values, the int64 index
 * of each element's value among them (inverse, a's shape) and the int64
 * count of each. searchsorted: sorted_sequence 1-D, or N-D with values'
 * leading dims; the insertion index of each value (the leftmost, or the
 * rightmost when right is non-zero), int32 when out_int32 is non-zero. */
/** Sorted values along dim and their int64 indices. */
TC_API int32_t tc_sort(tc_tensor a, int64_t dim, int32_t descending, tc_tensor* values, tc_tensor* indices);
/** int64 indices that sort a along dim (stable). */
TC_API int32_t tc_argsort(tc_tensor a, int64_t dim, int32_t descending, tc_tensor* out);
/** The sorted distinct elements of a, each element's index among them, and
 * their counts. */
TC_API int32_t tc_unique(tc_tensor a, tc_tensor* values, tc_tensor* inverse, tc_tensor* counts);
/** Insertion indices of values into sorted_sequence's last dim. */
TC_API int32_t tc_searchsorted(tc_tensor sorted_sequence, tc_tensor values, int32_t right, int32_t out_int32,
                               tc_tensor* out);

/* Matrix product with torch.matmul's rules: 1-D x 1-D dot product, 2-D
 * matrix product, 1-D operands get a dim added and removed, batched with
 * broadcasting of the batch dims. */
/** Matrix product. */
TC_API int32_t tc_matmul(tc_tensor a, tc_tensor b, tc_tensor* out);
/** x @ weight^T + bias, weight [out_features, in_features]; bias may be NULL. */
TC_API int32_t tc_linear(tc_tensor x, tc_tensor weight, tc_tensor bias, tc_tensor* out);

/* How float32 matrix products may trade precision for speed (like
 * torch.set_float32_matmul_precision), process-wide, for every thread:
 *   TC_MATMUL_PRECISION_HIGHEST  plain float32 arithmetic (the default)
 *   TC_MATMUL_PRECISION_HIGH     TF32 tensor cores allowed on CUDA (10-bit
 *                                mantissa inputs, float32 accumulation)
 *   TC_MATMUL_PRECISION_MEDIUM   the fastest reduced-precision mode the
 *                                device offers (on CUDA today: TF32, as HIGH)
 * CPU products and other dtypes are unaffected. A code outside these gives
 * TC_ERR_INVALID_ARGUMENT. */
#define TC_MATMUL_PRECISION_HIGHEST 0
#define TC_MATMUL_PRECISION_HIGH 1
#define TC_MATMUL_PRECISION_MEDIUM 2
/** Sets the float32 matmul precision (TC_MATMUL_PRECISION_*). */
TC_API int32_t tc_set_matmul_precision(int32_t precision);
/** The float32 matmul precision now. */
TC_API int32_t tc_get_matmul_precision(int32_t* out);

/* Neural-network ops. */
#define TC_REDUCTION_NONE 0
#define TC_REDUCTION_MEAN 1
#define TC_REDUCTION_SUM 2
/** Softmax along dim. */
TC_API int32_t tc_softmax(tc_tensor a, int64_t dim, tc_tensor* out);
/** Log-softmax along dim. */
TC_API int32_t tc_log_softmax(tc_tensor a, int64_t dim, tc_tensor* out);
/** Cross-entropy: logits [N, C] (or [C]), target int64 class indices [N] (or
 * []). */
TC_API int32_t tc_cross_entropy(tc_tensor logits, tc_tensor target, int32_t reduction, tc_tensor* out);
/** Negative log-likelihood: log_probs [N, C], target int64 [N]. */
TC_API int32_t tc_nll_loss(tc_tensor log_probs, tc_tensor target, int32_t reduction, tc_tensor* out);
/** Mean squared error. */
TC_API int32_t tc_mse_loss(tc_tensor input, tc_tensor target, int32_t reduction, tc_tensor* out);

/* More losses, as torch.nn.functional (composed of the ops above, so their
 * gradients are autograd's). input and target broadcast; reduction is a
 * TC_REDUCTION_* code; MEAN over every element unless said otherwise. weight
 * and pos_weight may be NULL. */
/** Mean absolute error |input - target|. */
TC_API int32_t tc_l1_loss(tc_tensor input, tc_tensor target, int32_t reduction, tc_tensor* out);
/** 0.5 d^2 / beta where d = |input - target| < beta, else d - 0.5 beta (beta
 * >= 0; 0 = l1_loss). */
TC_API int32_t tc_smooth_l1_loss(tc_tensor input, tc_tensor target, int32_t reduction, double beta,
                                 tc_tensor* out);
/** 0.5 d^2 where d = |input - target| < delta, else delta (d - 0.5 delta)
 * (delta > 0). */
TC_API int32_t tc_huber_loss(tc_tensor input, tc_tensor target, int32_t reduction, double delta,
                             tc_tensor* out);
/** -weight (target log(input) + (1 - target) log(1 - input)), logs clamped at
 * -100; input in [0, 1], target of input's shape. */
TC_API int32_t tc_binary_cross_entropy(tc_tensor input, tc_tensor target, tc_tensor weight, int32_t reduction,
                                       tc_tensor* out);
/** binary_cross_entropy(sigmoid(input), target) computed stably; pos_weight
 * (broadcast over the last dim) weighs the positive term. */
TC_API int32_t tc_binary_cross_entropy_with_logits(tc_tensor input, tc_tensor target, tc_tensor weight,
                                                   tc_tensor pos_weight, int32_t reduction, tc_tensor* out);
/** target (log(target) - input) (0 where target = 0), or exp(target) (target
 * - input) when log_target; input holds log-probabilities. */
TC_API int32_t tc_kl_div(tc_tensor input, tc_tensor target, int32_t reduction, int32_t log_target,
                         tc_tensor* out);
/** nll_loss on [C], [N, C] or [N, C, d1, ...] with class weights [C] (or
 * NULL) and ignore_index; MEAN divides by the weights of the targets not
 * ignored. */
TC_API int32_t tc_nll_loss_ex(tc_tensor log_probs, tc_tensor target, tc_tensor weight, int64_t ignore_index,
                              int32_t reduction, tc_tensor* out);
/** cross_entropy over dim 1 of [N, C, d1, ...] (or [C]): int64 class targets
 * (with weight, ignore_index) or probabilities of logits' shape;
 * label_smoothing in [0, 1]. */
TC_API int32_t tc_cross_entropy_ex(tc_tensor logits, tc_tensor target, tc_tensor weight, int64_t ignore_index,
                                   double label_smoothing, int32_t reduction, tc_tensor* out);
/** sum(x1 x2, dim) / (max(||x1||, eps) max(||x2||, eps)), x1 and x2
 * broadcast. */
TC_API int32_t tc_cosine_similarity(tc_tensor x1, tc_tensor x2, int64_t dim, double eps, tc_tensor* out);
/** The p-norm of x1 - x2 + eps over the last dim (p >= 0, INFINITY allowed). */
TC_API int32_t tc_pairwise_distance(tc_tensor x1, tc_tensor x2, double p, double eps, int32_t keepdim,
                                    tc_tensor* out);
/** a / max(||a||_p over dim, eps) (p >= 0, INFINITY allowed). */
TC_API int32_t tc_normalize(tc_tensor a, double p, int64_t dim, double eps, tc_tensor* out);
/** Zeroes elements with probability p (from the default generator) and
 * scales the rest by 1/(1-p) when training is non-zero; identity otherwise. */
TC_API int32_t tc_dropout(tc_tensor a, double p, int32_t training, tc_tensor* out);
/** x [N, C, H, W], weight [O, C/groups, kH, kW], bias [O] or NULL. stride,
 * padding and dilation are 2 entries each (height, width). */
TC_API int32_t tc_conv2d(tc_tensor x, tc_tensor weight, tc_tensor bias, const int64_t* stride,
                         const int64_t* padding, const int64_t* dilation, int64_t groups, tc_tensor* out);

/* x [N, C, H, W]; kernel, stride, padding: 2 entries each. stride NULL means
 * stride = kernel. avg_pool2d counts padding in the divisor, like PyTorch. */
/** 2-D max pooling. */
TC_API int32_t tc_max_pool2d(tc_tensor x, const int64_t* kernel, const int64_t* stride,
                             const int64_t* padding, tc_tensor* out);
/** 2-D average pooling. */
TC_API int32_t tc_avg_pool2d(tc_tensor x, const int64_t* kernel, const int64_t* stride,
                             const int64_t* padding, tc_tensor* out);
/** weight [num, dim], indices int64 of any shape: result indices.shape +
 * [dim]. */
TC_API int32_t tc_embedding(tc_tensor weight, tc_tensor indices, tc_tensor* out);

/* Neural-network layers. The norms and the generalized pooling run fused
 * kernels with their own backward; the others are composed of other ops
 * (their gradients are those of the ops they are made of). Optional tensors
 * may be NULL. Per-channel tensors (weight, bias, running_mean, running_var)
 * are [C] for x [N, C, *]. */
/** Batch normalization over N and the spatial dims. training != 0: batch
 * statistics (biased variance), and running_mean/running_var (if given) are
 * updated in place: r = (1 - momentum) r + momentum s with the unbiased
 * variance; training = 0: the running statistics normalize (they must be given). */
TC_API int32_t tc_batch_norm(tc_tensor x, tc_tensor weight, tc_tensor bias, tc_tensor running_mean,
                             tc_tensor running_var, int32_t training, double momentum, double eps,
                             tc_tensor* out);
/** Group normalization: x [N, C, *] normalized over C/num_groups channels and
 * the spatial dims. */
TC_API int32_t tc_group_norm(tc_tensor x, int64_t num_groups, tc_tensor weight, tc_tensor bias, double eps,
                             tc_tensor* out);
/** Instance normalization: each (sample, channel) over its spatial dims.
 * use_input_stats != 0: the instance statistics (running stats, if given, are
 * updated with their mean over N); 0: the running statistics normalize. */
TC_API int32_t tc_instance_norm(tc_tensor x, tc_tensor weight, tc_tensor bias, tc_tensor running_mean,
                                tc_tensor running_var, int32_t use_input_stats, double momentum, double eps,
                                tc_tensor* out);
/** conv2d with 4 padding entries (top, bottom, left, right), which may differ
 * (padding="same" with even kernels); stride and dilation: 2 entries each. */
TC_API int32_t tc_conv2d_padded(tc_tensor x, tc_tensor weight, tc_tensor bias, const int64_t* stride,
                                const int64_t* padding, const int64_t* dilation, int64_t groups,
                                tc_tensor* out);
/** Transposed convolution: x [N, C, H, W], weight [C, O/groups, kH, kW], bias [O]
 * or NULL; stride, padding, output_padding, dilation: 2 entries each. H_out =
 * (H - 1) stride - 2 padding + dilation (kH - 1) + output_padding + 1. */
TC_API int32_t tc_conv_transpose2d(tc_tensor x, tc_tensor weight, tc_tensor bias, const int64_t* stride,
                                   const int64_t* padding, const int64_t* output_padding,
                                   const int64_t* dilation, int64_t groups, tc_tensor* out);
/** 3-D convolution: x [N, C, D, H, W], weight [O, C/groups, kD, kH, kW], bias [O]
 * or NULL; stride, padding and dilation are 3 entries each (depth, height, width). */
TC_API int32_t tc_conv3d(tc_tensor x, tc_tensor weight, tc_tensor bias, const int64_t* stride,
                         const int64_t* padding, const int64_t* dilation, int64_t groups, tc_tensor* out);
/** 3-D transposed convolution: x [N, C, D, H, W], weight [C, O/groups, kD, kH, kW],
 * bias [O] or NULL; stride, padding, output_padding, dilation: 3 entries each;
 * sizes as tc_conv_transpose2d's per axis. */
TC_API int32_t tc_conv_transpose3d(tc_tensor x, tc_tensor weight, tc_tensor bias, const int64_t* stride,
                                   const int64_t* padding, const int64_t* output_padding,
                                   const int64_t* dilation, int64_t groups, tc_tensor* out);
/** 2-D max pooling with dilation and ceil_mode; indices (int64, flat within each
 * H*W plane, as PyTorch's) is written when not NULL. stride NULL = kernel. */
TC_API int32_t tc_max_pool2d_with_indices(tc_tensor x, const int64_t* kernel, const int64_t* stride,
                                          const int64_t* padding, const int64_t* dilation, int32_t ceil_mode,
                                          tc_tensor* out, tc_tensor* indices);
/** 2-D average pooling with ceil_mode, count_include_pad and divisor_override
 * (0 = none). stride NULL = kernel. */
TC_API int32_t tc_avg_pool2d_ex(tc_tensor x, const int64_t* kernel, const int64_t* stride,
                                const int64_t* padding, int32_t ceil_mode, int32_t count_include_pad,
                                int64_t divisor_override, tc_tensor* out);

/* Adaptive pooling (PyTorch's windows: output o of an axis of in inputs pooled
 * to out reads inputs [floor(o in / out), ceil((o + 1) in / out))), batched
 * [N, C, *] or unbatched [C, *]; dedicated kernels forward and backward. */
/** Adaptive 2-D average pooling of x [N, C, H, W] or [C, H, W] to output_size
 * (2 entries). */
TC_API int32_t tc_adaptive_avg_pool2d(tc_tensor x, const int64_t* output_size, tc_tensor* out);
/** Adaptive 2-D max pooling of x [N, C, H, W] or [C, H, W]: the first maximum of
 * each window (NaN propagates); indices (int64, flat per H*W plane) written
 * when not NULL. */
TC_API int32_t tc_adaptive_max_pool2d(tc_tensor x, const int64_t* output_size, tc_tensor* out,
                                      tc_tensor* indices);
/** Adaptive 1-D average pooling of x [N, C, L] or [C, L] to output_size. */
TC_API int32_t tc_adaptive_avg_pool1d(tc_tensor x, int64_t output_size, tc_tensor* out);
/** Adaptive 1-D max pooling of x [N, C, L] or [C, L]; indices (int64, within
 * each row) written when not NULL. */
TC_API int32_t tc_adaptive_max_pool1d(tc_tensor x, int64_t output_size, tc_tensor* out, tc_tensor* indices);
#define TC_INTERP_NEAREST 0
#define TC_INTERP_LINEAR 1
/** Resamples x [N, C, W] or [N, C, H, W] to size (one entry per spatial dim):
 * TC_INTERP_NEAREST or TC_INTERP_LINEAR (linear/bilinear), align_corners as
 * PyTorch's. scale_factors: NULL or one per spatial dim (0 = none); when given
 * they set the source scale (1 / factor), as PyTorch's scale_factor does. */
TC_API int32_t tc_interpolate(tc_tensor x, const int64_t* size, const double* scale_factors, int32_t mode,
                              int32_t align_corners, tc_tensor* out);
/** [*, C r^2, H, W] -> [*, C, H r, W r]. */
TC_API int32_t tc_pixel_shuffle(tc_tensor x, int64_t upscale_factor, tc_tensor* out);
/** [*, C, H r, W r] -> [*, C r^2, H, W]. */
TC_API int32_t tc_pixel_unshuffle(tc_tensor x, int64_t downscale_factor, tc_tensor* out);
/** embedding whose row padding_idx (in [-num, num)) gets no gradient. */
TC_API int32_t tc_embedding_padding_idx(tc_tensor weight, tc_tensor indices, int64_t padding_idx,
                                        tc_tensor* out);
/** Channel dropout: x [N, C, *]; each (sample, channel) is zeroed with
 * probability p, the rest scaled by 1/(1-p), when training != 0. */
TC_API int32_t tc_dropout2d(tc_tensor x, double p, int32_t training, tc_tensor* out);

/* Transformer ops. layer_norm/rms_norm normalize over the last ndims dims of
 * x, which must equal normalized_shape; weight and bias (that shape, or NULL)
 * scale and shift. layer_norm: (x - mean) / sqrt(var + eps) (biased
 * variance); rms_norm: x / sqrt(mean(x^2) + eps). eps must be >= 0. One fused
 * kernel each way (backward from the saved mean and 1/std, like PyTorch). */
/** Layer normalization over the last ndims dims (weight, bias may be NULL). */
TC_API int32_t tc_layer_norm(tc_tensor x, const int64_t* normalized_shape, int64_t ndims, tc_tensor weight,
                             tc_tensor bias, double eps, tc_tensor* out);
/** RMS normalization over the last ndims dims (weight may be NULL). */
TC_API int32_t tc_rms_norm(tc_tensor x, const int64_t* normalized_shape, int64_t ndims, tc_tensor weight,
                           double eps, tc_tensor* out);
/** softmax(q k^T / sqrt(E) + mask) v, with dropout(dropout_p) on the weights:
 * q [..., L, E], k [..., S, E], v [..., S, Ev] -> [..., L, Ev]; attn_mask
 * (broadcasting to [..., L, S], or NULL) is bool (true = attend) or added to
 * the scores; is_causal masks j > i (then attn_mask must be NULL). Composed of
 * matmul, masking and softmax, so its gradient is theirs. */
TC_API int32_t tc_scaled_dot_product_attention(tc_tensor q, tc_tensor k, tc_tensor v, tc_tensor attn_mask,
                                               double dropout_p, int32_t is_causal, tc_tensor* out);
/** Batched matrix product: a [B, N, M] x b [B, M, P] -> [B, N, P]. */
TC_API int32_t tc_bmm(tc_tensor a, tc_tensor b, tc_tensor* out);
/** beta * input + alpha * (mat1 @ mat2): mat1 [N, M], mat2 [M, P], input
 * broadcasting to [N, P]; beta = 0 ignores input's values (NaN included). */
TC_API int32_t tc_addmm(tc_tensor input, tc_tensor mat1, tc_tensor mat2, double beta, double alpha,
                        tc_tensor* out);
/** beta * input + alpha * bmm(batch1, batch2), input broadcasting to [B, N,
 * P]. */
TC_API int32_t tc_baddbmm(tc_tensor input, tc_tensor batch1, tc_tensor batch2, double beta, double alpha,
                          tc_tensor* out);

/* The lower (tril: j - i <= diagonal) or upper (triu: j - i >= diagonal)
 * triangle of the last two dims; the other elements are 0. */
/** Lower triangle. */
TC_API int32_t tc_tril(tc_tensor a, int64_t diagonal, tc_tensor* out);
/** Upper triangle. */
TC_API int32_t tc_triu(tc_tensor a, int64_t diagonal, tc_tensor* out);
/** a with value where the bool mask (broadcasting) is true. */
TC_API int32_t tc_masked_fill(tc_tensor a, tc_tensor mask, double value, tc_tensor* out);
/** Cumulative sum along dim (integer and bool inputs give int64, like
 * PyTorch). */
TC_API int32_t tc_cumsum(tc_tensor a, int64_t dim, tc_tensor* out);

/* Sampling ops. topk: the k largest (or smallest) elements along dim and their
 * int64 indices, always sorted (sorted = 0 is accepted: any order is allowed);
 * NaN counts as larger than every number, like PyTorch. */
/** The k largest/smallest elements along dim, with their indices. */
TC_API int32_t tc_topk(tc_tensor a, int64_t k, int64_t dim, int32_t largest, int32_t sorted,
                       tc_tensor* values, tc_tensor* indices);
/** int64 category indices drawn from the default generator with the
 * non-negative weights probs [C] or [N, C] (each row finite, not all zero):
 * [num_samples] or [N, num_samples]; without replacement, num_samples must not
 * exceed the number of non-zero weights of a row. */
TC_API int32_t tc_multinomial(tc_tensor probs, int64_t num_samples, int32_t replacement, tc_tensor* out);

/* Shape ops. */
/** Concatenates count tensors along dim. */
TC_API int32_t tc_cat(const tc_tensor* tensors, int64_t count, int64_t dim, tc_tensor* out);
/** Stacks count tensors along a new dim. */
TC_API int32_t tc_stack(const tc_tensor* tensors, int64_t count, int64_t dim, tc_tensor* out);

/* Splits into pieces of split_size (the last may be smaller) / into `chunks`
 * pieces, as views (like torch.chunk: ceil(size / chunks) elements each, so
 * maybe fewer pieces; a dim of size 0 gives `chunks` empty pieces). Writes up
 * to cap handles to outs and the number of pieces to *count; cap too small
 * gives TC_ERR_INVALID_ARGUMENT (with *count set and no handles made). */
/** Pieces of split_size along dim. */
TC_API int32_t tc_split(tc_tensor a, int64_t split_size, int64_t dim, tc_tensor* outs, int64_t cap,
                        int64_t* count);
/** chunks pieces along dim. */
TC_API int32_t tc_chunk(tc_tensor a, int64_t chunks, int64_t dim, tc_tensor* outs, int64_t cap,
                        int64_t* count);
/** out[i][j] = a[index[i][j]][j] for dim 0, and so on; index int64. */
TC_API int32_t tc_gather(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor* out);
/** The entries index (int64, 1-D) of a along dim. */
TC_API int32_t tc_index_select(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor* out);
/** int64 indices -> int64 one-hot with num_classes (-1: max index + 1). */
TC_API int32_t tc_one_hot(tc_tensor indices, int64_t num_classes, tc_tensor* out);

/* Advanced indexing, as PyTorch's aten::index / index_put_. indices holds count
 * entries (at most 32; NULL when count is 0), one per leading dim of a: an
 * int64/int32 tensor of any shape, a bool mask (covering as many dims as it
 * has; a 0-dim mask adds a dim of size 1 or 0), or NULL, a full slice (`:`).
 * The integer indices broadcast together; the result has their shape where the
 * indexed dims stood when they are adjacent, else first, then the sliced dims.
 * Negative indices wrap; others out of range give TC_ERR_INDEX ("index 5 is out
 * of bounds for dimension 0 with size 3"). values (of a's dtype) broadcast to
 * the shape tc_index would give; accumulate != 0 adds at repeated indices,
 * else the last write wins (in index order on the CPU). index's gradient is an
 * accumulating put into zeros; index_put's goes to values and to the elements
 * of a not overwritten. tc_index_put_ writes self in place (version counter,
 * read-only and overlap checks); with autograd, self (not a leaf requiring
 * grad, and owning its memory alone: not a view, not saved for backward)
 * takes the put as its new grad_fn, as PyTorch rebases it. */
/** a[indices]: a new tensor. */
TC_API int32_t tc_index(tc_tensor a, const tc_tensor* indices, int64_t count, tc_tensor* out);
/** A copy of a with a[indices] = values (or += with accumulate). */
TC_API int32_t tc_index_put(tc_tensor a, const tc_tensor* indices, int64_t count, tc_tensor values,
                            int32_t accumulate, tc_tensor* out);
/** self[indices] = values (or += with accumulate), in place. */
TC_API int32_t tc_index_put_(tc_tensor self, const tc_tensor* indices, int64_t count, tc_tensor values,
                             int32_t accumulate);
/** The int64 coordinates [count, ndim] of a's non-zero elements, in row-major
 * order. */
TC_API int32_t tc_nonzero(tc_tensor a, tc_tensor* out);
/** a flattened, at the int64 index (any shape; negative wraps): the result
 * has index's shape. */
TC_API int32_t tc_take(tc_tensor a, tc_tensor index, tc_tensor* out);
/** The elements of a (broadcast with the bool mask) where mask is true, 1-D. */
TC_API int32_t tc_masked_select(tc_tensor a, tc_tensor mask, tc_tensor* out);

/* The scatter family, out of place, as PyTorch: index (int64; for index_add and
 * index_copy also int32) has a's number of dims, is no larger than src, nor
 * than a outside dim; out[index[i][j]][j] = src[i][j] for dim 0, and so on;
 * its entries must be in [0, size) (index_fill's may be negative). Repeated
 * indices: the last write wins (scatter, index_copy) or they combine.
 * scatter_reduce's reduce is one of TC_SCATTER_*; include_self = 0 leaves a's
 * values out of the reduction at the scattered positions; mean divides by the
 * count (integers: floor division); amax/amin propagate NaN and split the
 * gradient evenly among ties; prod's gradient handles zeros as PyTorch does.
 * index_add/index_copy/index_fill work along dim with a 1-D (or 0-dim) index:
 * source has a's shape but index's length at dim. */
#define TC_SCATTER_SUM 0
#define TC_SCATTER_PROD 1
#define TC_SCATTER_MEAN 2
#define TC_SCATTER_AMAX 3
#define TC_SCATTER_AMIN 4
/** A copy of a with src scattered along dim at index. */
TC_API int32_t tc_scatter(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor src, tc_tensor* out);
/** A copy of a with value scattered along dim at index. */
TC_API int32_t tc_scatter_value(tc_tensor a, int64_t dim, tc_tensor index, double value, tc_tensor* out);
/** A copy of a with src added along dim at index. */
TC_API int32_t tc_scatter_add(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor src, tc_tensor* out);
/** A copy of a with src reduced (TC_SCATTER_*) along dim at index. */
TC_API int32_t tc_scatter_reduce(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor src, int32_t reduce,
                                 int32_t include_self, tc_tensor* out);
/** A copy of a with alpha * source added at the entries index of dim. */
TC_API int32_t tc_index_add(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor source, double alpha,
                            tc_tensor* out);
/** A copy of a with source copied to the entries index of dim. */
TC_API int32_t tc_index_copy(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor source, tc_tensor* out);
/** A copy of a with value at the entries index of dim. */
TC_API int32_t tc_index_fill(tc_tensor a, int64_t dim, tc_tensor index, double value, tc_tensor* out);

/* Shape, creation and matrix ops after PyTorch (torch.flip, roll, repeat,
 * tile, repeat_interleave, diag, diagonal, eye, linspace, logspace, meshgrid,
 * nn.functional.pad, movedim, flatten, unflatten, broadcast_to, unbind, outer,
 * dot, einsum; randint, randperm, bernoulli from the default generator).
 * Results are new tensors except diagonal, broadcast_to, movedim, unbind,
 * meshgrid and flatten/unflatten where a view is possible (views, as in
 * PyTorch). Differentiable where PyTorch is (composed of differentiable ops). */
/** a reversed along each of the ndims dims (unique). */
TC_API int32_t tc_flip(tc_tensor a, const int64_t* dims, int64_t ndims, tc_tensor* out);
/** a rolled by shifts[i] along dims[i] (elements leaving one end come back at
 * the other); ndims 0 rolls the flattened tensor by shifts[0] (nshifts 1). */
TC_API int32_t tc_roll(tc_tensor a, const int64_t* shifts, int64_t nshifts, const int64_t* dims,
                       int64_t ndims, tc_tensor* out);
/** a tiled repeats[i] times along each dim, like Tensor.repeat (nrepeats >=
 * a's dims). */
TC_API int32_t tc_repeat(tc_tensor a, const int64_t* repeats, int64_t nrepeats, tc_tensor* out);
/** Like repeat, with fewer reps than dims padded with leading 1s
 * (torch.tile). */
TC_API int32_t tc_tile(tc_tensor a, const int64_t* reps, int64_t nreps, tc_tensor* out);
/** Each element of a repeated `repeats` times along dim (TC_DIM_ALL: of the
 * flattened a). */
TC_API int32_t tc_repeat_interleave(tc_tensor a, int64_t repeats, int64_t dim, tc_tensor* out);
/** Element i of a along dim repeated repeats[i] times; repeats is an int64 or
 * int32 tensor, 0-D / one element (all alike) or of a's size along dim. */
TC_API int32_t tc_repeat_interleave_tensor(tc_tensor a, tc_tensor repeats, int64_t dim, tc_tensor* out);
/** 1-D a: a square matrix with a on its diagonal `diagonal` (> 0 above the
 * main one); 2-D a: a copy of that diagonal, 1-D. */
TC_API int32_t tc_diag(tc_tensor a, int64_t diagonal, tc_tensor* out);
/** A view of the diagonal `offset` of dims dim1 and dim2 of a, which become the
 * last dim of the result. */
TC_API int32_t tc_diagonal(tc_tensor a, int64_t offset, int64_t dim1, int64_t dim2, tc_tensor* out);
/** An n x m matrix with ones on the diagonal (m -1: n x n). */
TC_API int32_t tc_eye(int64_t n, int64_t m, int32_t dtype, int32_t device, tc_tensor* out);
/** steps evenly spaced values from start to end inclusive (torch.linspace;
 * integer dtypes truncate start and end first). */
TC_API int32_t tc_linspace(double start, double end, int64_t steps, int32_t dtype, int32_t device,
                           tc_tensor* out);
/** base ** linspace(start, end, steps) (torch.logspace). */
TC_API int32_t tc_logspace(double start, double end, int64_t steps, double base, int32_t dtype,
                           int32_t device, tc_tensor* out);
#define TC_MESHGRID_IJ 0 /* matrix indexing: out[i] varies along dim i */
#define TC_MESHGRID_XY 1 /* Cartesian: the first two dims swapped */
/** Coordinate grids of count 0-D or 1-D tensors (same dtype and device), as
 * expanded views; writes count handles to outs (cap >= count) and *out_count. */
TC_API int32_t tc_meshgrid(const tc_tensor* tensors, int64_t count, int32_t indexing, tc_tensor* outs,
                           int64_t cap, int64_t* out_count);
#define TC_PAD_CONSTANT 0  /* value outside; negative pads crop */
#define TC_PAD_REFLECT 1   /* mirrored without the edge (pad < size) */
#define TC_PAD_REPLICATE 2 /* the edge repeated */
#define TC_PAD_CIRCULAR 3  /* wrapped around (pad <= size) */
/** torch.nn.functional.pad: pad[0], pad[1] before and after the last dim,
 * pad[2], pad[3] the one before, ... (npad even, npad / 2 <= dims); value for
 * TC_PAD_CONSTANT only. */
TC_API int32_t tc_pad(tc_tensor a, const int64_t* pad, int64_t npad, int32_t mode, double value,
                      tc_tensor* out);
/** A view with dims source[i] moved to destination[i], the others in order. */
TC_API int32_t tc_movedim(tc_tensor a, const int64_t* source, int64_t nsource, const int64_t* destination,
                          int64_t ndestination, tc_tensor* out);
/** Dims start_dim..end_dim merged into one (a view where possible). */
TC_API int32_t tc_flatten(tc_tensor a, int64_t start_dim, int64_t end_dim, tc_tensor* out);
/** Dim dim split into sizes (one may be -1; their product is its size). */
TC_API int32_t tc_unflatten(tc_tensor a, int64_t dim, const int64_t* sizes, int64_t nsizes, tc_tensor* out);
/** a broadcast to shape, a view (-1 keeps a size), like tc_expand. */
TC_API int32_t tc_broadcast_to(tc_tensor a, const int64_t* shape, int64_t ndim, tc_tensor* out);
/** The slices of a along dim, as views (dim removed); handles and *count as
 * tc_split writes them. */
TC_API int32_t tc_unbind(tc_tensor a, int64_t dim, tc_tensor* outs, int64_t cap, int64_t* count);
/** The outer product of 1-D a and b: out[i][j] = a[i] * b[j]. */
TC_API int32_t tc_outer(tc_tensor a, tc_tensor b, tc_tensor* out);
/** The 0-D inner product of 1-D a and b of the same size and dtype. */
TC_API int32_t tc_dot(tc_tensor a, tc_tensor b, tc_tensor* out);
/** torch.einsum: implicit or explicit ("->") output, "..." ellipsis, repeated
 * indices (diagonals), sums over the indices not in the output; operands of
 * one dtype, contracted pairwise from the left (bmm for floating dtypes). */
TC_API int32_t tc_einsum(const char* equation, const tc_tensor* operands, int64_t count, tc_tensor* out);
/** Integers uniform in [low, high) from the default generator, of dtype (its
 * range must hold them); deterministic under tc_manual_seed. */
TC_API int32_t tc_randint(int64_t low, int64_t high, const int64_t* shape, int64_t ndim, int32_t dtype,
                          int32_t device, tc_tensor* out);
/** A random permutation of 0..n-1 from the default generator. */
TC_API int32_t tc_randperm(int64_t n, int32_t dtype, int32_t device, tc_tensor* out);
/** 0/1 samples in probs' (floating) dtype, 1 with probability probs (each in
 * [0, 1]), from the default generator. */
TC_API int32_t tc_bernoulli(tc_tensor probs, tc_tensor* out);
/** 0/1 samples of a's shape and dtype, 1 with probability p, from the default
 * generator. */
TC_API int32_t tc_bernoulli_p(tc_tensor a, double p, tc_tensor* out);

/* In-place ops: change self's data and bump its version counter. other
 * broadcasts to self's shape; the result dtype must be self's. In-place on a
 * leaf that requires grad (with grad mode on) is an autograd error. A self
 * that is read-only (tc_tensor_set_readonly), or whose elements overlap in
 * memory (an expanded view: a stride-0 dim of size > 1, as PyTorch refuses),
 * gives TC_ERR_INVALID_ARGUMENT; so do the initializers and optimizer steps
 * below for such tensors. tc_fill_ checks value as tc_full does. */
/** self += other. */
TC_API int32_t tc_add_(tc_tensor self, tc_tensor other);
/** self -= other. */
TC_API int32_t tc_sub_(tc_tensor self, tc_tensor other);
/** self *= other. */
TC_API int32_t tc_mul_(tc_tensor self, tc_tensor other);
/** self /= other. */
TC_API int32_t tc_div_(tc_tensor self, tc_tensor other);
/** self = 0. */
TC_API int32_t tc_zero_(tc_tensor self);
/** self = value. */
TC_API int32_t tc_fill_(tc_tensor self, double value);
/** self = src (converted to self's dtype). */
TC_API int32_t tc_copy_(tc_tensor self, tc_tensor src);

/* Ops composed of the elementwise ones (autograd records what they are made
 * of; src/ops/binary_ext.cpp). */
/** |a - b| <= atol + rtol * |b| (or a == b; NaNs equal when equal_nan != 0) as a
 * bool tensor, broadcasting; a and b of one dtype; rtol, atol >= 0 (PyTorch's
 * defaults: 1e-5, 1e-8). */
TC_API int32_t tc_isclose(tc_tensor a, tc_tensor b, double rtol, double atol, int32_t equal_nan,
                          tc_tensor* out);
/** start + weight * (end - start), broadcasting; floating tensors of one dtype;
 * differentiable in all three. */
TC_API int32_t tc_lerp(tc_tensor start, tc_tensor end, tc_tensor weight, tc_tensor* out);
/** lerp with a double weight. */
TC_API int32_t tc_lerp_scalar(tc_tensor start, tc_tensor end, double weight, tc_tensor* out);
/** input + value * tensor1 * tensor2, broadcasting (integer tensors need a whole
 * value). */
TC_API int32_t tc_addcmul(tc_tensor input, tc_tensor tensor1, tc_tensor tensor2, double value,
                          tc_tensor* out);
/** input + value * tensor1 / tensor2, broadcasting (tensor1 or tensor2
 * floating: integer division is refused, as PyTorch). */
TC_API int32_t tc_addcdiv(tc_tensor input, tc_tensor tensor1, tc_tensor tensor2, double value,
                          tc_tensor* out);
/** input where input > 0, else weight * input: weight (input's floating dtype)
 * has one element, or one per channel (input's dim 1). */
TC_API int32_t tc_prelu(tc_tensor input, tc_tensor weight, tc_tensor* out);
/** The gated linear unit: the first half of input along dim times the sigmoid of
 * the second half (dim's size even; floating). */
TC_API int32_t tc_glu(tc_tensor input, int64_t dim, tc_tensor* out);

/* Recurrent layers: torch.nn.RNN / LSTM / GRU over a whole sequence. */
#define TC_RNN_TANH 0
#define TC_RNN_RELU 1
#define TC_RNN_LSTM 2
#define TC_RNN_GRU 3
/** The settings of tc_rnn (size first: set it to sizeof(tc_rnn_options)). */
typedef struct tc_rnn_options {
  uint32_t size;
  int32_t mode;          /* TC_RNN_* */
  int64_t num_layers;    /* >= 1 */
  int32_t has_biases;    /* weights hold b_ih, b_hh after w_ih, w_hh */
  int32_t bidirectional; /* a second, reversed direction per layer */
  int32_t batch_first;   /* input and output are (B, T, ...) */
  int32_t train;         /* dropout applies only while training */
  double dropout;        /* between layers, in [0, 1] */
} tc_rnn_options;
/** A multi-layer Elman RNN (tanh or relu), LSTM or GRU over input (T, B, I),
 * (B, T, I) with batch_first, or unbatched (T, I), as torch.nn's layers:
 * weights are PyTorch's _flat_weights, for each layer and direction w_ih
 * (G*H, I_l), w_hh (G*H, H_out), then b_ih, b_hh (G*H) with has_biases, then
 * an LSTM's projection w_hr (H_out, H) if it has one (G = 1, 4 or 3 gates in
 * PyTorch's order: LSTM i, f, g, o; GRU r, z, n). hx (D*L, B, H_out) and an
 * LSTM's cx (D*L, B, H) may be NULL (zeros). out gets the last layer's states
 * (T, B, D*H_out); h_n (and, for an LSTM, c_n; else *c_n = NULL) each layer's
 * final ones. Composed of differentiable ops: the gradient runs through time. */
TC_API int32_t tc_rnn(tc_tensor input, tc_tensor hx, tc_tensor cx, const tc_tensor* weights,
                      int64_t num_weights, const tc_rnn_options* options, tc_tensor* out, tc_tensor* h_n,
                      tc_tensor* c_n);

/* Linear algebra (torch.linalg), on LAPACK (LAPACKE) for float32/float64 CPU
 * tensors: matrices are the last two dims, leading dims are batches (broadcast
 * between the operands of a solve). On CUDA tensors they are
 * TC_ERR_NOT_IMPLEMENTED; in a build without LAPACK (tc_get_flag
 * "has_lapack" = 0) TC_ERR_NOT_IMPLEMENTED too. infos are int32 tensors of the
 * batch shape holding LAPACK's code per matrix; with check_errors a non-zero
 * one is TC_ERR_INVALID_ARGUMENT with PyTorch's message naming the batch
 * element and the pivot or minor. Singular and non-positive-definite inputs
 * never fail otherwise; NaN inputs give NaN results (svd/eigh: an error). */
/** LU factorization with partial pivoting: packed LU, int32 1-based pivots,
 * info (pivot must be 1). */
TC_API int32_t tc_linalg_lu_factor_ex(tc_tensor a, int32_t pivot, int32_t check_errors, tc_tensor* LU,
                                      tc_tensor* pivots, tc_tensor* info);
/** A = P L U (pivot must be 1). */
TC_API int32_t tc_linalg_lu(tc_tensor a, int32_t pivot, tc_tensor* P, tc_tensor* L, tc_tensor* U);
/** Solves A X = B (X A = B when left = 0; A^T with adjoint) from
 * tc_linalg_lu_factor_ex's factors. */
TC_API int32_t tc_linalg_lu_solve(tc_tensor LU, tc_tensor pivots, tc_tensor B, int32_t left, int32_t adjoint,
                                  tc_tensor* out);
/** The inverse of square matrices, and info (> 0: singular). */
TC_API int32_t tc_linalg_inv_ex(tc_tensor a, int32_t check_errors, tc_tensor* inverse, tc_tensor* info);
/** The determinant of square matrices (its gradient handles singular
 * matrices). */
TC_API int32_t tc_linalg_det(tc_tensor a, tc_tensor* out);
/** The sign and the log of the absolute value of the determinant. */
TC_API int32_t tc_linalg_slogdet(tc_tensor a, tc_tensor* sign, tc_tensor* logabsdet);
/** Solves A X = B (X A = B when left = 0); B may be a (batch of) vector(s) as
 * in PyTorch. */
TC_API int32_t tc_linalg_solve_ex(tc_tensor A, tc_tensor B, int32_t left, int32_t check_errors,
                                  tc_tensor* result, tc_tensor* info);
/** Solves A X = B (X A = B when left = 0) for triangular A (only that
 * triangle is read). */
TC_API int32_t tc_linalg_solve_triangular(tc_tensor A, tc_tensor B, int32_t upper, int32_t left,
                                          int32_t unitriangular, tc_tensor* out);
/** The Cholesky factor (lower, or upper) of symmetric positive-definite
 * matrices, and info. */
TC_API int32_t tc_linalg_cholesky_ex(tc_tensor a, int32_t upper, int32_t check_errors, tc_tensor* L,
                                     tc_tensor* info);
/** QR decomposition; mode 0: reduced, 1: complete, 2: R only (Q is then an
 * empty tensor). */
TC_API int32_t tc_linalg_qr(tc_tensor a, int32_t mode, tc_tensor* Q, tc_tensor* R);
/** Singular value decomposition A = U diag(S) Vh (S descending). */
TC_API int32_t tc_linalg_svd(tc_tensor a, int32_t full_matrices, tc_tensor* U, tc_tensor* S, tc_tensor* Vh);
/** The singular values, descending. */
TC_API int32_t tc_linalg_svdvals(tc_tensor a, tc_tensor* out);
/** Eigenvalues (ascending) and eigenvectors of symmetric matrices (upper:
 * read the upper triangle). */
TC_API int32_t tc_linalg_eigh(tc_tensor a, int32_t upper, tc_tensor* eigenvalues, tc_tensor* eigenvectors);
/** Eigenvalues (ascending) of symmetric matrices. */
TC_API int32_t tc_linalg_eigvalsh(tc_tensor a, int32_t upper, tc_tensor* out);
/** The first n columns of H_1 ... H_k (H_i = I - tau_i v_i v_i^T, v_i below
 * A's diagonal; orgqr), A [..., m, n], m >= n >= k. */
TC_API int32_t tc_linalg_householder_product(tc_tensor A, tc_tensor tau, tc_tensor* out);
/** Eigenvalues [..., n, 2] and right eigenvectors [..., n, n, 2] (columns;
 * empty without compute_v) of general matrices as (real, imaginary) pairs
 * (geev). Differentiable as PyTorch 1.13's linalg_eig_backward (the real
 * part for real inputs); a loss that depends on the eigenvectors' phase is
 * TC_ERR_INVALID_ARGUMENT, as PyTorch raises. */
TC_API int32_t tc_linalg_eig(tc_tensor a, int32_t compute_v, tc_tensor* eigenvalues, tc_tensor* eigenvectors);
/** Least squares min ||A X - B|| by driver 0 gels, 1 gelsy, 2 gelsd, 3 gelss
 * (rcond < 0: eps * max(m, n)); the results as torch.linalg.lstsq fills them
 * for the driver. */
TC_API int32_t tc_linalg_lstsq(tc_tensor A, tc_tensor B, double rcond, int32_t driver, tc_tensor* solution,
                               tc_tensor* residuals, tc_tensor* rank, tc_tensor* singular_values);

/* Complex numbers: complex64/complex128 tensors (TC_COMPLEX64), interleaved
 * (real, imaginary) pairs (src/ops/complex.cpp). Gradients follow PyTorch's
 * convention: for a real loss L and z = x + iy, z's gradient is dL/dx + i dL/dy. */
/** A complex tensor's real view: shape [..., 2] (real, imaginary) of its part
 * dtype, sharing its storage. */
TC_API int32_t tc_view_as_real(tc_tensor a, tc_tensor* out);
/** A float32/float64 tensor [..., 2] (last stride 1, other strides even) seen
 * as complex, sharing its storage. */
TC_API int32_t tc_view_as_complex(tc_tensor a, tc_tensor* out);
/** The complex tensor real + i imag (float32 parts: complex64; float64:
 * complex128; broadcast). */
TC_API int32_t tc_complex(tc_tensor real, tc_tensor imag, tc_tensor* out);
/** The complex tensor abs (cos(angle) + i sin(angle)). */
TC_API int32_t tc_polar(tc_tensor abs, tc_tensor angle, tc_tensor* out);
/** The real part: a view of a complex tensor; a real tensor itself. */
TC_API int32_t tc_real(tc_tensor a, tc_tensor* out);
/** The imaginary part of a complex tensor, a view (a real tensor:
 * TC_ERR_DTYPE). */
TC_API int32_t tc_imag(tc_tensor a, tc_tensor* out);
/** The complex conjugate, a new tensor (a real tensor: itself). */
TC_API int32_t tc_conj(tc_tensor a, tc_tensor* out);
/** The argument atan2(imag, real) of complex numbers; of real ones pi for
 * negative values, else 0. */
TC_API int32_t tc_angle(tc_tensor a, tc_tensor* out);

/* Discrete Fourier transforms along one dim, torch.fft's building blocks
 * (src/ops/fft.cpp). n: the signal length (-1: a's size in dim; a is cut or
 * zero-padded to it). normalization: TC_FFT_NORM_NONE, TC_FFT_NORM_SQRT_N
 * (times 1/sqrt(n)) or TC_FFT_NORM_N (times 1/n). Real and integer inputs are
 * promoted (to complex; integers through the default float dtype). */
#define TC_FFT_NORM_NONE 0
#define TC_FFT_NORM_SQRT_N 1
#define TC_FFT_NORM_N 2
/** The complex DFT along dim: exponent -1 when forward, else +1 (unnormalized
 * unless normalization says). */
TC_API int32_t tc_fft_c2c(tc_tensor a, int64_t dim, int64_t n, int64_t normalization, int32_t forward,
                          tc_tensor* out);
/** The DFT (exponent -1) of real a along dim; onesided: only its first n/2 +
 * 1 entries. */
TC_API int32_t tc_fft_r2c(tc_tensor a, int64_t dim, int64_t n, int64_t normalization, int32_t onesided,
                          tc_tensor* out);
/** The real inverse DFT (exponent +1) of length n (-1: 2 (size - 1)) of a
 * Hermitian signal given by its first n/2 + 1 entries along dim. */
TC_API int32_t tc_fft_c2r(tc_tensor a, int64_t dim, int64_t n, int64_t normalization, tc_tensor* out);

/* END GENERATED OPS */

/* ======================================================================== */
/* Autograd                                                                  */
/* ======================================================================== */

/** Marks a leaf tensor as requiring grad (floating dtypes only). */
TC_API int32_t tc_tensor_set_requires_grad(tc_tensor t, int32_t requires_grad);
TC_API int32_t tc_tensor_requires_grad(tc_tensor t, int32_t* out);
/** 1 for tensors made by the user (not by a recorded op). */
TC_API int32_t tc_tensor_is_leaf(tc_tensor t, int32_t* out);
/** A new handle to the accumulated gradient, or *out = NULL if there is none. */
TC_API int32_t tc_tensor_grad(tc_tensor t, tc_tensor* out);
/** Sets the gradient to None (like optimizer.zero_grad(set_to_none=True)). */
TC_API int32_t tc_tensor_clear_grad(tc_tensor t);
/** Makes grad t's gradient (PyTorch's `t.grad = grad`): the same tensor, not
 * a copy, so later backward passes accumulate into it in place (how DDP's
 * gradient_as_bucket_view makes .grad a view of its bucket). grad must
 * match t's shape, dtype and device, be writable, not be t itself, not
 * require grad and have no .grad of its own (no reference cycles). Unlike
 * PyTorch, grad must not share memory with t (a view of t, or t's memory
 * through DLPack or tc_from_blob): an optimizer step would read a gradient
 * it is overwriting, and such a grad can keep t alive from its storage's
 * deleter, a cycle that would leak both; assign a copy instead. */
TC_API int32_t tc_tensor_set_grad(tc_tensor t, tc_tensor grad);
/** Makes t a tensor over data's elements (PyTorch's `t.data = data`): t takes
 * data's storage, offset, shape, strides, dtype and device, and keeps its own
 * identity: every handle to t, its requires_grad, hooks, and the optimizers
 * and graphs holding it see the new data. This is how a module moves or
 * converts its parameters in place (Module.to) without breaking tied weights
 * or an optimizer made before. data itself is unchanged (t and data then share
 * memory); data == t does nothing. A tensor that requires grad needs floating
 * data (TC_ERR_DTYPE, as PyTorch). Unlike PyTorch:
 *  - t's .grad is dropped when it no longer matches t's new shape, dtype or
 *    device (PyTorch keeps it and fails at the next backward); set a converted
 *    grad afterwards if it should be kept (tc_tensor_set_grad);
 *  - a graph recorded before that saved t for its backward refuses to use it
 *    (TC_ERR_AUTOGRAD at backward, like a saved tensor modified in place), and
 *    a gradient of t's old shape or device reaching t is refused the same way;
 *  - data must not be another tensor's view of t's own memory (through DLPack
 *    or tc_from_blob: its storage's deleter would keep t alive from inside t,
 *    a cycle that leaks both): TC_ERR_INVALID_ARGUMENT; a view of t made by
 *    libtc (same storage) is fine.
 * Not thread-safe for t: no other thread may use t during the call (it
 * replaces t's metadata, not only its values; PyTorch's set_data is the same). */
TC_API int32_t tc_tensor_set_data(tc_tensor t, tc_tensor data);
/** Keeps .grad for a non-leaf tensor during backward. */
TC_API int32_t tc_tensor_retain_grad(tc_tensor t);
/** The name of the node that made t ("AddBackward0"-like: "AddBackward"), or
 * "" for a leaf. */
TC_API int32_t tc_tensor_grad_fn_name(tc_tensor t, char* buf, int64_t cap, int64_t* needed);
/** A view of t's data cut from the graph (requires_grad = 0). */
TC_API int32_t tc_detach(tc_tensor t, tc_tensor* out);
/** Backpropagates from root. grad may be NULL for a one-element root; else it
 * must match root's shape and dtype. retain_graph = 0 frees the graph's saved
 * tensors, so a second backward through it is an autograd error. */
TC_API int32_t tc_backward(tc_tensor root, tc_tensor grad, int32_t retain_graph);
/** Options of tc_autograd_grad. Set .size = sizeof(tc_grad_options); options
 * may be NULL (retain_graph -1, the others 0).
 *   retain_graph       1: keep the graph's saved tensors for another pass;
 *                      0: free them; < 0: the same as create_graph
 *   create_graph       1: the pass records a graph of the gradients it
 *                      computes (grad mode on while the backward formulas
 *                      run), so they can be differentiated again. A node
 *                      whose formula is not differentiable gives results
 *                      whose differentiation fails with TC_ERR_NOT_IMPLEMENTED
 *                      ("the derivative of 'X_backward' is not implemented")
 *   allow_unused       1: an input the outputs do not depend on gets NULL;
 *                      0: it is an error (TC_ERR_AUTOGRAD)
 *   materialize_grads  1: an unused input gets zeros instead of NULL
 *                      (implies allow_unused) */
typedef struct tc_grad_options {
  uint32_t size;
  int32_t retain_graph;
  int32_t create_graph;
  int32_t allow_unused;
  int32_t materialize_grads;
} tc_grad_options;
/** torch.autograd.grad: the gradients of sum(outputs[i] * grad_outputs[i])
 * with respect to inputs, written to out_grads (n_inputs new handles, NULL
 * for an unused input when allowed), never accumulated into any .grad (also
 * not the leaves met on the way; retained non-leaf grads and leaves' .grad
 * stay as they were). grad_outputs may be NULL or hold NULL entries: ones,
 * for a one-element output only; else each must match its output's shape
 * (TC_ERR_SHAPE), dtype and device. Every output must require grad, every
 * input too ("One of the differentiated Tensors does not require grad",
 * TC_ERR_AUTOGRAD); n_outputs, n_inputs >= 1. A graph whose saved tensors an
 * earlier pass freed is TC_ERR_AUTOGRAD. Out-params are untouched on failure.
 * Only the nodes that lead to an input run. */
TC_API int32_t tc_autograd_grad(const tc_tensor* outputs, int64_t n_outputs, const tc_tensor* grad_outputs,
                                const tc_tensor* inputs, int64_t n_inputs, const tc_grad_options* options,
                                tc_tensor* out_grads);
/** Options of tc_backward_ex. Set .size = sizeof(tc_backward_options);
 * options may be NULL (retain_graph -1, create_graph 0, inputs NULL).
 *   retain_graph  as tc_grad_options' (< 0: the same as create_graph)
 *   create_graph  as tc_grad_options' (the .grad accumulated then keeps its
 *                 graph, out of place, as PyTorch's)
 *   inputs        may be NULL: accumulate only into these tensors' .grad
 *                 (n_inputs >= 1 of them, leaves or not, each requiring
 *                 grad), as torch's backward(inputs=...); only the nodes
 *                 that lead to them run */
typedef struct tc_backward_options {
  uint32_t size;
  int32_t retain_graph;
  int32_t create_graph;
  const tc_tensor* inputs;
  int64_t n_inputs;
} tc_backward_options;
/** torch.autograd.backward: backpropagates from n_roots >= 1 roots at once
 * (grads may be NULL or hold NULL entries: ones, for one-element roots only)
 * into the leaves' .grad, or only into options->inputs. Checks as
 * tc_autograd_grad's; tc_backward is this with one root and default options. */
TC_API int32_t tc_backward_ex(const tc_tensor* roots, int64_t n_roots, const tc_tensor* grads,
                              const tc_backward_options* options);
/** Sets this thread's grad mode (0/1) and gives the previous one, so a
 * no-grad scope is: tc_set_grad_enabled(0, &prev); ...;
 * tc_set_grad_enabled(prev, NULL). previous may be NULL. */
TC_API int32_t tc_set_grad_enabled(int32_t enabled, int32_t* previous);

/* ======================================================================== */
/* Custom autograd functions, tensor hooks and the graph                     */
/* ======================================================================== */

/** The most inputs, outputs and saved tensors of one custom function. */
#define TC_FUNCTION_MAX_INPUTS 64
#define TC_FUNCTION_MAX_OUTPUTS 16
#define TC_FUNCTION_MAX_SAVED 64

/** A custom function's forward, run by tc_function_apply with grad mode off.
 * inputs (n_inputs handles, valid during the call) are the caller's tensors;
 * needs_input_grad[i] is 1 when input i will need a gradient. It writes up to
 * TC_FUNCTION_MAX_OUTPUTS new handles to outputs and their number to
 * *n_outputs, and the tensors backward will need (at most
 * TC_FUNCTION_MAX_SAVED new handles; inputs or outputs included, retained
 * first) to saved, their number to *n_saved (both start at 0). Every handle
 * it writes belongs to libtc, also when it fails. */
typedef int32_t (*tc_function_forward)(void* context, const tc_tensor* inputs, int64_t n_inputs,
                                       const int32_t* needs_input_grad, tc_tensor* outputs,
                                       int64_t* n_outputs, tc_tensor* saved, int64_t* n_saved);
/** A custom function's backward, run by tc_backward (grad mode off): saved are
 * the tensors forward saved (checked: one modified in place since is an
 * autograd error before the call), grad_outputs the gradient of each output
 * (zeros where none flows). It writes a new handle (or leaves NULL) to
 * grad_inputs[i] for each input i, of that input's shape and dtype; a
 * gradient for an input with needs_input_grad[i] = 0 is ignored. */
typedef int32_t (*tc_function_backward)(void* context, const tc_tensor* saved, int64_t n_saved,
                                        const tc_tensor* grad_outputs, int64_t n_outputs,
                                        const int32_t* needs_input_grad, tc_tensor* grad_inputs,
                                        int64_t n_inputs);

/** A custom function (torch.autograd.Function). Set .size =
 * sizeof(tc_function_def). */
typedef struct tc_function_def {
  uint32_t size;
  uint32_t reserved0;            /**< 0 */
  const char* name;              /**< its node's name (copied; NULL: "CustomFunctionBackward") */
  tc_function_forward forward;   /**< required */
  tc_function_backward backward; /**< NULL: the outputs are not differentiable */
  void* context;                 /**< passed to both */
  /** May be NULL. Called once as release(NULL, context) when libtc no longer
   * needs context: when the node recorded for the call dies (with its graph),
   * or before tc_function_apply returns when it records none or fails. */
  tc_deleter release;
} tc_function_def;

/** Runs def->forward over inputs (n_inputs in [0, TC_FUNCTION_MAX_INPUTS]) and
 * writes the outputs' handles to outputs (cap >= their number, else
 * TC_ERR_INVALID_ARGUMENT and no handle) and their number to *count. When an
 * input requires grad (grad mode on) and def->backward is set, the floating
 * outputs get a node named def->name whose backward runs def->backward.
 * Outputs are new tensors over the data forward made (an input returned as
 * an output comes back as a view of it). */
TC_API int32_t tc_function_apply(const tc_function_def* def, const tc_tensor* inputs, int64_t n_inputs,
                                 tc_tensor* outputs, int64_t cap, int64_t* count);

/** A registered hook, removable once with tc_hook_remove (a checked handle
 * like the others; removing twice gives TC_ERR_INVALID_HANDLE). */
typedef struct tc_hook_s* tc_hook;
/** A gradient hook: called with t's gradient (a handle valid during the call)
 * each time one is computed for t. To replace the gradient, write a new
 * handle of the same shape, dtype and device to *replacement (it starts
 * NULL: keep the gradient). */
typedef int32_t (*tc_grad_hook)(void* context, tc_tensor grad, tc_tensor* replacement);
/** A post-accumulate-grad hook: called with the leaf (a handle valid during
 * the call) after its .grad was accumulated. */
typedef int32_t (*tc_tensor_hook)(void* context, tc_tensor tensor);

/** Registers hook on t (which must require grad), like torch's
 * Tensor.register_hook: hooks run in registration order, each on the
 * previous one's result, before the gradient reaches a leaf's .grad or a
 * retained .grad and before it flows on. release (may be NULL) is called
 * once as release(NULL, context): when the hook is removed or t's autograd
 * metadata dies (its graph, or the leaf), or before returning if this call
 * fails. */
TC_API int32_t tc_tensor_register_hook(tc_tensor t, tc_grad_hook hook, void* context, tc_deleter release,
                                       tc_hook* out);
/** Registers hook on a leaf that requires grad, run after each accumulation
 * into its .grad (Tensor.register_post_accumulate_grad_hook: where a
 * data-parallel trainer starts the all-reduce of that gradient). Order and
 * release as tc_tensor_register_hook. */
TC_API int32_t tc_tensor_register_post_accumulate_grad_hook(tc_tensor t, tc_tensor_hook hook, void* context,
                                                            tc_deleter release, tc_hook* out);
/** Removes the hook and frees its handle. A hook removed while it runs
 * finishes that call. */
TC_API int32_t tc_hook_remove(tc_hook h);

/* ---- Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks) ---- */
/** A pack hook: called (grad mode off) with each tensor an op saves for
 * backward (a handle valid during the call; the op's own saved tensor, which
 * it must not modify in place: that fails the op with TC_ERR_AUTOGRAD). It
 * writes to *token a value of its choice that stands for the tensor, kept in
 * the graph instead of it; the unpack hook gets the token back. */
typedef int32_t (*tc_saved_tensor_pack_hook)(void* context, tc_tensor tensor, uint64_t* token);
/** An unpack hook: called when backward needs a saved tensor, with the token
 * its pack hook gave. It writes a new handle to *out (it starts NULL; leaving
 * it NULL fails the backward with TC_ERR_CALLBACK naming the node). Any shape,
 * dtype and device is accepted, as in PyTorch; the tensor takes the saved
 * tensor's place in the graph (its grad_fn, or its leaf's accumulation). */
typedef int32_t (*tc_saved_tensor_unpack_hook)(void* context, uint64_t token, tc_tensor* out);
/** A token's release: called exactly once per token a pack hook gave, when
 * the graph no longer needs it (its node died, or a backward without
 * retain_graph freed the saved tensors). It may not fail. */
typedef void (*tc_saved_tensor_free_hook)(void* context, uint64_t token);

/** Pushes a pair of saved-tensor hooks on the calling thread's stack, as
 * torch.autograd.graph.saved_tensors_hooks' __enter__: every tensor an op
 * running on this thread saves for backward while the pair is on top goes
 * through pack (no-grad ops save nothing); the pair stays with the graph
 * whatever is pushed or popped later. Nested pushes: only the top pair is
 * used. pack and unpack are required, free_token may be NULL. release (may
 * be NULL) is called once as release(NULL, context) when the pair is popped
 * and no graph holds a token of it any more, or before returning if this
 * call fails. A failing pack fails the op that saved (its status, as
 * callbacks' failures do); a failing unpack fails the backward.
 *
 * Which tensors an op saves, and so how often pack runs, is each backward
 * formula's choice, as in PyTorch (where it changes between versions; a hook
 * should not count on it). libtc saves what torch 1.13 saves for linear,
 * matmul, conv, the norms, the activations, softmax and most elementwise
 * ops; it differs where its formulas or fused kernels differ: a product
 * saves both operands even when one does not require grad; cross_entropy
 * and nll_loss save their own intermediates (2 and 1 tensors, torch 4);
 * embedding, gather, max_pool2d and avg_pool2d save one tensor fewer; var,
 * std, prod, pow and binary_cross_entropy_with_logits one more or one fewer. Every tensor the
 * graph keeps for backward goes through pack all the same (what
 * save_on_cpu-style offloading needs). */
TC_API int32_t tc_saved_tensors_hooks_push(tc_saved_tensor_pack_hook pack, tc_saved_tensor_unpack_hook unpack,
                                           tc_saved_tensor_free_hook free_token, void* context,
                                           tc_deleter release);
/** Pops the calling thread's top pair (__exit__): TC_ERR_INVALID_ARGUMENT
 * when its stack is empty. */
TC_API int32_t tc_saved_tensors_hooks_pop(void);
/** How many pairs the calling thread's stack holds. */
TC_API int32_t tc_saved_tensors_hooks_depth(int64_t* out);
/* ---- end of saved-tensor hooks ---- */

/** A node of the autograd graph (PyTorch's grad_fn), a checked handle: free
 * it with tc_node_free. A handle keeps its node (and what it saved) alive. */
typedef struct tc_node_s* tc_node;
/** The node that made t, or *out = NULL for a leaf. */
TC_API int32_t tc_tensor_grad_fn(tc_tensor t, tc_node* out);
/** The node's name ("MulBackward", "AccumulateGrad"). */
TC_API int32_t tc_node_name(tc_node node, char* buf, int64_t cap, int64_t* needed);
/** The number of the node's inputs (its next functions). */
TC_API int32_t tc_node_next_count(tc_node node, int64_t* out);
/** Input index's edge: the node its gradient goes to (*next = NULL when that
 * input needs none; a leaf's is an AccumulateGrad node) and which output of
 * that node it is (*input_nr). Both out-params are required. */
TC_API int32_t tc_node_next(tc_node node, int64_t index, tc_node* next, int64_t* input_nr);
/** 1 when a and b are handles of the same node. */
TC_API int32_t tc_node_same(tc_node a, tc_node b, int32_t* out);
TC_API int32_t tc_node_free(tc_node node);

/* ---- Anomaly mode (torch.autograd.detect_anomaly / set_detect_anomaly) ---- */
/** Anomaly mode's forward-trace hook: while anomaly mode is on it is called
 * (on the recording thread) as each backward node is recorded, and returns a
 * NUL-terminated text, e.g. the traceback of the forward call, that libtc
 * copies at once (NULL: none). It must not call libtc. */
typedef const char* (*tc_anomaly_trace_hook)(void* context);
/** Sets anomaly mode, for the whole process (PyTorch's is global too):
 * enabled and check_nan are 0 or 1. While enabled and check_nan, backward
 * (every pass: tc_backward and the others) fails with TC_ERR_AUTOGRAD when
 * a node returns a gradient holding a NaN, with PyTorch's message
 * "Function 'MulBackward0' returned nan values in its 0th output." followed,
 * when trace_hook gave one as that node was recorded, by the forward trace.
 * trace_hook (may be NULL: no traces) and context replace the previous ones;
 * libtc never frees context, which must stay valid while the hook is set.
 * Turning the mode off drops the traces kept. Checking costs a reduction and
 * a read per gradient: a debugging mode. */
TC_API int32_t tc_set_anomaly_mode(int32_t enabled, int32_t check_nan, tc_anomaly_trace_hook trace_hook,
                                   void* context);
/** The current anomaly mode: *enabled and *check_nan (0 or 1; both required). */
TC_API int32_t tc_anomaly_mode(int32_t* enabled, int32_t* check_nan);
/* ---- end of anomaly mode ---- */

/* ======================================================================== */
/* Custom op libraries (torch.ops.load_library)                              */
/* ======================================================================== */

/** An op library is a shared library (not libtc) that exports one entry point,
 *   int32_t tc_op_library_init(const tc_op_registrar* reg, void* reg_ctx);
 * (TC_OP_LIBRARY_ENTRY names it; tc_op_library_init_fn is its type).
 * tc_load_library calls it once; it registers the library's ops by calling
 * reg->register_op(reg_ctx, &def) for each and returns TC_OK (or a failure:
 * a status as callbacks return them, with tc_set_last_error's message).
 * Registration is transactional: the library's ops become callable only
 * when the entry point returns TC_OK and every register_op succeeded; else
 * none of them does, the library is closed and tc_load_library fails with
 * the first failure's message (a register_op that failed fails the load
 * even when the entry point ignores its status). reg and reg_ctx are valid
 * only during the entry point: register_op called afterwards (or with
 * another reg_ctx) fails with TC_ERR_INVALID_ARGUMENT and registers nothing.
 *
 * An op's schema is a string like
 *   "myops::scaled_square(Tensor x, float alpha) -> Tensor"
 * namespace::name (identifiers: [A-Za-z_][A-Za-z0-9_]*), then at most
 * TC_FUNCTION_MAX_INPUTS arguments "Type name" with Type one of Tensor,
 * float, int (distinct names), then "-> Tensor" or "-> (Tensor, ...)" with 1
 * to TC_FUNCTION_MAX_OUTPUTS tensors. libtc parses and checks it
 * (TC_ERR_INVALID_ARGUMENT with the position of the problem) and keeps it
 * in a canonical form (single spaces, as above).
 *
 * Calls pass the Tensor arguments in schema order in one array and the
 * float and int arguments, in schema order, as doubles in another (an int
 * argument must be an integer of magnitude at most 2^53). */
#define TC_OP_LIBRARY_ABI_VERSION 1
#define TC_OP_LIBRARY_ENTRY "tc_op_library_init"
/** Put before the entry point's definition so that the library exports it. */
#define TC_OP_LIBRARY_EXPORT TC_API

/** An op's forward, run by tc_op_call with grad mode off: as
 * tc_function_forward (outputs: exactly the schema's number of tensors;
 * saved: what backward needs), plus the op's scalar arguments. */
typedef int32_t (*tc_op_forward)(void* context, const tc_tensor* inputs, int64_t n_inputs,
                                 const double* scalars, int64_t n_scalars, const int32_t* needs_input_grad,
                                 tc_tensor* outputs, int64_t* n_outputs, tc_tensor* saved, int64_t* n_saved);
/** An op's backward, run by tc_backward: as tc_function_backward, plus the
 * scalar arguments of the call that recorded it. */
typedef int32_t (*tc_op_backward)(void* context, const double* scalars, int64_t n_scalars,
                                  const tc_tensor* saved, int64_t n_saved, const tc_tensor* grad_outputs,
                                  int64_t n_outputs, const int32_t* needs_input_grad, tc_tensor* grad_inputs,
                                  int64_t n_inputs);

/** One op to register. Set .size = sizeof(tc_op_def) and .abi_version =
 * TC_OP_LIBRARY_ABI_VERSION (the version the library was built against: a
 * library built for another version is refused). */
typedef struct tc_op_def {
  uint32_t size;
  int32_t abi_version;     /**< TC_OP_LIBRARY_ABI_VERSION */
  const char* schema;      /**< copied */
  tc_op_forward forward;   /**< required */
  tc_op_backward backward; /**< NULL: the outputs are not differentiable */
  void* context;           /**< passed to both; must live as long as the library */
} tc_op_def;

/** Registers one op (during the entry point only); returns a status and
 * copies what it needs from def. */
typedef int32_t (*tc_op_register_fn)(void* reg_ctx, const tc_op_def* def);

/** What libtc passes to the entry point. .size = sizeof(tc_op_registrar) of
 * the libtc loading the library; .abi_version its TC_OP_LIBRARY_ABI_VERSION. */
typedef struct tc_op_registrar {
  uint32_t size;
  int32_t abi_version;
  tc_op_register_fn register_op;
} tc_op_registrar;

typedef int32_t (*tc_op_library_init_fn)(const tc_op_registrar* reg, void* reg_ctx);

/** A loaded op library and a registered op: checked handles. */
typedef struct tc_library_s* tc_library;
typedef struct tc_op_s* tc_op;

/** Opens the shared library at path (dlopen, RTLD_NOW | RTLD_LOCAL) and
 * registers its ops as described above. Failures (the library unchanged
 * afterwards, none of its ops registered): a file that cannot be opened or
 * is not a shared library, a missing entry point, an op library ABI version
 * other than libtc's, a bad schema, an op name already registered (by this
 * library or another), an entry point that fails: TC_ERR_IO for the first
 * two, TC_ERR_INVALID_ARGUMENT for the next three, the entry point's status
 * for the last. Loading a library that is already loaded (the same file, as
 * the dynamic loader identifies it) runs nothing and gives another handle to
 * it. */
TC_API int32_t tc_load_library(const char* path, tc_library* out);
/** Frees one handle of a library. Freeing its last handle unloads it: its
 * ops are unregistered (tc_op_find fails for them from then on) and the
 * shared object is closed once no op handle and no autograd node refers to
 * it any more (an op handle keeps working until freed). The last tc_shutdown
 * unloads every library. */
TC_API int32_t tc_library_unload(tc_library lib);
/** The path the library was loaded from, copied out. */
TC_API int32_t tc_library_path(tc_library lib, char* buf, int64_t cap, int64_t* needed);

/** The number of registered ops, and the full name ("myops::scaled_square")
 * of the op at index (0 .. count-1, sorted by name; TC_ERR_INDEX outside). */
TC_API int32_t tc_op_count(int64_t* out);
TC_API int32_t tc_op_name_at(int64_t index, char* buf, int64_t cap, int64_t* needed);
/** A handle to the registered op of that full name; an unknown name gives
 * TC_ERR_INDEX. The handle keeps the op (and its library) alive. */
TC_API int32_t tc_op_find(const char* name, tc_op* out);
TC_API int32_t tc_op_free(tc_op op);
/** The op's canonical schema, and the path of its library, copied out. */
TC_API int32_t tc_op_schema(tc_op op, char* buf, int64_t cap, int64_t* needed);
TC_API int32_t tc_op_library_path(tc_op op, char* buf, int64_t cap, int64_t* needed);
/** Calls the op: n_inputs tensors and n_scalars scalars, exactly as many as
 * its schema has (TC_ERR_INVALID_ARGUMENT otherwise), outputs as
 * tc_function_apply (cap >= the schema's number of outputs). When an input
 * requires grad (grad mode on) and the op has a backward, the floating
 * outputs get a node named "<namespace>::<name>Backward" that runs it. A
 * failing forward fails the call (tc.h's rules for callbacks), with no
 * output. */
TC_API int32_t tc_op_call(tc_op op, const tc_tensor* inputs, int64_t n_inputs, const double* scalars,
                          int64_t n_scalars, tc_tensor* outputs, int64_t cap, int64_t* count);
/** tc_op_call by full name. */
TC_API int32_t tc_op_call_by_name(const char* name, const tc_tensor* inputs, int64_t n_inputs,
                                  const double* scalars, int64_t n_scalars, tc_tensor* outputs, int64_t cap,
                                  int64_t* count);

/* ======================================================================== */
/* Initializers (in place, from the default generator, never recorded)       */
/* ======================================================================== */

TC_API int32_t tc_uniform_(tc_tensor t, double low, double high);
TC_API int32_t tc_normal_(tc_tensor t, double mean, double std);
/** torch.nn.init.kaiming_uniform_(t, a, mode='fan_in', nonlinearity='leaky_relu'). */
TC_API int32_t tc_kaiming_uniform_(tc_tensor t, double a);
/** torch.nn.init.xavier_uniform_(t, gain). */
TC_API int32_t tc_xavier_uniform_(tc_tensor t, double gain);

/* ======================================================================== */
/* Tensor dicts and safetensors files                                        */
/* ======================================================================== */

/** An opaque, checked handle to a named collection of tensors: an ordered map
 * name -> tensor (insertion order; setting an existing name replaces its
 * tensor in place) plus a metadata map string -> string (sorted by key). A
 * dict holds its own reference to each tensor. Names and metadata are
 * NUL-terminated UTF-8 strings; "__metadata__" is not a valid tensor name.
 * A dict may be used from several threads (its bookkeeping is locked). */
typedef struct tc_tensor_dict_s* tc_tensor_dict;

TC_API int32_t tc_tensor_dict_create(tc_tensor_dict* out);
/** Frees one handle; the tensors live on while other handles hold them. */
TC_API int32_t tc_tensor_dict_free(tc_tensor_dict dict);
/** Stores t (a new reference) under name. */
TC_API int32_t tc_tensor_dict_set(tc_tensor_dict dict, const char* name, tc_tensor t);
/** A new handle to the tensor under name (the same tensor, not a copy); a
 * missing name gives TC_ERR_INDEX. */
TC_API int32_t tc_tensor_dict_get(tc_tensor_dict dict, const char* name, tc_tensor* out);
/** 1 when name is in the dict, else 0. */
TC_API int32_t tc_tensor_dict_contains(tc_tensor_dict dict, const char* name, int32_t* out);
/** The number of tensors, and the name at index (0 .. count-1, in order;
 * TC_ERR_INDEX outside) copied out with the string pattern. */
TC_API int32_t tc_tensor_dict_count(tc_tensor_dict dict, int64_t* out);
TC_API int32_t tc_tensor_dict_name_at(tc_tensor_dict dict, int64_t index, char* buf, int64_t cap,
                                      int64_t* needed);
/** Metadata ("__metadata__" in a file): set (replaces), get (a missing key
 * gives TC_ERR_INDEX), count, and the key at index in sorted order. */
TC_API int32_t tc_tensor_dict_set_metadata(tc_tensor_dict dict, const char* key, const char* value);
TC_API int32_t tc_tensor_dict_get_metadata(tc_tensor_dict dict, const char* key, char* buf, int64_t cap,
                                           int64_t* needed);
TC_API int32_t tc_tensor_dict_metadata_count(tc_tensor_dict dict, int64_t* out);
TC_API int32_t tc_tensor_dict_metadata_key_at(tc_tensor_dict dict, int64_t index, char* buf, int64_t cap,
                                              int64_t* needed);

/** safetensors files (huggingface/safetensors): an 8-byte little-endian
 * header length N, N bytes of JSON (per tensor {"dtype", "shape",
 * "data_offsets"}, offsets relative to the first byte after the header; an
 * optional "__metadata__" map), then the tensors' bytes, little-endian and
 * row-major. Dtypes: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL.
 *
 * Saving writes what the reference writer writes for the same tensors and
 * metadata: tensors ordered by descending dtype alignment, then by name;
 * the header padded with spaces to a multiple of 8 (so every tensor's data is
 * aligned); metadata keys sorted. Any tensor (any strides, any device) is
 * saved as its contiguous values; requires_grad is not saved.
 * tc_save_safetensors writes path atomically: a temporary file in the same
 * directory, fsync, rename over path, fsync of the directory, so a crash
 * never leaves a partial file under path (the old file, if any, stays whole
 * until the rename). tc_save_safetensors_bytes returns the file's bytes as a
 * new 1-D uint8 tensor instead. */
TC_API int32_t tc_save_safetensors(tc_tensor_dict dict, const char* path);
TC_API int32_t tc_save_safetensors_bytes(tc_tensor_dict dict, tc_tensor* out);

/** Loading gives a new dict, its tensors in file order (by data offset) on
 * the CPU, leaves that require no grad. By default the file is memory-mapped
 * (private, copy-on-write: the tensors are writable and writes never reach
 * the file) and every tensor whose data is aligned to its element size is a
 * zero-copy view of the mapping, which lives until the last tensor using it
 * dies; misaligned tensors, and bool tensors holding bytes other than 0 and
 * 1, are copied. Changing the file while it is mapped is undefined
 * behaviour (as with any mmap); TC_LOAD_COPY reads the file into memory
 * libtc owns instead. tc_load_safetensors_buffer parses nbytes at data and
 * copies them (the caller's buffer is not used after it returns).
 *
 * A malformed file is an error, never a crash: truncated data, a header
 * length past the end or over 100,000,000 bytes, invalid JSON or UTF-8,
 * duplicate names, unknown dtypes, shapes with more than TC_MAX_DIMS dims,
 * data_offsets out of order, out of bounds, overlapping, leaving gaps or
 * bytes at the end, or not matching shape x dtype size give TC_ERR_IO with a
 * message naming the tensor and the problem. */
#define TC_LOAD_COPY 1
TC_API int32_t tc_load_safetensors(const char* path, int32_t flags, tc_tensor_dict* out);
TC_API int32_t tc_load_safetensors_buffer(const void* data, int64_t nbytes, tc_tensor_dict* out);

/* ======================================================================== */
/* Optimizers                                                                */
/* ======================================================================== */

typedef struct tc_optimizer_s* tc_optimizer;

/** Set .size = sizeof(tc_sgd_options). */
typedef struct tc_sgd_options {
  uint32_t size;
  int32_t nesterov;
  double lr;
  double momentum;
  double dampening;
  double weight_decay;
} tc_sgd_options;

/** Set .size = sizeof(tc_adam_options). decoupled_weight_decay = 1 is AdamW. */
typedef struct tc_adam_options {
  uint32_t size;
  int32_t decoupled_weight_decay;
  double lr;
  double beta1;
  double beta2;
  double eps;
  double weight_decay;
} tc_adam_options;

/** Set .size = sizeof(tc_rmsprop_options). As torch.optim.RMSprop: centered
 * = 1 divides by the centered second moment (a variance estimate). */
typedef struct tc_rmsprop_options {
  uint32_t size;
  int32_t centered;
  double lr;
  double alpha;
  double eps;
  double weight_decay;
  double momentum;
} tc_rmsprop_options;

/** Set .size = sizeof(tc_adagrad_options). As torch.optim.Adagrad. */
typedef struct tc_adagrad_options {
  uint32_t size;
  int32_t reserved; /* 0 */
  double lr;
  double lr_decay;
  double weight_decay;
  double initial_accumulator_value;
  double eps;
} tc_adagrad_options;

/** Optimizers over count parameter handles (retained; the caller keeps its
 * own). Every parameter must be a floating leaf that requires grad. */
TC_API int32_t tc_optimizer_sgd(const tc_tensor* params, int64_t count, const tc_sgd_options* options,
                                tc_optimizer* out);
TC_API int32_t tc_optimizer_adam(const tc_tensor* params, int64_t count, const tc_adam_options* options,
                                 tc_optimizer* out);
TC_API int32_t tc_optimizer_rmsprop(const tc_tensor* params, int64_t count, const tc_rmsprop_options* options,
                                    tc_optimizer* out);
TC_API int32_t tc_optimizer_adagrad(const tc_tensor* params, int64_t count, const tc_adagrad_options* options,
                                    tc_optimizer* out);
/** One update from the parameters' current gradients (ones without grad are
 * skipped). */
TC_API int32_t tc_optimizer_step(tc_optimizer opt);
/** Clears every parameter's gradient (set to none). */
TC_API int32_t tc_optimizer_zero_grad(tc_optimizer opt);
TC_API int32_t tc_optimizer_get_lr(tc_optimizer opt, double* out);
TC_API int32_t tc_optimizer_set_lr(tc_optimizer opt, double lr);
TC_API int32_t tc_optimizer_free(tc_optimizer opt);
/** An optimizer's state as named tensors, like torch's optimizer.state_dict()
 * flattened: hyperparameters as 0-dim float64 tensors
 * "param_groups.0.<name>" (sgd: lr, momentum, dampening, weight_decay,
 * nesterov; adam: lr, beta1, beta2, eps, weight_decay,
 * decoupled_weight_decay; rmsprop: lr, alpha, eps, weight_decay, momentum,
 * centered; adagrad: lr, lr_decay, weight_decay, initial_accumulator_value,
 * eps) and per parameter i (in the order the optimizer was given them)
 * "state.<i>.momentum_buffer" (sgd with momentum), or "state.<i>.step"
 * (0-dim int64), "state.<i>.exp_avg", "state.<i>.exp_avg_sq" (adam), or
 * "state.<i>.step", "state.<i>.square_avg", "state.<i>.momentum_buffer"
 * (with momentum), "state.<i>.grad_avg" (centered) (rmsprop), for
 * parameters that have been stepped; or "state.<i>.step" and
 * "state.<i>.sum" (adagrad, every parameter, from its creation). The tensors are copies
 * (a snapshot). tc_optimizer_load_state_dict restores such a dict into an
 * optimizer of the same kind over parameters of the same shapes and dtypes:
 * the hyperparameters and the state are replaced (copied in, onto each
 * parameter's device), all or nothing; a missing hyperparameter, an unknown
 * name, a parameter index out of range, a partial state, a wrong shape
 * (TC_ERR_SHAPE) or dtype (TC_ERR_DTYPE) or an invalid value changes nothing.
 * Every name in dict must be one of the above (pass the optimizer's state
 * alone, not a dict that also holds a model's tensors). */
TC_API int32_t tc_optimizer_state_dict(tc_optimizer opt, tc_tensor_dict* out);
TC_API int32_t tc_optimizer_load_state_dict(tc_optimizer opt, tc_tensor_dict dict);

/* ======================================================================== */
/* DLPack interop                                                            */
/* ======================================================================== */

/** Exports t as a DLPack 1.x DLManagedTensorVersioned* (declared in dlpack.h;
 * void* here keeps this header self-contained). The consumer owns it and
 * must call its deleter once. */
TC_API int32_t tc_to_dlpack(tc_tensor t, void** out);
/** Imports a DLManagedTensorVersioned* (versioned = 1) or a legacy
 * DLManagedTensor* (versioned = 0) without copying. On success libtc owns it
 * and calls its deleter when the tensor dies; on failure the caller keeps it.
 * libtc's own export, as tc_to_dlpack made it, comes back as a view of the
 * exported tensor's memory (its deleter runs at once): the new tensor does not
 * keep the exported one alive, so neither can hold the other in a cycle. */
TC_API int32_t tc_from_dlpack(void* managed, int32_t versioned, tc_tensor* out);

/* ======================================================================== */
/* Distributed: process groups and collectives                               */
/* ======================================================================== */

/** A process group (torch.distributed's ProcessGroup): the processes of one
 * job, each with a rank in [0, size), that run collectives together; a
 * checked handle, freed with tc_process_group_free. Backends:
 *   "mpi"   CPU tensors, over the MPI library the job was launched with
 *           (mpirun). libtc loads its MPI module (libtc_mpi.so, found next to
 *           libtc.so, or at $TC_MPI_MODULE) on first use, so libtc itself
 *           never needs MPI to load. MPI is initialized once per process
 *           (MPI_THREAD_MULTIPLE) unless the program did it already, and then
 *           finalized at exit. Every group runs on its own duplicates of
 *           MPI_COMM_WORLD: creating one is collective (every rank creates it,
 *           in the same order as its other groups). Rank and size come from
 *           MPI; a process started without mpirun is a group of size 1.
 *   "nccl"  CUDA tensors, over NCCL (in the CUDA module, libtc_cuda.so; a
 *           CPU-only libtc or a module built without nccl.h gives
 *           TC_ERR_NOT_COMPILED, no usable GPU TC_ERR_DEVICE). Rank and size
 *           come from the launcher (OMPI_COMM_WORLD_RANK/SIZE, PMI_*, RANK/
 *           WORLD_SIZE, else a group of 1), the device from the local rank
 *           (OMPI_COMM_WORLD_LOCAL_RANK, LOCAL_RANK) modulo the GPUs seen;
 *           rank 0's ncclUniqueId reaches the others through the file
 *           $TC_NCCL_ID_FILE names, else over MPI under mpirun. Collectives
 *           run on a stream of the group's own, after the work queued so far;
 *           a blocking call that reaches the timeout aborts the communicator
 *           (ncclCommAbort): the group is then unusable. send/recv match in
 *           order per peer (tags are not compared) and are not checked.
 * A backend not built into libtc gives TC_ERR_NOT_COMPILED; one built but not
 * usable here (its module or library missing) TC_ERR_UNAVAILABLE with the
 * reason. Groups live until freed; tc_shutdown frees them like any handle.
 *
 * Collectives are called by every rank of the group in the same order, with
 * tensors of the same dtype and shape (send/recv: by the two peers). Tensors
 * must be contiguous and on the backend's device (TC_ERR_INVALID_ARGUMENT,
 * TC_ERR_DEVICE), writable where written. With checks on (the default) every
 * collective first all-gathers a small descriptor (the collective, op or
 * root, dtype, shape) on a communicator of its own, and when ranks disagree
 * each rank fails with TC_ERR_SHAPE or TC_ERR_DTYPE, naming the ranks and
 * what they passed, before any data moves (send/recv: the receiver fails,
 * after draining the message). .skip_checks = 1 saves that round trip.
 *
 * Each collective's last out-param, work, may be NULL: the call then blocks
 * until the collective completes, at most the group's timeout, after which it
 * fails with TC_ERR_TIMEOUT (a peer died, hangs, or called something else).
 * Non-NULL, the collective is started and *work receives a tc_work handle at
 * once (the descriptor check, when on, has run by then); its tensors must not
 * be used until the work completes. A collective that timed out may still
 * complete later (MPI cannot cancel one): libtc keeps its tensors alive until
 * then (for good, once its group is freed), and the group is best freed. */
typedef struct tc_process_group_s* tc_process_group;
/** An asynchronous collective (torch.distributed's Work); a checked handle
 * freed with tc_work_free (freeing a pending work does not cancel it). */
typedef struct tc_work_s* tc_work;

/** Set .size = sizeof(tc_process_group_options); zero means "default" for
 * every field. */
typedef struct tc_process_group_options {
  uint32_t size;
  int32_t skip_checks;    /**< 1: no descriptor check before each collective */
  double timeout_seconds; /**< every blocking call's limit, > 0; 0: $TC_DIST_TIMEOUT, else 300 */
} tc_process_group_options;

/** Creates a group for backend ("mpi", "nccl"); options may be NULL. */
TC_API int32_t tc_process_group_create(const char* backend, const tc_process_group_options* options,
                                       tc_process_group* out);
/** Frees one handle (works started on the group keep it alive until freed). */
TC_API int32_t tc_process_group_free(tc_process_group pg);
/** This process's rank in the group, and the group's size. */
TC_API int32_t tc_process_group_rank(tc_process_group pg, int32_t* out);
TC_API int32_t tc_process_group_size(tc_process_group pg, int32_t* out);
/** The group's backend name ("mpi"), copied out. */
TC_API int32_t tc_process_group_backend(tc_process_group pg, char* buf, int64_t cap, int64_t* needed);
/** 1 when backend can make groups here (built in, and its module and library
 * load), else 0 (an unknown name is TC_ERR_INVALID_ARGUMENT). */
TC_API int32_t tc_dist_backend_available(const char* backend, int32_t* out);

/** Reduction ops of tc_all_reduce and tc_reduce_scatter. AVG is SUM divided
 * by the group's size (floating dtypes only). Bool tensors reduce as logic:
 * SUM and MAX are or, MIN and PRODUCT and. float16 and bfloat16 do not reduce
 * over MPI (TC_ERR_DTYPE); they broadcast, gather, send and receive. */
#define TC_REDUCE_SUM 0
#define TC_REDUCE_AVG 1
#define TC_REDUCE_MAX 2
#define TC_REDUCE_MIN 3
#define TC_REDUCE_PRODUCT 4

/** t = op over every rank's t, on every rank (in place). */
TC_API int32_t tc_all_reduce(tc_process_group pg, tc_tensor t, int32_t op, tc_work* work);
/** t = root's t, on every rank. */
TC_API int32_t tc_broadcast(tc_process_group pg, tc_tensor t, int32_t root, tc_work* work);
/** out (size * numel(t) elements of t's dtype, any shape) = every rank's t,
 * in rank order (torch's all_gather_into_tensor). */
TC_API int32_t tc_all_gather(tc_process_group pg, tc_tensor out, tc_tensor t, tc_work* work);
/** t holds size blocks of numel(out) elements; out = op over every rank's
 * block number rank (torch's reduce_scatter_tensor). */
TC_API int32_t tc_reduce_scatter(tc_process_group pg, tc_tensor out, tc_tensor t, int32_t op, tc_work* work);
/** Returns (or completes) once every rank has called it. */
TC_API int32_t tc_barrier(tc_process_group pg, tc_work* work);
/** Point to point: t to / from rank peer (not this rank), matched by tag
 * (0 to 32767) in order; the receiver's t gets the sender's elements. */
TC_API int32_t tc_send(tc_process_group pg, tc_tensor t, int32_t peer, int32_t tag, tc_work* work);
TC_API int32_t tc_recv(tc_process_group pg, tc_tensor t, int32_t peer, int32_t tag, tc_work* work);

/** Blocks until the work completes and returns its status (a failed
 * collective's code, again on every call), or TC_ERR_TIMEOUT after
 * timeout_seconds (<= 0: the group's timeout), leaving it pending. */
TC_API int32_t tc_work_wait(tc_work work, double timeout_seconds);
/** *out = 1 when the work has completed (successfully or not: tc_work_wait
 * then returns at once), else 0; it drives the collective on. */
TC_API int32_t tc_work_test(tc_work work, int32_t* out);
TC_API int32_t tc_work_free(tc_work work);

/* ======================================================================== */
/* CUDA                                                                      */
/* ======================================================================== */

/** Caching-allocator statistics for one CUDA device, in bytes. */
typedef struct tc_cuda_memory_stats {
  uint32_t size;
  uint32_t reserved0;
  int64_t allocated;      /**< held by live tensors */
  int64_t reserved;       /**< held by the cache from the driver */
  int64_t peak_allocated; /**< highest `allocated` since start or reset */
} tc_cuda_memory_stats;
TC_API int32_t tc_cuda_memory_stats_get(int32_t device, tc_cuda_memory_stats* out);
/** Gives cached, unused blocks back to the driver. */
TC_API int32_t tc_cuda_empty_cache(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TC_H */
