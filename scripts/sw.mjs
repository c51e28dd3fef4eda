// Writes dist/sw.js, the service worker that keeps this build for offline use: every file of dist/ (the page,
// the wasm of the page and of its workers, scripts, styles, icons, samples) is cached when it installs, under a
// name made from the files' contents, so a new build replaces the old cache as a whole.
//
// Requests go to the network first and fall back to the cache, so an online page is always the newest build and
// an offline one is the last build seen; a page navigation offline gets the cached index.html (every route is
// the one page).
//
//   node scripts/sw.mjs dist
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

const root = process.argv[2] ?? "dist";
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name !== "sw.js") files.push(path);
  }
};
walk(root);
const hash = createHash("sha256");
for (const file of files) hash.update(file).update(readFileSync(file));
const version = hash.digest("hex").slice(0, 16);
const urls = files.map((f) => "/" + relative(root, f).split(sep).join("/")).map((u) => (u === "/index.html" ? "/" : u));

const worker = `// Forkboard's service worker, written by scripts/sw.mjs for this build: the page opens and solves offline after
// one visit. Network first, the cache when the network fails.
const CACHE = "forkboard-${version}";
const FILES = ${JSON.stringify(urls, null, 2)};

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("forkboard-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(
    fetch(request).catch(async () => {
      const cache = await caches.open(CACHE);
      const hit = await cache.match(request, { ignoreSearch: request.mode === "navigate" });
      // Every route (/, /batch, a share link) is the one page.
      return hit ?? (request.mode === "navigate" ? cache.match("/") : Response.error());
    }),
  );
});
`;
writeFileSync(join(root, "sw.js"), worker);
console.log(`sw.mjs: ${join(root, "sw.js")} caches ${urls.length} files as forkboard-${version}`);
