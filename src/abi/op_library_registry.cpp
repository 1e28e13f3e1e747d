// The registry of the ops loaded op libraries register, and the libraries
// themselves (abi/op_library.h); abi/op_library.cpp opens and runs them.
#include <dlfcn.h>

#include <cctype>
#include <map>
#include <mutex>

#include "abi/op_library.h"
#include "abi/status.h"

namespace tc::oplib {

namespace {

const char* kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::tensor:
      return "Tensor";
    case ArgKind::float_:
      return "float";
    case ArgKind::int_:
      return "int";
  }
  return "?";
}

// A small cursor over the schema text; every failure names the position.
struct Parser {
  const std::string& s;
  size_t i = 0;
  [[noreturn]] void error(const std::string& what) const {
    fail(TC_ERR_INVALID_ARGUMENT, str("bad op schema \"", s, "\" at position ", i, ": ", what));
  }
  void spaces() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
  bool eat(const char* tok) {
    spaces();
    const size_t n = std::char_traits<char>::length(tok);
    if (s.compare(i, n, tok) != 0) return false;
    i += n;
    return true;
  }
  void expect(const char* tok) {
    if (!eat(tok)) error(str("expected '", tok, "'"));
  }
  std::string ident(const char* what) {
    spaces();
    const size_t start = i;
    if (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) {
      ++i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    }
    if (i == start) error(str("expected ", what, " (an identifier: [A-Za-z_][A-Za-z0-9_]*)"));
    return s.substr(start, i - start);
  }
};

std::mutex g_mu;
std::map<std::string, std::shared_ptr<Op>> g_ops;  // by full name
struct Loaded {
  std::weak_ptr<Library> library;
  int64_t refs = 0;  // live LibraryRefs
};
std::map<void*, Loaded> g_loaded;  // by dlopen handle

}  // namespace

std::string Schema::canonical() const {
  std::string out = full_name() + "(";
  for (size_t k = 0; k < args.size(); ++k) {
    if (k) out += ", ";
    out += str(kind_name(args[k].first), " ", args[k].second);
  }
  out += ") -> ";
  if (n_outputs == 1) return out + "Tensor";
  out += "(";
  for (int64_t k = 0; k < n_outputs; ++k) out += k ? ", Tensor" : "Tensor";
  return out + ")";
}

Schema parse_schema(const std::string& text) {
  Parser p{text};
  Schema sc;
  sc.ns = p.ident("a namespace");
  p.expect("::");
  sc.name = p.ident("an op name");
  p.expect("(");
  if (!p.eat(")")) {
    do {
      const std::string type = p.ident("an argument type");
      ArgKind kind;
      if (type == "Tensor") {
        kind = ArgKind::tensor;
      } else if (type == "float") {
        kind = ArgKind::float_;
      } else if (type == "int") {
        kind = ArgKind::int_;
      } else {
        p.i -= type.size();
        p.error(str("unknown argument type '", type, "' (Tensor, float or int)"));
      }
      const std::string name = p.ident("an argument name");
      for (const auto& a : sc.args)
        if (a.second == name) p.error(str("argument '", name, "' appears twice"));
      if (sc.args.size() >= TC_FUNCTION_MAX_INPUTS)
        p.error(str("more than ", TC_FUNCTION_MAX_INPUTS, " arguments"));
      sc.args.emplace_back(kind, name);
      (kind == ArgKind::tensor ? sc.n_tensors : sc.n_scalars) += 1;
    } while (p.eat(","));
    p.expect(")");
  }
  p.expect("->");
  if (p.eat("(")) {
    sc.n_outputs = 0;
    do {
      if (p.ident("a return type") != "Tensor") p.error("an op returns Tensors only");
      if (++sc.n_outputs > TC_FUNCTION_MAX_OUTPUTS)
        p.error(str("more than ", TC_FUNCTION_MAX_OUTPUTS, " outputs"));
    } while (p.eat(","));
    p.expect(")");
  } else if (p.ident("a return type") != "Tensor") {
    p.error("an op returns Tensor or (Tensor, ...)");
  }
  p.spaces();
  if (p.i != text.size()) p.error("unexpected text after the return type");
  return sc;
}

