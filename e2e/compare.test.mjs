// The Compare page in a real Chromium, with WebGPU on (both engines) and off (the CPU alone): a small comparison
// whose chart, table and engine results must agree with each other and be right.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { serve } from "./fixtures/server.mjs";
import { PROJECTS, enginesSettled, launch } from "./fixtures/browser.mjs";
import { SolvePage } from "./fixtures/solve-page.mjs";

const DIST = join(import.meta.dirname, "..", "dist");
const ARTIFACTS = join(import.meta.dirname, "artifacts");
mkdirSync(ARTIFACTS, { recursive: true });

const server = await serve(DIST);
after(() => server.close());

const close = (a, b) => Math.abs(a - b) <= Math.max(1, Math.abs(b) * 0.005);

for (const project of PROJECTS) {
  describe(project.name, () => {
    let browser;
    let context;
    let page;

    before(async () => {
      browser = await launch(project);
    });
    after(async () => browser?.close());

    test("the engines line never contradicts the footer, and Run waits for detection", async () => {
      context = await browser.newContext();
      page = await context.newPage();
      await page.goto(`${server.url}/compare`);
      await page.getByTestId("compare-engines").waitFor();
      // Read together, at once: while the footer still looks for a GPU, the page says so too, and Run waits.
      const early = await page.evaluate(() => ({
        footer: document.querySelector('[data-testid="engine-status"]').textContent,
        line: document.querySelector('[data-testid="compare-engines"]').textContent,
        run: document.querySelector('[data-testid="compare-run"]').disabled,
      }));
      if (early.footer.includes("Looking")) {
        assert.match(early.line, /Looking for a GPU/);
        assert.ok(early.run, "Run waits while the GPU is looked for");
      }
      await enginesSettled(page);
      // The footer names the adapter by what the browser tells of it (wgpu's name for it is empty).
      const footer = await page.getByTestId("engine-status").textContent();
      if (project.webgpu) assert.match(footer, /^GPU: .*swiftshader.* \(WebGPU\)$/i);
      const line = await page.getByTestId("compare-engines").textContent();
      if (project.webgpu) assert.match(line, /both engines run/);
      else assert.match(line, /No WebGPU here: only the CPU is measured/);
      assert.ok(await page.getByTestId("compare-run").isEnabled());
      await context.close();
    });

    test("a small comparison: the chart, the table and the engines agree", async () => {
      context = await browser.newContext();
      page = await context.newPage();
      page.on("pageerror", (e) => console.error(`[${project.name}] page error: ${e}`));
      await page.goto(`${server.url}/compare?set=hard&sizes=1,10,100&queens=6..9`);
      await enginesSettled(page);
      // The link's settings are the page's settings.
      assert.equal(await page.getByTestId("compare-set").inputValue(), "hard");
      assert.ok(await page.getByTestId("compare-size-10").isChecked());
      assert.ok(!(await page.getByTestId("compare-size-1000").isChecked()));
      await page.getByTestId("compare-run").click();
      await page.waitForFunction(() => document.querySelector('[data-testid="compare-message"]').textContent === "Done.", null, { timeout: 180_000 });
      const engines = project.webgpu ? 2 : 1;

      // Sudoku: every puzzle solved, both engines the same answers; the chart's points are the table's rates.
      const sudoku = await page.getByTestId("compare-sudoku-table").locator("tbody tr").evaluateAll((rows) =>
        rows.map((r) => [...r.children].map((c) => ({ text: c.textContent, rate: c.dataset.rate }))),
      );
      assert.deepEqual(sudoku.map((r) => r[0].text), ["1", "10", "100"]);
      for (const row of sudoku) {
        assert.equal(row[6].text, row[0].text, "every puzzle solved");
        assert.equal(row[7].text, project.webgpu ? "yes" : "—", "answers compared only when both engines ran");
      }
      const points = await page.getByTestId("sudoku-chart").locator("circle").evaluateAll((cs) =>
        cs.map((c) => ({ series: c.dataset.series, x: Number(c.dataset.x), y: Number(c.dataset.y) })),
      );
      assert.equal(points.length, 3 * engines);
      for (const [i, row] of sudoku.entries()) {
        const cpu = points.filter((p) => p.series.startsWith("CPU"))[i];
        assert.equal(cpu.x, Number(row[0].text));
        assert.ok(close(cpu.y, Number(row[2].rate)), `CPU point ${cpu.y} vs table ${row[2].rate}`);
        if (project.webgpu) {
          const gpu = points.filter((p) => p.series === "GPU")[i];
          assert.ok(close(gpu.y, Number(row[4].rate)), `GPU point ${gpu.y} vs table ${row[4].rate}`);
        } else {
          assert.equal(row[3].text, "—");
        }
      }

      // Queens: the published counts, checked on both engines; one point per engine and N.
      const queens = await page.getByTestId("compare-queens-table").locator("tbody tr").evaluateAll((rows) =>
        rows.map((r) => [...r.children].map((c) => c.textContent)),
      );
      assert.deepEqual(queens.map((r) => r.slice(0, 3)), [["6", "4", "1"], ["7", "40", "6"], ["8", "92", "12"], ["9", "352", "46"]]);
      assert.ok(queens.every((r) => r[5] === "yes"));
      assert.equal(await page.getByTestId("queens-chart").locator("circle").count(), 4 * engines);

      // Exports: the CSV holds every row; the link reopens the same settings.
      const csv = await page.evaluate(async () => (await fetch(document.querySelector('[data-testid="compare-csv"]').href)).text());
      const lines = csv.trim().split("\n");
      assert.equal(lines[0], "kind,size,cpu_seconds,gpu_seconds,check");
      assert.equal(lines.length, 1 + 3 + 4);
      assert.ok(lines.slice(1).every((l) => l.endsWith(",agree")));
      assert.match(await page.getByTestId("compare-link").inputValue(), /\/compare\?set=hard&sizes=1,10,100&queens=6\.\.9$/);
      await page.screenshot({ path: join(ARTIFACTS, `compare-${project.name}.png`), fullPage: true });

      // With the GPU measured, Auto on the Solve page follows the measured crossover.
      if (project.webgpu) {
        const saved = Number(await page.evaluate(() => localStorage.getItem("forkboard.crossover")));
        assert.ok(saved > 0, `a crossover was saved (${saved})`);
        const solve = new SolvePage(page, server.url);
        await solve.open();
        await solve.paste("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......");
        await solve.press("solve");
        const detail = await solve.detail();
        if (saved > 1) assert.match(detail, new RegExp(`auto: below ${Math.ceil(saved)} puzzles the CPU is faster on this machine \\(measured\\)`));
        else assert.match(detail, /^GPU/);
      }
      await context.close();
    });
  });
}
