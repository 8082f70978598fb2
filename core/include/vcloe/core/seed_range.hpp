#pragma once
// vcloe/core/seed_range.hpp — the one check of seed ranges. A command that derives `count` seeds
// from one (`first`, first + 1, ..., each also plus `offset` for a second stream: validate's
// payload runs) needs them all at most `max` (what the type that carries them holds); a seed
// that would wrap round to 0 is refused naming `option` (core/settings.hpp's SettingProblem).
// `stride`: the derived seeds start at first * stride (render: each --seed's frames apart from
// the next --seed's), first * stride + count - 1 + offset at most `max`.
#include <cstdint>
#include <optional>
#include <string>

#include "vcloe/core/settings.hpp"

namespace vcloe {

std::optional<SettingProblem> seed_range_problem(const std::string& option, std::uint64_t first, std::uint64_t count,
                                                 std::uint64_t max, std::uint64_t offset = 0,
                                                 std::uint64_t stride = 1);

}  // namespace vcloe
