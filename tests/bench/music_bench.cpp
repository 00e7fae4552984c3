// Music engine benchmark (run it through music_bench.sh), performance goal G9:
//  (a) CPU seconds per second of audio of the engine (compose, FluidSynth render, levelling, LAME
//      in one process) for a 60-s piece, against the raw pipeline on the same notes: the score
//      written as a Standard MIDI File, then `fluidsynth -ni -F out.wav` and `lame` at the engine's
//      bitrate and quality. Also against the raw pipeline's marginal rate: its cost for a 2-s MIDI
//      (start-up and soundfont load, as anchor M2) subtracted. Target: engine >= 0.9x raw.
//  (b) the soundfont load paid once per process: the first generate() against later ones, the
//      per-call synthesizer set-up (a cache hit), and the process's RSS after the load.
// CPU is getrusage: RUSAGE_SELF for the engine, RUSAGE_CHILDREN for the commands. Each figure is
// the best of --repeat runs.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "engines/music/music_composer.hpp"
#include "engines/music/music_styles.hpp"
#include "engines/music/music_synth.hpp"
#include "mediagen/engines/music.hpp"

namespace {

using namespace mediagen::engines;
namespace fs = std::filesystem;

struct Options {
  std::string soundfont = std::string(kDefaultSoundfont);
  std::string prompt = "epic orchestral";
  int seconds = 60;
  int repeat = 3;
  bool raw = true;
};

double cpu_seconds(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
long rss_kib(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::string_view(field).size());
  }
  return -1;
}

// A format-0 Standard MIDI File of the score: tempo, each channel's program and mix, the notes.
void write_smf(const music::Score& score, const fs::path& path) {
  struct Event {
    std::int64_t tick;
    int order;  // at one tick: set-up, then note-offs, then note-ons
    std::vector<unsigned char> bytes;
  };
  std::vector<Event> events;
  const std::uint32_t us_per_beat = 60'000'000u / static_cast<std::uint32_t>(score.bpm);
  events.push_back({0, 0, {0xFF, 0x51, 0x03, static_cast<unsigned char>(us_per_beat >> 16),
                           static_cast<unsigned char>(us_per_beat >> 8), static_cast<unsigned char>(us_per_beat)}});
  for (std::size_t p = 0; p < music::kParts; ++p) {
    const auto& setup = score.parts[p];
    if (setup.program < 0) continue;
    const auto ch = static_cast<unsigned char>(music::channel_of(static_cast<music::Part>(p)));
    events.push_back({0, 0, {static_cast<unsigned char>(0xC0 | ch), static_cast<unsigned char>(setup.program)}});
    for (const auto& [cc, value] : {std::pair{7, setup.volume}, {10, setup.pan}, {91, setup.reverb}}) {
      events.push_back({0, 0, {static_cast<unsigned char>(0xB0 | ch), static_cast<unsigned char>(cc),
                               static_cast<unsigned char>(value)}});
    }
  }
  for (const auto& n : score.notes) {
    events.push_back({n.on, 2, {static_cast<unsigned char>(0x90 | n.channel), n.key, n.velocity}});
    events.push_back({n.off, 1, {static_cast<unsigned char>(0x80 | n.channel), n.key, 0}});
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return std::pair(a.tick, a.order) < std::pair(b.tick, b.order); });
  std::vector<unsigned char> track;
  std::int64_t at = 0;
  const auto delta = [&](std::int64_t ticks) {
    unsigned char buf[5];
    int n = 0;
    auto v = static_cast<std::uint32_t>(ticks);
    buf[n++] = v & 0x7F;
    while ((v >>= 7) != 0) buf[n++] = static_cast<unsigned char>(0x80 | (v & 0x7F));
    while (n > 0) track.push_back(buf[--n]);
  };
  for (const auto& e : events) {
    delta(e.tick - at);
    at = e.tick;
    track.insert(track.end(), e.bytes.begin(), e.bytes.end());
  }
  delta(score.total_ticks - at);
  track.insert(track.end(), {0xFF, 0x2F, 0x00});
  std::ofstream out(path, std::ios::binary);
  const auto u32 = [&](std::uint32_t v) { for (int s = 24; s >= 0; s -= 8) out.put(static_cast<char>(v >> s)); };
  out.write("MThd", 4);
  u32(6);
  out.put(0).put(0).put(0).put(1).put(static_cast<char>(music::kTicksPerBeat >> 8)).put(static_cast<char>(music::kTicksPerBeat & 0xFF));
  out.write("MTrk", 4);
  u32(static_cast<std::uint32_t>(track.size()));
  out.write(reinterpret_cast<const char*>(track.data()), static_cast<std::streamsize>(track.size()));
}

