#pragma once
// vcloe/core/yaml_reader.hpp — typed YAML access whose errors name the file, line and key.
//
//   YamlDoc doc = YamlDoc::load("config/robot.yaml");
//   double L = doc.root().get<double>("link_length");        // throws vcloe::Error:
//   // "config/robot.yaml:14: key 'legs[2].link_length': expected a number, got 'abc'"
#include <yaml-cpp/yaml.h>

#include "vcloe/core/error.hpp"  // exact_number, fail
#include "vcloe/core/settings.hpp"

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vcloe {

class YamlNode {
 public:
  YamlNode(YAML::Node node, std::string path, std::shared_ptr<const std::string> file)
      : node_(std::move(node)), path_(std::move(path)), file_(std::move(file)) {}

  bool has(const std::string& key) const;
  YamlNode at(const std::string& key) const;        // required child; error if missing
  std::optional<YamlNode> find(const std::string& key) const;
  YamlNode at(std::size_t index) const;             // sequence element
  std::size_t size() const;                         // sequence length (error if not a sequence)
  bool is_sequence() const { return node_.IsSequence(); }

  double as_double() const;
  int as_int() const;
  bool as_bool() const;
  std::string as_string() const;
  Eigen::VectorXd as_vector(int expected_size = -1) const;  // [a, b, c]

  // Shorthands: child key converted, or default when absent.
  double get_double(const std::string& key) const { return at(key).as_double(); }
  double get_double(const std::string& key, double fallback) const;
  int get_int(const std::string& key, int fallback) const;
  bool get_bool(const std::string& key, bool fallback) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  Eigen::VectorXd get_vector(const std::string& key, int expected_size) const {
    return at(key).as_vector(expected_size);
  }

  // Errors: "<file>:<line>: key '<path>': <what>".
  [[noreturn]] void fail(const std::string& what) const;
  // A settings struct's problem() (core/settings.hpp) said at its key in this file, as every other
  // error of the file is: fails at the node of the dotted key ("limits.sample_period", "axes.x.s[0]") below this
  // one, or of its nearest enclosing key present ("option 'duration': …" at the root when the
  // file leaves it at its default); the message's own leading "<key>: " is not repeated.
  // Returns if there is no problem. The one path from a struct's check to a located error.
  void fail_if(const std::optional<SettingProblem>& problem) const;
  // Keys present in this map that are not in `known`: a typo is an error, not ignored.
  void reject_unknown_keys(const std::vector<std::string>& known) const;

  const std::string& path() const { return path_; }
  const YAML::Node& raw() const { return node_; }
  int line() const;  // 1-based, 0 if unknown
  // "<file>:<line>: key '<path>'": where this node is, as errors begin (for a check made later,
  // when what it is compared with is known).
  std::string where() const;

 private:
  std::string child_path(const std::string& key) const;
  YAML::Node node_;
  std::string path_;
  std::shared_ptr<const std::string> file_;
};

class YamlDoc {
 public:
  static YamlDoc load(const std::string& file);            // file errors name the file
  static YamlDoc parse(const std::string& text, const std::string& name);
  YamlNode root() const { return YamlNode(root_, "", file_); }
  const std::string& file() const { return *file_; }

 private:
  YAML::Node root_;
  std::shared_ptr<const std::string> file_;
};

}  // namespace vcloe
