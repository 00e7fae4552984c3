// OpenAI's JavaScript SDK, unchanged, against mediagen: node speech.mjs '<json>' where json is
// {baseURL, apiKey, out, request}. Prints one JSON line: {ok, bytes, order_id} on success, or
// {ok: false, class, status, error, retry_after} as the SDK reports a refusal.
import { writeFile } from "node:fs/promises";
import OpenAI from "openai";

const args = JSON.parse(process.argv[2]);
const client = new OpenAI({ baseURL: args.baseURL, apiKey: args.apiKey, maxRetries: 0, timeout: 300_000 });

function errorClass(e) {
  for (const name of ["AuthenticationError", "PermissionDeniedError", "RateLimitError", "NotFoundError",
                      "BadRequestError", "InternalServerError", "APIError"]) {
    if (e instanceof OpenAI[name]) return name;
  }
  return e?.constructor?.name ?? "unknown";
}

try {
  const { data, response } = await client.audio.speech.create(args.request).withResponse();
  const audio = Buffer.from(await data.arrayBuffer());
  await writeFile(args.out, audio);
  console.log(JSON.stringify({ ok: true, bytes: audio.length, order_id: response.headers.get("x-order-id") }));
} catch (e) {
  console.log(JSON.stringify({
    ok: false,
    class: errorClass(e),
    status: e.status ?? null,
    error: e.error ?? null,
    retry_after: e.headers?.get?.("retry-after") ?? null,
  }));
}
