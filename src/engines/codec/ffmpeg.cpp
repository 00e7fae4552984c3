#include <mutex>

#include "mediagen/engines/codec.hpp"

extern "C" {
#include <libavutil/log.h>
#include <libavutil/mem.h>
}

namespace mediagen::engines::ffmpeg {

void IoFree::operator()(AVIOContext* io) const {
  av_freep(&io->buffer);  // FFmpeg may have replaced the buffer it was given
  avio_context_free(&io);
}

void quiet_and_bounded() {
  static std::once_flag once;
  std::call_once(once, [] {
    av_log_set_level(AV_LOG_QUIET);
    av_max_alloc(kMaxBlock);
  });
}

}  // namespace mediagen::engines::ffmpeg
