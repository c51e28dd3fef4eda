// The page's Content-Security-Policy and script-bearing input, with WebGPU on and off: the policy is in force
// (an injected inline script does not run), the app itself never breaks it, and nothing from a link, a paste
// or a file is ever turned into markup.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";

import { serve } from "./fixtures/server.mjs";
import { PROJECTS, enginesSettled, launch } from "./fixtures/browser.mjs";

const DIST = join(import.meta.dirname, "..", "dist");
const server = await serve(DIST);
after(() => server.close());

const HOSTILE = [
  `<img src=x onerror="window.__pwned='img'">`,
  `<script>window.__pwned='script'</script>`,
  `"><svg onload="window.__pwned='svg'">`,
];

for (const project of PROJECTS) {
  describe(project.name, () => {
    let browser;
    let context;
    let page;
    let violations;
    let dialogs;

    before(async () => {
      browser = await launch(project);
    });
    after(async () => browser?.close());

    const fresh = async (path) => {
      await context?.close();
      context = await browser.newContext();
      page = await context.newPage();
      violations = [];
      dialogs = [];
      page.on("console", (m) => {
        if (/Content Security Policy|Refused to/.test(m.text())) violations.push(m.text());
      });
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        d.dismiss();
      });
      await page.goto(`${server.url}${path}`);
      await enginesSettled(page);
    };

    test("the policy is pinned and in force, and the app keeps to it on every page", async () => {
      await fresh("/");
      const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
      const directives = Object.fromEntries(policy.split(";").map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
      // Scripts: this origin, the one pinned loader, and wasm compilation; no inline code, no eval.
      assert.deepEqual(directives["script-src"].slice(0, 1), ["'self'"]);
      assert.match(directives["script-src"][1], /^'sha256-[A-Za-z0-9+/=]+'$/);
      assert.deepEqual(directives["script-src"].slice(2), ["'wasm-unsafe-eval'"]);
      assert.deepEqual(directives["default-src"], ["'self'"]);
      assert.deepEqual(directives["object-src"], ["'none'"]);
      // An inline script added now is refused.
      await page.evaluate(() => {
        const s = document.createElement("script");
        s.textContent = "window.__injected = true";
        document.body.append(s);
      });
      assert.equal(await page.evaluate(() => window.__injected), undefined);
      assert.ok(violations.length >= 1, "the refusal is reported");
      violations.length = 0;
      // The app's own work: a solve, a Queens count on the workers, the Compare page's samples.
      await page.getByTestId("example").click();
      await page.getByTestId("solve").click();
      await page.waitForFunction(() => document.querySelector('[data-testid="message"]').textContent.startsWith("Solved"));
      await page.goto(`${server.url}/queens?n=9`);
      await page.waitForFunction(() => document.querySelector('[data-testid="queens-total"]')?.textContent === "352");
      await page.goto(`${server.url}/compare?set=hard&sizes=1&queens=5..5`);
      await page.getByTestId("compare-run").click();
      await page.waitForFunction(() => document.querySelector('[data-testid="compare-message"]').textContent === "Done.", null, { timeout: 120_000 });
      assert.deepEqual(violations, []);
    });

    test("script-bearing links, pastes and files stay text", async () => {
      for (const bad of HOSTILE) {
        await fresh(`/?p=${encodeURIComponent(bad)}`);
        assert.match(await page.getByTestId("message").textContent(), /link/i);
        await page.goto(`${server.url}/queens?n=${encodeURIComponent(bad)}`);
        assert.match(await page.getByTestId("queens-message").textContent(), /whole number/);
        // Pasted on the Solve page, and as a batch file.
        await page.goto(`${server.url}/`);
        await page.evaluate((t) => {
          const data = new DataTransfer();
          data.setData("text", t);
          document.body.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true }));
        }, bad);
        await page.goto(`${server.url}/batch`);
        await page.getByTestId("batch-text").fill(`${bad}\n4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......`);
        await page.getByTestId("run").click();
        await page.getByTestId("report").waitFor({ timeout: 60_000 });
        assert.equal(await page.getByTestId("stat-solved").textContent(), "1");
        assert.match(await page.getByTestId("invalid-list").textContent(), /line 1/);
        assert.equal(await page.evaluate(() => window.__pwned), undefined, bad);
        assert.equal(await page.evaluate(() => document.querySelectorAll("main img, main script, [onerror], [onload]").length), 0, bad);
        assert.deepEqual(dialogs, []);
      }
    });
  });
}
