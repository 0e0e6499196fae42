// Test support: a self-signed certificate for 127.0.0.1 and localhost (P-256, one day), made
// with the openssl command in a temporary directory that lives as long as the object.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace mcp_test {

struct test_cert {
  test_cert() {
    static int n = 0;
    dir = std::filesystem::temp_directory_path() /
          ("mcp-tls-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::create_directories(dir);
    cert = (dir / "cert.pem").string();
    key = (dir / "key.pem").string();
    const std::string cmd =
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 "
        "-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " +
        key + " -out " + cert + " 2>/dev/null";
    ok = std::system(cmd.c_str()) == 0 && std::filesystem::exists(cert);
  }
  ~test_cert() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  test_cert(const test_cert&) = delete;
  test_cert& operator=(const test_cert&) = delete;

  std::filesystem::path dir;
  std::string cert;
  std::string key;
  bool ok = false;
};

}  // namespace mcp_test
