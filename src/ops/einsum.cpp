// einsum after torch.einsum: implicit ("ij,jk") and explicit ("ij,jk->ik")
// outputs, "..." for broadcast dims, repeated indices within an operand (a
// diagonal), sums over indices not in the output, and any number of operands,
// contracted pairwise left to right as PyTorch does. Every operand is first
// brought to one shared label space (a dim per distinct label, size 1 where
// the operand lacks it); a pair is then contracted by permute + reshape + bmm
// (floating dtypes; integer ones multiply and sum), so autograd records views,
// bmm and sums and needs no einsum backward of its own.
#include <algorithm>
#include <string>

#include "ops/internal.h"

namespace tc::ops {

namespace {

constexpr int kLetters = 52;  // A-Z then a-z: PyTorch's (and ASCII's) order
int letter_id(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

char label_char(int id) { return char(id < 26 ? 'A' + id : 'a' + (id - 26)); }

// One term of the equation: its letters' ids, and where "..." sits (-1: none).
struct Term {
  std::vector<int> letters;
  int ellipsis_at = -1;
};

Term parse_term(const std::string& eq, size_t begin, size_t end, const char* what, int64_t index) {
  Term t;
  for (size_t i = begin; i < end; ++i) {
    const char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      const std::string who = index >= 0 ? str(what, " ", index) : std::string(what);
      TC_CHECK(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.', TC_ERR_INVALID_ARGUMENT,
               "einsum(): found '.' for ", who, " that is not part of any ellipsis in \"", eq, "\"");
      TC_CHECK(t.ellipsis_at < 0, TC_ERR_INVALID_ARGUMENT,
               "einsum(): found more than one ellipsis ('...') for ", who, " in \"", eq, "\"");
      t.ellipsis_at = int(t.letters.size());
      i += 2;
      continue;
    }
    const int id = letter_id(c);
    TC_CHECK(id >= 0, TC_ERR_INVALID_ARGUMENT, "einsum(): invalid subscript given at index ", i, " in \"", eq,
             "\": '", c, "' (subscripts must be in [a-zA-Z])");
    t.letters.push_back(id);
  }
  return t;
}

// Sum over the marked dims, keeping them (size 1).
Tensor sum_keep(const Tensor& t, const Dims& dims) { return dims.empty() ? t : sum(t, dims, true); }

// Contracts a and b (both in the shared label space of n dims) over the labels
// marked in `summed`; the result stays in the label space (summed dims size 1).
Tensor contract(Tensor a, Tensor b, const std::vector<bool>& summed) {
  const int64_t n = a->ndim();
  // Summed labels only one side has: sum that side alone first.
  Dims a_only, b_only;
  for (int64_t d = 0; d < n; ++d) {
    if (!summed[size_t(d)]) continue;
    if (a->shape[d] != 1 && b->shape[d] == 1) a_only.push_back(d);
    if (b->shape[d] != 1 && a->shape[d] == 1) b_only.push_back(d);
  }
  a = sum_keep(a, a_only);
  b = sum_keep(b, b_only);
  if (!is_floating(a->dtype)) {
    // No integer bmm: multiply and sum. The sum keeps the product's dtype
    // (PyTorch's bmm does; a lone sum would widen to int64).
    Dims s;
    for (int64_t d = 0; d < n; ++d)
      if (summed[size_t(d)] && (a->shape[d] != 1 || b->shape[d] != 1)) s.push_back(d);
    Tensor p = mul(a, b);
    Tensor r = sum_keep(p, s);
    return r->dtype == p->dtype ? r : to_dtype(r, p->dtype);
  }
  // Kept dims: batch (both sides > 1, or equal), m (a only), n (b only); k: summed on both.
  Dims batch, ms, ns, ks, rest;
  int64_t bsz = 1, msz = 1, nsz = 1, ksz = 1;
  Dims out_shape = Dims::filled(n, 1);
  for (int64_t d = 0; d < n; ++d) {
    const int64_t x = a->shape[d], y = b->shape[d];
    if (summed[size_t(d)]) {
      if (x != 1 || y != 1) {
        TC_CHECK(x == y, TC_ERR_SHAPE, "einsum(): operands do not broadcast: a contracted index has sizes ",
                 x, " and ", y);
        ks.push_back(d);
        ksz *= x;
      } else {
        rest.push_back(d);
      }
    } else if (x != 1 && y != 1) {
      TC_CHECK(x == y, TC_ERR_SHAPE,
               "einsum(): operands do not broadcast with remapped shapes: an index has sizes ", x, " and ",
               y);
      batch.push_back(d);
      bsz *= x;
      out_shape[d] = x;
    } else if (x != 1) {
      ms.push_back(d);
      msz *= x;
      out_shape[d] = x;
    } else if (y != 1) {
      ns.push_back(d);
      nsz *= y;
      out_shape[d] = y;
    } else {
      rest.push_back(d);
    }
  }
  // a as [batch, m, k] (its n dims and rest are 1), b as [batch, k, n].
  Dims pa, pb;
  for (Dims* g : {&batch, &ms, &ks, &ns, &rest})
    for (int64_t d : *g) pa.push_back(d);
  for (Dims* g : {&batch, &ks, &ns, &ms, &rest})
    for (int64_t d : *g) pb.push_back(d);
  Tensor a3 = reshape(permute(a, pa), {bsz, msz, ksz});
  Tensor b3 = reshape(permute(b, pb), {bsz, ksz, nsz});
  Tensor r = bmm(a3, b3);
  // r's dims in the order batch, m, n, then size 1 for rest and k: back to the label space.
  Dims grouped, order;  // order: the label each dim of the grouped view holds
  for (Dims* g : {&batch, &ms, &ns, &rest, &ks}) {
    for (int64_t d : *g) {
      grouped.push_back(g == &rest || g == &ks ? 1 : out_shape[d]);
      order.push_back(d);
    }
  }
  Tensor rg = reshape(r, grouped);
  Dims inverse = Dims::filled(n, 0);
  for (int64_t i = 0; i < n; ++i) inverse[order[i]] = i;
  return permute(rg, inverse);
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  TC_CHECK(!operands.empty(), TC_ERR_INVALID_ARGUMENT, "einsum(): must provide at least one operand");
  const std::string& eq = equation;
  const size_t arrow = eq.find("->");
  const size_t lhs_end = arrow == std::string::npos ? eq.size() : arrow;
  // At most one "->", and no other '-' or '>'.
  const bool arrow_ok = arrow == std::string::npos ? eq.find_first_of("->") == std::string::npos
                                                   : eq.find_first_of("->", arrow + 2) == std::string::npos &&
                                                         eq.find('-') == arrow && eq.find('>') == arrow + 1;
  TC_CHECK(arrow_ok, TC_ERR_INVALID_ARGUMENT, "einsum(): invalid '-' or '>' in \"", eq,
           "\" (the output, if any, comes after one \"->\")");
  std::vector<Term> terms;
  size_t begin = 0;
  for (size_t i = 0; i <= lhs_end; ++i) {
    if (i == lhs_end || eq[i] == ',') {
      terms.push_back(parse_term(eq, begin, i, "operand", int64_t(terms.size())));
      begin = i + 1;
    }
  }
  TC_CHECK(terms.size() == operands.size(), TC_ERR_INVALID_ARGUMENT, "einsum(): ", terms.size(),
           " operands were specified in the equation \"", eq, "\" but ", operands.size(), " were provided");
  const DType dtype = operands[0]->dtype;
  const Device device = operands[0]->device;
  // The number of dims "..." stands for: the most over the operands.
  int64_t ell = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Tensor& t = operands[i];
    TC_CHECK(t->dtype == dtype, TC_ERR_DTYPE,
             "einsum(): operands must have the same dtype, but operand 0 is ", dtype_name(dtype),
             " and operand ", i, " is ", dtype_name(t->dtype));
    TC_CHECK(t->device == device, TC_ERR_DEVICE,
             "einsum(): operands must be on the same device, but operand 0 is on ", device_name(device),
             " and operand ", i, " on ", device_name(t->device));
    const int64_t nl = int64_t(terms[i].letters.size());
    if (terms[i].ellipsis_at >= 0) {
      TC_CHECK(t->ndim() >= nl, TC_ERR_SHAPE, "einsum(): the number of subscripts in the equation (", nl,
               ") is more than the number of dimensions (", t->ndim(), ") for operand ", i, " (shape ",
               t->shape, ")");
      ell = std::max(ell, t->ndim() - nl);
    } else {
      TC_CHECK(t->ndim() == nl, TC_ERR_SHAPE, "einsum(): the number of subscripts in the equation (", nl,
               ") does not match the number of dimensions (", t->ndim(), ") for operand ", i, " (shape ",
               t->shape, ") and no ellipsis was given");
    }
  }
  // Labels: ids 0..51 the letters, 52.. the ellipsis dims.
  std::vector<int64_t> count(size_t(kLetters), 0);
  for (const Term& t : terms)
    for (int id : t.letters) ++count[size_t(id)];
  std::vector<int> out_labels;  // the output's labels in order
  if (arrow != std::string::npos) {
    Term o = parse_term(eq, arrow + 2, eq.size(), "the output", -1);
    std::vector<bool> seen(size_t(kLetters), false);
    for (size_t j = 0; j <= o.letters.size(); ++j) {
      if (int(j) == o.ellipsis_at) {
        for (int64_t e = 0; e < ell; ++e) out_labels.push_back(int(kLetters + e));
      }
      if (j == o.letters.size()) break;
      const int id = o.letters[j];
      TC_CHECK(!seen[size_t(id)], TC_ERR_INVALID_ARGUMENT, "einsum(): output subscript ", label_char(id),
               " appears more than once in the output of \"", eq, "\"");
      TC_CHECK(count[size_t(id)] > 0, TC_ERR_INVALID_ARGUMENT, "einsum(): output subscript ", label_char(id),
               " does not appear in the equation for any input operand (\"", eq, "\")");
      seen[size_t(id)] = true;
      out_labels.push_back(id);
    }
  } else {
    // Implicit: the ellipsis dims, then the letters seen exactly once, sorted.
    for (int64_t e = 0; e < ell; ++e) out_labels.push_back(int(kLetters + e));
    for (int id = 0; id < kLetters; ++id)
      if (count[size_t(id)] == 1) out_labels.push_back(id);
  }
  // The shared label space: the output's labels first, then the summed ones.
  std::vector<int> space = out_labels;
  std::vector<bool> in_space(size_t(kLetters + ell), false);
  for (int l : space) in_space[size_t(l)] = true;
  for (int e = 0; e < ell; ++e)
    if (!in_space[size_t(kLetters + e)]) space.push_back(kLetters + e), in_space[size_t(kLetters + e)] = true;
  for (int id = 0; id < kLetters; ++id)
    if (count[size_t(id)] > 0 && !in_space[size_t(id)]) space.push_back(id), in_space[size_t(id)] = true;
  const int64_t n = int64_t(space.size());
  TC_CHECK(n <= TC_MAX_DIMS, TC_ERR_SHAPE, "einsum(): the equation \"", eq, "\" has ", n,
           " distinct indices (with the ellipsis dims); at most ", TC_MAX_DIMS, " are supported");
  std::vector<int64_t> pos(size_t(kLetters + ell), -1);  // label -> dim of the space
  for (int64_t i = 0; i < n; ++i) pos[size_t(space[size_t(i)])] = i;

