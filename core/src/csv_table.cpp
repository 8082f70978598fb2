// core/src/csv_table.cpp — the one numeric CSV reader (csv_table.hpp).
#include "vcloe/core/csv_table.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe {

namespace {

// Spaces and tabs around a cell (spreadsheet exports) are not part of it.
std::string trimmed(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// A column name or cell in double quotes, as spreadsheets export them, is its text.
std::string unquoted(const std::string& s) {
  return s.size() >= 2 && s.front() == '"' && s.back() == '"' ? s.substr(1, s.size() - 2) : s;
}

std::string at(const std::string& path, int line) { return path + ":" + std::to_string(line); }

// A file in another encoding than UTF-8 (or ASCII) is said as such before its bytes are read as
// cells: UTF-16/32 (a spreadsheet's "Unicode text" export) by its byte-order mark, or without one
// by the NUL bytes every ASCII character of it carries (a blamed column of raw bytes said nothing).
void check_encoding(const std::string& text, const std::string& path) {
  struct Mark {
    const char* bytes;
    std::size_t size;
    const char* what;
  };
  static const Mark kMarks[] = {{"\x00\x00\xFE\xFF", 4, "UTF-32 (big-endian byte-order mark 00 00 FE FF)"},
                                {"\xFF\xFE\x00\x00", 4, "UTF-32 (little-endian byte-order mark FF FE 00 00)"},
                                {"\xFE\xFF", 2, "UTF-16 (big-endian byte-order mark FE FF)"},
                                {"\xFF\xFE", 2, "UTF-16 (little-endian byte-order mark FF FE)"}};
  const std::string how = ", not UTF-8 text: vcloe reads CSV files as UTF-8 (or ASCII); convert it (e.g. iconv -f "
                          "UTF-16 -t UTF-8)";
  for (const Mark& m : kMarks)
    if (text.size() >= m.size && text.compare(0, m.size, m.bytes, m.size) == 0) fail(path, std::string("is ") + m.what + how);
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
    fail(path, "has a NUL byte at offset " + std::to_string(nul) + " (UTF-16 without a byte-order mark, or a binary "
                                                                    "file?)" + how);
}

// A header row that is not comma-separated names is said as what it is, not as the first
// column it then lacks.
void check_header_row(const std::string& line, const std::string& path, const CsvRules& rules) {
  if (line.find('\r') != std::string::npos)
    fail(at(path, 1), "a carriage return inside the header row (lines ending in a bare CR, or CR CR LF); expected "
                      "LF or CR LF line endings");
  if (line.find(',') != std::string::npos) return;
  for (const auto& [c, name] : {std::pair<char, const char*>{'\t', "tabs"}, {';', "semicolons"}})
    if (line.find(c) != std::string::npos)
      fail(at(path, 1), std::string("the header row is separated by ") + name + "; expected comma-separated columns (" +
                            rules.example_header + ")");
}

// The column names of the header row (its BOM, CR and quotes removed); error on a name twice.
std::vector<std::string> read_header(std::string line, const std::string& path, const CsvRules& rules) {
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a UTF-8 byte-order mark (spreadsheet exports)
  if (!line.empty() && line.back() == '\r') line.pop_back();   // CRLF line endings
  check_header_row(line, path, rules);
  std::vector<std::string> header;
  std::stringstream s(line);
  std::string cell;
  std::map<std::string, std::size_t> seen;
  while (std::getline(s, cell, ',')) {
    cell = unquoted(trimmed(cell));
    if (const auto [it, fresh] = seen.emplace(cell, header.size() + 1); !fresh)  // which would be read?
      fail(at(path, 1), "column '" + cell + "' appears twice (columns " + std::to_string(it->second) + " and " +
                            std::to_string(header.size() + 1) + ")");
    header.push_back(cell);
  }
  return header;
}

// One cell of column `name` as a finite number within the magnitude a trace holds ("+0.18" is
// 0.18, as every spreadsheet reads it; from_chars alone refuses the sign).
double read_cell(const std::string& cell, const std::string& name, const std::string& where, const CsvRules& rules) {
  if (cell == "nan" && rules.nan_allowed.count(name)) return NAN;
  const std::size_t skip = cell.size() > 1 && cell[0] == '+' && cell[1] != '-' && cell[1] != '+' ? 1 : 0;
  double v = 0;
  const auto r = std::from_chars(cell.data() + skip, cell.data() + cell.size(), v);
  if (r.ec == std::errc::result_out_of_range)
    fail(where, "column '" + name + "': " + cell + " is beyond the range of a double (2.2e-308 to 1.8e308 in magnitude)");
  if (r.ec != std::errc() || r.ptr != cell.data() + cell.size())
    fail(where, "column '" + name + "': expected a number, got '" + cell + "'");
  if (!std::isfinite(v)) fail(where, "column '" + name + "': non-finite value '" + cell + "'");
  if (std::abs(v) > kMaxTraceMagnitude)
    fail(where, "column '" + name + "': " + cell + " is beyond any value a vcloe table holds (at most " +
                    exact_number(kMaxTraceMagnitude) + " in the column's unit: s, m, rad, N·m, N)");
  return v;
}

// A data row (CR removed, not empty): one number per header column.
std::vector<double> read_row(const std::string& line, const std::vector<std::string>& header, const std::string& where,
                             const CsvRules& rules) {
  std::vector<double> row(header.size());
  std::size_t col = 0, start = 0;
  for (; col < header.size(); ++col) {
    const std::size_t end = line.find(',', start);
    // A cell in double quotes (RFC 4180; a spreadsheet's "quote all" export) is its text: "0.18" is 0.18.
    const std::string cell =
        unquoted(trimmed(line.substr(start, end == std::string::npos ? std::string::npos : end - start)));
    row[col] = read_cell(cell, header[col], where, rules);
    if (end == std::string::npos) {
      ++col;
      break;
    }
    start = end + 1;
    if (col + 1 == header.size())
      fail(where, "more than the " + std::to_string(header.size()) + " columns of the header");
  }
  if (col != header.size())
    fail(where, "expected " + std::to_string(header.size()) + " columns, got " + std::to_string(col));
  return row;
}

}  // namespace

int CsvTable::column(const std::string& name) const {
  for (std::size_t c = 0; c < header.size(); ++c)
    if (header[c] == name) return static_cast<int>(c);
  return -1;
}

CsvTable parse_csv_table(const std::string& text, const std::string& path, const CsvRules& rules) {
  check_encoding(text, path);
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) fail(path, "empty file (expected a header row)");
  CsvTable t;
  t.header = read_header(line, path, rules);
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF line endings
    if (line.empty()) continue;
    t.rows.push_back(read_row(line, t.header, at(path, line_no), rules));
    t.lines.push_back(line_no);
  }
  return t;
}

}  // namespace vcloe
