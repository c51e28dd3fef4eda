// The learning tools in a real Chromium, WebGPU on and off: Hint, Step, Undo/Redo, the candidates view and
// pencil marks, colours, candidate texts and links with marks, the logical solution with its grade, a shared
// puzzle opening with its grade, Generate on the Solve and Batch pages, the grade column, and the page offline.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { serve } from "./fixtures/server.mjs";
import { PROJECTS, enginesSettled, launch } from "./fixtures/browser.mjs";
import { SolvePage } from "./fixtures/solve-page.mjs";
import { join } from "node:path";

const DIST = join(import.meta.dirname, "..", "dist");

// magictour top1465, line 8: graded Hard (its hardest step a hidden pair), 78 steps; `forkboard rate --explain`
// prints the same path.
const PUZZLE = "7.5.....2...4.1...3.........1.6..4..2...5...........9....37.....8....6...9.....8.";

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

    const fresh = async (query = "", paste = true) => {
      await context?.close();
      context = await browser.newContext();
      page = await context.newPage();
      page.on("pageerror", (e) => console.error(`[${project.name}] page error: ${e}`));
      solve = new SolvePage(page, server.url);
      await solve.open(query);
      if (paste) await solve.paste(PUZZLE);
    };
    const value = (i) => page.locator(`#cell-${i}`).inputValue();
    const label = (i) => page.locator(`#cell-${i}`).getAttribute("aria-label");

    test("Hint names the step and highlights it without changing the grid", async () => {
      await fresh();
      await page.getByTestId("hint").click();
      assert.equal(await solve.message(), "Hint — Hidden single: 1 can only go in r3c3 within box 1.");
      // r3c3 is cell 20: its grid cell is highlighted, and it is still empty.
      assert.match(await page.locator("#cell-20").getAttribute("class"), /hint-place/);
      assert.match(await page.getByRole("gridcell").nth(20).getAttribute("class"), /hint-basis/);
      assert.equal(await value(20), "");
    });

    test("Step carries out the steps, and Undo and Redo walk back and forth", async () => {
      await fresh();
      await page.getByTestId("step").click();
      assert.equal(await value(20), "1");
      await page.getByTestId("step").click();
      assert.equal(await value(59), "8");
      // The third step is a locked triple: its eliminations show in the candidates view it turns on.
      await page.getByTestId("step").click();
      assert.match(await solve.message(), /^Step — Locked triple: within box 1 and column 2/);
      assert.equal(await page.getByTestId("candidates").getAttribute("aria-pressed"), "true");
      assert.doesNotMatch(await label(9), /candidates .*6/, "r2c1 lost 6");
      await page.getByTestId("undo").click();
      assert.equal(await page.getByTestId("candidates").getAttribute("aria-pressed"), "false");
      await page.getByTestId("undo").click();
      assert.equal(await value(59), "");
      assert.equal(await value(20), "1");
      await page.getByTestId("redo").click();
      assert.equal(await value(59), "8");
      // Ctrl+Z from the grid works too.
      await page.locator("#cell-0").focus();
      await page.keyboard.press("Control+z");
      assert.equal(await value(59), "");
    });

    test("the candidates view shows the marks, and pencil mode edits them", async () => {
      await fresh();
      await page.getByTestId("candidates").click();
      // r1c2 (cell 1) sees 7, 5, 2 in its row, 3 in its box, 1, 8 and 9 in its column.
      assert.equal(await label(1), "row 1, column 2, candidates 4 6");
      assert.equal(await page.getByTestId("marks").count(), 81 - 18);
      // X switches typing to pencil marks: 6 toggles off, then on again; Z goes back to digits.
      await page.locator("#cell-1").focus();
      await page.keyboard.press("x");
      assert.equal(await page.getByTestId("pencil").getAttribute("aria-pressed"), "true");
      await page.keyboard.press("6");
      assert.equal(await label(1), "row 1, column 2, candidates 4");
      await page.keyboard.press("6");
      assert.equal(await label(1), "row 1, column 2, candidates 4 6");
      await page.keyboard.press("z");
      await page.keyboard.press("4");
      assert.equal(await value(1), "4");
      // A filled cell's digit leaves its peers' marks: r1c3 no longer offers 4.
      assert.doesNotMatch(await label(2), /candidates .*4/);
    });

    test("the logical solution lists every step with the grade, and replays any of them", async () => {
      await fresh();
      await page.getByTestId("path").click();
      // Worked out on a worker: wait for the page to say it is there.
      await page.waitForFunction(() => /^The logical solution from here/.test(document.querySelector('[data-testid="message"]').textContent));
      assert.equal(await page.getByTestId("grade").textContent(), "Grade: Hard (score 1132; hardest step: Hidden pair; 78 steps).");
      const steps = page.getByTestId("path-step");
      assert.equal(await steps.count(), 78);
      await steps.nth(2).click();
      assert.match(await solve.message(), /^Step 3 of 78 — Locked triple/);
      // The position before step 3: the two singles placed, r2c1's 6 still there and marked to go.
      assert.equal(await value(20), "1");
      assert.equal(await value(59), "8");
      const struck = page.getByRole("gridcell").nth(9).locator(".mark.struck");
      assert.equal(await struck.textContent(), "6");
    });

    test("a shared puzzle opens with its grade", async () => {
      await fresh(`?p=3x3-${PUZZLE}`, false);
      assert.match(await page.getByTestId("grade").textContent(), /^Grade: Hard \(score 1132;/);
    });

    // Strikes r1c5's 6 in pencil mode (its candidates were 3 6 8 9).
    const strikeSix = async () => {
      await page.getByTestId("candidates").click();
      await page.locator("#cell-4").focus();
      await page.keyboard.press("x");
      await page.keyboard.press("6");
      assert.equal(await label(4), "row 1, column 5, candidates 3 8 9");
    };

    test("candidate texts: SudokuWiki's, 729 characters and a pretty grid, out and back in with the marks", async () => {
      await fresh();
      await strikeSix();
      await page.getByTestId("export").locator("summary").click();
      const text = () => page.getByTestId("export-text").inputValue();
      const wiki = await text();
      assert.equal(wiki.length, 162);
      // r1c1 is the clue 7: bit 6 (64), shifted (128) plus the clue flag: 129 = "41"; r1c2 holds 4 and 6:
      // (8 + 32)·2 = 80 = "2g".
      assert.equal(wiki.slice(0, 4), "412g");
      await page.getByTestId("export-form").selectOption("cube");
      const cube = await text();
      assert.equal(cube.length, 729);
      assert.equal(cube.slice(36, 45), "..3....89");
      await page.getByTestId("export-form").selectOption("pretty");
      const pretty = await text();
      assert.match(pretty, /^\.-+\.-+\.-+\.\n\| 7 +46 +5 +\| 89 +389 /);
      for (const form of [wiki, cube, pretty]) {
        await page.getByTestId("clear").click();
        await solve.paste(form);
        assert.equal(await solve.message(), "Loaded a 9×9 position with its candidates.");
        assert.equal(await label(4), "row 1, column 5, candidates 3 8 9");
        assert.equal(await value(0), "7");
      }
      await solve.paste(cube.replace("..3....89", "..3...989"));
      assert.match(await solve.message(), /^That text is not a candidate grid: candidate string: cell r1c5 holds `9 at position 7`/);
    });

    test("a share link carries the pencil marks", async () => {
      await fresh();
      await strikeSix();
      await page.getByTestId("share").click();
      const link = await page.getByTestId("share-link").inputValue();
      assert.match(link, /\?p=3x3-[0-9.]{81}&m=[0-9a-v]{162}$/);
      await fresh(link.slice(server.url.length + 1), false);
      assert.equal(await label(4), "row 1, column 5, candidates 3 8 9");
      await fresh(`?p=3x3-${PUZZLE}&m=zz`, false);
      assert.match(await page.getByTestId("link-note").textContent(), /pencil marks are left out: the pencil marks hold 2 characters/);
      assert.equal(await value(0), "7");
    });

    test("V paints colours, Z goes back to digits, and Undo takes a colour back", async () => {
      await fresh();
      const cell = page.getByRole("gridcell").nth(1);
      await page.locator("#cell-1").focus();
      await page.keyboard.press("v");
      assert.equal(await page.getByTestId("colours").getAttribute("aria-pressed"), "true");
      await page.keyboard.press("3");
      assert.match(await cell.getAttribute("class"), /colour-3/);
      assert.equal(await label(1), "row 1, column 2, colour 3");
      assert.equal(await value(1), "");
      await page.keyboard.press("Control+z");
      assert.doesNotMatch(await cell.getAttribute("class"), /colour-/);
      await page.keyboard.press("z");
      await page.keyboard.press("4");
      assert.equal(await value(1), "4");
    });

    // Generate, then wait for the page to say how it went.
    const generate = async () => {
      await page.getByTestId("solve-generate").click();
      await page.waitForFunction(() => /^(A new|No )/.test(document.querySelector('[data-testid="message"]').textContent), null, { timeout: 60_000 });
    };

    test("Generate gives a unique puzzle of the asked size and grade", async () => {
      await fresh("", false);
      await page.getByTestId("solve-generate-grade").selectOption("Medium");
      await generate();
      assert.match(await solve.message(), /^A new Medium 9×9 puzzle with one solution/);
      assert.match(await page.getByTestId("grade").textContent(), /^Grade: Medium \(score \d+\)/);
      await solve.press("count");
      assert.equal(await solve.message(), "Solved: this puzzle has exactly one solution.");
      await solve.chooseSize("4x4");
      await generate();
      assert.match(await solve.message(), /^A new Medium 16×16 puzzle with one solution/);
      assert.equal(await page.getByTestId("cell").count(), 256);
      await solve.press("count");
      assert.equal(await solve.message(), "Solved: this puzzle has exactly one solution.");
    });

    test("the Batch page generates a batch, solves it, and grades it in the CSV", async () => {
      await context?.close();
      context = await browser.newContext({ acceptDownloads: true });
      page = await context.newPage();
      page.on("pageerror", (e) => console.error(`[${project.name}] page error: ${e}`));
      await page.goto(`${server.url}/batch`);
      await enginesSettled(page);
      await page.getByTestId("generate-batch").locator("summary").click();
      await page.getByTestId("generate-grade").selectOption("Easy");
      await page.getByTestId("generate-count").fill("40");
      await page.getByTestId("generate-count").dispatchEvent("change");
      await page.getByTestId("generate-run").click();
      await page.getByTestId("generate-csv").waitFor({ timeout: 60_000 });
      assert.match(await page.getByTestId("generate-message").textContent(), /^Made 40 9×9 Easy puzzles, each with one solution/);
      const lines = (await page.getByTestId("batch-text").inputValue()).trim().split("\n");
      assert.equal(lines.length, 40);
      await page.getByTestId("grade-mode").check();
      await page.getByTestId("count-mode").check();
      await page.getByTestId("run").click();
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download-csv").click()]);
      const rows = readFileSync(await download.path(), "utf8").trimEnd().split("\n");
      assert.equal(rows[0], "quizzes,solutions,status,grade,score");
      assert.equal(rows.length, 41);
      for (const row of rows.slice(1)) assert.match(row, /,"unique","Easy",\d+$/);
      const [printable] = await Promise.all([page.waitForEvent("download"), page.getByTestId("generate-print").click()]);
      const html = readFileSync(await printable.path(), "utf8");
      assert.equal(html.match(/<figure>/g).length, 80);
    });

    test("after one visit the page opens and solves offline", async () => {
      const own = await serve(DIST);
      await context?.close();
      context = await browser.newContext();
      page = await context.newPage();
      page.on("pageerror", (e) => console.error(`[${project.name}] page error: ${e}`));
      solve = new SolvePage(page, own.url);
      await solve.open();
      // The service worker has cached the build once it is ready.
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      own.close();
      await context.setOffline(true);
      await page.goto(`${own.url}/?p=3x3-${PUZZLE}`);
      await page.getByTestId("grid").waitFor();
      await page.waitForFunction(() => /Solved|unique|one solution/.test(document.querySelector('[data-testid="message"]').textContent), null, { timeout: 60_000 });
      assert.equal(await solve.message(), "Solved: this puzzle has exactly one solution.");
      assert.equal(await value(0), "7");
    });
  });
}
