// Wasm against native for the 9×9 path of the CPU engine: one of the page's Web Workers (the built worker wasm,
// in Chromium) answers a request of every puzzle of a file, sent as the Batch page sends it (UTF-8 bytes in a
// transferred buffer); the native figure is the same request answered by the same function
// (`worker_protocol::serve`) in `examples/worker_native.rs`. A set under 50,000 puzzles is repeated to that many.
// Prints puzzles/s for each of ROUNDS rounds (after one untimed round that warms the worker up), then the same
// rounds with the transfer's time (an echo worker's) taken out. Buffers circulate as the page circulates them
// (`src/app/workers.rs`): a large request goes in a reply's buffer that the page has read, or in a fresh one
// with an eighth more room, and a read reply's buffer goes back to the worker with the next request.
//
//   node scripts/bench-sudoku-wasm.mjs FILE [LIMIT] [ROUNDS]     (after scripts/build-web.sh)
//   cargo run --release --example worker_native -- FILE [LIMIT] [ROUNDS]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { serve } from "../e2e/fixtures/server.mjs";
import { launch } from "../e2e/fixtures/browser.mjs";

const [file, limit = "1", rounds = "5"] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/bench-sudoku-wasm.mjs FILE [LIMIT] [ROUNDS]");
  process.exit(2);
}
// One 81-cell puzzle per line (a CSV's first column); `0` and `.` empty; headers and comments skipped.
// A small set is repeated to at least 50,000 puzzles, so that each round is long enough to time.
const lines = readFileSync(file, "utf8")
  .split("\n")
  .map((line) => line.split(",")[0].trim())
  .filter((line) => /^[0-9.]{81}$/.test(line))
  .map((line) => `3x3-${line.replaceAll("0", ".")}`);
const puzzles = Array.from({ length: Math.ceil(50_000 / lines.length) }, () => lines).flat();
const request = `${limit} 0\n${puzzles.join("\n")}`;

// How the page asks a worker (`src/app/workers.rs`), defined on each page before it is used: the request as
// UTF-8 bytes in a buffer handed to the worker (a reply buffer already read when one fits, else a fresh one with
// an eighth more room), the reply as bytes decoded here, its buffer kept to go back with the next request.
// `asker(worker, request)` gives `ask(id)`, which resolves to the reply's text and its length in bytes.
const ASKER = `globalThis.asker = (worker, request) => {
  const encoded = new TextEncoder().encode(request);
  const returned = [];
  return (id) =>
    new Promise((done) => {
      worker.onmessage = (event) => {
        const reply = event.data[1];
        const text = new TextDecoder().decode(reply);
        if (reply.buffer.byteLength <= 16 << 20 && returned.length < 32) returned.push(reply.buffer);
        done([text, reply.length]);
      };
      returned.sort((a, b) => a.byteLength - b.byteLength);
      const fit = returned.findIndex((b) => b.byteLength >= encoded.length);
      const buffer =
        fit >= 0 ? returned.splice(fit, 1)[0] : new ArrayBuffer(encoded.length + Math.floor(encoded.length / 8));
      const bytes = new Uint8Array(buffer, 0, encoded.length);
      bytes.set(encoded);
      const back = returned.splice(-2);
      worker.postMessage([id, bytes, back], [buffer, ...back]);
    });
};`;

const server = await serve(join(import.meta.dirname, "..", "dist"));
const browser = await launch({ name: "webgpu-off", webgpu: false });
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/about`);
  await page.evaluate(ASKER);
  const [rates, replyBytes] = await page.evaluate(
    async ({ request, n, rounds }) => {
      const worker = new Worker("/forkboard-worker_loader.js");
      await new Promise((ready) => worker.addEventListener("message", ready, { once: true }));
      // Both the request's making and the reply's decoding inside the timed span.
      const ask = globalThis.asker(worker, request);
      let replyBytes = 0;
      const out = [];
      await ask(0);
      for (let i = 1; i <= rounds; i++) {
        const start = performance.now();
        const [reply, bytes] = await ask(i);
        const seconds = (performance.now() - start) / 1000;
        replyBytes = bytes;
        if (reply.split("\n").filter((l) => l.startsWith("S ")).length !== n) throw new Error("a puzzle was not solved");
        out.push(Math.round(n / seconds));
      }
      worker.terminate();
      return [out, replyBytes];
    },
    { request, n: puzzles.length, rounds: Number(rounds) },
  );
  console.log(`wasm worker: ${file} limit=${limit} puzzles=${puzzles.length} puzzles/s=${rates.join(",")}`);
  // The same round trip with no solving: a worker (a blob, on a blank page outside the app's CSP) that takes the
  // same request bytes and hands back a reply of the same size. What is left is the wasm's own time.
  const blank = await browser.newPage();
  await blank.evaluate(ASKER);
  const transfer = await blank.evaluate(
    async ({ request, replyBytes, rounds }) => {
      // Like the worker, it keeps the buffers it is sent and answers in one that fits.
      const source = `const spares = [];
      onmessage = (e) => {
        spares.push(e.data[1].buffer, ...(e.data[2] || []));
        spares.sort((a, b) => a.byteLength - b.byteLength);
        const fit = spares.findIndex((b) => b.byteLength >= ${replyBytes});
        const buffer = fit >= 0 ? spares.splice(fit, 1)[0] : new ArrayBuffer(${replyBytes});
        spares.splice(0, Math.max(0, spares.length - 8));
        const reply = new Uint8Array(buffer, 0, ${replyBytes}).fill(49);
        postMessage([e.data[0], reply], [buffer]);
      };`;
      const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
      const ask = globalThis.asker(worker, request);
      await ask(0);
      const out = [];
      for (let i = 1; i <= rounds; i++) {
        const start = performance.now();
        await ask(i);
        out.push(performance.now() - start);
      }
      worker.terminate();
      return out.sort((a, b) => a - b)[Math.floor(out.length / 2)];
    },
    { request, replyBytes, rounds: Math.max(Number(rounds), 5) },
  );
  const inWasm = rates.map((rate) => Math.round(puzzles.length / (puzzles.length / rate - transfer / 1000)));
  console.log(
    `transfer alone: ${transfer.toFixed(1)} ms (request ${request.length} bytes, reply ${replyBytes}); ` +
      `wasm worker without it: puzzles/s=${inWasm.join(",")}`,
  );
} finally {
  await browser.close();
  server.close();
}
