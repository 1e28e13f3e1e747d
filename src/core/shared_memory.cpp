#include "core/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_map>

#include "core/error.h"
#include "core/object_pool.h"

namespace tc {

namespace {

// file_system segments start with this header; the data follows it (64
// bytes keep the data as aligned as cpu_alloc's blocks).
struct SegmentHeader {
  uint64_t magic;
  std::atomic<int64_t> refcount;  // storages mapping the segment, all processes
  int64_t nbytes;                 // the data's bytes after the header
};
constexpr int64_t kHeaderBytes = 64;
static_assert(sizeof(SegmentHeader) <= kHeaderBytes, "header fits its slot");
static_assert(std::atomic<int64_t>::is_always_lock_free, "the count is shared between processes");
constexpr uint64_t kMagic = 0x3174636d68735f74ull;  // "t_shmct1"

// One mapping of a segment in this process; the storage's deleter owns it.
struct Segment {
  int32_t kind = TC_SHARE_FILE_DESCRIPTOR;
  int fd = -1;       // file_descriptor: kept open so the storage can be sent on
  std::string name;  // file_system
  void* base = nullptr;
  int64_t map_bytes = 0;
  int64_t nbytes = 0;  // data bytes
  void* data() const { return static_cast<char*>(base) + (kind == TC_SHARE_FILE_SYSTEM ? kHeaderBytes : 0); }
};

// Data pointer -> its segment: is_shared and shared_handle look storages up
// here (Storage itself has no room for it; its layout is the kernels').
struct Registry {
  std::mutex mu;
  std::unordered_map<const void*, std::shared_ptr<Segment>> by_data;
};
Registry& registry() {
  static auto* r = new Registry();  // never destroyed: storages may outlive statics
  return *r;
}

std::atomic<int32_t> g_strategy{TC_SHARE_FILE_DESCRIPTOR};

// Unmaps and lets go of a segment: file_system drops its reference and the
// last one unlinks the name. noexcept: it runs in storage deleters.
void release(Segment& s) noexcept {
  if (s.base) {
    if (s.kind == TC_SHARE_FILE_SYSTEM) {
      auto* h = static_cast<SegmentHeader*>(s.base);
      if (h->refcount.fetch_sub(1) == 1) shm_unlink(s.name.c_str());
    }
    munmap(s.base, size_t(s.map_bytes));
    s.base = nullptr;
  }
  if (s.fd >= 0) {
    close(s.fd);
    s.fd = -1;
  }
}

// A fresh, unique segment name: pid, a counter and random bits (names are
// guessable by nobody who would race us to O_EXCL).
std::string fresh_name() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return "/tc_" + std::to_string(::getpid()) + "_" + std::to_string(counter.fetch_add(1)) + "_" +
         std::to_string(rng() & 0xffffffffu);
}

std::string errno_text(int err) { return std::string(std::strerror(err)) + " (" + std::to_string(err) + ")"; }

// Makes, sizes and maps a new segment of the current strategy holding
// nbytes of data. Throws with the segment already removed.
std::shared_ptr<Segment> create_segment(int64_t nbytes) {
  auto seg = std::make_shared<Segment>();
  seg->kind = g_strategy.load();
  seg->nbytes = nbytes;
  const int64_t header = seg->kind == TC_SHARE_FILE_SYSTEM ? kHeaderBytes : 0;
  // A 0-byte storage still gets a page: mmap refuses 0 bytes.
  seg->map_bytes = header + (nbytes > 0 ? nbytes : 1);
  const std::string name = fresh_name();
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 8; ++attempt) {
    seg->name = attempt == 0 ? name : fresh_name();
    fd = shm_open(seg->name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    const int err = errno;
    fail(err == ENOSPC || err == ENOMEM ? TC_ERR_OUT_OF_MEMORY : TC_ERR_IO,
         str("unable to open shared memory object <", seg->name, ">: ", errno_text(err)));
  }
  // file_descriptor: unlinked at once, so nothing outlives the descriptors.
  if (seg->kind == TC_SHARE_FILE_DESCRIPTOR) shm_unlink(seg->name.c_str());
  auto give_up = [&](int err, const char* what) {
    close(fd);
    if (seg->kind == TC_SHARE_FILE_SYSTEM) shm_unlink(seg->name.c_str());
    const bool full = err == ENOSPC || err == ENOMEM || err == EFBIG;
    const char* other = seg->kind == TC_SHARE_FILE_SYSTEM ? "file_descriptor" : "file_system";
    if (full)
      fail(TC_ERR_OUT_OF_MEMORY,
           str("out of memory allocating ", seg->map_bytes, " bytes of shared memory: unable to ", what,
               " shared memory segment <", seg->name, ">: ", errno_text(err),
               ". /dev/shm may be full or too small (it is a tmpfs: ",
               "`df -h /dev/shm`; Docker's default is 64 MB: --shm-size); or try the '", other,
               "' sharing strategy (tc.multiprocessing.set_sharing_strategy)"));
    fail(TC_ERR_IO, str("unable to ", what, " shared memory segment <", seg->name, ">: ", errno_text(err)));
  };
  // posix_fallocate reserves the pages now: a plain ftruncate on a full
  // tmpfs succeeds and the first write past the free space is a SIGBUS.
  if (injected_alloc_failure()) give_up(ENOSPC, "allocate");
  if (int err = posix_fallocate(fd, 0, off_t(seg->map_bytes))) give_up(err, "allocate");
  void* base = mmap(nullptr, size_t(seg->map_bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) give_up(errno, "map");
  seg->base = base;
  if (seg->kind == TC_SHARE_FILE_SYSTEM) {
    auto* h = new (base) SegmentHeader();
    h->nbytes = nbytes;
    h->refcount.store(1);
    h->magic = kMagic;
    close(fd);  // the name reaches it
  } else {
    seg->fd = fd;
  }
  return seg;
}

// Registers seg under its data pointer and returns the deleter that undoes it.
std::function<void(void*)> adopt(const std::shared_ptr<Segment>& seg) {
  Registry& r = registry();
  try {
    std::lock_guard<std::mutex> g(r.mu);
    r.by_data.emplace(seg->data(), seg);
  } catch (...) {
    release(*seg);
    throw;
  }
  return [seg](void* data) {
    Registry& reg = registry();
    {
      std::lock_guard<std::mutex> g(reg.mu);
      reg.by_data.erase(data);
    }
    release(*seg);
  };
}

std::shared_ptr<Segment> find(const Tensor& t) noexcept {
  if (!t->storage || !t->storage->data) return nullptr;
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.by_data.find(t->storage->data);
  return it == r.by_data.end() ? nullptr : it->second;
}

}  // namespace

void set_sharing_strategy(int32_t strategy) {
  TC_CHECK(strategy == TC_SHARE_FILE_DESCRIPTOR || strategy == TC_SHARE_FILE_SYSTEM, TC_ERR_INVALID_ARGUMENT,
           "unknown sharing strategy ", strategy, " (TC_SHARE_FILE_DESCRIPTOR or TC_SHARE_FILE_SYSTEM)");
  g_strategy.store(strategy);
}
int32_t sharing_strategy() noexcept { return g_strategy.load(); }

bool is_shared(const Tensor& t) noexcept { return find(t) != nullptr; }

void share_memory_(const Tensor& t) {
  if (device_type(t->device) != TC_DEVICE_CPU || !t->storage) return;
  // One lock for the whole move: two threads sharing views of one storage
  // must not both move it.
  static std::mutex move_mu;
  std::lock_guard<std::mutex> g(move_mu);
  if (is_shared(t)) return;
  Storage& s = *t->storage;
  std::shared_ptr<Segment> seg = create_segment(s.nbytes);
  if (s.nbytes > 0) std::memcpy(seg->data(), s.data, size_t(s.nbytes));
  std::function<void(void*)> deleter = adopt(seg);
  void* old_data = s.data;
  std::function<void(void*)> old_deleter = std::move(s.deleter);
  s.data = seg->data();
  s.deleter = std::move(deleter);
  if (old_deleter) old_deleter(old_data);
}

SharedHandle shared_handle(const Tensor& t) {
  std::shared_ptr<Segment> seg = find(t);
  TC_CHECK(seg != nullptr, TC_ERR_INVALID_ARGUMENT,
           "the tensor's storage is not in shared memory (call share_memory_ first)");
  SharedHandle h;
  h.kind = seg->kind;
  h.fd = seg->fd;
  h.name = seg->kind == TC_SHARE_FILE_SYSTEM ? seg->name : std::string();
  h.nbytes = seg->nbytes;
  return h;
}

Tensor import_shared(int32_t kind, int32_t fd, const std::string& name, int64_t nbytes, const Dims& shape,
                     const Dims& strides, int64_t offset, DType dtype) {
  TC_CHECK(kind == TC_SHARE_FILE_DESCRIPTOR || kind == TC_SHARE_FILE_SYSTEM, TC_ERR_INVALID_ARGUMENT,
           "unknown sharing kind ", kind);
  TC_CHECK(nbytes >= 0, TC_ERR_INVALID_ARGUMENT, "negative segment size ", nbytes);
  TC_CHECK(shape.size() == strides.size(), TC_ERR_INVALID_ARGUMENT, "shape ", shape, " and strides ", strides,
           " differ in length");
  TC_CHECK(offset >= 0, TC_ERR_INVALID_ARGUMENT, "negative storage offset ", offset);
  // The view must stay inside the storage's nbytes.
  const int64_t numel = checked_numel(shape, "shared tensor");
  if (numel > 0) {
    int64_t last = offset;
    bool overflow = false;
    for (int64_t i = 0; i < shape.size(); ++i) {
      TC_CHECK(strides[i] >= 0, TC_ERR_INVALID_ARGUMENT, "negative stride in ", strides);
      int64_t reach = 0;
      overflow |= __builtin_mul_overflow(shape[i] - 1, strides[i], &reach);
      overflow |= __builtin_add_overflow(last, reach, &last);
    }
    int64_t end = 0;
    overflow |= __builtin_add_overflow(last, 1, &end);
    overflow |= __builtin_mul_overflow(end, dtype_size(dtype), &end);
    TC_CHECK(!overflow && end <= nbytes, TC_ERR_INVALID_ARGUMENT, "a tensor of shape ", shape, ", strides ",
             strides, " and offset ", offset, " reaches past the shared storage's ", nbytes, " bytes");
  }
  auto seg = std::make_shared<Segment>();
  seg->kind = kind;
  seg->nbytes = nbytes;
  const int64_t header = kind == TC_SHARE_FILE_SYSTEM ? kHeaderBytes : 0;
  seg->map_bytes = header + (nbytes > 0 ? nbytes : 1);
  int map_fd = -1;
  if (kind == TC_SHARE_FILE_DESCRIPTOR) {
    TC_CHECK(fd >= 0, TC_ERR_INVALID_ARGUMENT, "invalid file descriptor ", fd);
    map_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (map_fd < 0)
      fail(TC_ERR_IO, str("unable to use the shared memory file descriptor ", fd, ": ", errno_text(errno)));
  } else {
    TC_CHECK(!name.empty() && name[0] == '/' && name.find('/', 1) == std::string::npos && name.size() < 256,
             TC_ERR_INVALID_ARGUMENT, "invalid shared memory segment name \"", name, "\"");
    seg->name = name;
    map_fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
    if (map_fd < 0) {
      const int err = errno;
      fail(TC_ERR_IO,
           str("unable to open shared memory segment <", name, ">: ", errno_text(err),
               err == ENOENT ? ": it does not exist (released by its last user, or never made)" : ""));
    }
  }
  auto close_and_fail = [&](const std::string& msg) {
    close(map_fd);
    fail(TC_ERR_IO, msg);
  };
  struct stat st {};
  if (fstat(map_fd, &st) != 0)
    close_and_fail(str("unable to stat the shared memory segment: ", errno_text(errno)));
  if (!S_ISREG(st.st_mode)) close_and_fail("the file descriptor is not a shared memory segment");
  if (int64_t(st.st_size) < seg->map_bytes)
    close_and_fail(str("shared memory segment ",
                       kind == TC_SHARE_FILE_SYSTEM ? "<" + name + "> " : std::string(),
                       "is too small: ", int64_t(st.st_size), " bytes, expected ", seg->map_bytes));
  void* base = mmap(nullptr, size_t(seg->map_bytes), PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
  if (base == MAP_FAILED) close_and_fail(str("unable to map the shared memory segment: ", errno_text(errno)));
  seg->base = base;
  if (kind == TC_SHARE_FILE_SYSTEM) {
    close(map_fd);
    auto* h = static_cast<SegmentHeader*>(base);
    // Take a reference unless the count already fell to 0: then the name is
    // being (or was) unlinked, and the data is no one's any more.
    int64_t n = h->magic == kMagic ? h->refcount.load() : 0;
    bool ok = h->magic == kMagic && h->nbytes >= nbytes;
    while (ok && n > 0 && !h->refcount.compare_exchange_weak(n, n + 1)) {
    }
    if (!ok || n <= 0) {
      munmap(base, size_t(seg->map_bytes));
      seg->base = nullptr;
      fail(TC_ERR_IO,
           str("shared memory segment <", name, "> ",
               ok ? "was already released by its last user" : "is not a libtc segment of that size"));
    }
  } else {
    seg->fd = map_fd;
  }
  std::function<void(void*)> deleter = adopt(seg);
  std::shared_ptr<Storage> s;
  try {
    s = std::allocate_shared<Storage>(PoolAllocator<Storage>());
  } catch (...) {
    deleter(seg->data());
    throw;
  }
  s->data = seg->data();
  s->deleter = std::move(deleter);
  s->nbytes = nbytes;
  s->device = kCPU;
  auto t = std::allocate_shared<TensorImpl>(PoolAllocator<TensorImpl>());
  t->storage = std::move(s);
  t->shape = shape;
  t->strides = strides;
  t->offset = offset;
  t->dtype = dtype;
  t->device = kCPU;
  return t;
}

void shared_segment_ref(const std::string& name, int delta) {
  TC_CHECK(!name.empty() && name[0] == '/' && name.find('/', 1) == std::string::npos && name.size() < 256,
           TC_ERR_INVALID_ARGUMENT, "invalid shared memory segment name \"", name, "\"");
  const int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    const int err = errno;
    fail(TC_ERR_IO,
         str("unable to open shared memory segment <", name, ">: ", errno_text(err),
             err == ENOENT ? ": it does not exist (released by its last user, or never made)" : ""));
  }
  struct stat st {};
  const bool sized = fstat(fd, &st) == 0 && int64_t(st.st_size) >= kHeaderBytes;
  void* base =
      sized ? mmap(nullptr, size_t(kHeaderBytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  close(fd);
  if (base == MAP_FAILED) fail(TC_ERR_IO, str("shared memory segment <", name, "> is not a libtc segment"));
  auto* h = static_cast<SegmentHeader*>(base);
  const char* problem = nullptr;
  if (h->magic != kMagic) {
    problem = "is not a libtc segment";
  } else if (delta > 0) {
    int64_t n = h->refcount.load();
    while (n > 0 && !h->refcount.compare_exchange_weak(n, n + 1)) {
    }
    if (n <= 0) problem = "was already released by its last user";
  } else {
    int64_t n = h->refcount.load();
    while (n > 0 && !h->refcount.compare_exchange_weak(n, n - 1)) {
    }
    if (n <= 0)
      problem = "has no reference left to drop";
    else if (n == 1)
      shm_unlink(name.c_str());
  }
  munmap(base, size_t(kHeaderBytes));
  if (problem) fail(TC_ERR_IO, str("shared memory segment <", name, "> ", problem));
}

}  // namespace tc
