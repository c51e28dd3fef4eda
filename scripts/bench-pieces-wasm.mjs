// Wasm against native for the Batch page's pieces: one of the page's CPU workers (the built worker wasm, in
// Chromium) answers PIECES requests of PER one-per-line 9×9 puzzles each (`sudoku::piece_protocol`: read,
// answered and both outputs written in the worker, the reply handed back as bytes), two ways: one after another
// with a fresh reply buffer each, and as the Batch page sends them (two waiting on the worker, each reply's
// buffer sent back for a later reply). The native figure is the same request answered by the same function
// (`piece_protocol::serve`) in `examples/piece_native.rs`.
//
//   node scripts/bench-pieces-wasm.mjs FILE [PER] [PIECES]     (after scripts/build-web.sh)
//   cargo run --release --example piece_native -- FILE [PER] [PIECES]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { serve } from "../e2e/fixtures/server.mjs";
import { launch } from "../e2e/fixtures/browser.mjs";

const [file, per = "1600", pieces = "300"] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/bench-pieces-wasm.mjs FILE [PER] [PIECES]");
  process.exit(2);
}
// The same selection as the native side: 81-character lines (a CSV's first column), repeated to PER.
const lines = readFileSync(file, "utf8")
  .split("\n")
  .map((line) => line.split(",")[0].trim())
  .filter((line) => line.length === 81);
const body = Array.from({ length: Number(per) }, (_, i) => `${lines[i % lines.length]}\n`).join("");
// First solution, no guess budget, one-per-line layout, no grades; the piece starts the file.
const request = `!piece 0 0 line 0\nline 0 -\n${body}`;

const server = await serve(join(import.meta.dirname, "..", "dist"));
const browser = await launch({ name: "webgpu-off", webgpu: false });
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/about`);
  const rates = await page.evaluate(
    async ({ request, per, pieces }) => {
      const worker = new Worker("/forkboard-worker_loader.js");
      await new Promise((ready) => worker.addEventListener("message", ready, { once: true }));
      const encoded = new TextEncoder().encode(request);
      // Runs `count` pieces with `inFlight` requests waiting on the worker at a time (the Batch page keeps two
      // per worker, so the worker never waits on the page). As the page does once a reply's parts are in a
      // Blob, each reply's buffer goes back with a later request (`app::Spares`) when `spares` is set.
      const run = (count, inFlight, spares) =>
        new Promise((done) => {
          let [sent, got, returned] = [0, 0, []];
          const send = () => {
            const bytes = encoded.slice();
            const give = returned.splice(0);
            worker.postMessage([sent++, bytes, give], [bytes.buffer, ...give]);
          };
          worker.onmessage = (event) => {
            if (spares) returned.push(event.data[1].buffer);
            if (++got === count) done();
            else if (sent < count) send();
          };
          for (let i = 0; i < Math.min(inFlight, count); i++) send();
        });
      const rates = {};
      for (const [name, inFlight, spares] of [
        ["one at a time, fresh buffers", 1, false],
        ["two in flight, buffers returned (as the Batch page)", 2, true],
      ]) {
        await run(20, inFlight, spares);
        const start = performance.now();
        await run(pieces, inFlight, spares);
        const seconds = (performance.now() - start) / 1000;
        rates[name] = { rate: Math.round((per * pieces) / seconds), ms: ((seconds * 1000) / pieces).toFixed(2) };
      }
      worker.terminate();
      return rates;
    },
    { request, per: Number(per), pieces: Number(pieces) },
  );
  for (const [name, { rate, ms }] of Object.entries(rates)) {
    console.log(`wasm pieces, ${name}: ${per} puzzles a piece, ${pieces} pieces, ${rate} puzzles/s, ${ms} ms a piece`);
  }
} finally {
  await browser.close();
  server.close();
}
