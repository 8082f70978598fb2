// Specification of the one numeric CSV reader (vcloe/core/csv_table.hpp), read by the trace,
// the pre-correction and the static-pose trace readers: what a spreadsheet export does to a file
// (CRLF, a byte-order mark, spaces around cells, quoted names, '+0.18') is read as the file it
// was; what cannot be meant is refused naming the file, line and column.
#include <gtest/gtest.h>

#include <cmath>

#include "../test_support.hpp"
#include "vcloe/core/csv_table.hpp"
#include "vcloe/core/error.hpp"

using namespace vcloe;

namespace {

CsvTable csv_of(const std::string& text) { return parse_csv_table(text, "t.csv", {"t,a,b", {"b"}}); }

std::string csv_refusal(const std::string& text) {
  return test::error_of([&] { csv_of(text); });
}

}  // namespace

TEST(CsvTable, WhatASpreadsheetExportDoesToAFileIsReadAsTheFileItWas) {
  const CsvTable plain = csv_of("t,a,b\n0,1.5,2\n0.001,-3,4e-3\n");
  for (const std::string& text : {std::string("\xEF\xBB\xBFt,a,b\r\n0,1.5,2\r\n0.001,-3,4e-3\r\n"),
                                  std::string("t , \"a\",b\n 0 ,+1.5,\t2\n\n0.001, -3 ,+4e-3\n")}) {
    const CsvTable t = csv_of(text);
    EXPECT_EQ(t.header, plain.header) << text;
    EXPECT_EQ(t.rows, plain.rows) << text;
  }
  EXPECT_EQ(plain.lines, (std::vector<int>{2, 3}));
  EXPECT_EQ(csv_of("t,a,b\n\n0,1,2\n").lines, (std::vector<int>{3}));  // lines as the file numbers them
  EXPECT_TRUE(std::isnan(csv_of("t,a,b\n0,1,nan\n").rows[0][2]));      // where the writer had no value
}

TEST(CsvTable, WhatCannotBeMeantIsRefusedNamingTheFileLineAndColumn) {
  EXPECT_EQ(csv_refusal("t,a,b\n0,1,2\n0,nan,2\n"), "t.csv:3: column 'a': non-finite value 'nan'");
  EXPECT_EQ(csv_refusal("t,a,b\n0,+-1,2\n"), "t.csv:2: column 'a': expected a number, got '+-1'");
  EXPECT_EQ(csv_refusal("t,a,b\n0,1e300,2\n"),
            "t.csv:2: column 'a': 1e300 is beyond any value a vcloe table holds (at most 1e+06 in the column's unit: s, m, rad, N·m, N)");
  EXPECT_EQ(csv_refusal("t,a,b\n0,1\n"), "t.csv:2: expected 3 columns, got 2");
  EXPECT_EQ(csv_refusal("t,a,a\n"), "t.csv:1: column 'a' appears twice (columns 2 and 3)");
  EXPECT_EQ(csv_refusal("t;a;b\n"), "t.csv:1: the header row is separated by semicolons; expected comma-separated columns (t,a,b)");
  EXPECT_EQ(csv_refusal(""), "t.csv: empty file (expected a header row)");
}

// Probe 18, class M: a file in UTF-16 or UTF-32 (a spreadsheet's "Unicode text" export) was read
// byte by byte and blamed a column of raw bytes; its encoding is named, with or without a
// byte-order mark.
TEST(CsvTable, AFileInAnotherEncodingIsRefusedNamingTheEncoding) {
  auto utf16le = [](const std::string& ascii, bool mark) {
    std::string out = mark ? std::string("\xFF\xFE", 2) : std::string();
    for (char c : ascii) out += c, out += '\0';
    return out;
  };
  auto utf16be = [](const std::string& ascii) {
    std::string out("\xFE\xFF", 2);
    for (char c : ascii) out += '\0', out += c;
    return out;
  };
  const std::string text = "t,a,b\n0,1,2\n";
  const std::string convert = ", not UTF-8 text: vcloe reads CSV files as UTF-8 (or ASCII); convert it (e.g. iconv -f UTF-16 -t UTF-8)";
  EXPECT_EQ(csv_refusal(utf16le(text, true)), "t.csv: is UTF-16 (little-endian byte-order mark FF FE)" + convert);
  EXPECT_EQ(csv_refusal(utf16be(text)), "t.csv: is UTF-16 (big-endian byte-order mark FE FF)" + convert);
  EXPECT_EQ(csv_refusal(std::string("\xFF\xFE\0\0t\0\0\0", 8)), "t.csv: is UTF-32 (little-endian byte-order mark FF FE 00 00)" + convert);
  EXPECT_EQ(csv_refusal(utf16le(text, false)),
            "t.csv: has a NUL byte at offset 1 (UTF-16 without a byte-order mark, or a binary file?)" + convert);
}

TEST(CsvTable, QuotedCellsAreTheirNumbersAsRfc4180Reads) {
  // A spreadsheet's "quote all" export (tc-quoted-cells) was refused cell by cell; quoted column
  // names were already read.
  const CsvTable plain = csv_of("t,a,b\n0,1.5,2\n0.001,-3,4e-3\n");
  const CsvTable quoted = csv_of("\"t\",\"a\",\"b\"\r\n\"0\",\"1.5\",\"2\"\r\n\"0.001\", \"-3\" ,\"4e-3\"\r\n");
  EXPECT_EQ(quoted.rows, plain.rows);
  EXPECT_NE(vcloe::test::error_of([] { csv_of("t,a,b\n0,\"x\",2\n"); }).find("column 'a': expected a number, got 'x'"),
            std::string::npos);
}
