// safetensors files and training state: known-answer bytes written by hand
// from the format's specification (8-byte little-endian header length, JSON
// header padded with spaces to a multiple of 8, tensors by descending dtype
// alignment then name), every kind of malformed file (TC_ERR_IO naming the
// tensor and the problem, never a crash), round trips of every dtype through
// files (mapped and copied) and buffers, atomic writes, and a training run
// resumed from a checkpoint giving bit-for-bit the same losses and weights.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tc.h"
#include "tc_unary_ops.h"

namespace {

// ---- helpers ----

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[size_t(i)] = char((v >> (8 * i)) & 0xff);
  return s;
}

// A file image: the header exactly as given (no padding added), then data.
std::string image(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}
// The same with the header padded with spaces to a multiple of 8.
std::string padded(std::string header, const std::string& data) {
  header.append((8 - header.size() % 8) % 8, ' ');
  return image(header, data);
}

template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

std::string last_error() {
  const char* msg = "";
  tc_last_error(&msg);
  return msg ? msg : "";
}

std::string temp_dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/tc_safetensors_XXXXXX";
    const char* d = mkdtemp(tmpl);
    return std::string(d ? d : "/tmp/tc_safetensors_fallback");
  }();
  struct RemoveAtExit {
    ~RemoveAtExit() { std::filesystem::remove_all(dir); }
  };
  static RemoveAtExit remove_at_exit;
  return dir;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

std::string tensor_bytes(tc_tensor t) {
  int64_t n = 0, size = 0;
  EXPECT_EQ(tc_tensor_numel(t, &n), TC_OK);
  EXPECT_EQ(tc_tensor_element_size(t, &size), TC_OK);
  std::string s(size_t(n * size), '\0');
  EXPECT_EQ(tc_tensor_copy_to(t, s.data(), n * size), TC_OK);
  return s;
}

std::vector<int64_t> shape_of(tc_tensor t) {
  int64_t nd = 0;
  EXPECT_EQ(tc_tensor_ndim(t, &nd), TC_OK);
  std::vector<int64_t> s(static_cast<size_t>(nd));
  EXPECT_EQ(tc_tensor_shape(t, s.data(), nd), TC_OK);
  return s;
}

tc_tensor from(const std::string& bytes, std::vector<int64_t> shape, int32_t dtype) {
  tc_tensor t = nullptr;
  EXPECT_EQ(tc_from_data(bytes.data(), int64_t(bytes.size()), shape.data(), int64_t(shape.size()), dtype, &t),
            TC_OK)
      << last_error();
  return t;
}

std::string dict_bytes(tc_tensor_dict d) {
  tc_tensor b = nullptr;
  EXPECT_EQ(tc_save_safetensors_bytes(d, &b), TC_OK) << last_error();
  if (!b) return "";
  const std::string s = tensor_bytes(b);
  tc_tensor_free(b);
  return s;
}

std::string name_at(tc_tensor_dict d, int64_t i) {
  char buf[256];
  int64_t needed = 0;
  EXPECT_EQ(tc_tensor_dict_name_at(d, i, buf, sizeof buf, &needed), TC_OK);
  return buf;
}

class Safetensors : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(tc_init(nullptr), TC_OK);
    tensors0_ = flag("live_tensors");
    handles0_ = flag("live_handles");
  }
  void TearDown() override {
    EXPECT_EQ(flag("live_handles"), handles0_) << "a test leaked handles";
    EXPECT_EQ(flag("live_tensors"), tensors0_) << "a test leaked tensors";
    EXPECT_EQ(tc_shutdown(), TC_OK);
  }
  static int64_t flag(const char* name) {
    int64_t v = -1;
    tc_get_flag(name, &v);
    return v;
  }
  // Loads a file image from memory; returns the status (and frees the dict).
  static int32_t load_status(const std::string& bytes, std::string* msg = nullptr) {
    tc_tensor_dict d = nullptr;
    const int32_t rc = tc_load_safetensors_buffer(bytes.data(), int64_t(bytes.size()), &d);
    if (msg) *msg = last_error();
    if (rc == TC_OK) tc_tensor_dict_free(d);
    return rc;
  }
  int64_t tensors0_ = 0, handles0_ = 0;
};

// ---- known answers (bytes from the specification) ----