struct Run {
  double cpu = std::numeric_limits<double>::infinity();
  double wall = std::numeric_limits<double>::infinity();
  double audio_seconds = 0;
};

// fluidsynth renders the MIDI to a WAV (with the engine's synthesizer settings), lame encodes it.
Run raw_pipeline(const Options& o, const fs::path& midi, const fs::path& dir, int repeat) {
  Run best;
  const fs::path wav = dir / "raw.wav", mp3 = dir / "raw.mp3";
  const std::string command = "fluidsynth -ni -q -r 44100 -g 0.2 -o synth.chorus.active=0 -o synth.cpu-cores=1 -F '" +
                              wav.string() + "' '" + o.soundfont + "' '" + midi.string() +
                              "' >/dev/null 2>&1 && lame --quiet -b 128 -q 5 '" + wav.string() + "' '" + mp3.string() + "'";
  for (int i = 0; i < repeat; ++i) {
    const double c0 = cpu_seconds(RUSAGE_CHILDREN), w0 = now();
    if (std::system(command.c_str()) != 0) {
      std::fprintf(stderr, "music_bench: the raw pipeline failed: %s\n", command.c_str());
      return {};
    }
    best.wall = std::min(best.wall, now() - w0);
    best.cpu = std::min(best.cpu, cpu_seconds(RUSAGE_CHILDREN) - c0);
  }
  best.audio_seconds = static_cast<double>(fs::file_size(wav) - 44) / 4.0 / music::kSampleRate;
  return best;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--soundfont") o.soundfont = value();
    else if (arg == "--prompt") o.prompt = value();
    else if (arg == "--seconds") o.seconds = std::max(5, std::atoi(value().c_str()));
    else if (arg == "--repeat") o.repeat = std::max(1, std::atoi(value().c_str()));
    else if (arg == "--no-raw") o.raw = false;
    else {
      std::fprintf(stderr, "music_bench: unknown argument %s (use --soundfont F, --prompt P, --seconds N, --repeat N, --no-raw)\n", arg.c_str());
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::printf("music_bench: prompt \"%s\", %d s, soundfont %s, best of %d\n", o.prompt.c_str(), o.seconds,
              o.soundfont.c_str(), o.repeat);

  // (b) The first call loads the soundfont; later calls only set up a synthesizer.
  MusicEngine engine(o.soundfont);
  const long rss_start = rss_kib("VmRSS:");
  double w0 = now(), c0 = cpu_seconds(RUSAGE_SELF);
  if (auto first = engine.generate({o.prompt, 5'000, 1}); !first) {
    std::fprintf(stderr, "music_bench: %s\n", first.error().detail.c_str());
    return 1;
  }
  const double first_wall = now() - w0, first_cpu = cpu_seconds(RUSAGE_SELF) - c0;
  const long rss_loaded = rss_kib("VmRSS:");
  Run later;
  for (int i = 0; i < o.repeat; ++i) {
    w0 = now(), c0 = cpu_seconds(RUSAGE_SELF);
    (void)engine.generate({o.prompt, 5'000, static_cast<std::uint64_t>(2 + i)});
    later.wall = std::min(later.wall, now() - w0);
    later.cpu = std::min(later.cpu, cpu_seconds(RUSAGE_SELF) - c0);
  }
  music::SoundfontShare share(o.soundfont);
  (void)share.load();
  double setup = std::numeric_limits<double>::infinity();
  for (int i = 0; i < o.repeat; ++i) {
    w0 = now();
    auto synth = share.synth();
    setup = std::min(setup, now() - w0);
  }
  std::printf("(b) soundfont load, once per process\n");
  std::printf("    first generate() of 5 s:   %.3f s wall, %.3f s CPU (loads the soundfont)\n", first_wall, first_cpu);
  std::printf("    later generate() of 5 s:   %.3f s wall, %.3f s CPU\n", later.wall, later.cpu);
  std::printf("    per-call synthesizer set-up (sample-cache hit): %.1f ms\n", setup * 1000);
  std::printf("    RSS: %.1f MiB before, %.1f MiB after the load\n", rss_start / 1024.0, rss_loaded / 1024.0);

  // (a) A long piece: the engine against the raw pipeline on the same notes.
  const std::int64_t ms = static_cast<std::int64_t>(o.seconds) * 1000;
  Run eng;
  for (int i = 0; i < o.repeat; ++i) {
    w0 = now(), c0 = cpu_seconds(RUSAGE_SELF);
    auto piece = engine.generate({o.prompt, ms, 7});
    if (!piece) return 1;
    eng.wall = std::min(eng.wall, now() - w0);
    eng.cpu = std::min(eng.cpu, cpu_seconds(RUSAGE_SELF) - c0);
    eng.audio_seconds = static_cast<double>(piece->duration_ms) / 1000.0;
  }
  const double engine_per_s = eng.cpu / eng.audio_seconds;
  std::printf("(a) render + encode, %d s piece\n", o.seconds);
  std::printf("    engine:        %.3f s CPU, %.3f s wall for %.2f s: %.4f CPU s per audio s = %.1fx realtime\n", eng.cpu,
              eng.wall, eng.audio_seconds, engine_per_s, 1 / engine_per_s);
  if (o.raw) {
    const fs::path dir = fs::temp_directory_path() / ("music_bench." + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto arrangement = music::arrange(o.prompt);
    write_smf(music::compose(arrangement, music::pcm_frames_for(ms), 7), dir / "song.mid");
    write_smf(music::compose(arrangement, music::pcm_frames_for(2'000), 7), dir / "short.mid");
    const Run whole = raw_pipeline(o, dir / "song.mid", dir, o.repeat);
    const Run start = raw_pipeline(o, dir / "short.mid", dir, o.repeat);
    fs::remove_all(dir);
    if (whole.audio_seconds <= 0 || start.audio_seconds <= 0) return 1;
    const double raw_per_s = whole.cpu / whole.audio_seconds;
    const double marginal = (whole.cpu - start.cpu) / (whole.audio_seconds - start.audio_seconds);
    std::printf("    raw pipeline:  %.3f s CPU, %.3f s wall for %.2f s of WAV: %.4f CPU s per audio s = %.1fx realtime\n",
                whole.cpu, whole.wall, whole.audio_seconds, raw_per_s, 1 / raw_per_s);
    std::printf("    raw start-up:  %.3f s CPU, %.3f s wall for a 2-s MIDI (%.2f s of WAV)\n", start.cpu, start.wall,
                start.audio_seconds);
    std::printf("    raw marginal:  %.4f CPU s per audio s = %.1fx realtime\n", marginal, 1 / marginal);
    std::printf("    engine speed / raw speed: %.2fx (whole process), %.2fx (raw marginal); target >= 0.9x\n",
                raw_per_s / engine_per_s, marginal / engine_per_s);
  }
  std::printf("    peak RSS: %.1f MiB\n", rss_kib("VmHWM:") / 1024.0);
  return 0;
}
