// The Batch page: a 1,000-puzzle file with two broken lines, progress, stats, preview, and the downloaded
// solutions checked line by line — with WebGPU on and off. Then Cancel in the middle of a long file, on the CPU
// workers and on the GPU: what was answered before it is reported and downloadable, in order, and nothing after
// it. And block and CSV files of several pieces, answered by the workers, come back byte for byte as whole
// files.
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

// An 81-character puzzle (or solution) as the pretty grid Forkboard writes: boxes apart by ` | `, a rule between
// bands.
function prettyGrid(cells) {
  const rows = cells.match(/.{9}/g).map((r) => r.match(/.{3}/g).map((b) => b.split("").join(" ")).join(" | "));
  const rule = "------+-------+------";
  return [...rows.slice(0, 3), rule, ...rows.slice(3, 6), rule, ...rows.slice(6)].join("\n") + "\n";
}
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
      // Auto sends a job to the GPU from the crossover the Compare page saved, else from its built-in 3,000
      // puzzles: with WebGPU on, a crossover saved below this file's size takes Auto's GPU way.
      if (project.webgpu) await page.evaluate(() => localStorage.setItem("forkboard.crossover", "500"));
      await page.getByTestId("file").setInputFiles(file);
      await page.getByText("thousand.txt is loaded.").waitFor();
      // Long tasks (over 50 ms) on the page's thread while the batch runs: the page must stay responsive.
      await watchLongTasks(page);
      await page.getByTestId("run").click();
      await page.getByTestId("progress").waitFor();
      await page.getByTestId("report").waitFor({ timeout: 120_000 });
      const long = await longTasks(page);
      console.log(`[${project.name}] long tasks during the batch: ${JSON.stringify(long)}`);
      // The browser's 50 ms on the CPU workers. With WebGPU on, the "GPU" is SwiftShader, whose threads share the
      // 2-core VM with the page: a single task of 51-56 ms showed in 3 of 8 runs (2026-11-27; in 1 of 4 at the
      // commit before that session's changes too), and only in a fresh page's first batch, never in its later
      // ones; the page's own work is a few milliseconds a task. Held to 100 ms there, as load.test.mjs is.
      const bound = project.webgpu ? 100 : 50;
      assert.deepEqual(
        long.filter((ms) => ms > bound),
        [],
        `no main-thread task over ${bound} ms (${JSON.stringify(long)})`,
      );
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

// Cancel on each way: the CPU workers' pieces, and the GPU's slices whose results the workers check and write.
for (const [engine, project] of [
  ["cpu", PROJECTS.find((p) => !p.webgpu)],
  ["gpu", PROJECTS.find((p) => p.webgpu)],
]) {
  describe(`Cancel (${engine})`, () => {
    let browser;
    before(async () => {
      browser = await launch(project);
    });
    after(async () => browser?.close());

    test("cancelling a long file keeps every answer made before it, in order", { timeout: 300_000 }, async () => {
      // Long enough that Cancel lands in the middle on any machine (parts are answered while those before them
      // are written: both must come out right).
      const count = 600_000;
      const all = kaggleRows();
      const long = join(dir, "long.txt");
      const rows = [];
      for (let i = 0; i < count; i++) rows.push(all[i % all.length][0]);
      writeFileSync(long, rows.join("\n") + "\n");
      const context = await browser.newContext({ acceptDownloads: true });
      const page = await context.newPage();
      await page.goto(`${server.url}/batch`);
      await enginesSettled(page);
      await page.getByTestId("batch-engine").selectOption(engine);
      await page.getByTestId("file").setInputFiles(long);
      await page.getByText("long.txt is loaded.").waitFor({ timeout: 60_000 });
      await page.getByTestId("run").click();
      await page.waitForFunction(() => {
        const text = document.querySelector('[data-testid="progress-text"]')?.textContent ?? "";
        return Number(text.split(" ")[0]) > 0;
      });
      await page.getByTestId("cancel").click();
      await page.getByTestId("report").waitFor({ timeout: 120_000 });
      assert.match(await page.getByTestId("report").textContent(), /Cancelled: results so far/);
      const answered = Number(await page.getByTestId("stat-puzzles").textContent());
      assert.ok(answered > 0 && answered < count, `${answered} answered before Cancel`);
      assert.equal(await page.getByTestId("stat-solved").textContent(), String(answered));
      const expected = engine === "gpu" ? /^GPU \(.+\), checked and written on the CPU \(\d+ workers\)$/ : /^CPU \(\d+ workers\)$/;
      assert.match(await page.getByTestId("stat-engine").textContent(), expected);
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download").click()]);
      const out = readFileSync(await download.path(), "utf8").trimEnd().split("\n");
      assert.equal(out.length, answered, "the download holds what the report counts");
      out.forEach((row, i) => assert.equal(row, all[i % all.length][1], `line ${i + 1}`));
      await context.close();
    });
  });
}

