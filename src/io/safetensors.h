// Named collections of tensors (tc_tensor_dict) and the safetensors format:
// an 8-byte little-endian header length N, N bytes of JSON (per tensor
// {"dtype", "shape", "data_offsets"} relative to the byte after the header,
// and an optional "__metadata__" string map), then the raw little-endian
// bytes. Written like the reference implementation (huggingface/safetensors):
// tensors sorted by descending dtype alignment then by name, the header
// padded with spaces to a multiple of 8, so the same dict gives the same bytes.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tc::io {

// Headers larger than this are refused (the reference's MAX_HEADER_SIZE).
constexpr uint64_t kMaxHeaderBytes = 100000000;

// An insertion-ordered map name -> tensor, plus a string -> string metadata
// map. Behind a mutex: a dict handle may be used from several threads.
class TensorDict {
 public:
  // Replaces the tensor of an existing name (keeping its position).
  void set(const std::string& name, Tensor t);
  // nullptr when absent.
  Tensor find(const std::string& name) const;
  int64_t count() const;
  std::string name_at(int64_t index) const;  // TC_ERR_INDEX when out of range
  void set_metadata(const std::string& key, const std::string& value);
  bool find_metadata(const std::string& key, std::string* value) const;
  int64_t metadata_count() const;
  std::string metadata_key_at(int64_t index) const;
  // Consistent copies, taken under the lock.
  std::vector<std::pair<std::string, Tensor>> items() const;
  std::map<std::string, std::string> metadata() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, Tensor>> items_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::string> metadata_;
};

// Throws TC_ERR_INVALID_ARGUMENT unless name can be a tensor name of a file:
// valid UTF-8 and not "__metadata__". what names the argument.
void check_name(const std::string& name, const char* what);
void check_utf8(const std::string& s, const char* what);

// The whole file in memory, as a 1-D uint8 tensor.
Tensor serialize(const TensorDict& dict);
// Writes path atomically: a temporary file in the same directory, fsync,
// rename over path, fsync of the directory. A failure leaves path as it was.
void save_file(const TensorDict& dict, const std::string& path);

// Parses a file image. With keep (a mapping that owns data), tensors whose
// bytes are aligned to their element size are zero-copy views of data that
// hold keep alive; all others (and every tensor when keep is null) are
// copies. Throws TC_ERR_IO naming the tensor and the problem for any
// malformed input, never reads outside [data, data + size).
std::shared_ptr<TensorDict> parse(const uint8_t* data, uint64_t size, std::shared_ptr<void> keep);
// Maps path (copy = false) or reads it into owned memory (copy = true).
std::shared_ptr<TensorDict> load_file(const std::string& path, bool copy);

}  // namespace tc::io
