#include "support/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

// The whole response to "GET /path" on 127.0.0.1:port, "" when nothing listens.
std::string http_get(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = "GET /" + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[4096];
      ssize_t n;
      while ((n = read(fd, buf, sizeof buf)) > 0) response.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  return response;
}

}  // namespace

TEST_CASE("a local HTTP server serves its folder on 127.0.0.1 and is gone with the object", "[http_server]") {
  TempDir dir;
  std::ofstream(dir.file("hello.txt")) << "hello from the test\n";
  int port = 0;
  {
    const LocalHttpServer server(dir.path(), dir.path());
    port = server.port();
    REQUIRE(port > 0);
    CHECK(server.url("a/b.json") == "http://127.0.0.1:" + std::to_string(port) + "/a/b.json");
    const std::string response = http_get(port, "hello.txt");
    CHECK(response.rfind("HTTP/1.0 200", 0) == 0);
    CHECK(response.find("\r\n\r\nhello from the test\n") != std::string::npos);
    CHECK(http_get(port, "missing.txt").rfind("HTTP/1.0 404", 0) == 0);
  }
  CHECK(http_get(port, "hello.txt").empty());
}
