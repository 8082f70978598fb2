#pragma once
// vcloe/core/required_sidecar.hpp — the sidecar of every CSV vcloe writes (a pose trace, a
// static-pose trace, a pre-correction, a prediction): one writer and one reader. The sidecar
// holds the CSV's SHA-256 (`csv_sha256`) and is sealed (`content_sha256`, core/sealed_json.hpp),
// so a sidecar edited by hand — a derived trace relabelled a measurement, a record deleted, a
// hash zeroed — is refused before any of it is read (docs/robustness.md, "Sealed results").
// A CSV kind that has no meaning without its sidecar says its absence as what it means.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vcloe/core/output_file.hpp"

namespace vcloe {

// Whether an unsealed sidecar is read: only by `vcloe seal`, which adopts a recording written by
// a vcloe older than the seal (its every other check made) into a sealed copy.
enum class SidecarSeal { Required, Adopt };

// What a sidecar is and who writes it, for its errors: kind "a pre-corrected command", writer
// "vcloe precorrect or vcloe learn"; `recording` for the kinds `vcloe seal` adopts.
struct SidecarKind {
  std::string format;
  std::string kind;
  std::string writer;
  bool recording = false;
};

// The two files of a CSV with its sidecar, in the order they are renamed (the sidecar first):
// `sidecar` with `csv_sha256` set to the hash of `csv`, sealed.
std::vector<FileText> csv_with_sidecar(const std::string& csv_path, std::string csv, nlohmann::json sidecar);

// `csv_path`'s sidecar (sidecar_path) as read by the one JSON reader: its `format` checked
// (check_sidecar_kind), then its seal, which is removed. A sidecar without a seal is refused
// unless `seal` is Adopt; one whose content is not the sealed one always is.
nlohmann::json read_sidecar(const std::string& csv_path, const SidecarKind& kind, SidecarSeal seal = SidecarSeal::Required);

// read_sidecar of a CSV kind that has no meaning without one: its absence is "r.yaml: is not a
// pre-corrected command: vcloe precorrect or vcloe learn writes one as a CSV with its sidecar
// r.yaml.meta.json, which is not there".
nlohmann::json read_required_sidecar(const std::string& csv_path, const SidecarKind& kind,
                                     SidecarSeal seal = SidecarSeal::Required);

}  // namespace vcloe
