// core/src/trace_csv.cpp — the reader of the trace CSV (docs/traces.md): one header row of
// comma-separated column names, then one row of numbers per camera frame.
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "trace_columns.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe {

namespace {

// Spaces and tabs around a cell (spreadsheet exports) are not part of it.
std::string trimmed(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// A column name in double quotes, as spreadsheets export headers, is that name.
std::string unquoted(const std::string& s) {
  return s.size() >= 2 && s.front() == '"' && s.back() == '"' ? s.substr(1, s.size() - 2) : s;
}

// A header row that is not comma-separated names is said as what it is, not as the first
// column it then lacks.
void check_header_row(const std::string& line, const std::string& path) {
  if (line.find('\r') != std::string::npos)
    fail(path + ":1", "a carriage return inside the header row (lines ending in a bare CR, or CR CR LF); expected "
                      "LF or CR LF line endings");
  if (line.find(',') != std::string::npos) return;
  for (const auto& [c, name] : {std::pair<char, const char*>{'\t', "tabs"}, {';', "semicolons"}})
    if (line.find(c) != std::string::npos)
      fail(path + ":1", std::string("the header row is separated by ") + name +
                            "; expected comma-separated columns (time,x,y,z,alpha,beta,gamma, …)");
}

// The column names of the header row (its BOM, CR and quotes removed); error on a name twice.
std::vector<std::string> read_header(std::string line, const std::string& path) {
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a UTF-8 byte-order mark (spreadsheet exports)
  if (!line.empty() && line.back() == '\r') line.pop_back();   // CRLF line endings
  check_header_row(line, path);
  std::vector<std::string> header;
  std::stringstream s(line);
  std::string cell;
  std::map<std::string, std::size_t> seen;
  while (std::getline(s, cell, ',')) {
    cell = unquoted(trimmed(cell));
    if (const auto [it, fresh] = seen.emplace(cell, header.size() + 1); !fresh)  // which would be read?
      fail(path + ":1", "column '" + cell + "' appears twice (columns " + std::to_string(it->second) + " and " +
                            std::to_string(header.size() + 1) + ")");
    header.push_back(cell);
  }
  return header;
}

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
struct TraceColumns {
  int time = -1;
  PoseColumns measured, reference, command, truth;
};

TraceColumns find_columns(const std::vector<std::string>& header, const std::string& path) {
  TraceColumns c;
  c.time = find_column(header, "time");
  if (c.time < 0) fail(path + ":1", "missing column 'time'");
  c.measured = find_group(header, trace_columns::pose(""), true, path);
  c.reference = find_group(header, trace_columns::pose("ref_"), false, path);
  c.command = find_group(header, trace_columns::command(), false, path);
  c.truth = find_group(header, trace_columns::pose("true_"), false, path);
  return c;
}

// One cell of column `name` as a finite number within the magnitude a trace holds.
double read_cell(const std::string& cell, const std::string& name, const std::string& path, int line_no) {
  double v = 0;
  const auto r = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (r.ec == std::errc::result_out_of_range)
    fail(path + ":" + std::to_string(line_no), "column '" + name + "': " + cell +
                                                   " is beyond the range of a double (2.2e-308 to 1.8e308 in magnitude)");
  if (r.ec != std::errc() || r.ptr != cell.data() + cell.size())
    fail(path + ":" + std::to_string(line_no), "column '" + name + "': expected a number, got '" + cell + "'");
  if (!std::isfinite(v))
    fail(path + ":" + std::to_string(line_no), "column '" + name + "': non-finite value '" + cell + "'");
  if (std::abs(v) > kMaxTraceMagnitude)
    fail(path + ":" + std::to_string(line_no), "column '" + name + "': " + cell +
                                                   " is beyond any time, position or angle a trace holds (at most " +
                                                   exact_number(kMaxTraceMagnitude) + " s, m, rad)");
  return v;
}

// A data row (CR removed, not empty) into `row`, one number per header column.
void read_row(const std::string& line, const std::vector<std::string>& header, const std::string& path, int line_no,
              std::vector<double>& row) {
  std::size_t col = 0, start = 0;
  for (; col < header.size(); ++col) {
    const std::size_t end = line.find(',', start);
    const std::string cell = trimmed(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
    row[col] = read_cell(cell, header[col], path, line_no);
    if (end == std::string::npos) {
      ++col;
      break;
    }
    start = end + 1;
    if (col + 1 == header.size())
      fail(path + ":" + std::to_string(line_no), "more than the " + std::to_string(header.size()) + " columns of the header");
  }
  if (col != header.size())
    fail(path + ":" + std::to_string(line_no),
         "expected " + std::to_string(header.size()) + " columns, got " + std::to_string(col));
}

// Appends a row's time and poses to `t`; error unless its time is after the previous row's.
void append_row(const std::vector<double>& row, const TraceColumns& c, const std::string& path, int line_no,
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
  std::istringstream in(csv_text);
  std::string line;
  if (!std::getline(in, line)) fail(path, "empty file (expected a header row)");
  const std::vector<std::string> header = read_header(line, path);
  const TraceColumns columns = find_columns(header, path);
  PoseTrace t;
  std::vector<double> row(header.size());
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF line endings
    if (line.empty()) continue;
    read_row(line, header, path, line_no, row);
    append_row(row, columns, path, line_no, t);
  }
  if (t.time.empty()) fail(path, "no data rows");
  return t;
}

}  // namespace vcloe