  // Each operand: take diagonals of repeated labels, then permute and
  // unsqueeze into the label space. Sizes are checked across operands.
  std::vector<int64_t> size_of(size_t(n), 1);
  std::vector<Tensor> aligned;
  for (size_t i = 0; i < terms.size(); ++i) {
    Tensor t = operands[i];
    std::vector<int> labels;  // per dim of t
    const Term& term = terms[i];
    const int64_t e_here = t->ndim() - int64_t(term.letters.size());
    for (size_t j = 0; j <= term.letters.size(); ++j) {
      if (int(j) == term.ellipsis_at)
        for (int64_t e = 0; e < e_here; ++e) labels.push_back(int(kLetters + ell - e_here + e));
      if (j < term.letters.size()) labels.push_back(term.letters[j]);
    }
    // Repeated labels: the diagonal of the two dims, which moves to the end.
    for (bool again = true; again;) {
      again = false;
      for (size_t x = 0; x < labels.size() && !again; ++x)
        for (size_t y = x + 1; y < labels.size() && !again; ++y)
          if (labels[x] == labels[y]) {
            TC_CHECK(t->shape[int64_t(x)] == t->shape[int64_t(y)], TC_ERR_SHAPE, "einsum(): subscript ",
                     label_char(labels[x]), " is repeated for operand ", i, " but the sizes don't match, ",
                     t->shape[int64_t(x)], " != ", t->shape[int64_t(y)]);
            t = diagonal(t, 0, int64_t(x), int64_t(y));
            const int l = labels[x];
            labels.erase(labels.begin() + long(y));
            labels.erase(labels.begin() + long(x));
            labels.push_back(l);
            again = true;
          }
    }
    // Permute into the space's order, then insert the missing labels as size 1.
    Dims perm, shape;
    std::vector<int64_t> dim_of(size_t(n), -1);
    for (size_t j = 0; j < labels.size(); ++j) dim_of[size_t(pos[size_t(labels[j])])] = int64_t(j);
    for (int64_t s = 0; s < n; ++s) {
      const int64_t d = dim_of[size_t(s)];
      if (d >= 0) perm.push_back(d);
      const int64_t sz = d >= 0 ? t->shape[d] : 1;
      shape.push_back(sz);
      if (sz != 1) {
        TC_CHECK(
            size_of[size_t(s)] == 1 || size_of[size_t(s)] == sz, TC_ERR_SHAPE,
            "einsum(): operands do not broadcast with remapped shapes: index ",
            space[size_t(s)] < kLetters ? std::string(1, label_char(space[size_t(s)])) : std::string("..."),
            " has size ", size_of[size_t(s)], " in an earlier operand and ", sz, " in operand ", i,
            " (equation \"", eq, "\")");
        size_of[size_t(s)] = sz;
      }
    }
    aligned.push_back(reshape(permute(t, perm), shape));
  }

