// ElevenLabs' JavaScript SDK, unchanged, against mediagen: node sdk.mjs '<json>' where json is
// {baseUrl, apiKey, call, args, out}. Runs one SDK call and prints one JSON line:
//   {ok: true, data, request_id, pieces: [{at, bytes}], bytes}  (audio calls write it to `out`)
//   {ok: false, class, status, body}                             (the SDK's error)
// `at` is when each piece arrived (ms since the epoch), so a test can tell what came first.
import { writeFile } from "node:fs/promises";
import { ElevenLabsClient, ElevenLabsError, ElevenLabs } from "@elevenlabs/elevenlabs-js";

const a = JSON.parse(process.argv[2]);
const client = new ElevenLabsClient({ apiKey: a.apiKey, baseUrl: a.baseUrl, maxRetries: 0, timeoutInSeconds: 300 });

async function audio(promise) {
  const { data, rawResponse } = await promise.withRawResponse();
  const pieces = [];
  const chunks = [];
  for await (const piece of data) {
    pieces.push({ at: Date.now(), bytes: piece.length });
    chunks.push(Buffer.from(piece));
  }
  const bytes = Buffer.concat(chunks);
  if (a.out) await writeFile(a.out, bytes);
  return { data: null, request_id: rawResponse.headers.get("request-id"), pieces, bytes: bytes.length };
}

async function json(promise) {
  const { data, rawResponse } = await promise.withRawResponse();
  return { data, request_id: rawResponse.headers.get("request-id") };
}

// streamWithTimestamps: each parsed piece, its audio appended to `out`.
async function timedStream(promise) {
  const { data, rawResponse } = await promise.withRawResponse();
  const pieces = [];
  const chunks = [];
  for await (const piece of data) {
    pieces.push({ at: Date.now(), bytes: piece.audioBase64.length, alignment: piece.alignment ?? null });
    chunks.push(Buffer.from(piece.audioBase64, "base64"));
  }
  const bytes = Buffer.concat(chunks);
  if (a.out) await writeFile(a.out, bytes);
  return { data: null, request_id: rawResponse.headers.get("request-id"), pieces, bytes: bytes.length };
}

async function run() {
  const t = client.textToSpeech;
  switch (a.call) {
    case "voices.getAll": return json(client.voices.getAll());
    case "voices.search": return json(client.voices.search(a.args));
    case "voices.get": return json(client.voices.get(a.args.voiceId));
    case "models.list": return json(client.models.list());
    case "user.subscription.get": return json(client.user.subscription.get());
    case "textToSpeech.convert": return audio(t.convert(a.args.voiceId, a.args.request));
    case "textToSpeech.stream": return audio(t.stream(a.args.voiceId, a.args.request));
    case "textToSpeech.convertWithTimestamps": {
      const r = await json(t.convertWithTimestamps(a.args.voiceId, a.args.request));
      if (a.out) await writeFile(a.out, Buffer.from(r.data.audioBase64, "base64"));
      return { request_id: r.request_id, data: { alignment: r.data.alignment, normalizedAlignment: r.data.normalizedAlignment } };
    }
    case "textToSpeech.streamWithTimestamps": return timedStream(t.streamWithTimestamps(a.args.voiceId, a.args.request));
    case "textToSoundEffects.convert": return audio(client.textToSoundEffects.convert(a.args.request));
    case "music.compose": return audio(client.music.compose(a.args.request));
    default: throw new Error(`unknown call ${a.call}`);
  }
}

try {
  console.log(JSON.stringify({ ok: true, ...(await run()) }));
} catch (e) {
  const cls = e instanceof ElevenLabs.UnprocessableEntityError ? "UnprocessableEntityError"
    : e instanceof ElevenLabsError ? "ElevenLabsError" : (e?.constructor?.name ?? "unknown");
  console.log(JSON.stringify({ ok: false, class: cls, status: e.statusCode ?? null, body: e.body ?? null,
                               message: String(e.message ?? e) }));
}
