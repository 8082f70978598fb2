#pragma once
// vcloe/rig/checked_trace.hpp — the reader of a pose trace for the commands that compare, fit or
// draw it: core's read_trace (the CSV against its sidecar's hash), then, for a trace vcloe derived
// from recorded files — a twin's (`simulate`: source "twin") or a filtered one (`filter`: its
// sidecar's `filter`) — the trace made again from those files when they are there as recorded,
// and every measured cell compared. A derived trace edited with the CSV's hash made again was
// compared and fitted as written (probe 33, A); a measurement (a virtual or rig run) cannot be
// made again and is read as recorded. docs/traces.md, "Derived traces".
#include <string>

#include "vcloe/core/trace.hpp"

namespace vcloe::rig {

// `seal` Adopt: an unsealed sidecar read (only `vcloe seal`, which adopts it after these checks).
PoseTrace read_checked_trace(const std::string& path, SidecarSeal seal = SidecarSeal::Required);

}  // namespace vcloe::rig
