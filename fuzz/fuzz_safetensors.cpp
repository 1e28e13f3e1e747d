// libFuzzer harness: arbitrary bytes as a safetensors file, through
// tc_load_safetensors_buffer and through tc_load_safetensors (a file, mapped
// and copied). Oracle: TC_OK or TC_ERR_IO only (never a crash, never
// TC_ERR_INTERNAL), a message naming the function on failure; a file that
// loads is read in full, saves again, and the saved bytes load to the same
// tensors; live_handles/live_tensors back where they were after each input.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tc.h"

namespace {

[[noreturn]] void die(const char* fn, const std::string& why) {
  const char* msg = "";
  tc_last_error(&msg);
  std::fprintf(stderr, "fuzz_safetensors: %s: %s (last error: %s)\n", fn, why.c_str(), msg ? msg : "(null)");
  std::abort();
}

void check(const char* fn, int32_t rc, bool io_allowed) {
  if (rc == TC_OK) return;
  if (rc == TC_ERR_OUT_OF_MEMORY) return;  // a fuzzed shape may be legal and huge
  if (!(io_allowed && rc == TC_ERR_IO)) die(fn, "status " + std::to_string(rc));
  const char* msg = nullptr;
  tc_last_error(&msg);
  if (!msg || !std::strstr(msg, fn)) die(fn, "the message does not name the function");
}

int64_t flag(const char* name) {
  int64_t v = -1;
  if (tc_get_flag(name, &v) != TC_OK) die("tc_get_flag", name);
  return v;
}

// Reads every tensor of d; returns the bytes of each, in dict order.
std::vector<std::string> read_all(tc_tensor_dict d) {
  int64_t n = 0;
  check("tc_tensor_dict_count", tc_tensor_dict_count(d, &n), false);
  std::vector<std::string> out;
  for (int64_t i = 0; i < n; ++i) {
    char name[512];
    int64_t needed = 0;
    check("tc_tensor_dict_name_at", tc_tensor_dict_name_at(d, i, name, sizeof name, &needed), false);
    std::string full(size_t(needed), '\0');
    check("tc_tensor_dict_name_at", tc_tensor_dict_name_at(d, i, full.data(), needed, &needed), false);
    tc_tensor t = nullptr;
    check("tc_tensor_dict_get", tc_tensor_dict_get(d, full.c_str(), &t), false);
    int64_t numel = 0, size = 0;
    check("tc_tensor_numel", tc_tensor_numel(t, &numel), false);
    check("tc_tensor_element_size", tc_tensor_element_size(t, &size), false);
    std::string bytes(size_t(numel * size), '\0');
    check("tc_tensor_copy_to", tc_tensor_copy_to(t, bytes.data(), numel * size), false);
    out.push_back(full + ":" + bytes);
    tc_tensor_free(t);
  }
  return out;
}

void round_trip(tc_tensor_dict d) {
  const std::vector<std::string> first = read_all(d);
  tc_tensor bytes = nullptr;
  check("tc_save_safetensors_bytes", tc_save_safetensors_bytes(d, &bytes), false);
  void* data = nullptr;
  int64_t n = 0;
  check("tc_tensor_data_ptr", tc_tensor_data_ptr(bytes, &data), false);
  check("tc_tensor_numel", tc_tensor_numel(bytes, &n), false);
  tc_tensor_dict again = nullptr;
  check("tc_load_safetensors_buffer", tc_load_safetensors_buffer(data, n, &again), false);
  std::vector<std::string> second = read_all(again);
  // The writer's order may differ from the input file's: compare as sets.
  std::vector<std::string> a = first;
  std::sort(a.begin(), a.end());
  std::sort(second.begin(), second.end());
  if (a != second) die("round trip", "the saved file loads to other tensors");
  tc_tensor_dict_free(again);
  tc_tensor_free(bytes);
}

const std::string& path() {
  static const std::string p = "/tmp/fuzz_safetensors_" + std::to_string(::getpid()) + ".safetensors";
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool initialized = [] {
    if (tc_init(nullptr) != TC_OK) die("tc_init", "failed");
    return true;
  }();
  (void)initialized;
  const int64_t handles = flag("live_handles"), tensors = flag("live_tensors");

  tc_tensor_dict d = nullptr;
  const int32_t rc = tc_load_safetensors_buffer(data, int64_t(size), &d);
  check("tc_load_safetensors_buffer", rc, true);
  if (rc == TC_OK) {
    round_trip(d);
    tc_tensor_dict_free(d);
  }
  // The file paths: the same verdict, mapped and copied.
  if (FILE* f = std::fopen(path().c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
    for (int32_t flags : {0, TC_LOAD_COPY}) {
      tc_tensor_dict fd = nullptr;
      const int32_t frc = tc_load_safetensors(path().c_str(), flags, &fd);
      check("tc_load_safetensors", frc, true);
      if ((frc == TC_OK) != (rc == TC_OK) && frc != TC_ERR_OUT_OF_MEMORY && rc != TC_ERR_OUT_OF_MEMORY)
        die("tc_load_safetensors", "the file and the buffer got different verdicts");
      if (frc == TC_OK) {
        read_all(fd);
        tc_tensor_dict_free(fd);
      }
    }
  }
  if (flag("live_handles") != handles || flag("live_tensors") != tensors)
    die("leak", "handles or tensors left");
  return 0;
}
