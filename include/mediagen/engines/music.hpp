#pragma once
// The music engine: a prompt (English or Russian) in, a piece of instrumental music out, as a
// 44.1 kHz joint-stereo MP3 at 128 kbit/s CBR (LAME -q 5): the usual rate for streamed music, at
// which General MIDI instruments lose nothing audible, ~0.94 MB a minute.
//
// The prompt chooses, through tables (src/engines/music_styles.cpp; words it does not know are
// ignored, and a prompt of unknown words plays the default style):
//   style      tempo  key  mode       instruments (chords / pad / bass / lead; drums)
//   default    100    C    major      piano / strings / finger bass / flute; pop kit
//   ambient    66     F    major      harp arpeggios / warm pad / - / music box; no drums
//              (ambient, sleep, lullaby, meditation, relax, dream; сон, колыбельная, медитация, релакс)
//   rock       128    E    major      distortion guitar / - / pick bass / overdriven guitar; rock kit
//              (rock, punk, metal, grunge; рок, панк, метал)
//   drum and bass 174 F    minor, 7ths warm pad / - / synth bass / electric piano; busy breakbeat
//              (dnb, drum and bass, jungle; днб, драм-н-бейс)
//   lofi hip hop 82   D    dorian     electric piano / - / finger bass / vibraphone; swung hip-hop kit
//              (lofi, hip hop, chillhop, rap, beats; лоуфай, хип-хоп, рэп)
//   orchestral 90     D    minor      string ostinato / choir / contrabass / French horn; toms and kick
//              (orchestral, epic, cinematic, film, trailer, soundtrack; оркестр, эпичная, кино)
//   electronic 124    A    minor      saw stabs / warm pad / synth bass / square lead; four on the floor
//              (electronic, edm, dance, house, techno, trance, club, disco; электроника, танцевальная)
//   jazz       120    Bb   major, 7ths piano comping / - / walking bass / alto sax; swung ride
//              (jazz, swing, bossa, blues, lounge; джаз, свинг, блюз)
//   waltz      138 3/4 G   major      strings / - / cello / violin; no drums (waltz, classical; вальс)
//   folk       100    G    major      steel guitar arpeggios / - / acoustic bass / flute; soft kit
//              (folk, acoustic, country, celtic; фолк, акустическая, кантри)
//   horror     60     C#   phrygian   tremolo strings / sweep pad / contrabass / celesta; no drums
//              (horror, scary, creepy, suspense, thriller; ужас, страшная, жуткая, тревожная)
//   playful    120    C    major      pizzicato / - / acoustic bass / marimba; pop kit
//              (kids, children, cartoon, game, funny; детская, мультик, игра)
// and modifiers on top: slow / медленная (tempo x0.75), fast / быстрая (x1.25, at most 176 bpm),
// calm, soft, gentle, quiet, chill / спокойная, тихая, нежная (sparser melody, sustained chords,
// softer or no drums), energetic, powerful, intense, upbeat / энергичная, мощная, бодрая (busier
// melody and drums), dark, sad / тёмная, грустная, мрачная (minor), happy, joyful, bright /
// весёлая, радостная, светлая (major), an instrument for the chords and the lead (piano, guitar,
// electric guitar, strings, violin, cello, flute, sax, trumpet, organ, synth, harp, bells, choir;
// пианино, гитара, скрипка, флейта, саксофон, труба, орган, арфа, колокольчики, хор) and
// "no drums" / "без ударных".
//
// The seed varies everything else: the progressions (from the style's set), voicings, comping,
// bass line, drum patterns and fills, and the melody; tempo, key, mode and instruments stay.
// Same prompt, duration and seed: the same MP3 bytes.
//
// Length: duration_ms (nullopt: 30 s; 0.5 s to 10 min accepted, other values are a technical
// failure) is what a decoder plays, within 13 ms. The piece fills it and fades out over its last
// 10 % (0.5 s to 3 s); nothing rings past the end.
//
// The soundfont is loaded on the first generate() (or preload()), once per engine, and shared by
// every later call on any thread; a missing or unreadable soundfont is a technical failure, and the
// next call tries again. See src/engines/music_synth.hpp for how renders share it.
#include <memory>
#include <string>
#include <string_view>

#include <boost/system/result.hpp>

#include "mediagen/engines/prompt.hpp"

namespace mediagen::engines {

// fluid-soundfont-gm's FluidR3 GM: it loads in ~0.2 s into ~160 MiB; the MuseScore General Lite
// SF3 takes ~3.2 s (its samples are Ogg Vorbis, decoded at load) and ~225 MiB.
inline constexpr std::string_view kDefaultSoundfont = "/usr/share/sounds/sf2/FluidR3_GM.sf2";

inline constexpr std::int64_t kMusicDefaultDurationMs = 30'000;
inline constexpr std::int64_t kMusicMinDurationMs = 500;
inline constexpr std::int64_t kMusicMaxDurationMs = 600'000;

class MusicEngine final : public PromptEngine {
 public:
  explicit MusicEngine(std::string soundfont_path = std::string(kDefaultSoundfont));
  ~MusicEngine() override;

  boost::system::result<Audio, EngineFailure> generate(const PromptRequest& request) override;

  // Loads the soundfont now instead of on the first generate(), e.g. when a worker starts.
  boost::system::result<void, EngineFailure> preload();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace mediagen::engines
