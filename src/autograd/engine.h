// The engine's entry points beyond node.h's single-root backward: several
// roots, gradients handed back instead of accumulated (torch.autograd.grad),
// accumulation restricted to some tensors (backward(inputs=...)), and
// create_graph (the backward pass records a graph of its own, so that
// gradients can be differentiated again).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tc::autograd {

struct Node;

// Backpropagates from roots (grads[i] null: ones, for a one-element root)
// into the .grad of the leaves, or, when inputs is not null, only into those
// tensors' .grad (leaves or not), as torch's backward(inputs=...).
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads, bool retain_graph,
              bool create_graph, const std::vector<Tensor>* inputs);

// The gradients of sum(outputs[i] * grad_outputs[i]) with respect to inputs,
// one per input (null for an input the outputs do not depend on, when
// allow_unused; zeros instead when materialize_grads). Nothing is
// accumulated into any .grad.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
                         const std::vector<Tensor>& inputs, bool retain_graph, bool create_graph,
                         bool allow_unused, bool materialize_grads);

// Inside a backward formula run with create_graph: the saved output `saved`
// (an autograd::alias of the node's output output_nr, which carries no graph
// so that the node does not own itself) as a tensor whose grad_fn is the
// running node again, so that a formula reading the output differentiates
// through it, as PyTorch's saved outputs do. Outside create_graph: saved.
Tensor output_with_graph(const Tensor& saved, uint32_t output_nr = 0);

// A fused node's input gradients under create_graph, recorded: `forward`
// (the node's forward written with recorded ops) is run on the node's saved
// inputs and differentiated with grad (create_graph), giving the
// vector-Jacobian product with `grad`. wanted[i]: whether input i needs a
// gradient. Returns an empty vector when an input that needs one does not
// require grad (the saved tensor is not the input itself): the caller then
// uses its kernels and not_differentiable().
std::vector<Tensor> vjp_recorded(const std::vector<Tensor>& inputs, const std::vector<bool>& wanted,
                                 const std::function<Tensor(const std::vector<Tensor>&)>& forward,
                                 const Tensor& grad);

// Under create_graph, inside a node's backward: marks results the node could
// not compute with recorded ops, so that differentiating them fails with
// TC_ERR_NOT_IMPLEMENTED naming the node (as for nodes has_double_backward
// does not list).
void not_differentiable(std::vector<Tensor>& results);

// Whether the node named `name` computes its input gradients with recorded,
// differentiable ops when grad mode is on (double_backward.cpp holds the
// list). The engine marks every other node's results, under create_graph, so
// that differentiating them again fails with TC_ERR_NOT_IMPLEMENTED naming
// the node instead of giving a silent zero.
bool has_double_backward(const char* name);

// "the derivative of 'mul_backward' is not implemented": the message a
// second differentiation through node `name` fails with.
std::string double_backward_error(const char* name);

}  // namespace tc::autograd