TEST_F(Safetensors, WritesTheSpecifiedBytesForOneTensor) {
  tc_tensor_dict d = nullptr;
  ASSERT_EQ(tc_tensor_dict_create(&d), TC_OK);
  tc_tensor t = from(raw<float>({0, 1, 2, 3, 4, 5}), {1, 2, 3}, TC_FLOAT32);
  ASSERT_EQ(tc_tensor_dict_set(d, "attn.0", t), TC_OK);
  // 64 bytes of JSON: already a multiple of 8, so no padding.
  const std::string header = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(header.size(), 64u);
  const std::string expected = image(header, raw<float>({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(dict_bytes(d), expected);
  // The same bytes through a file.
  const std::string path = temp_dir() + "/one.safetensors";
  ASSERT_EQ(tc_save_safetensors(d, path.c_str()), TC_OK) << last_error();
  EXPECT_EQ(read_file(path), expected);
  tc_tensor_free(t);
  tc_tensor_dict_free(d);
}

TEST_F(Safetensors, PadsTheHeaderWithSpacesAndWritesMetadataFirst) {
  tc_tensor_dict d = nullptr;
  ASSERT_EQ(tc_tensor_dict_create(&d), TC_OK);
  EXPECT_EQ(dict_bytes(d), image("{}      ", ""));  // "{}" padded to 8
  ASSERT_EQ(tc_tensor_dict_set_metadata(d, "framework", "pt"), TC_OK);
  EXPECT_EQ(dict_bytes(d), image(R"({"__metadata__":{"framework":"pt"}})"
                                 "     ",
                                 ""));  // 35 + 5
  // Misaligned name length: 7 spaces of padding keep the data 8-aligned.
  tc_tensor_dict d2 = nullptr;
  ASSERT_EQ(tc_tensor_dict_create(&d2), TC_OK);
  tc_tensor t = from(raw<float>({0, 1, 2, 3, 4, 5}), {1, 1, 2, 3}, TC_FLOAT32);
  ASSERT_EQ(tc_tensor_dict_set(d2, "attn0", t), TC_OK);
  const std::string h = R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(h.size(), 65u);
  EXPECT_EQ(dict_bytes(d2), image(h + "       ", raw<float>({0, 1, 2, 3, 4, 5})));
  tc_tensor_free(t);
  tc_tensor_dict_free(d);
  tc_tensor_dict_free(d2);
}

TEST_F(Safetensors, OrdersTensorsByDescendingAlignmentThenName) {
  tc_tensor_dict d = nullptr;
  ASSERT_EQ(tc_tensor_dict_create(&d), TC_OK);
  tc_tensor f_a = from(raw<float>({1, 2}), {2}, TC_FLOAT32);
  tc_tensor i_b = from(raw<int64_t>({-3}), {1}, TC_INT64);
  tc_tensor u_c = from(std::string("\x01\x02\x03", 3), {3}, TC_UINT8);
  tc_tensor b_d = from(std::string("\x01", 1), {}, TC_BOOL);
  tc_tensor f_e = from(raw<float>({7}), {1}, TC_FLOAT32);
  tc_tensor h_f = from(raw<uint16_t>({0x3c00}), {1}, TC_FLOAT16);
  // Inserted in another order than the file's.
  for (auto [n, t] : {std::pair<const char*, tc_tensor>{"e", f_e},
                      {"d", b_d},
                      {"c", u_c},
                      {"b", i_b},
                      {"a", f_a},
                      {"f", h_f}})
    ASSERT_EQ(tc_tensor_dict_set(d, n, t), TC_OK);
  const std::string header = R"({"b":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},)"
                             R"("a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
                             R"("e":{"dtype":"F32","shape":[1],"data_offsets":[16,20]},)"
                             R"("f":{"dtype":"F16","shape":[1],"data_offsets":[20,22]},)"
                             R"("c":{"dtype":"U8","shape":[3],"data_offsets":[22,25]},)"
                             R"("d":{"dtype":"BOOL","shape":[],"data_offsets":[25,26]}})";
  const std::string data = raw<int64_t>({-3}) + raw<float>({1, 2, 7}) + raw<uint16_t>({0x3c00}) +
                           std::string("\x01\x02\x03\x01", 4);
  EXPECT_EQ(dict_bytes(d), padded(header, data));
  for (tc_tensor t : {f_a, i_b, u_c, b_d, f_e, h_f}) tc_tensor_free(t);
  tc_tensor_dict_free(d);
}

TEST_F(Safetensors, ReadsAHandWrittenFileInAnyKeyOrderAndAlignment) {
  // Keys not in offset order, no padding (the F64 data lands misaligned:
  // copied), metadata, whitespace in the JSON.
  const std::string header =
      R"({  "w" : {"dtype":"F64","shape":[2],"data_offsets":[4,20]}, "__metadata__": {"format":"pt","x":"y"},)"
      R"( "i": {"shape": [2, 1], "dtype": "I16", "data_offsets": [0, 4]} })";
  const std::string bytes = image(header, raw<int16_t>({-2, 300}) + raw<double>({0.5, -1e300}));
  ASSERT_NE((8 + header.size() + 4) % 8, 0u) << "the test wants a misaligned F64";
  for (int via = 0; via < 3; ++via) {
    SCOPED_TRACE(via == 0 ? "buffer" : via == 1 ? "mapped file" : "copied file");
    tc_tensor_dict d = nullptr;
    if (via == 0) {
      ASSERT_EQ(tc_load_safetensors_buffer(bytes.data(), int64_t(bytes.size()), &d), TC_OK) << last_error();
    } else {
      const std::string path = temp_dir() + "/hand.safetensors";
      write_file(path, bytes);
      ASSERT_EQ(tc_load_safetensors(path.c_str(), via == 2 ? TC_LOAD_COPY : 0, &d), TC_OK) << last_error();
    }
    int64_t n = 0;
    ASSERT_EQ(tc_tensor_dict_count(d, &n), TC_OK);
    ASSERT_EQ(n, 2);
    EXPECT_EQ(name_at(d, 0), "i");  // file order: by data offset
    EXPECT_EQ(name_at(d, 1), "w");
    tc_tensor w = nullptr, i = nullptr;
    ASSERT_EQ(tc_tensor_dict_get(d, "w", &w), TC_OK);
    ASSERT_EQ(tc_tensor_dict_get(d, "i", &i), TC_OK);
    int32_t dt = -1;
    tc_tensor_dtype(w, &dt);
    EXPECT_EQ(dt, TC_FLOAT64);
    tc_tensor_dtype(i, &dt);
    EXPECT_EQ(dt, TC_INT16);
    EXPECT_EQ(shape_of(i), (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(tensor_bytes(w), raw<double>({0.5, -1e300}));
    EXPECT_EQ(tensor_bytes(i), raw<int16_t>({-2, 300}));
    void* p = nullptr;
    tc_tensor_data_ptr(w, &p);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 8, 0u) << "a misaligned tensor must be copied";
    char buf[16];
    int64_t needed = 0;
    ASSERT_EQ(tc_tensor_dict_get_metadata(d, "format", buf, sizeof buf, &needed), TC_OK);
    EXPECT_STREQ(buf, "pt");
    ASSERT_EQ(tc_tensor_dict_metadata_count(d, &n), TC_OK);
    EXPECT_EQ(n, 2);
    tc_tensor_free(w);
    tc_tensor_free(i);
    tc_tensor_dict_free(d);
  }
}

// ---- bad files ----

struct BadCase {
  const char* what;
  std::string bytes;
  const char* must_mention;  // a part of the message (the tensor, the problem)
};

std::vector<BadCase> bad_cases() {
  const std::string f8 = raw<float>({1, 2});
  const std::string ok = R"("dtype":"F32","shape":[2],"data_offsets":[0,8])";
  return {
      {"empty", "", "truncated"},
      {"shorter than the length field", "\x08\x00\x00", "truncated"},
      {"header length past the end", le64(100) + "{}", "past the end"},
      {"header length past the end by one", le64(9) + "{}      ", "past the end"},
      {"header length 2^64-1", le64(~uint64_t(0)) + "{}      ", "limit"},
      {"header larger than 100 MB", le64(100000001) + "{}", "limit"},
      {"invalid JSON", padded(R"({"a":{)", ""), "not valid JSON"},
      {"not an object", padded("[1,2]", ""), "start with '{'"},
      {"a JSON string", padded("\"x\"", ""), "start with '{'"},
      {"invalid UTF-8", padded("{\"a\xff\":{" + ok + "}}", f8), "not valid JSON"},
      {"trailing garbage after the JSON", padded("{\"a\":{" + ok + "}}x", f8), "not valid JSON"},
      {"unknown dtype", padded(R"({"wq":{"dtype":"F7","shape":[2],"data_offsets":[0,8]}})", f8), "\"wq\""},
      {"a dtype libtc lacks", padded(R"({"wu":{"dtype":"U32","shape":[2],"data_offsets":[0,8]}})", f8),
       "U32"},
      {"dtype not a string", padded(R"({"wd":{"dtype":4,"shape":[2],"data_offsets":[0,8]}})", f8), "\"wd\""},
      {"missing shape", padded(R"({"ws":{"dtype":"F32","data_offsets":[0,8]}})", f8), "shape"},
      {"missing data_offsets", padded(R"({"wo":{"dtype":"F32","shape":[2]}})", f8), "data_offsets"},
      {"entry not an object", padded(R"({"wn":[1,2]})", f8), "\"wn\""},
      {"negative size", padded(R"({"neg":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", f8),
       "\"neg\""},
      {"fractional size", padded(R"({"fr":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", f8),
       "\"fr\""},
      {"17 dims",
       padded(R"({"many":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2],"data_offsets":[0,8]}})",
              f8),
       "\"many\""},
      {"size overflow",
       padded(R"({"huge":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,8]}})", f8),
       "\"huge\""},
      {"offsets out of order", padded(R"({"rev":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", f8),
       "out of order"},
      {"offsets not matching shape x dtype size",
       padded(R"({"sz":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", f8), "\"sz\""},
      {"offsets out of bounds", padded(R"({"oob":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", "abcd"),
       "out of bounds"},
      {"offsets past 2^64",
       padded(R"({"big":{"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551624]}})", f8),
       "\"big\""},
      {"overlapping tensors",
       padded(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
              R"("y":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
              f8 + "abcd"),
       "overlap"},
      {"a gap between tensors",
       padded(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
              R"("y":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
              f8 + "abcd"),
       "gap"},
      {"bytes after the last tensor", padded("{\"a\":{" + ok + "}}", f8 + "xx"), "trailing"},
      {"duplicate names",
       padded(R"({"dup":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
              R"("dup":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
              f8),
       "\"dup\" twice"},
      {"metadata not an object", padded(R"({"__metadata__":[1]})", ""), "__metadata__"},
      {"metadata value not a string", padded(R"({"__metadata__":{"k":1}})", ""), "\"k\""},
  };
}

TEST_F(Safetensors, EveryKindOfBadFileIsAnIoErrorNamingTheProblem) {
  for (const BadCase& c : bad_cases()) {
    SCOPED_TRACE(c.what);
    std::string msg;
    EXPECT_EQ(load_status(c.bytes, &msg), TC_ERR_IO) << msg;
    EXPECT_NE(msg.find("tc_load_safetensors_buffer"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.must_mention), std::string::npos)
        << "expected '" << c.must_mention << "' in: " << msg;
    // The same through a file, mapped and copied; the message names the path.
    const std::string path = temp_dir() + "/bad.safetensors";
    write_file(path, c.bytes);
    for (int32_t flags : {0, TC_LOAD_COPY}) {
      tc_tensor_dict d = nullptr;
      EXPECT_EQ(tc_load_safetensors(path.c_str(), flags, &d), TC_ERR_IO);
      EXPECT_EQ(d, nullptr);
      const std::string m = last_error();
      EXPECT_NE(m.find(path), std::string::npos) << m;
      EXPECT_NE(m.find(c.must_mention), std::string::npos) << m;
    }
  }
}

TEST_F(Safetensors, EveryTruncationOfAValidFileIsAnError) {
  const std::string good = padded(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                  R"("b":{"dtype":"I8","shape":[3],"data_offsets":[8,11]}})",
                                  raw<float>({1, 2}) + "xyz");
  ASSERT_EQ(load_status(good), TC_OK) << last_error();
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_EQ(load_status(good.substr(0, n)), TC_ERR_IO) << n << " bytes";
}

// ---- round trips ----

TEST_F(Safetensors, EveryDtypeRoundTripsThroughFilesAndBuffers) {
  tc_tensor_dict d = nullptr;
  ASSERT_EQ(tc_tensor_dict_create(&d), TC_OK);
  std::vector<tc_tensor> made;
  const int32_t dtypes[] = {TC_FLOAT32, TC_FLOAT64, TC_FLOAT16, TC_BFLOAT16, TC_INT8,
                            TC_INT16,   TC_INT32,   TC_INT64,   TC_UINT8,    TC_BOOL};
  for (int32_t dt : dtypes) {
    const char* name = nullptr;
    tc_dtype_name(dt, &name);
    tc_tensor a = nullptr, c = nullptr;
    ASSERT_EQ(tc_arange(0, 6, 1, TC_FLOAT64, TC_CPU, &a), TC_OK);
    ASSERT_EQ(tc_to_dtype(a, dt == TC_BOOL ? TC_BOOL : dt, &c), TC_OK) << name << ": " << last_error();
    const int64_t s[] = {2, 3};
    tc_tensor r = nullptr;
    ASSERT_EQ(tc_reshape(c, s, 2, &r), TC_OK);
    ASSERT_EQ(tc_tensor_dict_set(d, name, r), TC_OK);
    made.insert(made.end(), {a, c, r});
  }
  // A non-contiguous view (saved as its values), a 0-dim and an empty tensor.
  tc_tensor m = from(raw<float>({1, 2, 3, 4, 5, 6}), {2, 3}, TC_FLOAT32), mt = nullptr, z = nullptr,
            e = nullptr;
  ASSERT_EQ(tc_transpose(m, 0, 1, &mt), TC_OK);
  z = from(raw<double>({3.25}), {}, TC_FLOAT64);
  const int64_t es[] = {0, 4};
  ASSERT_EQ(tc_zeros(es, 2, TC_FLOAT32, TC_CPU, &e), TC_OK);
  ASSERT_EQ(tc_tensor_dict_set(d, "transposed", mt), TC_OK);
  ASSERT_EQ(tc_tensor_dict_set(d, "scalar", z), TC_OK);
  ASSERT_EQ(tc_tensor_dict_set(d, "empty", e), TC_OK);
  made.insert(made.end(), {m, mt, z, e});
  ASSERT_EQ(tc_tensor_dict_set_metadata(d, "note", "caf\xc3\xa9 \"quoted\"\n"), TC_OK);

  const std::string path = temp_dir() + "/all.safetensors";
  ASSERT_EQ(tc_save_safetensors(d, path.c_str()), TC_OK) << last_error();
  const std::string bytes = read_file(path);
  EXPECT_EQ(bytes, dict_bytes(d));
  for (int via = 0; via < 3; ++via) {
    SCOPED_TRACE(via);
    tc_tensor_dict l = nullptr;
    if (via == 2) {
      ASSERT_EQ(tc_load_safetensors_buffer(bytes.data(), int64_t(bytes.size()), &l), TC_OK) << last_error();
    } else {
      ASSERT_EQ(tc_load_safetensors(path.c_str(), via == 1 ? TC_LOAD_COPY : 0, &l), TC_OK) << last_error();
    }
    int64_t n = 0, n0 = 0;
    tc_tensor_dict_count(l, &n);
    tc_tensor_dict_count(d, &n0);
    ASSERT_EQ(n, n0);
    for (int64_t i = 0; i < n0; ++i) {
      const std::string name = name_at(d, i);
      tc_tensor a = nullptr, b = nullptr;
      ASSERT_EQ(tc_tensor_dict_get(d, name.c_str(), &a), TC_OK);
      ASSERT_EQ(tc_tensor_dict_get(l, name.c_str(), &b), TC_OK) << name;
      int32_t da = -1, db = -2;
      tc_tensor_dtype(a, &da);
      tc_tensor_dtype(b, &db);
      EXPECT_EQ(da, db) << name;
      EXPECT_EQ(shape_of(a), shape_of(b)) << name;
      EXPECT_EQ(tensor_bytes(a), tensor_bytes(b)) << name;
      void* p = nullptr;
      int64_t size = 1;
      tc_tensor_data_ptr(b, &p);
      tc_tensor_element_size(b, &size);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % uintptr_t(size), 0u) << name;
      tc_tensor_free(a);
      tc_tensor_free(b);
    }
    char buf[64];
    int64_t needed = 0;
    ASSERT_EQ(tc_tensor_dict_get_metadata(l, "note", buf, sizeof buf, &needed), TC_OK);
    EXPECT_STREQ(buf, "caf\xc3\xa9 \"quoted\"\n");
    // Saving what was loaded gives the same bytes.
    EXPECT_EQ(dict_bytes(l), bytes);
    tc_tensor_dict_free(l);
  }
  for (tc_tensor t : made) tc_tensor_free(t);
  tc_tensor_dict_free(d);
}

