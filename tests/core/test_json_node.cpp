// Specification of the typed readers' one way through JSON (vcloe/core/json_node.hpp): each
// getter accepts what it names and refuses everything else as one line naming the file and the
// key path, never with the JSON library's own exception.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "vcloe/core/error.hpp"
#include "vcloe/core/json_node.hpp"

using vcloe::JsonNode;
using nlohmann::json;

namespace {

template <class Get>
std::string refusal(const json& document, Get get) {
  try {
    get(JsonNode::root(document, "f.json", "(hint)"));
  } catch (const vcloe::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a vcloe::Error: ") + e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(JsonNode, KeyPathsNameTheMemberAndTheElement) {
  const json j = json::parse(R"({"a": {"b": [1, 2, {"c": "x"}]}})");
  EXPECT_EQ(refusal(j, [](const JsonNode& r) { r["a"]["b"][2]["c"].number(); }),
            "f.json: key 'a.b[2].c': expected a number, got \"x\"");
  EXPECT_EQ(refusal(j, [](const JsonNode& r) { r["a"]["b"][7].number(); }), "f.json: key 'a.b[7]': expected a number, got nothing");
  EXPECT_EQ(refusal(j, [](const JsonNode& r) { r.need("z"); }), "f.json: key 'z': missing (hint)");
  EXPECT_EQ(refusal(j, [](const JsonNode& r) { r["a"].need("b")[0].string(); }), "f.json: key 'a.b[0]': expected a string, got 1");
  EXPECT_EQ(refusal(json::array(), [](const JsonNode& r) { r.object(); }), "f.json: the document: expected an object, got []");
}

TEST(JsonNode, WholeNumbersInRangeAlsoWhenWrittenWithAFraction) {
  EXPECT_EQ(JsonNode::root(json(3.0), "f").integer(1, 5), 3);
  EXPECT_EQ(JsonNode::root(json(5), "f").integer(1, 5), 5);
  EXPECT_EQ(refusal(json(6), [](const JsonNode& r) { r.integer(1, 5); }), "f.json: the document: expected a whole number from 1 to 5, got 6");
  EXPECT_EQ(refusal(json(0), [](const JsonNode& r) { r.integer(1, 5); }), "f.json: the document: expected a whole number from 1 to 5, got 0");
  EXPECT_EQ(refusal(json(2.5), [](const JsonNode& r) { r.integer(1, 5); }), "f.json: the document: expected a whole number from 1 to 5, got 2.5");
  EXPECT_EQ(refusal(json(-1), [](const JsonNode& r) { r.integer(-5, -2); }), "f.json: the document: expected a whole number from -5 to -2, got -1");
  // The ends of the 64-bit range: nothing wraps.
  EXPECT_EQ(refusal(json(UINT64_MAX), [](const JsonNode& r) { r.count(); }).rfind("f.json: the document: expected a whole number from 0 to", 0), 0u);
  EXPECT_EQ(refusal(json(1e19), [](const JsonNode& r) { r.count(); }).rfind("f.json: the document: expected a whole number from 0 to", 0), 0u);
  EXPECT_EQ(JsonNode::root(json(UINT64_MAX - 1), "f").unsigned_integer(), UINT64_MAX - 1);
  EXPECT_EQ(refusal(json(-1), [](const JsonNode& r) { r.unsigned_integer(); }), "f.json: the document: expected a whole number from 0 to 2^64 - 2, got -1");
}

TEST(JsonNode, NumbersStringsAndFileRecords) {
  EXPECT_EQ(refusal(json(0), [](const JsonNode& r) { r.positive(); }), "f.json: the document: expected a positive number, got 0");
  EXPECT_EQ(refusal(json(-1e-9), [](const JsonNode& r) { r.non_negative(); }), "f.json: the document: expected a non-negative number, got -1e-09");
  EXPECT_TRUE(std::isinf(JsonNode::root(json(nullptr), "f").bound()));
  EXPECT_TRUE(std::isnan(JsonNode::root(json(nullptr), "f").number_or_nan()));
  EXPECT_EQ(refusal(json("c"), [](const JsonNode& r) { r.one_of({"a", "b"}); }), "f.json: the document: expected \"a\" or \"b\", got \"c\"");
  EXPECT_EQ(refusal(json("abc"), [](const JsonNode& r) { r.sha256(); }), "f.json: the document: expected a SHA-256 as 64 hexadecimal digits, got \"abc\"");
  EXPECT_TRUE(JsonNode::root(json(nullptr), "f").file_record().none());
  EXPECT_EQ(refusal(json::parse(R"({"path": 3})"), [](const JsonNode& r) { r.file_record(); }),
            "f.json: the document: expected {\"path\": string, \"sha256\": string} or null, got {\"path\":3}");
  // A long value is cut: the message stays one short line.
  EXPECT_EQ(refusal(json(std::string(100, 'x')), [](const JsonNode& r) { r.number(); }),
            "f.json: the document: expected a number, got \"" + std::string(39, 'x') + "...");
  EXPECT_EQ(refusal(json::parse("[1, 2]"), [](const JsonNode& r) { r.fixed<3>(); }), "f.json: the document: expected an array of 3, got [1,2]");
}

// A recorded hash in capitals is the hash it spells: every reader of a recorded hash (sidecars,
// reports, validations, calibrations, study tables) gets it in lower case, as vcloe computes
// them, so the report's and identify's comparisons see the same file (probe 19's class R).
TEST(JsonNode, ARecordedHashInCapitalsIsTheSameHash) {
  const std::string lower = "1771d4b29762" + std::string(52, 'a'), upper = "1771D4B29762" + std::string(52, 'A');
  EXPECT_EQ(JsonNode::root(json(upper), "f.json").sha256(), lower);
  EXPECT_EQ(JsonNode::root(json(lower), "f.json").sha256(), lower);
  const vcloe::FileRecord r = JsonNode::root(json{{"path", "/x/run.csv"}, {"sha256", upper}}, "f.json").file_record();
  EXPECT_EQ(r, (vcloe::FileRecord{"/x/run.csv", lower}));
}
