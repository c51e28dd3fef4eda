#!/usr/bin/env python3
"""The web app on a real GPU: the Compare page and the Batch page in headless Chromium, WebGPU on.

For a machine with a GPU but no Node (the lent GPU machines): Chromium is driven through its DevTools protocol
over a websocket (aiohttp), and the built app (dist/) is served from a thread of this script. Prints the
adapter Chromium's WebGPU found, each Compare page run's tables as the page shows them, the crossover the page
saved for Auto, and the Batch page's time from Run to its report for each engine.

    python3 scripts/bench_browser_gpu.py --chromium PATH --dist dist [--compare SET:SIZES:QUEENS ...]
        [--batch FILE ...] [--batch-engines gpu,cpu] [--batch-count] [--queens 16,17] [--queens-engines gpu,cpu]
        [--software] [--diagnose]

--compare takes the Compare page's own query values (`hardest:1,10,100,1000:8..14`). --batch drops FILE on the
Batch page and solves it once on each engine of --batch-engines (counting solutions with --batch-count);
--queens counts each N on the Queens page. --software asks for SwiftShader's WebGPU (the
development machine) instead of the GPU's Vulkan driver; --diagnose prints chrome://gpu (Dawn's adapters).
On the lent GPU machines Chromium needs its libraries, a font and NVIDIA's Vulkan driver named
(VK_ICD_FILENAMES); docs/benchmarks.md, "The web app on a real GPU", says how it was carried there.
"""

import argparse
import asyncio
import functools
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import aiohttp


class AppFiles(SimpleHTTPRequestHandler):
    """dist/ as the app wants it served: paths without an extension get index.html (a single-page app)."""

    extensions_map = {
        ".html": "text/html; charset=utf-8",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".css": "text/css",
        ".svg": "image/svg+xml",
        ".png": "image/png",
        ".webmanifest": "application/manifest+json",
        "": "application/octet-stream",
    }

    def translate_path(self, path):
        if not os.path.splitext(urlsplit(path).path)[1]:
            path = "/index.html"
        return super().translate_path(path)

    def log_message(self, *args):
        pass


