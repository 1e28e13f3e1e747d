// Anomaly mode (torch.autograd.detect_anomaly): while it is on, the engine
// checks each node's returned gradients for NaN and fails naming the node
// and the forward call that recorded it. The forward trace comes from a hook
// (the Python package gives the Python traceback) called as each node is
// recorded; its text is kept beside the node, in a table here, not in Node,
// so that the mode costs nothing (one relaxed atomic load) while it is off.
#pragma once

#include <memory>
#include <vector>

#include "core/tensor.h"

namespace tc::autograd {

struct Node;

// Returns a NUL-terminated text (copied at once) or nullptr; context is the
// pointer given with the hook.
using AnomalyTraceFn = const char* (*)(void* context);

// Process-wide, as PyTorch's flag. A null fn records no traces.
void set_anomaly_mode(bool enabled, bool check_nan, AnomalyTraceFn fn, void* context);
bool anomaly_enabled() noexcept;
bool anomaly_check_nan() noexcept;

// record(): keeps the hook's trace for node (call only while anomaly_enabled()).
void anomaly_note_recorded(const std::shared_ptr<Node>& node);
// The engine, after node's apply: TC_ERR_AUTOGRAD when a gradient holds a NaN
// ("Function 'MulBackward0' returned nan values in its 0th output." and the
// forward trace kept for node, if any). Call only while anomaly_enabled().
void anomaly_check_gradients(const Node& node, const std::vector<Tensor>& grads);

}  // namespace tc::autograd
