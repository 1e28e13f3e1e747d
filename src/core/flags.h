// Named int64 flags (tc_get_flag / tc_set_flag): build facts, machine facts
// and settings, in one table so they are enumerable.
#pragma once
#include <cstdint>
#include <string>

namespace tc {

int64_t flag_count() noexcept;
const char* flag_name(int64_t index) noexcept;  // nullptr when out of range
bool flag_settable(int64_t index) noexcept;
int64_t get_flag(const char* name);
void set_flag(const char* name, int64_t value);
// The build and runtime report (tc_config).
std::string config_report();

}  // namespace tc
