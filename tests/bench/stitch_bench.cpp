// Stitch benchmark (run it through stitch_bench.sh): the peak resident memory of stitching an
// order of --chunks chunks of --chunk-seconds seconds each (default: 200 x 330 s, about 18 hours
// and 530 MB of MP3 at 64 kbit/s: the audio of a 1,000,000-character order) from a local store,
// against the same for a small order. The stitch streams, so the peak should not grow with the
// order's size.
//
// The chunks' files are hard links to one encoded chunk (the stitch reads each in full all the
// same). The peak is the kernel's high-water mark (VmHWM), reset through /proc/self/clear_refs
// after the chunk was made, so the encoder's buffers do not count. --whole measures instead what
// the stitch did before it streamed: every chunk read into memory and joined with concat_mp3.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/storage/local_store.hpp"
#include "mediagen/workers/stitcher.hpp"

namespace {

using namespace mediagen;

long status_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return std::strtol(line.c_str() + prefix.size(), nullptr, 10);
  }
  return -1;
}

bool reset_peak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  return static_cast<bool>(out.flush());
}

struct Options {
  int chunks = 200;
  int chunk_seconds = 330;
  std::string dir;
  bool whole = false;
};

Options parse(int argc, char** argv) {
  Options o;
  o.dir = (std::filesystem::temp_directory_path() / "mg_stitch_bench").string();
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--whole") {
      o.whole = true;
      continue;
    }
    if (i + 1 == argc) break;
    ++i;
    if (flag == "--chunks") o.chunks = std::atoi(argv[i]);
    if (flag == "--chunk-seconds") o.chunk_seconds = std::atoi(argv[i]);
    if (flag == "--dir") o.dir = argv[i];
  }
  return o;
}

// The stitch as it was: every part in memory, joined in memory, written with one put.
std::optional<workers::StitchFailure> stitch_whole(storage::ObjectStore& store, const orders::StitchInputs& in,
                                                   orders::StitchedResult& result) {
  std::vector<std::string> parts;
  for (const auto& part : in.parts) {
    const auto size = store.stat(part.result_path).value().value_or(0);
    parts.push_back(store.read(part.result_path, 0, size).value());
  }
  std::vector<std::string_view> views(parts.begin(), parts.end());
  auto joined = engines::concat_mp3(views);
  if (!joined) return workers::StitchFailure{"concat_failed", joined.error().detail};
  result.duration_ms = engines::mp3_duration_ms(*joined).value();
  if (auto put = store.put(result.files[0], *joined); !put) return workers::StitchFailure{"storage_error", put.error().detail};
  return std::nullopt;
}

int run(const Options& o) {
  std::filesystem::remove_all(o.dir);
  auto store = storage::LocalStore::open(o.dir);
  if (!store) return std::fprintf(stderr, "store: %s\n", store.error().detail.c_str()), 2;
  const std::string order_id = "00000000-0000-4000-8000-000000000001";
  orders::StitchInputs in;
  in.positions = o.chunks;
  {
    engines::SpeechPcm pcm;
    pcm.sample_rate = 22050;
    pcm.samples.assign(static_cast<std::size_t>(22050LL * o.chunk_seconds), 2500);
    auto audio = engines::finish_chunk(std::move(pcm));
    if (!audio) return std::fprintf(stderr, "encode: %s\n", audio.error().detail.c_str()), 2;
    const std::string first = "orders/" + order_id + "/items/0.mp3";
    if (!store->put(first, audio->mp3)) return std::fprintf(stderr, "put failed\n"), 2;
    for (int i = 0; i < o.chunks; ++i) {
      const std::string key = "orders/" + order_id + "/items/" + std::to_string(i) + ".mp3";
      if (i > 0) std::filesystem::create_hard_link(std::filesystem::path(o.dir) / first, std::filesystem::path(o.dir) / key);
      in.parts.push_back({.item_id = std::to_string(i), .chunk_index = i, .text = "Words of the chunk.",
                          .result_path = key, .duration_ms = audio->duration_ms});
    }
    std::printf("chunk: %d s, %zu bytes; %d chunks\n", o.chunk_seconds, audio->mp3.size(), o.chunks);
  }
  if (!reset_peak()) std::fprintf(stderr, "cannot reset the peak (VmHWM); it includes the encoding\n");
  const long before = status_kib("VmHWM");
  orders::StitchedResult result;
  result.files = {orders::result_audio_key(order_id)};
  result.service_files = {orders::result_subtitles_key(order_id, "srt"), orders::result_subtitles_key(order_id, "vtt"),
                          orders::result_subtitles_key(order_id, "timings.json")};
  workers::Stitcher stitcher(*store);
  const auto start = std::chrono::steady_clock::now();
  const auto failure = o.whole ? stitch_whole(*store, in, result) : stitcher.write_result(in, result);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (failure) return std::fprintf(stderr, "stitch: %s %s\n", std::string(failure->why).c_str(), failure->detail.c_str()), 1;
  const auto track = store->stat(result.files[0]).value().value_or(0);
  std::printf("track: %.1f MB, %.1f h, stitched in %.1f s (%.0f MB/s)\n", static_cast<double>(track) / 1e6,
              static_cast<double>(result.duration_ms) / 3.6e6, seconds, static_cast<double>(track) / 1e6 / seconds);
  std::printf("peak RSS: %ld KiB before the stitch, %ld KiB at its peak (+%ld KiB)\n", before, status_kib("VmHWM"),
              status_kib("VmHWM") - before);
  std::filesystem::remove_all(o.dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run(parse(argc, argv)); }
