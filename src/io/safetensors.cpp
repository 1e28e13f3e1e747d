#include "io/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "libtc's safetensors code assumes a little-endian host (the format's byte order)"
#endif

namespace tc::io {

// ---- TensorDict ----

void TensorDict::set(const std::string& name, Tensor t) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = index_.find(name);
  if (it != index_.end()) {
    items_[it->second].second.swap(t);
  } else {
    // Room first: nothing changes if this throws.
    if (items_.size() == items_.capacity()) items_.reserve(std::max<size_t>(8, 2 * items_.capacity()));
    index_.emplace(name, items_.size());
    items_.emplace_back(name, std::move(t));
  }
  // The replaced tensor (now in t) dies here, outside the lock.
}

Tensor TensorDict::find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : items_[it->second].second;
}

int64_t TensorDict::count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return int64_t(items_.size());
}

std::string TensorDict::name_at(int64_t index) const {
  std::lock_guard<std::mutex> lock(mu_);
  TC_CHECK(index >= 0 && index < int64_t(items_.size()), TC_ERR_INDEX, "index ", index,
           " is out of range for a dict of ", items_.size(), " tensors");
  return items_[size_t(index)].first;
}

void TensorDict::set_metadata(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mu_);
  metadata_[key] = value;
}

bool TensorDict::find_metadata(const std::string& key, std::string* value) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = metadata_.find(key);
  if (it == metadata_.end()) return false;
  *value = it->second;
  return true;
}

int64_t TensorDict::metadata_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return int64_t(metadata_.size());
}

std::string TensorDict::metadata_key_at(int64_t index) const {
  std::lock_guard<std::mutex> lock(mu_);
  TC_CHECK(index >= 0 && index < int64_t(metadata_.size()), TC_ERR_INDEX, "index ", index,
           " is out of range for ", metadata_.size(), " metadata entries");
  auto it = metadata_.begin();
  std::advance(it, index);
  return it->first;
}

std::vector<std::pair<std::string, Tensor>> TensorDict::items() const {
  std::lock_guard<std::mutex> lock(mu_);
  return items_;
}

std::map<std::string, std::string> TensorDict::metadata() const {
  std::lock_guard<std::mutex> lock(mu_);
  return metadata_;
}

// ---- names and dtypes ----

void check_utf8(const std::string& s, const char* what) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    }
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (p[i + k] & 0xC0) == 0x80;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid.
    ok = ok && !(len == 2 && cp < 0x80) && !(len == 3 && cp < 0x800) && !(len == 4 && cp < 0x10000) &&
         !(cp >= 0xD800 && cp <= 0xDFFF) && cp <= 0x10FFFF;
    TC_CHECK(ok, TC_ERR_INVALID_ARGUMENT, what, " is not valid UTF-8 (byte ", i, ")");
    i += len;
  }
}

void check_name(const std::string& name, const char* what) {
  check_utf8(name, what);
  TC_CHECK(name != "__metadata__", TC_ERR_INVALID_ARGUMENT, what,
           " must not be \"__metadata__\" (the format reserves it for the metadata map)");
}

