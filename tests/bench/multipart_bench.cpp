// Multipart parser throughput: a 40 MB audio-like file plus two fields, fed in 64 KiB pieces (as
// the socket delivers them) and in 1 KiB pieces, kept in memory and handed to a sink; median of 5
// runs, in MB/s of body.
// Usage: multipart_bench [--megabytes M (40)] [--repeat N (5)]   (the smoke test runs 1 MB once)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "mediagen/http/multipart.hpp"

namespace {

using namespace mediagen::http;

const std::string kBoundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW";

// Random bytes: CR, LF and '-' turn up as often as in compressed audio.
std::string body_of(std::size_t file_bytes) {
  std::string file(file_bytes, '\0');
  std::mt19937 rng(7);
  for (auto& c : file) c = static_cast<char>(rng() & 0xFF);
  const std::string open = "--" + kBoundary + "\r\n";
  return open + "Content-Disposition: form-data; name=\"name\"\r\n\r\nMy voice\r\n" + open +
         "Content-Disposition: form-data; name=\"files[]\"; filename=\"sample.mp3\"\r\n"
         "Content-Type: audio/mpeg\r\n\r\n" + file + "\r\n--" + kBoundary + "--\r\n";
}

double run_mb_per_s(const std::string& body, std::size_t piece, bool sink, int repeat) {
  MultipartLimits limits;
  limits.max_total_bytes = body.size();
  std::vector<double> rates;
  for (int round = 0; round < repeat; ++round) {
    std::size_t sunk = 0;
    FileSink file_sink;
    if (sink) file_sink = [&](const MultipartPart&, std::string_view bytes, bool) { sunk += bytes.size(); };
    const auto start = std::chrono::steady_clock::now();
    MultipartParser parser(kBoundary, limits, file_sink);
    for (std::size_t at = 0; at < body.size(); at += piece) parser.feed(std::string_view(body).substr(at, piece));
    if (parser.finish()) std::fprintf(stderr, "refused: %s\n", parser.error()->detail.c_str());
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    rates.push_back(static_cast<double>(body.size()) / 1e6 / took.count());
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  double megabytes = 40;
  int repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--megabytes") megabytes = std::atof(argv[i + 1]);
    else if (flag == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
  }
  const std::string body = body_of(static_cast<std::size_t>(std::max(0.01, megabytes) * 1e6));
  for (std::size_t piece : {std::size_t{65536}, std::size_t{1024}}) {
    for (bool sink : {false, true}) {
      std::printf("pieces of %6zu bytes, %-6s %8.0f MB/s\n", piece, sink ? "sink" : "kept",
                  run_mb_per_s(body, piece, sink, repeat));
    }
  }
  return 0;
}