TEST_F(Safetensors, MappedTensorsOutliveTheDictAndNeverWriteTheFile) {
  const std::string path = temp_dir() + "/mapped.safetensors";
  const std::string bytes =
      padded(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", raw<float>({1, 2, 3, 4}));
  write_file(path, bytes);
  tc_tensor_dict d = nullptr;
  ASSERT_EQ(tc_load_safetensors(path.c_str(), 0, &d), TC_OK) << last_error();
  tc_tensor w = nullptr;
  ASSERT_EQ(tc_tensor_dict_get(d, "w", &w), TC_OK);
  ASSERT_EQ(tc_tensor_dict_free(d), TC_OK);
  std::remove(path.c_str());  // the mapping stays valid after unlink
  EXPECT_EQ(tensor_bytes(w), raw<float>({1, 2, 3, 4}));
  // Writable, copy-on-write.
  write_file(path, bytes);
  tc_tensor_dict d2 = nullptr;
  ASSERT_EQ(tc_load_safetensors(path.c_str(), 0, &d2), TC_OK);
  tc_tensor w2 = nullptr;
  ASSERT_EQ(tc_tensor_dict_get(d2, "w", &w2), TC_OK);
  ASSERT_EQ(tc_fill_(w2, 9.0), TC_OK) << last_error();
  EXPECT_EQ(tensor_bytes(w2), raw<float>({9, 9, 9, 9}));
  EXPECT_EQ(read_file(path), bytes);
  tc_tensor_free(w);
  tc_tensor_free(w2);
  tc_tensor_dict_free(d2);
}

TEST_F(Safetensors, SavingIsAtomicAndLeavesNoTemporaryFiles) {
  const std::string dir = temp_dir() + "/atomic";
  mkdir(dir.c_str(), 0700);
  const std::string path = dir + "/ckpt.safetensors";
  tc_tensor_dict d = nullptr;
  ASSERT_EQ(tc_tensor_dict_create(&d), TC_OK);
  tc_tensor t = from(raw<float>({1, 2}), {2}, TC_FLOAT32);
  ASSERT_EQ(tc_tensor_dict_set(d, "t", t), TC_OK);
  write_file(path, "old contents");
  ASSERT_EQ(tc_save_safetensors(d, path.c_str()), TC_OK) << last_error();
  EXPECT_EQ(read_file(path), dict_bytes(d));
  EXPECT_EQ(dir_entries(dir), std::vector<std::string>{"ckpt.safetensors"});
  // A target that cannot be replaced (a non-empty directory): an error, and
  // neither the target nor a temporary file is left changed or behind.
  const std::string sub = dir + "/sub";
  mkdir(sub.c_str(), 0700);
  write_file(sub + "/keep", "x");
  EXPECT_EQ(tc_save_safetensors(d, sub.c_str()), TC_ERR_IO);
  EXPECT_NE(last_error().find(sub), std::string::npos) << last_error();
  EXPECT_EQ(read_file(sub + "/keep"), "x");
  auto names = dir_entries(dir);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ckpt.safetensors", "sub"}));
  tc_tensor_free(t);
  tc_tensor_dict_free(d);
}

TEST_F(Safetensors, DictSemantics) {
  tc_tensor_dict d = nullptr;
  ASSERT_EQ(tc_tensor_dict_create(&d), TC_OK);
  tc_tensor a = from(raw<float>({1}), {1}, TC_FLOAT32), b = from(raw<float>({2}), {1}, TC_FLOAT32);
  ASSERT_EQ(tc_tensor_dict_set(d, "x", a), TC_OK);
  ASSERT_EQ(tc_tensor_dict_set(d, "y", a), TC_OK);
  ASSERT_EQ(tc_tensor_dict_set(d, "x", b), TC_OK);  // replaces, keeps the position
  int64_t n = 0;
  tc_tensor_dict_count(d, &n);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(name_at(d, 0), "x");
  tc_tensor got = nullptr;
  ASSERT_EQ(tc_tensor_dict_get(d, "x", &got), TC_OK);
  int32_t same = 0;
  tc_tensor_same(got, b, &same);
  EXPECT_EQ(same, 1) << "get gives the same tensor, not a copy";
  int32_t has = -1;
  tc_tensor_dict_contains(d, "nope", &has);
  EXPECT_EQ(has, 0);
  tc_tensor_free(got);
  tc_tensor_free(a);
  tc_tensor_free(b);
  tc_tensor_dict_free(d);
}

// ---- generator state ----

TEST_F(Safetensors, RngStateRestoresTheSameSamples) {
  ASSERT_EQ(tc_manual_seed(123), TC_OK);
  const int64_t s[] = {5};
  tc_tensor x = nullptr, st = nullptr, y1 = nullptr, y2 = nullptr;
  ASSERT_EQ(tc_randn(s, 1, TC_FLOAT32, TC_CPU, &x), TC_OK);
  ASSERT_EQ(tc_get_rng_state(&st), TC_OK);
  EXPECT_EQ(shape_of(st), std::vector<int64_t>{TC_RNG_STATE_BYTES});
  const std::string state = tensor_bytes(st);
  EXPECT_EQ(state.substr(0, 8), le64(123));  // the seed, then the offset
  EXPECT_EQ(state.substr(8), le64(2));       // 5 floats = 2 Philox calls so far
  ASSERT_EQ(tc_rand(s, 1, TC_FLOAT32, TC_CPU, &y1), TC_OK);
  ASSERT_EQ(tc_manual_seed(999), TC_OK);
  ASSERT_EQ(tc_set_rng_state(st), TC_OK);
  ASSERT_EQ(tc_rand(s, 1, TC_FLOAT32, TC_CPU, &y2), TC_OK);
  EXPECT_EQ(tensor_bytes(y1), tensor_bytes(y2));
  uint64_t seed = 0;
  tc_initial_seed(&seed);
  EXPECT_EQ(seed, 123u);
  for (tc_tensor t : {x, st, y1, y2}) tc_tensor_free(t);
}

// ---- optimizer state and a resumed training run ----

// A 2-layer MLP with dropout trained on fixed random data.
struct TrainRun {
  tc_tensor x = nullptr, y = nullptr, w1 = nullptr, b1 = nullptr, w2 = nullptr, b2 = nullptr;
  tc_optimizer opt = nullptr;
  bool adam = false;

  std::array<tc_tensor, 4> params() const { return {w1, b1, w2, b2}; }
  void init_data() {
    ASSERT_EQ(tc_manual_seed(7), TC_OK);
    const int64_t xs[] = {16, 8};
    ASSERT_EQ(tc_randn(xs, 2, TC_FLOAT32, TC_CPU, &x), TC_OK);
    std::vector<int64_t> labels(16);
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = int64_t((i * 7) % 4);
    const int64_t ys[] = {16};
    ASSERT_EQ(tc_from_data(labels.data(), 16 * 8, ys, 1, TC_INT64, &y), TC_OK);
  }
  void init_model(double lr) {
    const int64_t s1[] = {16, 8}, s2[] = {16}, s3[] = {4, 16}, s4[] = {4};
    ASSERT_EQ(tc_empty(s1, 2, TC_FLOAT32, TC_CPU, &w1), TC_OK);
    ASSERT_EQ(tc_zeros(s2, 1, TC_FLOAT32, TC_CPU, &b1), TC_OK);
    ASSERT_EQ(tc_empty(s3, 2, TC_FLOAT32, TC_CPU, &w2), TC_OK);
    ASSERT_EQ(tc_zeros(s4, 1, TC_FLOAT32, TC_CPU, &b2), TC_OK);
    ASSERT_EQ(tc_kaiming_uniform_(w1, std::sqrt(5.0)), TC_OK);
    ASSERT_EQ(tc_kaiming_uniform_(w2, std::sqrt(5.0)), TC_OK);
    for (tc_tensor p : {w1, b1, w2, b2}) ASSERT_EQ(tc_tensor_set_requires_grad(p, 1), TC_OK);
    tc_tensor ps[] = {w1, b1, w2, b2};
    if (adam) {
      tc_adam_options o{};
      o.size = sizeof o;
      o.lr = lr;
      o.beta1 = 0.9;
      o.beta2 = 0.999;
      o.eps = 1e-8;
      o.weight_decay = 0.01;
      o.decoupled_weight_decay = 1;
      ASSERT_EQ(tc_optimizer_adam(ps, 4, &o, &opt), TC_OK);
    } else {
      tc_sgd_options o{};
      o.size = sizeof o;
      o.lr = lr;
      o.momentum = 0.9;
      o.weight_decay = 1e-3;
      o.nesterov = 1;
      ASSERT_EQ(tc_optimizer_sgd(ps, 4, &o, &opt), TC_OK);
    }
  }
  float step() {
    tc_tensor h = nullptr, r = nullptr, dr = nullptr, logits = nullptr, loss = nullptr;
    EXPECT_EQ(tc_linear(x, w1, b1, &h), TC_OK);
    EXPECT_EQ(tc_relu(h, &r), TC_OK);
    EXPECT_EQ(tc_dropout(r, 0.3, 1, &dr), TC_OK);
    EXPECT_EQ(tc_linear(dr, w2, b2, &logits), TC_OK);
    EXPECT_EQ(tc_cross_entropy(logits, y, TC_REDUCTION_MEAN, &loss), TC_OK);
    EXPECT_EQ(tc_backward(loss, nullptr, 0), TC_OK);
    EXPECT_EQ(tc_optimizer_step(opt), TC_OK);
    EXPECT_EQ(tc_optimizer_zero_grad(opt), TC_OK);
    float v = 0;
    EXPECT_EQ(tc_tensor_copy_to(loss, &v, 4), TC_OK);
    for (tc_tensor t : {h, r, dr, logits, loss}) tc_tensor_free(t);
    return v;
  }
  std::string weights() {
    std::string s;
    for (tc_tensor p : {w1, b1, w2, b2}) s += tensor_bytes(p);
    return s;
  }
  void free_all() {
    if (opt) tc_optimizer_free(opt);
    for (tc_tensor t : {x, y, w1, b1, w2, b2})
      if (t) tc_tensor_free(t);
    x = y = w1 = b1 = w2 = b2 = nullptr;
    opt = nullptr;
  }
};

const char* kParamNames[] = {"model.w1", "model.b1", "model.w2", "model.b2"};

void save_checkpoint(TrainRun& r, const std::string& path) {
  tc_tensor_dict ckpt = nullptr, opt = nullptr;
  ASSERT_EQ(tc_tensor_dict_create(&ckpt), TC_OK);
  const auto ps = r.params();
  for (size_t i = 0; i < 4; ++i) ASSERT_EQ(tc_tensor_dict_set(ckpt, kParamNames[i], ps[i]), TC_OK);
  ASSERT_EQ(tc_optimizer_state_dict(r.opt, &opt), TC_OK) << last_error();
  int64_t n = 0;
  tc_tensor_dict_count(opt, &n);
  ASSERT_GT(n, 5) << "the optimizer state has its buffers";
  for (int64_t i = 0; i < n; ++i) {
    const std::string name = name_at(opt, i);
    tc_tensor t = nullptr;
    ASSERT_EQ(tc_tensor_dict_get(opt, name.c_str(), &t), TC_OK);
    ASSERT_EQ(tc_tensor_dict_set(ckpt, ("optim." + name).c_str(), t), TC_OK);
    tc_tensor_free(t);
  }
  tc_tensor rng = nullptr;
  ASSERT_EQ(tc_get_rng_state(&rng), TC_OK);
  ASSERT_EQ(tc_tensor_dict_set(ckpt, "rng_state", rng), TC_OK);
  tc_tensor_free(rng);
  ASSERT_EQ(tc_save_safetensors(ckpt, path.c_str()), TC_OK) << last_error();
  tc_tensor_dict_free(opt);
  tc_tensor_dict_free(ckpt);
}

void load_checkpoint(TrainRun& r, const std::string& path) {
  tc_tensor_dict ckpt = nullptr, opt = nullptr;
  ASSERT_EQ(tc_load_safetensors(path.c_str(), 0, &ckpt), TC_OK) << last_error();
  int32_t prev = 1;
  ASSERT_EQ(tc_set_grad_enabled(0, &prev), TC_OK);
  const auto ps = r.params();
  for (size_t i = 0; i < 4; ++i) {
    tc_tensor t = nullptr;
    ASSERT_EQ(tc_tensor_dict_get(ckpt, kParamNames[i], &t), TC_OK);
    ASSERT_EQ(tc_copy_(ps[i], t), TC_OK) << last_error();
    tc_tensor_free(t);
  }
  ASSERT_EQ(tc_set_grad_enabled(prev, nullptr), TC_OK);
  ASSERT_EQ(tc_tensor_dict_create(&opt), TC_OK);
  int64_t n = 0;
  tc_tensor_dict_count(ckpt, &n);
  for (int64_t i = 0; i < n; ++i) {
    const std::string name = name_at(ckpt, i);
    if (name.rfind("optim.", 0) != 0) continue;
    tc_tensor t = nullptr;
    ASSERT_EQ(tc_tensor_dict_get(ckpt, name.c_str(), &t), TC_OK);
    ASSERT_EQ(tc_tensor_dict_set(opt, name.substr(6).c_str(), t), TC_OK);
    tc_tensor_free(t);
  }
  ASSERT_EQ(tc_optimizer_load_state_dict(r.opt, opt), TC_OK) << last_error();
  tc_tensor rng = nullptr;
  ASSERT_EQ(tc_tensor_dict_get(ckpt, "rng_state", &rng), TC_OK);
  ASSERT_EQ(tc_set_rng_state(rng), TC_OK) << last_error();
  tc_tensor_free(rng);
  tc_tensor_dict_free(opt);
  tc_tensor_dict_free(ckpt);
}

void resume_bit_for_bit(bool adam) {
  constexpr int kSteps = 8, kSaveAt = 3;
  const std::string path = temp_dir() + (adam ? "/adam.safetensors" : "/sgd.safetensors");
  // The uninterrupted run.
  std::vector<float> losses;
  std::string final_weights;
  {
    TrainRun r;
    r.adam = adam;
    r.init_data();
    r.init_model(adam ? 1e-2 : 5e-2);
    for (int i = 0; i < kSteps; ++i) losses.push_back(r.step());
    final_weights = r.weights();
    r.free_all();
  }
  // The interrupted run: kSaveAt steps, a checkpoint, a fresh library.
  {
    TrainRun r;
    r.adam = adam;
    r.init_data();
    r.init_model(adam ? 1e-2 : 5e-2);
    for (int i = 0; i < kSaveAt; ++i) EXPECT_EQ(r.step(), losses[size_t(i)]);
    save_checkpoint(r, path);
    r.free_all();
  }
  ASSERT_EQ(tc_shutdown(), TC_OK);
  tc_init_options o{};
  o.size = sizeof o;
  o.use_seed = 1;
  o.seed = 4242;  // another seed: the checkpoint's state must win
  ASSERT_EQ(tc_init(&o), TC_OK);
  TrainRun r;
  r.adam = adam;
  r.init_data();
  r.init_model(0.5);  // other weights and lr: the checkpoint's must win
  load_checkpoint(r, path);
  for (int i = kSaveAt; i < kSteps; ++i) {
    const float l = r.step();
    EXPECT_EQ(std::memcmp(&l, &losses[size_t(i)], 4), 0)
        << "step " << i << ": " << l << " vs " << losses[size_t(i)];
  }
  EXPECT_EQ(r.weights(), final_weights) << "the resumed run's weights differ";
  r.free_all();
}

TEST_F(Safetensors, SgdMomentumTrainingResumesBitForBit) { resume_bit_for_bit(false); }
TEST_F(Safetensors, AdamTrainingResumesBitForBit) { resume_bit_for_bit(true); }

TEST_F(Safetensors, OptimizerStateDictNamesAndAllOrNothingLoad) {
  TrainRun r;
  r.adam = true;
  r.init_data();
  r.init_model(1e-2);
  tc_tensor_dict before = nullptr;
  ASSERT_EQ(tc_optimizer_state_dict(r.opt, &before), TC_OK);
  int64_t n = 0;
  tc_tensor_dict_count(before, &n);
  EXPECT_EQ(n, 6) << "hyperparameters only before the first step";
  r.step();
  tc_tensor_dict after = nullptr;
  ASSERT_EQ(tc_optimizer_state_dict(r.opt, &after), TC_OK);
  tc_tensor_dict_count(after, &n);
  EXPECT_EQ(n, 6 + 4 * 3);
  for (const char* name :
       {"param_groups.0.lr", "param_groups.0.beta2", "state.0.step", "state.3.exp_avg_sq"}) {
    int32_t has = 0;
    tc_tensor_dict_contains(after, name, &has);
    EXPECT_EQ(has, 1) << name;
  }
  tc_tensor step = nullptr;
  ASSERT_EQ(tc_tensor_dict_get(after, "state.2.step", &step), TC_OK);
  EXPECT_EQ(tensor_bytes(step), raw<int64_t>({1}));
  tc_tensor_free(step);
  // A partial state (exp_avg_sq of one parameter missing) changes nothing:
  // the optimizer keeps stepping exactly as before.
  tc_tensor_dict partial = nullptr;
  ASSERT_EQ(tc_tensor_dict_create(&partial), TC_OK);
  tc_tensor_dict_count(before, &n);
  for (int64_t i = 0; i < n; ++i) {
    const std::string name = name_at(before, i);
    tc_tensor t = nullptr;
    tc_tensor_dict_get(before, name.c_str(), &t);
    tc_tensor_dict_set(partial, name.c_str(), t);
    tc_tensor_free(t);
  }
  tc_tensor m = nullptr;
  ASSERT_EQ(tc_tensor_dict_get(after, "state.1.exp_avg", &m), TC_OK);
  tc_tensor_dict_set(partial, "state.1.exp_avg", m);
  tc_tensor_free(m);
  EXPECT_EQ(tc_optimizer_load_state_dict(r.opt, partial), TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("state.1.step"), std::string::npos) << last_error();
  tc_tensor_dict again = nullptr;
  ASSERT_EQ(tc_optimizer_state_dict(r.opt, &again), TC_OK);
  EXPECT_EQ(dict_bytes(again), dict_bytes(after)) << "a refused load changed the optimizer";
  // Loading the pre-step state resets the moments.
  ASSERT_EQ(tc_optimizer_load_state_dict(r.opt, before), TC_OK) << last_error();
  tc_tensor_dict reset = nullptr;
  ASSERT_EQ(tc_optimizer_state_dict(r.opt, &reset), TC_OK);
  EXPECT_EQ(dict_bytes(reset), dict_bytes(before));
  for (tc_tensor_dict d : {before, after, partial, again, reset}) tc_tensor_dict_free(d);
  r.free_all();
}

}  // namespace