namespace {

struct DtypeInfo {
  DType dtype;
  const char* name;
  int rank;  // the reference's Dtype order: a larger rank is written first
};
constexpr DtypeInfo kDtypes[] = {
    {DType::b8, "BOOL", 0},  {DType::u8, "U8", 1},     {DType::i8, "I8", 2},   {DType::i16, "I16", 5},
    {DType::f16, "F16", 7},  {DType::bf16, "BF16", 8}, {DType::i32, "I32", 9}, {DType::f32, "F32", 11},
    {DType::f64, "F64", 12}, {DType::i64, "I64", 13},
};
// Dtypes of the format libtc has no dtype for.
constexpr const char* kForeignDtypes[] = {"F8_E5M2", "F8_E4M3", "U16",     "U32",     "U64",
                                          "F8_E8M0", "F4",      "F6_E2M3", "F6_E3M2", "C64"};

const DtypeInfo& info_of(DType d) {
  for (const DtypeInfo& i : kDtypes)
    if (i.dtype == d) return i;
  fail(TC_ERR_INTERNAL, str("no safetensors name for dtype ", dtype_name(d)));
}

[[noreturn]] void bad_file(const std::string& message) { fail(TC_ERR_IO, message); }

std::string quoted(const std::string& name) {
  std::string q = nlohmann::json(name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return q.size() > 200 ? q.substr(0, 200) + "...\"" : q;
}

// One tensor of a dict, ready to write: the name, its bytes on the host.
struct Entry {
  std::string name;
  Tensor host;  // contiguous, on the CPU
  const DtypeInfo* info;
  uint64_t nbytes;
};

// The writer's order and header. Returns the padded header.
std::string prepare(const TensorDict& dict, std::vector<Entry>& entries) {
  for (auto& [name, t] : dict.items()) {
    check_name(name, "a tensor name");  // names were checked by set(); the dict's own invariant
    Tensor host = contiguous(to_device(t, kCPU));
    const uint64_t nbytes = uint64_t(host->numel()) * uint64_t(host->itemsize());
    entries.push_back({name, std::move(host), &info_of(t->dtype), nbytes});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.info->rank != b.info->rank) return a.info->rank > b.info->rank;
    return a.name < b.name;
  });
  std::string h = "{";
  const auto meta = dict.metadata();
  if (!meta.empty()) {
    h += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : meta) {
      h += (first ? "" : ",") + nlohmann::json(k).dump() + ":" + nlohmann::json(v).dump();
      first = false;
    }
    h += "}";
  }
  uint64_t offset = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    h += (i == 0 && meta.empty() ? "" : ",") + nlohmann::json(e.name).dump() + ":{\"dtype\":\"" +
         e.info->name + "\",\"shape\":[";
    for (int64_t d = 0; d < e.host->ndim(); ++d) h += (d ? "," : "") + std::to_string(e.host->shape[d]);
    h += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + e.nbytes) + "]}";
    offset += e.nbytes;
  }
  h += "}";
  h.append((8 - h.size() % 8) % 8, ' ');
  TC_CHECK(h.size() <= kMaxHeaderBytes, TC_ERR_INVALID_ARGUMENT, "the header would be ", h.size(),
           " bytes, past the format's limit of ", kMaxHeaderBytes, " (too many or too long names)");
  return h;
}

void put_u64le(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}

// ---- files ----

std::string errno_text(int e) { return std::strerror(e); }

// Writes all of [p, p + n) to fd, retrying short writes and EINTR.
void write_all(int fd, const void* data, uint64_t n, const std::string& path) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const size_t chunk = size_t(std::min<uint64_t>(n, uint64_t(1) << 30));
    const ssize_t w = ::write(fd, p, chunk);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail(TC_ERR_IO, str("cannot write '", path, "': ", errno_text(w < 0 ? errno : EIO)));
    p += w;
    n -= uint64_t(w);
  }
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_;
};

std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::atomic<uint64_t> g_temp_counter{0};

}  // namespace

Tensor serialize(const TensorDict& dict) {
  std::vector<Entry> entries;
  const std::string header = prepare(dict, entries);
  uint64_t total = 8 + header.size();
  for (const Entry& e : entries) {
    TC_CHECK(!__builtin_add_overflow(total, e.nbytes, &total) && total <= uint64_t(INT64_MAX),
             TC_ERR_OUT_OF_MEMORY, "the file would be larger than 2^63 bytes");
  }
  Tensor out = empty(Dims{int64_t(total)}, DType::u8, kCPU);
  auto* p = out->data_as<uint8_t>();
  put_u64le(p, header.size());
  std::memcpy(p + 8, header.data(), header.size());
  p += 8 + header.size();
  for (const Entry& e : entries) {
    if (e.nbytes) std::memcpy(p, e.host->data(), size_t(e.nbytes));
    p += e.nbytes;
  }
  return out;
}

