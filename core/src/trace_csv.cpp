// core/src/trace_csv.cpp — the reader of the trace CSV (docs/traces.md): one header row of
// comma-separated column names, then one row of numbers per camera frame; the cells are read by
// the one numeric CSV reader (csv_table.hpp).
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "trace_columns.hpp"
#include "vcloe/core/csv_table.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe {

namespace {

int find_column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t c = 0; c < header.size(); ++c)
    if (header[c] == name) return static_cast<int>(c);
  return -1;
}

using PoseColumns = std::optional<std::array<int, 6>>;

// The six columns of a pose group: all present, or none unless required (else: the first missing).
PoseColumns find_group(const std::vector<std::string>& header, const std::vector<std::string>& names, bool required,
                       const std::string& path) {
  std::array<int, 6> idx{};
  int found = 0;
  for (int c = 0; c < 6; ++c)
    found += (idx[static_cast<std::size_t>(c)] = find_column(header, names[static_cast<std::size_t>(c)])) >= 0;
  if (found == 6) return PoseColumns(idx);
  if (found > 0 || required) {
    for (int c = 0; c < 6; ++c)
      if (idx[static_cast<std::size_t>(c)] < 0)
        fail(path + ":1", "missing column '" + names[static_cast<std::size_t>(c)] + "'");
  }
  return PoseColumns();
}

// Where each quantity of a trace is in a row.
struct TraceLayout {
  int time = -1;
  PoseColumns measured, reference, command, truth;
};

TraceLayout find_columns(const std::vector<std::string>& header, const std::string& path) {
  TraceLayout c;
  c.time = find_column(header, "time");
  if (c.time < 0) fail(path + ":1", "missing column 'time'");
  c.measured = find_group(header, trace_columns::pose(""), true, path);
  c.reference = find_group(header, trace_columns::pose("ref_"), false, path);
  c.command = find_group(header, trace_columns::command(), false, path);
  c.truth = find_group(header, trace_columns::pose("true_"), false, path);
  return c;
}

// Appends a row's time and poses to `t`; error unless its time is after the previous row's.
void append_row(const std::vector<double>& row, const TraceLayout& c, const std::string& path, int line_no,
                PoseTrace& t) {
  const double time = row[static_cast<std::size_t>(c.time)];
  if (!t.time.empty() && !(time > t.time.back()))
    fail(path + ":" + std::to_string(line_no), "time " + exact_number(time) + " s does not increase (previous " +
                                                   exact_number(t.time.back()) + " s)");
  t.time.push_back(time);
  auto take = [&](const std::array<int, 6>& idx) {
    Vec6d v;
    for (int k = 0; k < 6; ++k) v(k) = row[static_cast<std::size_t>(idx[static_cast<std::size_t>(k)])];
    return v;
  };
  t.measured.push_back(take(*c.measured));
  if (c.reference) t.reference.push_back(take(*c.reference));
  if (c.command) t.command.push_back(take(*c.command));
  if (c.truth) t.truth.push_back(take(*c.truth));
}

}  // namespace

PoseTrace parse_trace(const std::string& csv_text, const std::string& path) {
  const CsvTable table = parse_csv_table(csv_text, path, {"time,x,y,z,alpha,beta,gamma, …", {}});
  const TraceLayout columns = find_columns(table.header, path);
  PoseTrace t;
  for (std::size_t r = 0; r < table.rows.size(); ++r) append_row(table.rows[r], columns, path, table.lines[r], t);
  if (t.time.empty()) fail(path, "no data rows");
  return t;
}

}  // namespace vcloe