def serve(root):
    """Serves `root` on a free loopback port; returns its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(AppFiles, directory=root))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


class Page:
    """One page target over the DevTools protocol: calls wait for their reply; console lines are printed."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.waiting = {}
        self.reader = asyncio.create_task(self.read())

    async def read(self):
        try:
            await self.read_all()
        finally:
            # Chromium went away: every call still waiting fails instead of hanging.
            for future in self.waiting.values():
                if not future.done():
                    future.set_exception(ConnectionError("Chromium closed the DevTools connection"))

    async def read_all(self):
        async for message in self.ws:
            data = json.loads(message.data)
            if "id" in data:
                future = self.waiting.pop(data["id"], None)
                if future and not future.done():
                    future.set_result(data)
            elif data.get("method") == "Runtime.consoleAPICalled":
                args = data["params"]["args"]
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in args)
                print(f"  [console.{data['params']['type']}] {text[:400]}", flush=True)
            elif data.get("method") == "Log.entryAdded":
                entry = data["params"]["entry"]
                print(f"  [browser {entry['level']}] {entry['text'][:400]}", flush=True)
            elif data.get("method") == "Runtime.exceptionThrown":
                details = data["params"]["exceptionDetails"]
                text = details.get("exception", {}).get("description", details.get("text"))
                print(f"  [page error] {str(text)[:400]}", flush=True)

    async def call(self, method, **params):
        if self.reader.done():
            raise ConnectionError("Chromium closed the DevTools connection")
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        await self.ws.send_str(json.dumps({"id": self.next_id, "method": method, "params": params}))
        reply = await future
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    async def eval(self, expression):
        """The value of a JavaScript expression (awaited when it is a promise)."""
        result = await self.call(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise RuntimeError(details.get("exception", {}).get("description", details.get("text")))
        return result["result"].get("value")

    async def until(self, expression, seconds, what):
        """Waits until `expression` is truthy."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if await self.eval(expression):
                return
            await asyncio.sleep(0.05)
        raise TimeoutError(f"waited {seconds} s for {what}")

    async def goto(self, url):
        await self.call("Page.navigate", url=url)
        await self.until("document.readyState === 'complete'", 60, f"{url} to load")


def by_id(test_id):
    return f"document.querySelector('[data-testid=\"{test_id}\"]')"


SETTLED = f"{by_id('engine-status')} && !{by_id('engine-status')}.textContent.includes('Looking')"

# Asked again for a few seconds: right after Chromium starts, its first answer can be null ("A valid external
# Instance reference no longer exists") where the same request a moment later finds the GPU.
ADAPTER = """(async () => {
  if (!navigator.gpu) return 'navigator.gpu is missing';
  let a = null;
  for (let i = 0; i < 20 && !a; i++) {
    a = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!a) await new Promise((ok) => setTimeout(ok, 250));
  }
  if (!a) return 'no adapter';
  const i = a.info || {};
  return [i.vendor, i.architecture, i.device, i.description].filter(Boolean).join(' / ') +
    ` (maxStorageBufferBindingSize ${a.limits.maxStorageBufferBindingSize}, maxBufferSize ${a.limits.maxBufferSize})`;
})()"""
# What each way of asking gives, for --diagnose.
ADAPTER_ASKS = """(async () => {
  const asks = [{}, { powerPreference: 'high-performance' }, { powerPreference: 'low-power' },
    { featureLevel: 'compatibility' }, { forceFallbackAdapter: true }];
  const out = [];
  for (const ask of asks) {
    try {
      const a = await navigator.gpu.requestAdapter(ask);
      out.push(JSON.stringify(ask) + ' -> ' + (a ? (a.info?.vendor + ' ' + a.info?.description) : 'null'));
    } catch (e) { out.push(JSON.stringify(ask) + ' -> ' + e); }
  }
  return out.join('\\n');
})()"""


def rows_of(test_id):
    return f"""[...({by_id(test_id)}?.querySelectorAll('tr') ?? [])]
        .map(r => [...r.children].map(c => c.textContent.trim()))"""


def table(rows):
    if not rows:
        return "  (no table)"
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


async def compare(page, url, spec):
    set_name, sizes, queens = spec.split(":")
    await page.goto(f"{url}/compare?set={set_name}&sizes={sizes}&queens={queens}")
    await page.until(SETTLED, 120, "the engines to settle")
    print(f"\n### Compare page: set={set_name} sizes={sizes} queens={queens}", flush=True)
    print("engines:", await page.eval(f"{by_id('compare-engines')}.textContent"), flush=True)
    started = time.monotonic()
    await page.eval(f"{by_id('compare-run')}.click()")
    await page.until(
        f"['Done.'].includes({by_id('compare-message')}.textContent) || "
        f"/rror|failed/.test({by_id('compare-message')}.textContent)",
        580,
        "the comparison to finish",
    )
    print(f"message: {await page.eval(by_id('compare-message') + '.textContent')} "
          f"({time.monotonic() - started:.1f} s)")
    print(table(await page.eval(rows_of("compare-sudoku-table"))))
    print()
    print(table(await page.eval(rows_of("compare-queens-table"))))
    saved = await page.eval(
        "JSON.stringify({sudoku: localStorage.getItem('forkboard.crossover'), "
        "queens: localStorage.getItem('forkboard.queens-crossover')})"
    )
    print("saved crossovers:", saved, flush=True)


async def batch(page, url, path, engine, counting=False):
    await page.goto(f"{url}/batch")
    await page.until(SETTLED, 120, "the engines to settle")
    await page.eval(f"""(() => {{ const s = {by_id('batch-engine')}; s.value = '{engine}';
        s.dispatchEvent(new Event('input', {{bubbles: true}}));
        s.dispatchEvent(new Event('change', {{bubbles: true}})); }})()""")
    if counting:
        await page.eval(f"""(() => {{ const c = {by_id('count-mode')}; c.checked = true;
            c.dispatchEvent(new Event('change', {{bubbles: true}})); }})()""")
    document = await page.call("DOM.getDocument")
    node = await page.call(
        "DOM.querySelector", nodeId=document["root"]["nodeId"], selector='[data-testid="file"]'
    )
    await page.call("DOM.setFileInputFiles", files=[os.path.abspath(path)], nodeId=node["nodeId"])
    name = os.path.basename(path)
    await page.until(f"document.body.innerText.includes('{name} is loaded.')", 300, "the file to load")
    # Timed inside the page, from the click to the report's appearing.
    seconds = await page.eval(f"""new Promise(done => {{
        const started = performance.now();
        {by_id('run')}.click();
        const look = () => {by_id('report')} ? done((performance.now() - started) / 1000) : setTimeout(look, 5);
        look(); }})""")
    solved = await page.eval(f"{by_id('stat-solved')}?.textContent")
    detail = await page.eval(f"{by_id('report')}?.innerText")
    engine = f"{engine}, counted" if counting else engine
    print(f"| {name} | {engine} | {solved} | {seconds:.2f} | {float(solved.replace(',', '')) / seconds:,.0f} |")
    print("  " + " · ".join(line for line in (detail or "").splitlines() if line.strip())[:600], flush=True)


async def count_queens(page, n, engine):
    """Counts N on the open Queens page with the engine given; the page's counts, check, detail and seconds."""
    await page.eval(f"""(() => {{
        const input = {by_id('queens-n')}; input.value = '{n}';
        input.dispatchEvent(new Event('input', {{bubbles: true}}));
        input.dispatchEvent(new Event('change', {{bubbles: true}}));
        const s = {by_id('queens-engine')}; s.value = '{engine}';
        s.dispatchEvent(new Event('input', {{bubbles: true}}));
        s.dispatchEvent(new Event('change', {{bubbles: true}})); }})()""")
    # Timed inside the page, from the click to a new result for N (its detail line names the time and engine).
    seconds = await page.eval(f"""new Promise(done => {{
        const text = (id) => document.querySelector(`[data-testid="${{id}}"]`)?.textContent ?? '';
        const before = text('queens-detail');
        const started = performance.now();
        {by_id('queens-count')}.click();
        const look = () => text('queens-result').includes('N = {n}:') && text('queens-detail') !== before
            ? done((performance.now() - started) / 1000) : setTimeout(look, 5);
        look(); }})""")
    shown = [await page.eval(f"{by_id(t)}?.textContent") for t in
             ("queens-total", "queens-unique", "queens-check", "queens-detail")]
    return shown, seconds