void save_file(const TensorDict& dict, const std::string& path) {
  TC_CHECK(!path.empty(), TC_ERR_INVALID_ARGUMENT, "path must not be empty");
  std::vector<Entry> entries;
  const std::string header = prepare(dict, entries);
  // A fresh name in the target's directory, so that rename() is atomic.
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp = str(path, ".tmp.", ::getpid(), ".", g_temp_counter.fetch_add(1));
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt > 100))
      fail(TC_ERR_IO, str("cannot create '", temp, "' next to '", path, "': ", errno_text(errno)));
  }
  Fd file(fd);
  try {
    uint8_t len[8];
    put_u64le(len, header.size());
    write_all(fd, len, 8, temp);
    write_all(fd, header.data(), header.size(), temp);
    for (const Entry& e : entries) write_all(fd, e.host->data(), e.nbytes, temp);
    if (::fsync(fd) != 0) fail(TC_ERR_IO, str("cannot fsync '", temp, "': ", errno_text(errno)));
    if (::close(file.release()) != 0) fail(TC_ERR_IO, str("cannot close '", temp, "': ", errno_text(errno)));
    if (::rename(temp.c_str(), path.c_str()) != 0)
      fail(TC_ERR_IO, str("cannot rename '", temp, "' to '", path, "': ", errno_text(errno)));
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  // The rename is durable once the directory is synced.
  const std::string dir = directory_of(path);
  Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (d.get() < 0 || ::fsync(d.get()) != 0)
    fail(TC_ERR_IO,
         str("wrote '", path, "' but cannot fsync its directory '", dir, "': ", errno_text(errno)));
}

// ---- reading ----

namespace {

struct Parsed {
  std::string name;
  const DtypeInfo* info;
  Dims shape;
  uint64_t begin, end;
};

uint64_t unsigned_of(const nlohmann::json& v, const std::string& where) {
  if (!v.is_number_unsigned()) bad_file(str(where, " must be a non-negative integer, got ", v.dump()));
  return v.get<uint64_t>();
}

Parsed parse_entry(const std::string& name, const nlohmann::json& v) {
  const std::string t = "tensor " + quoted(name);
  if (!v.is_object()) bad_file(str(t, ": expected an object with dtype, shape and data_offsets"));
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!v.contains(key)) bad_file(str(t, ": the header has no \"", key, "\""));
  const auto& dt = v.at("dtype");
  if (!dt.is_string()) bad_file(str(t, ": dtype must be a string, got ", dt.dump()));
  const std::string dname = dt.get<std::string>();
  const DtypeInfo* info = nullptr;
  for (const DtypeInfo& i : kDtypes)
    if (dname == i.name) info = &i;
  if (!info) {
    for (const char* f : kForeignDtypes)
      if (dname == f) bad_file(str(t, ": dtype ", dname, " has no libtc dtype"));
    bad_file(str(t, ": unknown dtype ", quoted(dname)));
  }
  const auto& sh = v.at("shape");
  if (!sh.is_array()) bad_file(str(t, ": shape must be an array, got ", sh.dump()));
  if (sh.size() > TC_MAX_DIMS)
    bad_file(str(t, ": shape has ", sh.size(), " dims, more than libtc's ", TC_MAX_DIMS));
  Parsed p{name, info, Dims(), 0, 0};
  uint64_t bytes = uint64_t(dtype_size(info->dtype));
  for (size_t i = 0; i < sh.size(); ++i) {
    const uint64_t s = unsigned_of(sh[i], str(t, ": shape[", i, "]"));
    if (s > uint64_t(INT64_MAX)) bad_file(str(t, ": shape[", i, "] = ", s, " is too large"));
    p.shape.push_back(int64_t(s));
  }
  // Overflow only matters when no size is 0.
  if (numel_of(p.shape) != 0) {
    for (int64_t s : p.shape)
      if (__builtin_mul_overflow(bytes, uint64_t(s), &bytes) || bytes > uint64_t(INT64_MAX))
        bad_file(str(t, ": shape ", p.shape, " of ", dname, " needs more than 2^63 bytes"));
  } else {
    bytes = 0;
  }
  const auto& off = v.at("data_offsets");
  if (!off.is_array() || off.size() != 2)
    bad_file(str(t, ": data_offsets must be an array of two integers, got ", off.dump()));
  p.begin = unsigned_of(off[0], t + ": data_offsets[0]");
  p.end = unsigned_of(off[1], t + ": data_offsets[1]");
  if (p.end < p.begin) bad_file(str(t, ": data_offsets [", p.begin, ", ", p.end, "] are out of order"));
  if (p.end - p.begin != bytes)
    bad_file(str(t, ": data_offsets [", p.begin, ", ", p.end, "] hold ", p.end - p.begin, " bytes but shape ",
                 p.shape, " of ", dname, " needs ", bytes));
  return p;
}

