// The Solve page's learning tools in a real Chromium, WebGPU on and off: Hint, Step, Undo/Redo, the candidates
// view and pencil marks, the logical solution with its grade, and a shared puzzle opening with its grade.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

import { serve } from "./fixtures/server.mjs";
import { PROJECTS, launch } from "./fixtures/browser.mjs";
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
  });
}