async def queens(page, url, ns, engines):
    """The Queens page: each engine counts N = 8 untimed first (the GPU kernel compiles on its first count),
    then every N of `ns` in turn."""
    await page.goto(f"{url}/queens")
    await page.until(SETTLED, 120, "the engines to settle")
    for engine in engines:
        await count_queens(page, 8, engine)
    for n in ns:
        for engine in engines:
            (total, unique, check, detail), seconds = await count_queens(page, n, engine)
            print(f"| {n} | {engine} | {total} | {unique} | {seconds:.3f} | {check} | {detail} |", flush=True)


# How Chromium finds the GPU on a machine without a display, as Chrome's own guide to WebGPU in headless Chrome on
# Linux has it: ANGLE on Vulkan, no surfaces. (Leaving WebGL to SwiftShader, or Chromium's defaults, gave WebGPU
# SwiftShader alone on the H100 machine.)
HARDWARE_VARIANTS = [
    ["--use-angle=vulkan", "--enable-features=Vulkan", "--disable-vulkan-surface"],
]
SOFTWARE = ["--enable-features=Vulkan", "--use-angle=swiftshader", "--use-webgpu-adapter=swiftshader"]
NO_ADAPTER = ("no adapter", "navigator.gpu is missing")
# chrome://gpu's text, through its nested shadow trees: its "Dawn Info" part lists every adapter Dawn found and
# why any is withheld.
GPU_PAGE_TEXT = """(() => {
  const walk = (node) => {
    let text = '';
    for (const child of node.childNodes) {
      if (child.nodeType === 3) text += child.textContent;
      else if (child.nodeType === 1 && !['STYLE', 'SCRIPT'].includes(child.tagName)) {
        if (child.shadowRoot) text += walk(child.shadowRoot);
        text += walk(child);
        text += ['DIV', 'TR', 'P', 'H2', 'H3', 'LI', 'BR'].includes(child.tagName) ? '\\n' : ' ';
      }
    }
    return text;
  };
  return walk(document.body).replace(/\\n\\s*\\n+/g, '\\n');
})()"""


def launch(chromium, variant):
    """Starts Chromium; returns the process and its DevTools endpoint (None if it ended first)."""
    # A fresh profile each time: nothing saved by an earlier run (a measured crossover, an engine chosen) carries over.
    profile = tempfile.mkdtemp(prefix="forkboard-chromium-")
    flags = [
        "--headless=new", "--no-sandbox", "--remote-debugging-port=0", f"--user-data-dir={profile}",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--enable-unsafe-webgpu", *variant,
    ]
    print("chromium flags:", " ".join(variant), flush=True)
    browser = subprocess.Popen([chromium, *flags, "about:blank"], stderr=subprocess.PIPE, text=True)
    browser.profile = profile
    endpoint = None
    for line in browser.stderr:
        if line.startswith("DevTools listening on "):
            endpoint = line.split()[-1]
            break
        print("  [chromium]", line.rstrip()[:300], flush=True)
    threading.Thread(
        target=lambda: [print("  [chromium]", l.rstrip()[:300], flush=True) for l in browser.stderr],
        daemon=True,
    ).start()
    return browser, endpoint