describe("Layouts on the workers", () => {
  let browser;
  before(async () => {
    browser = await launch(PROJECTS.find((p) => !p.webgpu));
  });
  after(async () => browser?.close());

  // Files of several pieces (a piece is 128 KB), answered by the workers and put back together by the page:
  // each output opens as a whole file does (a CSV header, no blank line before the first block).
  const count = 3_000;
  const rows = kaggleRows().slice(0, count);
  const dotted = (puzzle) => puzzle.replaceAll("0", ".");
  const cases = [
    {
      name: "blocks.in",
      text: rows.map(([p]) => p.match(/.{9}/g).join("\n")).join("\n\n") + "\n",
      saved: "blocks.sol",
      expect: rows.map(([, s]) => s.match(/.{9}/g).join("\n") + "\n").join("\n"),
    },
    {
      name: "grids.in",
      text: rows.map(([p]) => prettyGrid(p)).join("\n"),
      saved: "grids.sol",
      expect: rows.map(([, s]) => prettyGrid(s)).join("\n"),
    },
    {
      name: "rows.csv",
      text: "quizzes,solutions\n" + rows.map(([p, s]) => `${p},${s}`).join("\n") + "\n",
      saved: "rows.solved.csv",
      expect: "quizzes,solutions,status\n" + rows.map(([p, s]) => `${dotted(p)},${s},"solved"\n`).join(""),
    },
  ];
  for (const { name, text, saved, expect } of cases) {
    test(`a ${name} file of ${count} puzzles comes back whole in its own layout`, async () => {
      const file = join(dir, name);
      writeFileSync(file, text);
      const context = await browser.newContext({ acceptDownloads: true });
      const page = await context.newPage();
      await page.goto(`${server.url}/batch`);
      await enginesSettled(page);
      await page.getByTestId("batch-engine").selectOption("cpu");
      await page.getByTestId("file").setInputFiles(file);
      await page.getByText(`${name} is loaded.`).waitFor();
      await page.getByTestId("run").click();
      await page.getByTestId("report").waitFor({ timeout: 120_000 });
      assert.equal(await page.getByTestId("stat-solved").textContent(), String(count));
      assert.match(await page.getByTestId("stat-engine").textContent(), /^CPU \(\d+ workers\)$/);
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download").click()]);
      assert.equal(download.suggestedFilename(), saved);
      assert.equal(readFileSync(await download.path(), "utf8"), expect);
      const [csv] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download-csv").click()]);
      const csvRows = readFileSync(await csv.path(), "utf8").trimEnd().split("\n");
      assert.equal(csvRows[0], "quizzes,solutions,status");
      assert.equal(csvRows.length, count + 1);
      assert.equal(csvRows[count], `${dotted(rows[count - 1][0])},${rows[count - 1][1]},"solved"`);
      await context.close();
    });
  }
});