  // Left to right: a label is summed at the first step after which no later
  // operand has it and the output does not.
  const int64_t n_out = int64_t(out_labels.size());
  std::vector<int64_t> last_use(size_t(n), -1);
  // A summed label counts as used by an operand only when the operand has it.
  for (size_t i = 0; i < terms.size(); ++i) {
    std::vector<bool> has(size_t(n), false);
    for (int id : terms[i].letters) has[size_t(pos[size_t(id)])] = true;
    if (terms[i].ellipsis_at >= 0)
      for (int64_t e = ell - (operands[i]->ndim() - int64_t(terms[i].letters.size())); e < ell; ++e)
        has[size_t(pos[size_t(kLetters + e)])] = true;
    for (int64_t s = n_out; s < n; ++s)
      if (has[size_t(s)]) last_use[size_t(s)] = int64_t(i);
  }
  Tensor result = aligned[0];
  if (aligned.size() == 1) {
    Dims sums;
    for (int64_t s = n_out; s < n; ++s)
      if (result->shape[s] != 1) sums.push_back(s);
    result = sum_keep(result, sums);
  }
  for (size_t i = 1; i < aligned.size(); ++i) {
    std::vector<bool> summed(size_t(n), false);
    for (int64_t s = n_out; s < n; ++s) summed[size_t(s)] = last_use[size_t(s)] <= int64_t(i);
    result = contract(result, aligned[i], summed);
  }
  // Every summed dim now has size 1: the output is the first n_out dims.
  Dims out_shape;
  for (int64_t s = 0; s < n_out; ++s) out_shape.push_back(size_of[size_t(s)]);
  // Integer sums over one operand's own dims widen to int64, as in PyTorch.
  return reshape(result, out_shape);
}

}  // namespace tc::ops
