// The Batch page: a 1,000-puzzle file with two broken lines, progress, stats, preview, and the downloaded
// solutions checked line by line — with WebGPU on and off.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { serve } from "./fixtures/server.mjs";
import { PROJECTS, enginesSettled, launch, longTasks, watchLongTasks } from "./fixtures/browser.mjs";
import { kaggleRows } from "./fixtures/data.mjs";
import { assertSolved } from "./fixtures/solve-page.mjs";

const ROOT = join(import.meta.dirname, "..");
const server = await serve(join(ROOT, "dist"));
after(() => server.close());

// 998 kaggle puzzles as one-liners, with a short line at line 10 and clashing givens at line 500.
const kaggle = kaggleRows()
  .slice(0, 998)
  .map(([puzzle]) => puzzle);
const lines = [...kaggle];
lines.splice(9, 0, "12345");
lines.splice(499, 0, "11" + ".".repeat(79));
const dir = mkdtempSync(join(tmpdir(), "forkboard-batch-"));
const file = join(dir, "thousand.txt");
writeFileSync(file, lines.join("\n") + "\n");

for (const project of PROJECTS) {
  describe(project.name, () => {
    let browser;
    before(async () => {
      browser = await launch(project);
    });
    after(async () => browser?.close());

    test("a 1,000-puzzle file: progress, stats, invalid lines named, download checked", async () => {
      const context = await browser.newContext({ acceptDownloads: true });
      const page = await context.newPage();
      await page.goto(`${server.url}/batch`);
      await enginesSettled(page);
      await page.getByTestId("file").setInputFiles(file);
      await page.getByText("thousand.txt is loaded.").waitFor();
      // Long tasks (over 50 ms) on the page's thread while the batch runs: the page must stay responsive.
      await watchLongTasks(page);
      await page.getByTestId("run").click();
      await page.getByTestId("progress").waitFor();
      await page.getByTestId("report").waitFor({ timeout: 120_000 });
      const long = await longTasks(page);
      console.log(`[${project.name}] long tasks during the batch: ${JSON.stringify(long)}`);
      assert.deepEqual(long, [], "no main-thread task over 50 ms");
      assert.match(await page.getByTestId("progress-text").textContent(), /^1000 puzzles · 100% of the input/);
      assert.equal(await page.getByTestId("stat-puzzles").textContent(), "1000");
      assert.equal(await page.getByTestId("stat-solved").textContent(), "998");
      assert.equal(await page.getByTestId("stat-invalid").textContent(), "2");
      const invalid = await page.getByTestId("invalid-list").textContent();
      assert.match(invalid, /line 10: 5 cells is not a supported size/);
      assert.match(invalid, /line 500: contradictory givens: two 1s in row 1/);
      assert.match(await page.getByTestId("stat-engine").textContent(), project.webgpu ? /^GPU/ : /^CPU \(\d+ workers\)/);

      const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download").click()]);
      assert.equal(download.suggestedFilename(), "thousand.sol");
      const out = readFileSync(await download.path(), "utf8").trimEnd().split("\n");
      assert.equal(out.length, 1000, "one record per puzzle, in order");
      out.forEach((row, i) => {
        if (i === 9) assert.match(row, /^# line 10: /);
        else if (i === 499) assert.match(row, /^# line 500: contradictory givens/);
        else assertSolved([...row], 3, 3, lines[i]);
      });
      const artifacts = join(import.meta.dirname, "artifacts");
      mkdirSync(artifacts, { recursive: true });
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: join(artifacts, `${project.name}-batch-${scheme}.png`), fullPage: true });
      }
      await context.close();
    });
  });
}