nlohmann::json parse_header(const char* begin, const char* end) {
  // nlohmann keeps the last of duplicate keys silently; the format has one
  // entry per name, so a duplicate is an error (found with the parser's callback).
  std::vector<std::set<std::string>> open_objects;
  const nlohmann::json::parser_callback_t cb = [&](int, nlohmann::json::parse_event_t event,
                                                   nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) {
      open_objects.emplace_back();
    } else if (event == E::object_end) {
      if (!open_objects.empty()) open_objects.pop_back();
    } else if (event == E::key && !open_objects.empty()) {
      const std::string& k = parsed.get_ref<const std::string&>();
      if (!open_objects.back().insert(k).second)
        bad_file(str("the header has the name ", quoted(k), " twice (duplicate names)"));
    }
    return true;
  };
  try {
    return nlohmann::json::parse(begin, end, cb);
  } catch (const nlohmann::json::exception& e) {
    bad_file(str("the header is not valid JSON: ", e.what()));
  }
}

bool all_bools(const uint8_t* p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    if (p[i] > 1) return false;
  return true;
}

}  // namespace

std::shared_ptr<TensorDict> parse(const uint8_t* data, uint64_t size, std::shared_ptr<void> keep) {
  if (size < 8) bad_file(str("the file is truncated: ", size, " bytes, less than the 8-byte header length"));
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(data[i]) << (8 * i);
  if (n > kMaxHeaderBytes)
    bad_file(str("the header length ", n, " is larger than the limit of ", kMaxHeaderBytes, " bytes"));
  if (n > size - 8)
    bad_file(str("the header length ", n, " runs past the end of the file (", size,
                 " bytes): the file is truncated or not safetensors"));
  const char* h = reinterpret_cast<const char*>(data + 8);
  const char* first =
      std::find_if(h, h + n, [](char c) { return c != ' ' && c != '\t' && c != '\n' && c != '\r'; });
  if (first == h + n || *first != '{') bad_file("the header does not start with '{' (not safetensors)");
  const nlohmann::json root = parse_header(h, h + n);
  if (!root.is_object()) bad_file("the header is not a JSON object");

  auto dict = std::make_shared<TensorDict>();
  std::vector<Parsed> entries;
  for (const auto& [key, value] : root.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) bad_file("__metadata__ must be an object of strings");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) bad_file(str("__metadata__ ", quoted(mk), " must be a string, got ", mv.dump()));
        dict->set_metadata(mk, mv.get<std::string>());
      }
      continue;
    }
    entries.push_back(parse_entry(key, value));
  }
  // The data section: every byte belongs to exactly one tensor, in order.
  const uint64_t data_size = size - 8 - n;
  std::sort(entries.begin(), entries.end(), [](const Parsed& a, const Parsed& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t at = 0;
  const Parsed* prev = nullptr;
  for (const Parsed& e : entries) {
    const std::string t = "tensor " + quoted(e.name);
    if (e.end > data_size)
      bad_file(str(t, ": data_offsets [", e.begin, ", ", e.end, "] are out of bounds (the data section has ",
                   data_size, " bytes)"));
    if (e.begin < at)
      bad_file(str(t, ": data_offsets [", e.begin, ", ", e.end, "] overlap tensor ", quoted(prev->name), " [",
                   prev->begin, ", ", prev->end, "]"));
    if (e.begin > at)
      bad_file(str(t, ": data_offsets begin at ", e.begin, ", leaving a gap after byte ", at));
    at = e.end;
    prev = &e;
  }
  if (at != data_size)
    bad_file(str("the tensors cover ", at, " bytes but the data section has ", data_size,
                 " (trailing bytes, or a truncated header)"));

  const uint8_t* base = data + 8 + n;
  for (const Parsed& e : entries) {
    const DType d = e.info->dtype;
    const uint8_t* p = base + e.begin;
    const uint64_t nbytes = e.end - e.begin;
    Tensor t;
    if (keep && nbytes > 0 && reinterpret_cast<uintptr_t>(p) % uintptr_t(dtype_size(d)) == 0 &&
        (d != DType::b8 || all_bools(p, nbytes))) {
      std::shared_ptr<void> owner = keep;
      t = from_blob(const_cast<uint8_t*>(p), e.shape, contiguous_strides(e.shape), d, kCPU,
                    [owner](void*) mutable { owner.reset(); });
    } else {
      t = empty(e.shape, d, kCPU);
      if (nbytes > 0) std::memcpy(t->data(), p, size_t(nbytes));
      if (d == DType::b8) normalize_bools(t->data(), int64_t(nbytes));
    }
    dict->set(e.name, std::move(t));
  }
  return dict;
}

std::shared_ptr<TensorDict> load_file(const std::string& path, bool copy) {
  TC_CHECK(!path.empty(), TC_ERR_INVALID_ARGUMENT, "path must not be empty");
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail(TC_ERR_IO, str("cannot open '", path, "': ", errno_text(errno)));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail(TC_ERR_IO, str("cannot stat '", path, "': ", errno_text(errno)));
  if (!S_ISREG(st.st_mode)) fail(TC_ERR_IO, str("'", path, "' is not a regular file"));
  const uint64_t size = uint64_t(st.st_size);
  try {
    if (size < 8) return parse(nullptr, size, nullptr);  // reports the truncation
    if (!copy) {
      void* m = ::mmap(nullptr, size_t(size), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd.get(), 0);
      if (m == MAP_FAILED) fail(TC_ERR_IO, str("cannot map '", path, "': ", errno_text(errno)));
      // Private and copy-on-write: tensors are writable, the file never changes.
      std::shared_ptr<void> mapping(m, [size](void* p) { ::munmap(p, size_t(size)); });
      return parse(static_cast<const uint8_t*>(m), size, std::move(mapping));
    }
    TC_CHECK(size <= uint64_t(INT64_MAX), TC_ERR_OUT_OF_MEMORY, "'", path, "' is too large");
    Tensor buf = empty(Dims{int64_t(size)}, DType::u8, kCPU);
    auto* p = buf->data_as<uint8_t>();
    for (uint64_t got = 0; got < size;) {
      const ssize_t r =
          ::pread(fd.get(), p + got, size_t(std::min<uint64_t>(size - got, uint64_t(1) << 30)), off_t(got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) fail(TC_ERR_IO, str("cannot read '", path, "': ", errno_text(errno)));
      if (r == 0) fail(TC_ERR_IO, str("'", path, "' shrank while being read"));
      got += uint64_t(r);
    }
    return parse(p, size, std::shared_ptr<void>(buf, p));
  } catch (const Error& e) {
    if (e.code() == TC_ERR_IO && std::string(e.what()).find(path) == std::string::npos)
      fail(TC_ERR_IO, str("'", path, "': ", e.what()));
    throw;
  }
}

}  // namespace tc::io
