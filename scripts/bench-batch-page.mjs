// The Batch page end to end on the CPU workers: a file of one-per-line puzzles (the kaggle set repeated to COUNT)
// dropped on the page and solved, timed from Run to the report, in Chromium with WebGPU off. Several builds
// (folders made by scripts/build-web.sh) are timed in turn, round by round, so that they meet the same machine.
//
//   node scripts/bench-batch-page.mjs [COUNT] [ROUNDS] [DIST ...]      (default: 1000000 3 dist)
import { writeFileSync, readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "../e2e/fixtures/server.mjs";
import { enginesSettled, launch } from "../e2e/fixtures/browser.mjs";
import { kaggleRows } from "../e2e/fixtures/data.mjs";

const [count = "1000000", rounds = "3", ...dists] = process.argv.slice(2);
const builds = dists.length ? dists : [join(import.meta.dirname, "..", "dist")];
const kaggle = kaggleRows();
const file = join(mkdtempSync(join(tmpdir(), "forkboard-batch-")), "puzzles.txt");
const lines = [];
for (let i = 0; i < Number(count); i++) lines.push(kaggle[i % kaggle.length][0]);
writeFileSync(file, `${lines.join("\n")}\n`);

const browser = await launch({ name: "webgpu-off", webgpu: false });
try {
  for (let round = 1; round <= Number(rounds); round++) {
    for (const dist of builds) {
      const server = await serve(dist);
      const page = await browser.newPage();
      await page.goto(`${server.url}/batch`);
      await enginesSettled(page);
      await page.getByTestId("batch-engine").selectOption("cpu");
      await page.getByTestId("file").setInputFiles(file);
      await page.getByText("puzzles.txt is loaded.").waitFor({ timeout: 120_000 });
      const started = Date.now();
      await page.getByTestId("run").click();
      await page.getByTestId("report").waitFor({ timeout: 600_000 });
      const seconds = (Date.now() - started) / 1000;
      const solved = await page.getByTestId("stat-solved").textContent();
      if (solved !== count) throw new Error(`${dist}: ${solved} of ${count} solved`);
      console.log(`round ${round} | ${dist} | ${count} puzzles | ${seconds.toFixed(2)} s | ${Math.round(count / seconds)} puzzles/s`);
      await page.close();
      server.close();
    }
  }
} finally {
  await browser.close();
}
