// The Solve page in a real Chromium, once with WebGPU on (SwiftShader) and once without (the CPU fallback).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { serve } from "./fixtures/server.mjs";
import { PROJECTS, launch } from "./fixtures/browser.mjs";
import { SolvePage, assertSolved } from "./fixtures/solve-page.mjs";

const DIST = join(import.meta.dirname, "..", "dist");
const ARTIFACTS = join(import.meta.dirname, "artifacts");
mkdirSync(ARTIFACTS, { recursive: true });

const HARD9 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
const HARD9_SOLUTION = "417369825632158947958724316825437169791586432346912758289643571573291684164875293";
const FOUR = ".2..3.122..3...1";
const SIXTEEN =
  ".23456.89..CD...5.7.DEFG.23..A.C9A..12.4..F.56.....G..B.5678123.241.8...E..6.F.7.B...4...D5.839A...9E.2F8.A16....5A.37C.FG49B12E..8.65...4G...E.C74.B.E.398A2..6EG9.4..26.1.3.8.6F..A8G3.C2E..1...6..3.BA7E..DG.A3..7.8.C.6.E..2B.E.2D4A.F93.861G.27..6E4.D.C5..";
// Two solutions: the 8s and 9s of two cells can swap (a serg puzzle).
const TWO = "8.........95.......76.........426798...571243...893165......916....3.487....1.532";
const CLASH = "55...............................................................................";

const server = await serve(DIST);
after(() => server.close());

