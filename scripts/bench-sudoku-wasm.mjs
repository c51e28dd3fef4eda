// Wasm against native for the 9×9 path of the CPU engine: one of the page's Web Workers (the built worker wasm,
// in Chromium) answers a request of every puzzle of a file, as the Batch page sends them; the native figure is
// the same request answered by the same function (`worker_protocol::serve`) in `examples/worker_native.rs`.
// A set under 50,000 puzzles is repeated to that many. Prints puzzles/s for each of ROUNDS rounds (after one
// untimed round that warms the worker up).
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

const server = await serve(join(import.meta.dirname, "..", "dist"));
const browser = await launch({ name: "webgpu-off", webgpu: false });
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/about`);
  const rates = await page.evaluate(
    async ({ request, n, rounds }) => {
      const worker = new Worker("/forkboard-worker_loader.js");
      await new Promise((ready) => worker.addEventListener("message", ready, { once: true }));
      const ask = (id) =>
        new Promise((done) => {
          worker.onmessage = (event) => done(event.data[1]);
          worker.postMessage([id, request]);
        });
      const out = [];
      await ask(0);
      for (let i = 1; i <= rounds; i++) {
        const start = performance.now();
        const reply = await ask(i);
        const seconds = (performance.now() - start) / 1000;
        if (reply.split("\n").filter((l) => l.startsWith("S ")).length !== n) throw new Error("a puzzle was not solved");
        out.push(Math.round(n / seconds));
      }
      worker.terminate();
      return out;
    },
    { request, n: puzzles.length, rounds: Number(rounds) },
  );
  console.log(`wasm worker: ${file} limit=${limit} puzzles=${puzzles.length} puzzles/s=${rates.join(",")}`);
} finally {
  await browser.close();
  server.close();
}