Library::~Library() {
  if (dl) dlclose(dl);
}

LibraryRef::~LibraryRef() {
  // What dies here dies outside the lock (an Op may hold the last Library).
  std::vector<std::shared_ptr<Op>> dropped;
  try {
    std::lock_guard<std::mutex> g(g_mu);
    auto it = g_loaded.find(library->dl);
    if (it == g_loaded.end() || it->second.library.lock() != library) return;  // cleared by shutdown
    if (--it->second.refs > 0) return;
    g_loaded.erase(it);
    for (auto op = g_ops.begin(); op != g_ops.end();) {
      if (op->second->library == library) {
        dropped.push_back(std::move(op->second));
        op = g_ops.erase(op);
      } else {
        ++op;
      }
    }
  } catch (...) {  // push_back out of memory: the ops stay registered until shutdown
  }
}

std::shared_ptr<LibraryRef> find_loaded(void* dl) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_loaded.find(dl);
  if (it == g_loaded.end()) return nullptr;
  std::shared_ptr<Library> lib = it->second.library.lock();
  if (!lib) return nullptr;
  auto ref = std::make_shared<LibraryRef>(lib);
  ++it->second.refs;
  return ref;
}

bool is_registered(const std::string& full_name) {
  std::lock_guard<std::mutex> g(g_mu);
  return g_ops.count(full_name) != 0;
}

std::shared_ptr<LibraryRef> commit(const std::shared_ptr<Library>& library,
                                   const std::vector<std::shared_ptr<Op>>& ops) {
  auto ref = std::make_shared<LibraryRef>(library);  // before the lock: its death takes it
  std::lock_guard<std::mutex> g(g_mu);
  for (const auto& op : ops)
    TC_CHECK(!g_ops.count(op->schema.full_name()), TC_ERR_INVALID_ARGUMENT, "op '", op->schema.full_name(),
             "' is already registered");
  auto loaded = g_loaded.emplace(library->dl, Loaded{library, 1});
  TC_CHECK(loaded.second, TC_ERR_INTERNAL, "library '", library->path, "' is loaded twice");
  size_t done = 0;
  try {
    for (; done < ops.size(); ++done) g_ops.emplace(ops[done]->schema.full_name(), ops[done]);
  } catch (...) {
    for (size_t k = 0; k < done; ++k) g_ops.erase(ops[k]->schema.full_name());
    g_loaded.erase(loaded.first);
    throw;
  }
  return ref;
}

std::shared_ptr<Op> find_op(const std::string& full_name) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_ops.find(full_name);
  TC_CHECK(it != g_ops.end(), TC_ERR_INDEX, "no op named '", full_name, "' is registered (", g_ops.size(),
           " ops are; tc_load_library registers a library's ops)");
  return it->second;
}

std::vector<std::string> op_names() {
  std::lock_guard<std::mutex> g(g_mu);
  std::vector<std::string> names;
  for (const auto& kv : g_ops) names.push_back(kv.first);
  return names;
}

std::string report() {
  std::lock_guard<std::mutex> g(g_mu);
  std::string out = str("Op libraries: ", g_loaded.size(), " loaded, ", g_ops.size(), " ops\n");
  for (const auto& kv : g_ops)
    out += str("    ", kv.second->schema.canonical(), "  [", kv.second->library->path, "]\n");
  return out;
}

void clear_all() noexcept {
  std::map<std::string, std::shared_ptr<Op>> ops;
  {
    std::lock_guard<std::mutex> g(g_mu);
    ops.swap(g_ops);
    g_loaded.clear();
  }
}  // the ops (and the libraries no node holds) die here, outside the lock

}  // namespace tc::oplib
