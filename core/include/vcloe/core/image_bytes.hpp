#pragma once
// vcloe/core/image_bytes.hpp — whether the bytes of an image file are a whole image, checked
// before anything decodes or keeps them: a PNG read (vision's read_image) and every figure
// gnuplot drew (report/gnuplot.hpp) — gnuplot exits 0 when its own write met a full disk, and
// a truncated image was kept under the plot's name (session 26's probe, class A).
#include <optional>
#include <string>

namespace vcloe {

// The PNG signature's 8 bytes.
bool starts_as_png(const std::string& bytes);

// Why `bytes` (a PNG's, signature included) is not a whole PNG, or nullopt: every chunk lies
// within the bytes with its CRC-32 right (PNG spec. 5.3: a damaged byte anywhere is named by
// its chunk) and IEND is reached. "damaged PNG: the chunk at byte N runs past the end of the
// file", "damaged PNG: the chunk 'IDAT' at byte N fails its CRC check", "truncated PNG (no
// IEND chunk)".
std::optional<std::string> png_problem(const std::string& bytes);

// Why `bytes` are not a whole image of the format named by `extension` (.png, .svg, .pdf: the
// formats vcloe draws), or nullopt: a PNG as above; an SVG ending with its closing </svg>; a
// PDF starting with %PDF- and ending with its %%EOF marker.
std::optional<std::string> image_problem(const std::string& bytes, const std::string& extension);

}  // namespace vcloe
