// Voice features benchmark: CPU to describe a 60-second speech sample (espeak-ng speech at its
// own 22,050 Hz; the features read any rate from 16 kHz up alike), and wall time to rank a
// catalogue of N stored descriptions against one query.
// Usage: voice_bench [--catalogue N] [--repeat N]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "mediagen/engines/espeak_engine.hpp"
#include "mediagen/engines/voice_features.hpp"

namespace {

using namespace mediagen::engines;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Speech of at least `seconds`, the same sentences round after round.
SpeechPcm speech(double seconds) {
  EspeakEngine engine;
  const std::string sentence =
      "The harbour town woke slowly that morning, and a thin mist hung over the water while the first shops opened. ";
  std::string text;
  SpeechPcm pcm;
  while (true) {
    text += sentence;
    auto out = engine.synthesize_pcm({.text = text, .espeak_voice = "en-us"});
    if (!out) {
      std::fprintf(stderr, "voice_bench: espeak-ng failed: %s\n", out.error().detail.c_str());
      std::exit(2);
    }
    pcm = std::move(*out);
    if (static_cast<double>(pcm.samples.size()) >= seconds * pcm.sample_rate) break;
  }
  pcm.samples.resize(static_cast<std::size_t>(seconds * pcm.sample_rate));
  return pcm;
}

}  // namespace

int main(int argc, char** argv) {
  int catalogue = 10000, repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--catalogue") catalogue = std::atoi(argv[i + 1]);
    else if (flag == "--repeat") repeat = std::atoi(argv[i + 1]);
  }
  const SpeechPcm pcm = speech(60.0);
  double best_features = 1e9;
  VoiceFeatures query{};
  for (int r = 0; r < repeat; ++r) {
    const double t0 = cpu_seconds();
    auto f = voice_features(std::span<const std::int16_t>(pcm.samples), pcm.sample_rate);
    best_features = std::min(best_features, cpu_seconds() - t0);
    if (!f) return 2;
    query = *f;
  }
  // A catalogue of plausible descriptions around the query (the ranking cost does not depend
  // on the values).
  std::mt19937 rng(1);
  std::normal_distribution<float> spread(0.0f, 1.0f);
  std::vector<VoiceFeatures> stored(static_cast<std::size_t>(catalogue));
  for (auto& v : stored) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = query[i] + spread(rng);
  }
  double best_search = 1e9;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::pair<double, std::size_t>> ranked;
    ranked.reserve(stored.size());
    for (std::size_t i = 0; i < stored.size(); ++i) ranked.emplace_back(voice_distance(query, stored[i]), i);
    std::partial_sort(ranked.begin(), ranked.begin() + std::min<long>(50, static_cast<long>(ranked.size())),
                      ranked.end());
    best_search = std::min(best_search, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("voice features of 60 s of speech at %d Hz: %.1f ms CPU (best of %d)\n", pcm.sample_rate,
              best_features * 1e3, repeat);
  std::printf("search of one query over %d stored voices (top 50): %.2f ms wall (best of %d)\n", catalogue,
              best_search * 1e3, repeat);
  return 0;
}
