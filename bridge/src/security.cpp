#include "vcloe/bridge/security.hpp"

#include <sys/stat.h>
#include <zmq.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "vcloe/core/error.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/output_file.hpp"

namespace vcloe::bridge {

bool curve_available() { return zmq_has("curve") == 1; }

KeyPair make_key_pair() {
  if (!curve_available()) fail("keys", "this libzmq has no CURVE security (build it with libsodium)");
  char pub[41] = {}, sec[41] = {};
  if (zmq_curve_keypair(pub, sec) != 0) fail("keys", "zmq_curve_keypair failed");
  return {pub, sec};
}

namespace {

bool z85_key(const std::string& s) {
  if (s.size() != 40) return false;
  std::uint8_t binary[32];
  return zmq_z85_decode(binary, s.c_str()) != nullptr;
}

std::string binary_of(const std::string& z85) {
  std::uint8_t b[32];
  if (!zmq_z85_decode(b, z85.c_str())) fail("keys", "not a Z85 key: '" + z85 + "'");
  return std::string(reinterpret_cast<const char*>(b), 32);
}

// "public KEY" or "secret KEY" on line `n` of `file` (a line ending in CRLF too: a key file
// copied through an editor or a transfer that wrote Windows line ends).
std::string key_line(std::istream& in, const std::string& file, int n, const std::string& word) {
  std::string line;
  if (!std::getline(in, line)) fail(file + ":" + std::to_string(n), "expected '" + word + " <40-character Z85 key>', got the end of the file");
  if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF, as every text reader takes it
  if (line.rfind(word + " ", 0) != 0 || !z85_key(line.substr(word.size() + 1)))
    fail(file + ":" + std::to_string(n), "expected '" + word + " <40-character Z85 key>' (as `vcloe rig keys` writes)");
  return line.substr(word.size() + 1);
}

std::string octal_mode(mode_t mode) {
  std::ostringstream out;
  out << std::oct << (mode & 0777);
  return out.str();
}

// A keys directory or key file others may write admits whoever writes their key in it (an
// allow-list is only as private as its files): refused, with the chmod that closes it.
void refuse_if_others_may_write(const std::string& path, const std::string& what, const char* chmod_to) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0) return;  // a missing file is told by its reader
  if (st.st_mode & 022)
    fail(path, "others may write this " + what + " (mode " + octal_mode(st.st_mode) +
                   ") and so put their key among the rig's; chmod " + chmod_to + " it");
}

// Every role holds its own pair: two .pub files with one key would let either role's holder be
// taken for the other (the listener bind the commands as control).
void refuse_shared_keys(const std::map<std::string, std::string>& public_keys, const std::string& dir) {
  for (auto a = public_keys.begin(); a != public_keys.end(); ++a)
    for (auto b = std::next(a); b != public_keys.end(); ++b)
      if (a->second == b->second)
        fail((std::filesystem::path(dir) / (b->first + ".pub")).string(),
             "holds the same public key as " + a->first + ".pub: every role needs its own pair (`vcloe rig keys --dir " +
                 dir + " --force` makes a new set)");
}

}  // namespace

std::string write_rig_keys(const std::string& dir, bool force) {
  namespace fs = std::filesystem;
  if (!fs::exists(dir)) {
    fs::create_directories(dir);
    chmod(dir.c_str(), 0700);
  }
  if (!fs::is_directory(dir)) fail(dir, "is not a directory");
  const std::vector<const char*> holders = {kRoles[0], kRoles[1], kRoles[2], kListener};
  if (!force)
    for (const char* role : holders)
      for (const char* ext : {".key", ".pub"})
        if (fs::exists(fs::path(dir) / (std::string(role) + ext)))
          fail((fs::path(dir) / (std::string(role) + ext)).string(), "exists; --force replaces the rig's keys");
  // Every key complete under a temporary name first, then all renamed (output_file.hpp): a full
  // disk or a file-size limit leaves the old set, and a secret key is created 0600, never
  // readable by others for a moment.
  std::string written;
  std::vector<FileText> files;
  for (const char* role : holders) {
    const KeyPair k = make_key_pair();
    const fs::path key = fs::path(dir) / (std::string(role) + ".key"), pub = fs::path(dir) / (std::string(role) + ".pub");
    files.push_back({key.string(), "public " + k.public_key + "\nsecret " + k.secret_key + "\n"});
    files.push_back({pub.string(), "public " + k.public_key + "\n"});
    written += key.string() + "\n" + pub.string() + "\n";
  }
  const mode_t umask_before = ::umask(077);  // every file created 0600 (this command has one thread)
  try {
    write_files_atomically(files, force);
  } catch (...) {
    ::umask(umask_before);
    throw;
  }
  ::umask(umask_before);
  for (std::size_t i = 1; i < files.size(); i += 2)  // the public keys: readable as before
    ::chmod(files[i].path.c_str(), 0644 & ~umask_before);
  return written;
}