for (const project of PROJECTS) {
  describe(project.name, () => {
    let browser;
    let context;
    let page;
    let solve;

    before(async () => {
      browser = await launch(project);
    });
    after(async () => browser?.close());

    const fresh = async (query = "") => {
      await context?.close();
      context = await browser.newContext();
      page = await context.newPage();
      page.on("pageerror", (e) => console.error(`[${project.name}] page error: ${e}`));
      solve = new SolvePage(page, server.url);
      await solve.open(query);
    };

    test("the engine shown matches the browser", async () => {
      await fresh();
      const status = await solve.engineStatus();
      if (project.webgpu) assert.match(status, /^GPU: /);
      else assert.match(status, /^CPU — no WebGPU here/);
    });

    test("the grid is a grid of rows and cells to a screen reader", async () => {
      await fresh();
      await solve.chooseSize("2x3");
      const grid = page.getByRole("grid", { name: "6 by 6 Sudoku" });
      const rows = grid.getByRole("row");
      assert.equal(await rows.count(), 6);
      for (let r = 0; r < 6; r++) {
        assert.equal(await rows.nth(r).getByRole("gridcell").count(), 6);
      }
      // Each cell holds its labelled input, in reading order.
      const third = rows.nth(1).getByRole("gridcell").nth(2).getByRole("textbox");
      assert.equal(await third.getAttribute("aria-label"), "row 2, column 3");
      // The rows keep the layout: cells of one row side by side, rows one under another.
      const a = await page.locator("#cell-0").boundingBox();
      const b = await page.locator("#cell-1").boundingBox();
      const c = await page.locator("#cell-6").boundingBox();
      assert.ok(Math.abs(a.y - b.y) < 1 && b.x > a.x, "a row runs left to right");
      assert.ok(Math.abs(a.x - c.x) < 1 && c.y > a.y, "the next row is below");
    });

    test("a typed 4×4 solves validly, on the GPU when one is asked for", async () => {
      await fresh();
      await solve.chooseSize("2x2");
      await solve.typeCells(FOUR);
      await page.getByTestId("engine").selectOption("gpu");
      await solve.press("solve");
      assert.match(await solve.message(), /^Solved/);
      assertSolved(await solve.cells(), 2, 2, FOUR);
      if (project.webgpu) assert.match(await solve.detail(), /^GPU \(.+\)/);
      else assert.match(await solve.detail(), /^CPU \(\d+ workers\) — no WebGPU here/);
    });

    test("auto solves one puzzle on the CPU and says why", async () => {
      await fresh();
      await solve.paste(FOUR);
      await solve.press("solve");
      assertSolved(await solve.cells(), 2, 2, FOUR);
      // One puzzle still goes to a worker: the page's own thread never searches.
      if (project.webgpu) assert.match(await solve.detail(), /^CPU \(\d+ workers\) — auto: a job this small is faster on the CPU/);
      else assert.match(await solve.detail(), /^CPU \(\d+ workers\) — no WebGPU here/);
    });

    test("a hard 9×9 alone on the GPU is solved and counted there (the squads kernel)", async () => {
      await fresh();
      await page.getByTestId("engine").selectOption("gpu");
      await solve.paste(HARD9);
      await solve.press("solve");
      assert.match(await solve.message(), /^Solved/);
      assert.equal((await solve.cells()).join(""), HARD9_SOLUTION);
      if (project.webgpu) assert.match(await solve.detail(), /^GPU \(.+\)/);
      else assert.match(await solve.detail(), /^CPU \(\d+ workers\) — no WebGPU here/);
      await page.getByTestId("clear").click();
      await solve.paste(TWO);
      await solve.press("count");
      assert.match(await solve.message(), /more than one solution/);
      if (project.webgpu) assert.match(await solve.detail(), /^GPU \(.+\)/);
    });

    test("a pasted 9×9 has exactly one solution", async () => {
      await fresh();
      await solve.paste(HARD9);
      await solve.press("count");
      assert.match(await solve.message(), /exactly one solution/);
      const cells = await solve.cells();
      assertSolved(cells, 3, 3, HARD9);
      assert.equal(cells.join(""), HARD9_SOLUTION);
    });

    for (const [size, shape, rows, cols, puzzle] of [
      [4, "2x2", 2, 2, FOUR],
      [9, "3x3", 3, 3, HARD9],
      [16, "4x4", 4, 4, SIXTEEN],
    ]) {
      test(`a typed ${size}×${size} and a pasted one solve validly`, async () => {
        await fresh();
        await solve.chooseSize(shape);
        await solve.typeCells(puzzle);
        await solve.press("solve");
        assert.match(await solve.message(), /^Solved/);
        assertSolved(await solve.cells(), rows, cols, puzzle);
        await page.getByTestId("clear").click();
        await solve.paste(puzzle);
        await solve.press("solve");
        assert.match(await solve.message(), /^Solved/);
        assertSolved(await solve.cells(), rows, cols, puzzle);
      });
    }

    test("a 9×9 with two solutions says so", async () => {
      await fresh();
      await solve.paste(TWO);
      await solve.press("count");
      assert.match(await solve.message(), /more than one solution/);
      assertSolved(await solve.cells(), 3, 3, TWO);
    });

    test("contradictory givens are named and highlighted", async () => {
      await fresh();
      await solve.paste(CLASH);
      await solve.press("solve");
      assert.match(await solve.message(), /cannot be solved as given: contradictory givens: two 5s in row 1/);
      assert.ok((await solve.conflictCount()) >= 2);
    });

    test("a share link opens the solved puzzle in a fresh context", async () => {
      await fresh();
      await solve.paste(HARD9);
      await page.getByTestId("share").click();
      const link = await page.getByTestId("share-link").inputValue();
      assert.ok(link.length < 200, `short link: ${link.length} characters`);
      await fresh(link.slice(server.url.length + 1));
      await page.waitForFunction(() => /exactly one solution/.test(document.querySelector('[data-testid="message"]').textContent), null, { timeout: 60_000 });
      assert.equal((await solve.cells()).join(""), HARD9_SOLUTION);
    });

    test("a garbage link shows a message and an empty grid", async () => {
      await fresh("?p=%3Cscript%3Ealert(1)%3C%2Fscript%3E");
      assert.match(await solve.message(), /This link is broken/);
      assert.ok((await solve.cells()).every((v) => v === ""));
      assert.equal(await page.locator("script:not([src])").filter({ hasText: "alert" }).count(), 0);
    });

    test("a reload keeps the grid and the engine setting", async () => {
      await fresh();
      await solve.paste(HARD9);
      await page.getByTestId("engine").selectOption("cpu");
      await page.reload();
      await page.getByTestId("grid").waitFor();
      const cells = await solve.cells();
      assert.equal(cells.map((v) => v || ".").join(""), HARD9);
      assert.equal(await page.getByTestId("engine").inputValue(), "cpu");
    });

    test("no request leaves the page's own origin", async () => {
      await context?.close();
      context = await browser.newContext();
      page = await context.newPage();
      const foreign = [];
      page.on("request", (r) => {
        if (!r.url().startsWith(server.url) && !r.url().startsWith("data:") && !r.url().startsWith("blob:")) foreign.push(r.url());
      });
      solve = new SolvePage(page, server.url);
      await solve.open();
      await solve.paste(HARD9);
      await solve.press("solve");
      await page.getByTestId("share").click();
      await page.goto(`${server.url}/about`);
      await page.getByRole("heading", { name: "About Forkboard" }).waitFor();
      assert.deepEqual(foreign, []);
    });

    test("screenshots of each page in both themes", async () => {
      for (const scheme of ["light", "dark"]) {
        await context?.close();
        context = await browser.newContext({ colorScheme: scheme, viewport: { width: 900, height: 1000 } });
        page = await context.newPage();
        solve = new SolvePage(page, server.url);
        await solve.open();
        await solve.paste(HARD9);
        await solve.press("solve");
        await page.screenshot({ path: join(ARTIFACTS, `${project.name}-solve-${scheme}.png`), fullPage: true });
        await page.goto(`${server.url}/about`);
        await page.getByRole("heading", { name: "About Forkboard" }).waitFor();
        await page.screenshot({ path: join(ARTIFACTS, `${project.name}-about-${scheme}.png`), fullPage: true });
        await page.goto(`${server.url}/queens?n=8`);
        await page.getByTestId("queens-board").waitFor();
        await page.screenshot({ path: join(ARTIFACTS, `${project.name}-queens-${scheme}.png`), fullPage: true });
      }
      // A phone.
      await context?.close();
      context = await browser.newContext({ viewport: { width: 375, height: 740 }, hasTouch: true, isMobile: true });
      page = await context.newPage();
      solve = new SolvePage(page, server.url);
      await solve.open();
      await solve.paste(HARD9);
      await page.screenshot({ path: join(ARTIFACTS, `${project.name}-solve-phone.png`), fullPage: true });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 375, `no sideways scrolling on a phone (page is ${width}px wide)`);
      await page.goto(`${server.url}/queens?n=12`);
      await page.getByTestId("queens-board").waitFor({ timeout: 30_000 });
      await page.screenshot({ path: join(ARTIFACTS, `${project.name}-queens-phone.png`), fullPage: true });
      const queensWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(queensWidth <= 375, `no sideways scrolling on the Queens page (${queensWidth}px wide)`);
    });
  });
}
