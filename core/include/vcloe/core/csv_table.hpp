#pragma once
// vcloe/core/csv_table.hpp — the one reader of the numeric CSV files vcloe reads (traces,
// pre-correction commands, static-pose traces): a header row of column names, then rows of
// numbers. What a spreadsheet export does to a file is read as the file it was: CRLF line
// ends, a UTF-8 byte-order mark, spaces and tabs around cells, a header name in double quotes,
// a leading '+' on a number. What it cannot mean is refused naming the file, line and column:
// a column twice, a row of another width, a cell that is no number, non-finite, or beyond any
// time, position or angle (kMaxTraceMagnitude). Errors are vcloe::Error.
#include <set>
#include <string>
#include <vector>

namespace vcloe {

struct CsvTable {
  std::vector<std::string> header;          // the column names, as found
  std::vector<std::vector<double>> rows;    // one number per column
  std::vector<int> lines;                   // the file's line number of each row (the header is line 1)
  int column(const std::string& name) const;  // its index, or -1
};

struct CsvRules {
  // Shown in the complaint about a header separated by tabs or semicolons, e.g. "time,x,y,…".
  std::string example_header;
  // Columns in which "nan" is read as NaN: a quantity the writer had no value for.
  std::set<std::string> nan_allowed;
};

// Parses `text` (read from `path`, named in errors). Empty lines are skipped; a file without a
// header row is refused, one without data rows is returned with no rows (the caller says what
// it expected).
CsvTable parse_csv_table(const std::string& text, const std::string& path, const CsvRules& rules);

}  // namespace vcloe
