// Wasm against native for the N-Queens CPU counter: counts N on the Queens page's CPU workers in Chromium and
// prints the page's time; compare with `forkboard queens N --engine cpu --threads W` (W = the workers shown).
//
//   node scripts/bench-queens-wasm.mjs [N]     (after scripts/build-web.sh)
import { join } from "node:path";
import { serve } from "../e2e/fixtures/server.mjs";
import { launch } from "../e2e/fixtures/browser.mjs";

const n = Number(process.argv[2] ?? 15);
const server = await serve(join(import.meta.dirname, "..", "dist"));
const browser = await launch({ name: "webgpu-off", webgpu: false });
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/queens`);
  await page.getByTestId("queens-n").waitFor();
  await page.getByTestId("queens-engine").selectOption("cpu");
  for (const size of [12, n, n]) {
    // The first, small count starts the workers, so the timed ones do not include wasm start-up.
    await page.getByTestId("queens-n").fill(String(size));
    await page.getByTestId("queens-count").click();
    await page.waitForFunction(
      (want) => document.querySelector('[data-testid="queens-result"]')?.textContent.includes(`N = ${want}:`) &&
        !document.querySelector('[data-testid="queens-count"]').disabled,
      size,
      { timeout: 600_000 },
    );
    console.log(`N=${size}: ${await page.getByTestId("queens-detail").textContent()}`);
  }
} finally {
  await browser.close();
  server.close();
}