RoleKeys load_role_keys(const std::string& dir, const std::string& role) {
  namespace fs = std::filesystem;
  RoleKeys r;
  r.role = role;
  std::error_code ec;  // a key file given for the directory: said as such, not "make keys in it"
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    const fs::path parent = fs::path(dir).parent_path().empty() ? fs::path(".") : fs::path(dir).parent_path();
    fail(dir, "is a file, not a directory of the rig's keys: --keys takes the directory `vcloe rig keys --dir` wrote (" +
                  parent.string() + "?), which holds " + role + ".key and every role's .pub");
  }
  refuse_if_others_may_write(dir, "directory of the rig's keys", "700");
  const std::string key = (fs::path(dir) / (role + ".key")).string();
  struct stat st{};
  if (stat(key.c_str(), &st) != 0) fail(key, "not found (make the rig's keys with `vcloe rig keys --dir " + dir + "`)");
  require_input_file(key);  // a FIFO was read for ever; a link to /dev/zero got "chmod 600 it"
  if (st.st_mode & 077) fail(key, "others may read this secret key (mode " + octal_mode(st.st_mode) + "); chmod 600 it");
  std::istringstream in(read_input_file(key, InputKind::KeyFile));
  r.own.public_key = key_line(in, key, 1, "public");
  r.own.secret_key = key_line(in, key, 2, "secret");
  // A pair put together from two (probe 34, K007): every peer refused it after the whole start timeout.
  char derived[41] = {};
  if (zmq_curve_public(derived, r.own.secret_key.c_str()) != 0 || r.own.public_key != derived)
    fail(key + ":1", "its public key is not the one of its secret key (line 2): a key pair is written whole by `vcloe rig keys`");
  for (const char* other : kRoles) {
    const std::string pub = (fs::path(dir) / (std::string(other) + ".pub")).string();
    std::error_code ec;
    if (!std::filesystem::exists(pub, ec)) fail(pub, "not found (every role's public key is needed: `vcloe rig keys`)");
    require_input_file(pub);  // before its mode: a device's 666 is no advice to chmod it
    refuse_if_others_may_write(pub, "public key", "644");
    std::istringstream p(read_input_file(pub, InputKind::KeyFile));
    r.public_keys[other] = key_line(p, pub, 1, "public");
  }
  const std::string listener = (fs::path(dir) / (std::string(kListener) + ".pub")).string();
  if (std::error_code ec; std::filesystem::exists(listener, ec)) require_input_file(listener);
  refuse_if_others_may_write(listener, "public key", "644");
  if (std::error_code ec; std::filesystem::exists(listener, ec)) {
    std::istringstream p(read_input_file(listener, InputKind::KeyFile));
    r.public_keys[kListener] = key_line(p, listener, 1, "public");
  }
  refuse_shared_keys(r.public_keys, dir);
  if (r.public_keys.count(role) == 0 || r.public_keys[role] != r.own.public_key)
    fail(key, "its public key is not the one in " + role + ".pub");
  return r;
}

bool loopback_tcp(const std::string& endpoint) {
  if (endpoint.rfind("tcp://", 0) != 0) return false;
  const std::string hostport = endpoint.substr(6);
  const std::string host = hostport.substr(0, hostport.rfind(':'));
  return host == "localhost" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

Authenticator::Authenticator(zmq::context_t& context, const std::set<std::string>& allowed) {
  for (const std::string& k : allowed) allowed_.insert(binary_of(k));
  auto socket = std::make_unique<zmq::socket_t>(context, zmq::socket_type::rep);
  socket->set(zmq::sockopt::linger, 0);
  socket->bind("inproc://zeromq.zap.01");  // ZeroMQ RFC 27: the one ZAP endpoint of a context
  thread_ = std::thread([this, s = socket.release()] {
    serve(s);
    delete static_cast<zmq::socket_t*>(s);
  });
}

Authenticator::~Authenticator() {
  stop_ = true;
  thread_.join();
}

// Each request: version, request id, domain, address, identity, mechanism, credentials (CURVE:
// the client's 32-byte public key). The reply: version, request id, status code and text, user, metadata.
void Authenticator::serve(void* s) {
  zmq::socket_t& socket = *static_cast<zmq::socket_t*>(s);
  while (!stop_) {
    zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
    try {
      if (zmq::poll(&item, 1, std::chrono::milliseconds(20)) == 0) continue;
    } catch (const zmq::error_t&) {
      continue;  // EINTR
    }
    std::vector<zmq::message_t> request;
    for (bool more = true; more;) {
      zmq::message_t part;
      if (!socket.recv(part)) break;
      more = part.more();
      request.push_back(std::move(part));
    }
    if (request.size() < 2) continue;
    const bool curve = request.size() >= 7 && request[5].to_string() == "CURVE";
    const bool ok = curve && allowed_.count(request[6].to_string()) > 0;
    (ok ? accepted_ : refused_)++;
    socket.send(zmq::str_buffer("1.0"), zmq::send_flags::sndmore);
    socket.send(request[1], zmq::send_flags::sndmore);
    socket.send(ok ? zmq::str_buffer("200") : zmq::str_buffer("400"), zmq::send_flags::sndmore);
    socket.send(ok ? zmq::str_buffer("OK") : zmq::str_buffer("key not allowed"), zmq::send_flags::sndmore);
    socket.send(zmq::str_buffer(""), zmq::send_flags::sndmore);
    socket.send(zmq::str_buffer(""), zmq::send_flags::none);
  }
}

}  // namespace vcloe::bridge
