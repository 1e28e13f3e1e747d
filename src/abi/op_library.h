// Custom op libraries (tc.h's section of that name): op schemas, the ops
// registered by loaded libraries, and the libraries themselves. The ABI
// layer (src/abi/op_library.cpp) opens a library and runs its entry point;
// this keeps what came of it. An Op holds its Library, and an autograd node
// recorded by an op holds the Op, so a library's code stays mapped while
// anything can still call into it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tc.h"

namespace tc::oplib {

enum class ArgKind { tensor, float_, int_ };

// A parsed "ns::name(Tensor x, float alpha) -> Tensor".
struct Schema {
  std::string ns, name;
  std::vector<std::pair<ArgKind, std::string>> args;
  int64_t n_outputs = 1;
  int64_t n_tensors = 0, n_scalars = 0;
  std::string full_name() const { return ns + "::" + name; }
  std::string canonical() const;
};
// Throws TC_ERR_INVALID_ARGUMENT naming the position of the problem.
Schema parse_schema(const std::string& text);

// An open shared library (closed when the last Op and handle using it die).
struct Library {
  std::string path;
  void* dl = nullptr;  // dlopen's handle
  Library(std::string p, void* d) : path(std::move(p)), dl(d) {}
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
};

struct Op {
  Schema schema;
  tc_op_forward forward = nullptr;
  tc_op_backward backward = nullptr;
  void* context = nullptr;
  std::shared_ptr<Library> library;
};

// What a tc_library handle holds: while one lives, the library's ops stay
// registered; the last one's death unregisters them.
struct LibraryRef {
  std::shared_ptr<Library> library;
  explicit LibraryRef(std::shared_ptr<Library> l) : library(std::move(l)) {}
  ~LibraryRef();
  LibraryRef(const LibraryRef&) = delete;
  LibraryRef& operator=(const LibraryRef&) = delete;
};

// A new reference to the loaded library opened as dl (dlopen's handle), or
// null when it is not loaded.
std::shared_ptr<LibraryRef> find_loaded(void* dl);
// Whether an op of that full name is registered.
bool is_registered(const std::string& full_name);
// Registers a library's ops, all or none (a name taken meanwhile throws),
// and returns the first reference to it.
std::shared_ptr<LibraryRef> commit(const std::shared_ptr<Library>& library,
                                   const std::vector<std::shared_ptr<Op>>& ops);
// The registered op of that full name, or throws TC_ERR_INDEX.
std::shared_ptr<Op> find_op(const std::string& full_name);
// Registered ops' full names, sorted.
std::vector<std::string> op_names();
// "  myops::scaled_square(Tensor x, float alpha) -> Tensor  [/path/libmyops.so]" per op.
std::string report();
// Unregisters every op and forgets every library (the last tc_shutdown).
void clear_all() noexcept;

}  // namespace tc::oplib
