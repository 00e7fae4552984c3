#pragma once
// A voice_search chunk: the order's stored upload decoded (audio intake, 60 s cap), described,
// and the catalogue ranked against it. The result is a small JSON object stored beside the
// chunk ({"voices": [{voice_id, service, name, score}], "truncated", "analysed_seconds"}),
// which the stitch makes the order's result data.
//
// Failures are technical, with the reason the item shows: input_expired (the upload is gone:
// a retry after retention), source_file_unsupported / source_file_required (the file passed the
// request's content sniffing but does not decode), audio_without_voice (too little sound to
// describe), voice_index_empty (no catalogue voice described yet), storage_error.
#include "chunk_job.hpp"
#include "engine_request.hpp"
#include "mediagen/voices/voice_search.hpp"

namespace mediagen::workers::detail {

ChunkResult run_voice_search(const orders::ClaimedChunk& chunk, const EngineRequest& request,
                             const ChunkContext& context);

// The JSON of a result (exposed for tests).
std::string voice_search_result_json(const std::vector<voices::VoiceMatch>& voices, bool truncated, double seconds);

}  // namespace mediagen::workers::detail
