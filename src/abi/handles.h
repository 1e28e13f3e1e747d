// The handle table: every object the ABI hands out (tensor, optimizer) is a
// slot here, and a handle is an encoded (generation, kind, slot) number, never
// a pointer. Looking one up checks kind and generation under the slot's
// spinlock and returns a strong reference, so a handle freed concurrently by
// another thread can never be read after free. Slots are never returned to
// the OS, and generations only grow: handles stay invalid forever once freed,
// including across tc_shutdown / tc_init cycles.
#pragma once
#include <cstdint>
#include <memory>

namespace tc {

struct TensorImpl;

enum class HandleKind : uint8_t {
  tensor = 1,
  optimizer = 2,
  tensor_dict = 3,
  hook = 4,
  node = 5,
  op = 6,
  library = 7,
  process_group = 8,
  work = 9
};
constexpr uint8_t kHandleKindMax = 9;
const char* handle_kind_name(HandleKind kind) noexcept;

// Stores obj and returns its handle value (never 0). Throws OOM when full.
uint64_t handle_insert(HandleKind kind, std::shared_ptr<void> obj);
// The object behind a handle, or throws TC_ERR_INVALID_HANDLE naming arg.
std::shared_ptr<void> handle_get(uint64_t handle, HandleKind kind, const char* arg);
// handle_get for a tensor handle (HandleKind::tensor), as its TensorImpl:
// the result is copied straight from the slot's reference (one count
// increment, where handle_get + static_pointer_cast took two and a decrement:
// lock-prefixed instructions on every input of every op).
std::shared_ptr<TensorImpl> handle_get_tensor(uint64_t handle, const char* arg);
// Frees a handle, or throws TC_ERR_INVALID_HANDLE. The object itself dies
// outside the table's locks (after this returns) when it was the last ref.
void handle_remove(uint64_t handle, HandleKind kind, const char* arg);
// Frees each valid handle of hs[0..n) and skips (never frees) the invalid
// ones: NULL, freed, stale, wrong kind, or a repeat of one freed earlier in
// the same call. Returns how many were invalid and the first one's index in
// *first_bad (untouched when none). Never throws, never allocates.
int64_t handle_remove_many(const uint64_t* hs, int64_t n, HandleKind kind, int64_t* first_bad) noexcept;
// Frees every live handle (tc_shutdown).
void handle_clear_all();
int64_t live_handle_count() noexcept;

}  // namespace tc
