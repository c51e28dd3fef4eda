// The Queens page in a real Chromium, once with WebGPU on (SwiftShader) and once without (the CPU workers).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { serve } from "./fixtures/server.mjs";
import { PROJECTS, enginesSettled, launch } from "./fixtures/browser.mjs";

const DIST = join(import.meta.dirname, "..", "dist");
const ARTIFACTS = join(import.meta.dirname, "artifacts");
mkdirSync(ARTIFACTS, { recursive: true });

const server = await serve(DIST);
after(() => server.close());

for (const project of PROJECTS) {
  describe(project.name, () => {
    let browser;
    let context;
    let page;

    before(async () => {
      browser = await launch(project);
    });
    after(async () => browser?.close());

    const open = async (query = "") => {
      await context?.close();
      context = await browser.newContext();
      page = await context.newPage();
      page.on("pageerror", (e) => console.error(`[${project.name}] page error: ${e}`));
      await page.goto(`${server.url}/queens${query}`);
      await page.getByTestId("queens-n").waitFor();
      await enginesSettled(page);
    };

    // Counts N with the engine setting given, and returns what the page shows.
    const count = async (n, engine) => {
      await page.getByTestId("queens-n").fill(String(n));
      await page.getByTestId("queens-engine").selectOption(engine);
      await page.getByTestId("queens-count").click();
      await page.waitForFunction(
        (want) => document.querySelector('[data-testid="queens-result"]')?.textContent.includes(`N = ${want}:`),
        n,
        { timeout: 60_000 },
      );
      return {
        total: await page.getByTestId("queens-total").textContent(),
        unique: await page.getByTestId("queens-unique").textContent(),
        detail: await page.getByTestId("queens-detail").textContent(),
        check: await page.getByTestId("queens-check").textContent(),
      };
    };

    for (const [n, total, unique] of [
      [8, "92", "12"],
      [10, "724", "92"],
    ]) {
      test(`N=${n} counts ${total} solutions, ${unique} unique, on the engine asked for`, async () => {
        await open();
        const shown = await count(n, "gpu");
        assert.equal(shown.total, total);
        assert.equal(shown.unique, unique);
        assert.equal(shown.check, "Matches the published count.");
        // The first count on the GPU may wait for its kernel, compiling since the page opened, and says so.
        if (project.webgpu) assert.match(shown.detail, /· GPU \([^)]+\)( — after [\d.]+ s compiling its kernel, once)?$/);
        else assert.match(shown.detail, /· CPU \(\d+ workers\) — no WebGPU here/);

        // One solution is drawn: n queens, no two sharing a row, column or diagonal.
        const queens = await page.evaluate((size) => {
          const squares = [...document.querySelectorAll('[data-testid="queens-board"] .square')];
          return squares.flatMap((s, i) => (s.classList.contains("queen") ? [[Math.floor(i / size), i % size]] : []));
        }, n);
        assert.equal(queens.length, n);
        for (const [i, [r1, c1]] of queens.entries()) {
          for (const [r2, c2] of queens.slice(i + 1)) {
            assert.ok(r1 !== r2 && c1 !== c2 && Math.abs(r1 - r2) !== Math.abs(c1 - c2), `queens ${r1},${c1} and ${r2},${c2} attack`);
          }
        }
        await page.screenshot({ path: join(ARTIFACTS, `queens-${n}-${project.name}.png`), fullPage: true });
      });
    }

    test("the first count on the GPU says it waited for the kernel's compile, and times only itself", async () => {
      await open();
      const first = await count(11, project.webgpu ? "gpu" : "auto");
      assert.equal(first.total, "2680");
      if (!project.webgpu) {
        // No GPU, nothing compiled: the CPU's count says nothing of a kernel.
        assert.doesNotMatch(first.detail, /compiling/);
        return;
      }
      // SwiftShader compiles the kernel for seconds; the count itself takes a fraction of that.
      const waited = first.detail.match(/^([\d.]+) s · GPU \([^)]+\) — after ([\d.]+) s compiling its kernel, once$/);
      assert.ok(waited, first.detail);
      assert.ok(Number(waited[1]) < Number(waited[2]), `the count's own time, not the compile's: ${first.detail}`);
      // The next count finds the kernel ready and says nothing of it.
      const second = await count(10, "gpu");
      assert.equal(second.total, "724");
      assert.match(second.detail, /^[\d.]+ s · GPU \([^)]+\)$/);
    });

    test("the CPU workers count the same as the GPU, and the runs table keeps both", async () => {
      await open();
      const cpu = await count(9, "cpu");
      assert.equal(cpu.total, "352");
      assert.equal(cpu.unique, "46");
      assert.match(cpu.detail, /· CPU \(\d+ workers\)/);
      const rows = await page.getByTestId("queens-runs").locator("tbody tr").allTextContents();
      assert.equal(rows.length, 1);
      assert.match(rows[0], /^9352460\.\d{3}CPU/);
    });

    test("a share link opens on its N and counts a small board by itself", async () => {
      await open("?n=6");
      await page.waitForFunction(() => document.querySelector('[data-testid="queens-total"]')?.textContent === "4");
      assert.equal(await page.getByTestId("queens-unique").textContent(), "1");
      assert.match(await page.getByTestId("queens-link").inputValue(), /\/queens\?n=6$/);
    });

    test("a large N waits for the button and warns with its expected time", async () => {
      await open("?n=24");
      const estimate = page.getByTestId("queens-estimate");
      assert.match(await estimate.textContent(), /^N = 24: expected (about \d+ (min|h|days)|many years) on the /);
      assert.match(await estimate.getAttribute("class"), /warn/);
      assert.equal(await page.getByTestId("queens-result").count(), 0);
    });

    test("sizes outside 1..32 and non-numbers get a clear message, and nothing runs", async () => {
      await open();
      for (const [text, message] of [
        ["0", "N must be between 1 and 32, not 0"],
        ["33", "N must be between 1 and 32, not 33"],
        ["", "N must be a whole number between 1 and 32"],
      ]) {
        await page.getByTestId("queens-n").fill(text);
        assert.match(await page.getByTestId("queens-estimate").textContent(), new RegExp(message));
        await page.getByTestId("queens-count").click();
        assert.match(await page.getByTestId("queens-message").textContent(), new RegExp(message));
      }
      assert.equal(await page.getByTestId("queens-result").count(), 0);
      await open("?n=99");
      assert.match(await page.getByTestId("queens-message").textContent(), /cannot count: N must be between 1 and 32, not 99/);
    });

    test("Cancel stops a long count and the page stays usable", async () => {
      await open();
      await page.getByTestId("queens-n").fill("18");
      await page.getByTestId("queens-engine").selectOption("cpu");
      await page.getByTestId("queens-count").click();
      await page.getByTestId("queens-progress").waitFor();
      await page.getByTestId("queens-cancel").click();
      await page.waitForFunction(() => document.querySelector('[data-testid="queens-message"]').textContent.startsWith("Cancelled"), null, { timeout: 60_000 });
      const shown = await count(7, "cpu");
      assert.equal(shown.total, "40");
    });
  });
}
