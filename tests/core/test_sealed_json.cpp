// Specification of the seal of vcloe's results (core/sealed_json.hpp): what the writer seals the
// reader reads back, whatever numbers it holds; one value edited, the seal removed or replaced by
// something that is no hash is refused in one line naming the file and the key; sealing again
// after an edit is what makes a file read (the seal is an integrity check against hand edits,
// docs/robustness.md, "Sealed results").
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "vcloe/core/json_file.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "../test_support.hpp"

using namespace vcloe;
namespace fs = std::filesystem;

TEST(SealedJson, WhatTheWriterSealsTheReaderReadsAndAnEditIsRefusedAtTheSealsKey) {
  const fs::path dir = fs::temp_directory_path() / "vcloe-sealed-json";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "r.json";
  const nlohmann::json document = {{"numbers", {0.1, 1e-300, -0.0, 1.7976931348623157e308, 12345678901234567, -3, 2.5e-7}},
                                   {"text", "ü \"quoted\" \\ path"},
                                   {"nested", {{"b", true}, {"a", nullptr}, {"list", nlohmann::json::array()}}}};
  std::ofstream(file) << sealed_json_text(document, file.string());
  EXPECT_EQ(read_sealed_json_file(file.string(), "run it again"), document);
  auto refused = [&](const nlohmann::json& j) {
    std::ofstream(file) << j.dump(2);
    return test::error_of([&] { read_sealed_json_file(file.string(), "run it again"); });
  };
  nlohmann::json sealed = read_json_file(file.string());
  nlohmann::json edited = sealed;
  edited["numbers"][0] = 0.2;
  EXPECT_NE(refused(edited).find(file.string() + ": key 'content_sha256': the content is not the one sealed"), std::string::npos)
      << refused(edited);
  EXPECT_NE(refused(edited).find("run it again"), std::string::npos);
  edited = sealed;
  edited["nested"]["extra"] = 1;  // a key added
  EXPECT_NE(refused(edited).find("the content is not the one sealed"), std::string::npos);
  edited = sealed;
  edited.erase("content_sha256");
  EXPECT_NE(refused(edited).find(file.string() + ": key 'content_sha256': missing"), std::string::npos) << refused(edited);
  edited["content_sha256"] = 7;
  EXPECT_NE(refused(edited).find("key 'content_sha256': expected the SHA-256 of the file's content (64 hex digits), got 7"),
            std::string::npos)
      << refused(edited);
  for (const std::string& spelling : {std::string(), " " + sealed["content_sha256"].get<std::string>()}) {  // probe 32, s13, s33
    edited["content_sha256"] = spelling;
    EXPECT_NE(refused(edited).find("(64 hex digits), got \""), std::string::npos) << refused(edited);
  }
  // The same hash in capitals is the same seal (probe 32, s11): read.
  edited = sealed;
  std::string upper = sealed["content_sha256"].get<std::string>();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  edited["content_sha256"] = upper;
  std::ofstream(file) << edited.dump(2);
  EXPECT_EQ(read_sealed_json_file(file.string(), ""), document);
  // Sealed again after the edit: read (the typed readers' own checks then meet it).
  edited = sealed;
  edited["numbers"][0] = 0.2;
  std::ofstream(file) << sealed_json_text(edited, file.string());
  EXPECT_EQ(read_sealed_json_file(file.string(), "").at("numbers")[0], 0.2);
}
