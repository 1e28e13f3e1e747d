// A printout like PyTorch's: tensor([[1.0000, 2.5000],
//                                    [3.0000, 4.0000]], dtype=float64)
// One format is chosen for the whole tensor (integer-valued, fixed with 4
// decimals, or scientific), values are right-aligned to a common width, and
// tensors over 1000 elements show 3 items at each end of every dim.
#include <cmath>
#include <cstdio>
#include <sstream>
#include <type_traits>

#include "autograd/node.h"
#include "core/tensor.h"

namespace tc {

namespace {

enum class Style { integer, int_float, fixed, sci, boolean };

struct Formatter {
  Style style = Style::fixed;
  int width = 1;

  std::string format(double v) const {
    char buf[64];
    switch (style) {
      case Style::boolean:
        return v != 0 ? "True" : "False";
      case Style::integer:  // integer dtypes print through text(), exactly; this is bool/robustness only
        std::snprintf(buf, sizeof buf, "%.0f", v);
        break;
      case Style::int_float:
        if (std::isfinite(v))
          std::snprintf(buf, sizeof buf, "%.0f.", v);
        else
          std::snprintf(buf, sizeof buf, "%s", std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
        break;
      case Style::fixed:
        if (std::isfinite(v))
          std::snprintf(buf, sizeof buf, "%.4f", v);
        else
          std::snprintf(buf, sizeof buf, "%s", std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
        break;
      case Style::sci:
        if (std::isfinite(v))
          std::snprintf(buf, sizeof buf, "%.4e", v);
        else
          std::snprintf(buf, sizeof buf, "%s", std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
        break;
    }
    return buf;
  }

  // Element `index` (row-major) of t as printed. Integer dtypes are read exactly:
  // through double, int64 values past 2^53 would print rounded.
  std::string text(const Tensor& t, int64_t index) const {
    if (style != Style::integer) return format(read_element(t, index));
    int64_t off = 0;
    for (int64_t i = t->ndim() - 1; i >= 0; --i) {
      off += (index % t->shape[i]) * t->strides[i];
      index /= t->shape[i];
    }
    const long long v = TC_DISPATCH_ALL(t->dtype, "format", [&]() -> long long {
      if constexpr (std::is_integral_v<scalar_t>) {
        return static_cast<long long>(t->data_as<scalar_t>()[off]);
      } else {
        return 0;  // not reached: floating dtypes never get Style::integer
      }
    });
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld", v);
    return buf;
  }
};

constexpr int64_t kEdge = 3;
constexpr int64_t kThreshold = 1000;

// Indices of dim `size` that get printed (all, or kEdge at each end).
std::vector<int64_t> shown(int64_t size, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && size > 2 * kEdge) {
    for (int64_t i = 0; i < kEdge; ++i) idx.push_back(i);
    idx.push_back(-1);  // the "..." marker
    for (int64_t i = size - kEdge; i < size; ++i) idx.push_back(i);
  } else {
    for (int64_t i = 0; i < size; ++i) idx.push_back(i);
  }
  return idx;
}

// Collects the indices of the elements that will be printed (for choosing the format).
void collect(const Tensor& t, int64_t dim, int64_t offset, bool summarize, std::vector<int64_t>& out) {
  if (dim == t->ndim()) {
    out.push_back(offset);
    return;
  }
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < t->ndim(); ++d) inner *= t->shape[d];
  for (int64_t i : shown(t->shape[dim], summarize))
    if (i >= 0) collect(t, dim + 1, offset + i * inner, summarize, out);
}

void render(const Tensor& t, int64_t dim, int64_t offset, bool summarize, const Formatter& f, int indent,
            std::ostringstream& os) {
  if (dim == t->ndim()) {
    std::string s = f.text(t, offset);
    os << std::string(size_t(std::max<int64_t>(0, f.width - int64_t(s.size()))), ' ') << s;
    return;
  }
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < t->ndim(); ++d) inner *= t->shape[d];
  os << '[';
  const auto idx = shown(t->shape[dim], summarize);
  for (size_t k = 0; k < idx.size(); ++k) {
    if (k > 0) {
      os << ',';
      if (dim == t->ndim() - 1) {
        os << ' ';
      } else {
        os << std::string(size_t(t->ndim() - 1 - dim), '\n') << std::string(size_t(indent + dim + 1), ' ');
      }
    }
    if (idx[k] < 0) {
      os << (dim == t->ndim() - 1 ? " ..." : "...");  // PyTorch's spacing
      continue;
    }
    render(t, dim + 1, offset + idx[k] * inner, summarize, f, indent, os);
  }
  os << ']';
}

Formatter choose(const Tensor& t, const std::vector<int64_t>& shown_indices) {
  Formatter f;
  std::vector<double> values;
  values.reserve(shown_indices.size());
  for (int64_t i : shown_indices) values.push_back(read_element(t, i));
  if (t->dtype == DType::b8) {
    f.style = Style::boolean;
  } else if (!is_floating(t->dtype)) {
    f.style = Style::integer;
  } else {
    bool all_int = true;
    double max_abs = 0, min_abs = INFINITY;
    for (double v : values) {
      if (!std::isfinite(v)) continue;
      if (v != std::floor(v)) all_int = false;
      max_abs = std::max(max_abs, std::fabs(v));
      if (v != 0) min_abs = std::min(min_abs, std::fabs(v));
    }
    if (all_int) {
      f.style = max_abs > 1e8 ? Style::sci : Style::int_float;
    } else {
      const bool sci = max_abs > 1e8 || (min_abs < 1e-4) || (min_abs != INFINITY && max_abs / min_abs > 1000);
      f.style = sci ? Style::sci : Style::fixed;
    }
  }
  for (int64_t i : shown_indices) f.width = std::max<int>(f.width, int(f.text(t, i).size()));
  return f;
}

}  // namespace

std::string to_string(const Tensor& t) {
  std::ostringstream os;
  os << "tensor(";
  const bool summarize = t->numel() > kThreshold;
  if (t->numel() == 0) {
    os << "[]";
  } else {
    std::vector<int64_t> values;
    collect(t, 0, 0, summarize, values);
    const Formatter f = choose(t, values);
    render(t, 0, 0, summarize, f, 7, os);
  }
  if (t->numel() == 0 && t->ndim() != 1) os << ", size=" << t->shape;
  if (device_type(t->device) != TC_DEVICE_CPU) os << ", device='" << device_name(t->device) << "'";
  if (t->dtype != DType::f32 && t->dtype != DType::i64 && t->dtype != DType::b8)
    os << ", dtype=" << dtype_name(t->dtype);
  if (t->grad_fn) {
    os << ", grad_fn=<" << t->grad_fn->name() << ">";
  } else if (t->requires_grad) {
    os << ", requires_grad=True";
  }
  os << ')';
  return os.str();
}

}  // namespace tc