def stop(browser):
    browser.terminate()
    try:
        browser.wait(10)
    except subprocess.TimeoutExpired:
        browser.kill()
    shutil.rmtree(browser.profile, ignore_errors=True)


async def session_with(args, url, variant, last):
    """One Chromium: finds its adapter and, if it is the one wanted, runs the pages. False to try another."""
    browser, endpoint = launch(args.chromium, variant)
    try:
        if endpoint is None:
            print("Chromium ended before its DevTools endpoint was ready", flush=True)
            return False
        http = "http://" + urlsplit(endpoint).netloc
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{http}/json/list") as reply:
                targets = [t for t in await reply.json() if t["type"] == "page"]
            async with session.ws_connect(targets[0]["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                page = Page(ws)
                await page.call("Runtime.enable")
                await page.call("Page.enable")
                await page.call("DOM.enable")
                await page.call("Log.enable")
                await page.goto(url)
                # The app's own look for a GPU on the browser's first page, before anything else asks.
                await page.until(SETTLED, 120, "the engines to settle")
                print("the app's engine line on the first page:",
                      await page.eval(f"{by_id('engine-status')}.textContent"), flush=True)
                adapter = await page.eval(ADAPTER)
                print("WebGPU adapter:", adapter, flush=True)
                unwanted = not args.software and (adapter in NO_ADAPTER or "swiftshader" in adapter.lower())
                if args.diagnose or unwanted:
                    await asyncio.sleep(2)
                    print(await page.eval(ADAPTER_ASKS), flush=True)
                    # What Chromium says about its GPU process, for the reason (the page is a shadow tree).
                    await page.goto("chrome://gpu")
                    await asyncio.sleep(3)
                    info = await page.eval(GPU_PAGE_TEXT)
                    print(info or "(chrome://gpu said nothing)", flush=True)
                    await page.goto(url)
                if unwanted:
                    if not last:
                        return False
                    raise SystemExit("no hardware WebGPU adapter in Chromium")
                print("cores the page sees:", await page.eval("navigator.hardwareConcurrency"), flush=True)
                for spec in args.compare:
                    await compare(page, url, spec)
                if args.batch:
                    print("\n### Batch page, Run to report\n")
                    print("| file | engine | solved | seconds | puzzles/s |\n|---|---|---:|---:|---:|", flush=True)
                for path in args.batch:
                    for engine in args.batch_engines.split(","):
                        await batch(page, url, path, engine, args.batch_count)
                if args.queens:
                    print("\n### Queens page, Count to result\n")
                    print("| N | engine | total | unique | seconds | check | detail |\n|---|---|---|---|---:|---|---|")
                    await queens(page, url, [int(n) for n in args.queens.split(",")],
                                 args.queens_engines.split(","))
                page.reader.cancel()
                return True
    finally:
        stop(browser)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--dist", required=True)
    parser.add_argument("--compare", action="append", default=[])
    parser.add_argument("--batch", action="append", default=[])
    parser.add_argument("--queens", default="", help="N values to count on the Queens page, comma-separated")
    parser.add_argument("--queens-engines", default="gpu", help="the Queens page's engines, in turn")
    parser.add_argument("--batch-engines", default="gpu,cpu", help="the Batch page's engines, in turn")
    parser.add_argument("--batch-count", action="store_true", help="count solutions (the uniqueness check)")
    parser.add_argument("--software", action="store_true")
    parser.add_argument("--variant", action="append", default=[],
                        help="Chromium flags to try (space-separated), instead of the built-in ways")
    parser.add_argument("--diagnose", action="store_true", help="print chrome://gpu for every way tried")
    args = parser.parse_args()

    url = serve(args.dist)
    variants = [v.split() for v in args.variant] or ([SOFTWARE] if args.software else HARDWARE_VARIANTS)
    for i, variant in enumerate(variants):
        if await session_with(args, url, variant, last=i == len(variants) - 1):
            return
    raise SystemExit("no way of starting Chromium gave a hardware WebGPU adapter")


if __name__ == "__main__":
    asyncio.run(main())