describe("Plain 9×9 puzzles on the GPU", () => {
  let browser;
  before(async () => {
    browser = await launch(PROJECTS.find((p) => p.webgpu));
  });
  after(async () => browser?.close());

  // Runs the file `name` on each engine in turn (counting solutions when `counting`), checks the report with
  // `check(page)`, and returns each engine's two downloads, [solutions, CSV].
  async function downloadsOf(name, check, { counting = false } = {}) {
    const outputs = {};
    for (const engine of ["gpu", "cpu"]) {
      const context = await browser.newContext({ acceptDownloads: true });
      const page = await context.newPage();
      await page.goto(`${server.url}/batch`);
      await enginesSettled(page);
      await page.getByTestId("batch-engine").selectOption(engine);
      if (counting) await page.getByTestId("count-mode").check();
      await page.getByTestId("file").setInputFiles(join(dir, name));
      await page.getByText(`${name} is loaded.`).waitFor();
      await page.getByTestId("run").click();
      await page.getByTestId("report").waitFor({ timeout: 120_000 });
      const engineText = await page.getByTestId("stat-engine").textContent();
      assert.match(engineText, engine === "gpu" ? /^GPU/ : /^CPU \(\d+ workers\)/);
      await check(page);
      const [out] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download").click()]);
      const [csv] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download-csv").click()]);
      outputs[engine] = [readFileSync(await out.path(), "utf8"), readFileSync(await csv.path(), "utf8")];
      await context.close();
    }
    return outputs;
  }

  // The plain-input tests' 3,000 kaggle puzzles, with clashing givens at 700 and no solution at 1,500.
  function plainPuzzles() {
    const plain = kaggleRows()
      .slice(0, 3_000)
      .map(([puzzle]) => puzzle);
    plain[700] = "55" + ".".repeat(79);
    plain[1500] = "12345678." + "........9" + ".".repeat(63);
    return plain;
  }

  // The report's check for those puzzles: 2,998 solved, one invalid, and its clash named at `clashLine`.
  function reportsClashAt(clashLine) {
    return async (page) => {
      assert.equal(await page.getByTestId("stat-solved").textContent(), "2998");
      assert.equal(await page.getByTestId("stat-invalid").textContent(), "1");
      const listed = await page.getByTestId("invalid-list").textContent();
      assert.match(listed, new RegExp(`line ${clashLine}: contradictory givens`));
    };
  }

  // Pieces of nothing but 9×9 lines go to the GPU straight from the text, no record per puzzle: both
  // downloads must be what the workers make of the same file, byte for byte. 3,000 kaggle puzzles (three
  // slices), with clashing givens and a puzzle without a solution among them, all 81 cells long.
  test("a file of plain 9×9 lines on the GPU comes back as the workers answer it", async () => {
    const name = "plain.txt";
    writeFileSync(join(dir, name), plainPuzzles().join("\n") + "\n");
    const outputs = await downloadsOf(name, reportsClashAt(701));
    const [out, csv] = outputs.gpu;
    assert.equal(out, outputs.cpu[0], "the solutions file");
    assert.equal(csv, outputs.cpu[1], "the CSV");
    const rows = out.trimEnd().split("\n");
    assert.equal(rows.length, 3_000);
    assert.match(rows[1500], /^# line 1501: no solution/);
    assert.match(csv.split("\n")[0], /^quizzes,solutions,status$/);
  });

  // Counting takes the same way: the workers check the GPU's counts with its solutions. The same puzzles and an
  // empty grid (many solutions): both downloads must be the workers' own counts, byte for byte, but for the
  // empty grid's example solution, which each engine's search order picks (any valid one will do).
  test("plain 9×9 lines counted on the GPU come back as the workers count them", async () => {
    const name = "counted.txt";
    const puzzles = plainPuzzles();
    const open = 2000;
    puzzles[open] = ".".repeat(81);
    writeFileSync(join(dir, name), puzzles.join("\n") + "\n");
    const outputs = await downloadsOf(
      name,
      async (page) => {
        assert.equal(await page.getByTestId("stat-unique").textContent(), "2997");
        assert.equal(await page.getByTestId("stat-multiple").textContent(), "1");
        assert.equal(await page.getByTestId("stat-none").textContent(), "1");
        assert.match(await page.getByTestId("stat-engine").textContent(), /^(GPU \(.+\), checked and written on the CPU|CPU) \(\d+ workers\)$/);
      },
      { counting: true },
    );
    const [gpu, cpu] = [outputs.gpu, outputs.cpu].map(([out, csv]) => [out.split("\n"), csv.split("\n")]);
    for (const [k, what] of [[0, "the solutions file"], [1, "the CSV"]]) {
      assert.equal(gpu[k].length, cpu[k].length, what);
      // The CSV's header comes first.
      const at = open + k;
      assert.deepEqual(gpu[k].filter((_, i) => i !== at), cpu[k].filter((_, i) => i !== at), what);
    }
    const [solution, count] = gpu[0][open].split(" ");
    assert.equal(count, "2+");
    assertSolved([...solution], 3, 3, puzzles[open]);
    assert.equal(gpu[1][open + 1], `${puzzles[open]},${solution},${cpu[1][open + 1].split(",")[2]}`);
    assert.match(gpu[1][1], /,"unique"$/);
    assert.match(gpu[1][open + 1], /,"2\+ solutions \(only 0 of the 9 values are given/);
  });

  // Blocks of nine rows take the same way as lines: the same 3,000 puzzles, a blank line after each, and both
  // downloads must be what the workers (which read records) make of the file.
  test("a file of plain 9×9 blocks on the GPU comes back as the workers answer it", async () => {
    const name = "plain.blocks";
    const blocks = plainPuzzles().map((p) => p.match(/.{9}/g).join("\n") + "\n");
    writeFileSync(join(dir, name), blocks.join("\n"));
    const outputs = await downloadsOf(name, reportsClashAt(7001));
    const [out, csv] = outputs.gpu;
    assert.equal(out, outputs.cpu[0], "the solutions file");
    assert.equal(csv, outputs.cpu[1], "the CSV");
    assert.equal(out.split("\n\n").length, 3_000, "a block or a note per puzzle");
    assert.match(out, /\n# line 15001: no solution\n/);
    assert.equal(csv.trimEnd().split("\n").length, 3_001);
  });

  // Pretty grids as Forkboard writes them take the same way: the same 3,000 puzzles, a blank line after each.
  test("a file of plain 9×9 pretty grids on the GPU comes back as the workers answer it", async () => {
    const name = "plain.grids";
    writeFileSync(join(dir, name), plainPuzzles().map(prettyGrid).join("\n"));
    const outputs = await downloadsOf(name, reportsClashAt(8401));
    const [out, csv] = outputs.gpu;
    assert.equal(out, outputs.cpu[0], "the solutions file");
    assert.equal(csv, outputs.cpu[1], "the CSV");
    assert.equal(out.split("\n\n").length, 3_000, "a grid or a note per puzzle");
    assert.match(out, /\n# line 18001: no solution\n/);
    assert.match(out, /\n------\+-------\+------\n/);
    assert.equal(csv.trimEnd().split("\n").length, 3_001);
  });

  // A CSV goes to the GPU in pieces cut by bytes, sized by what its rows measure (173 bytes, not a line's 82),
  // its plain rows straight from the text as lines go: both downloads must be the workers', byte for byte.
  test("a CSV of puzzles and solutions on the GPU comes back as the workers answer it", async () => {
    const rows = kaggleRows().slice(0, 3_000);
    const name = "kaggle.csv";
    writeFileSync(join(dir, name), "quizzes,solutions\n" + rows.map(([p, s]) => `${p},${s}`).join("\n") + "\n");
    const outputs = await downloadsOf(name, async (page) => {
      assert.equal(await page.getByTestId("stat-solved").textContent(), "3000");
    });
    assert.equal(outputs.gpu[0], outputs.cpu[0], "the solutions file");
    assert.equal(outputs.gpu[1], outputs.cpu[1], "the CSV");
    assert.equal(outputs.gpu[0].trimEnd().split("\n").length, 3_001, "a header and a row per puzzle");
  });
});
