// Sound-effect engine benchmark (run it through sfx_bench.sh): for every recipe, the time to
// render --seconds of audio, as milliseconds per second of audio:
//   synth   sfx_render (synthesis, mixing, levelling) in this thread;
//   encode  encode_mp3 of that PCM with the engine's settings;
//   lame    the anchor: the `lame` program encoding the same PCM from a WAV file with the same
//           settings (CPU of the child process), so a reader sees how much of the total is
//           synthesis and that the in-process encoder costs what LAME costs.
// CPU is this thread's (CLOCK_THREAD_CPUTIME_ID) for synth and encode, RUSAGE_CHILDREN for lame;
// wall is the steady clock. Every figure is the best of --repeat runs; the last lines give the
// median and the worst recipe.
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/sfx.hpp"

namespace {

using namespace mediagen::engines;

struct Cost {
  double cpu = std::numeric_limits<double>::infinity();
  double wall = std::numeric_limits<double>::infinity();
};

double thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double children_cpu() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  const auto s = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "sfx_bench: %s\n", what.c_str());
  std::exit(2);
}

// Best of `repeat` runs of f, measured with `cpu` (a clock of seconds).
template <class F, class Clock>
Cost best_of(int repeat, Clock cpu, F&& f) {
  Cost best;
  for (int i = 0; i < repeat; ++i) {
    const double c0 = cpu(), w0 = wall_now();
    f();
    best.cpu = std::min(best.cpu, cpu() - c0);
    best.wall = std::min(best.wall, wall_now() - w0);
  }
  return best;
}

void write_wav(const std::filesystem::path& path, const std::vector<std::int16_t>& pcm) {
  std::ofstream out(path, std::ios::binary);
  const auto u32 = [&](std::uint32_t v) { out.write(reinterpret_cast<const char*>(&v), 4); };
  const auto u16 = [&](std::uint16_t v) { out.write(reinterpret_cast<const char*>(&v), 2); };
  const auto bytes = static_cast<std::uint32_t>(pcm.size() * 2);
  out.write("RIFF", 4), u32(36 + bytes), out.write("WAVEfmt ", 8), u32(16), u16(1), u16(1);
  u32(kSfxSampleRate), u32(kSfxSampleRate * 2), u16(2), u16(16), out.write("data", 4), u32(bytes);
  out.write(reinterpret_cast<const char*>(pcm.data()), static_cast<std::streamsize>(bytes));
  if (!out) fail("cannot write " + path.string());
}

bool have_lame() { return std::system("command -v lame >/dev/null 2>&1") == 0; }

struct Row {
  std::string recipe;
  Cost synth, encode, lame;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void summary(const char* what, const std::vector<Row>& rows, Cost Row::*part, double seconds) {
  std::vector<double> cpu, wall;
  const Row* worst = &rows.front();
  for (const auto& r : rows) {
    cpu.push_back((r.*part).cpu), wall.push_back((r.*part).wall);
    if ((r.*part).cpu > (worst->*part).cpu) worst = &r;
  }
  std::printf("  %-7s median %6.2f ms CPU %6.2f ms wall per audio second; worst %s %.2f ms CPU\n", what,
              1e3 * median(cpu) / seconds, 1e3 * median(wall) / seconds, worst->recipe.c_str(),
              1e3 * (worst->*part).cpu / seconds);
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  int repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::max(1, std::atoi(argv[i + 1]));
    else fail(std::string("unknown option ") + argv[i]);
  }
  const auto duration_ms = static_cast<std::int64_t>(seconds * 1000);
  if (duration_ms < kSfxMinDurationMs || duration_ms > kSfxMaxDurationMs) fail("--seconds must be 0.5..22");
  const bool lame = have_lame();
  const auto dir = std::filesystem::temp_directory_path() / ("sfx_bench." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string lame_cmd = "lame --quiet -m m -b " +
                               std::to_string(kSfxMp3Options.bitrate_kbps) + " -q " +
                               std::to_string(kSfxMp3Options.quality);
  std::printf("sfx_bench: %.1f s of audio per recipe, best of %d; ms per second of audio (CPU / wall)\n", seconds,
              repeat);
  std::printf("  %-14s %17s %17s %17s\n", "recipe", "synth", "encode", lame ? "lame (anchor)" : "lame: missing");
  std::vector<Row> rows;
  for (auto name : sfx_recipe_names()) {
    Row row{std::string(name), {}, {}, {}};
    const PromptRequest request{row.recipe, duration_ms, 1};
    SfxPcm pcm;
    row.synth = best_of(repeat, thread_cpu, [&] { pcm = sfx_render(request).value(); });
    row.encode = best_of(repeat, thread_cpu, [&] {
      if (!encode_mp3(pcm.samples, kSfxSampleRate, kSfxMp3Options)) fail("encode failed");
    });
    if (lame) {
      write_wav(dir / "in.wav", pcm.samples);
      const std::string cmd = lame_cmd + " " + (dir / "in.wav").string() + " " + (dir / "out.mp3").string();
      row.lame = best_of(repeat, children_cpu, [&] {
        const int status = std::system(cmd.c_str());
        if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) fail("command failed: " + cmd);
      });
    }
    const auto ms = [&](const Cost& c) {
      char cell[40];
      std::snprintf(cell, sizeof cell, "%6.2f / %6.2f", 1e3 * c.cpu / seconds, 1e3 * c.wall / seconds);
      return std::string(cell);
    };
    std::printf("  %-14s %17s %17s %17s\n", row.recipe.c_str(), ms(row.synth).c_str(), ms(row.encode).c_str(),
                lame ? ms(row.lame).c_str() : "-");
    rows.push_back(std::move(row));
  }
  std::filesystem::remove_all(dir);
  summary("synth", rows, &Row::synth, seconds);
  summary("encode", rows, &Row::encode, seconds);
  if (lame) summary("lame", rows, &Row::lame, seconds);
  return 0;
}
