// SPDX-License-Identifier: MIT
/*
 * ksnap-plot's pages in a real browser: Debian's Chromium, headless,
 * driven by playwright-core.  For each page: every chart div holds a
 * drawn canvas (pixels other than the background), the page says it drew
 * as many charts as it has, the console shows no error or warning, no
 * script fails, no two y-axis tick labels of a chart read alike, and
 * the page asks for nothing (a request other than the
 * page itself fails the check).  The first page's screenshot is kept.
 *
 *   node browser.mjs SCREENSHOT.png PAGE.html...
 *
 * Prints "ok - ..." / "not ok - ..." lines and "browser: N passed,
 * M failed"; exits 1 if any failed.
 */
import { chromium } from 'playwright-core';
import { pathToFileURL } from 'node:url';

const [shot, ...pages] = process.argv.slice(2);
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
let passed = 0;
let failed = 0;

function ok(name) {
	passed++;
	console.log(`ok - ${name}`);
}

function notOk(name, why) {
	failed++;
	console.log(`not ok - ${name}`);
	for (const w of why)
		console.log(`#   ${w}`);
}

/* In the page: each chart div, its canvases' drawn pixels. */
function measure() {
	const charts = [...document.querySelectorAll('div.chart')];

	return {
		said: document.body.getAttribute('data-charts'),
		errors: document.body.getAttribute('data-errors'),
		charts: charts.map((div) => {
			let drawn = 0;

			for (const c of div.querySelectorAll('canvas')) {
				if (!c.width || !c.height)
					continue;
				const d = c.getContext('2d')
					.getImageData(0, 0, c.width, c.height).data;

				for (let i = 3; i < d.length; i += 4)
					drawn += d[i] !== 0;
			}
			const ticks = [...div.querySelectorAll(
				'.dygraph-axis-label-y')].map((e) => e.textContent);

			return { id: div.id, drawn, ticks };
		}),
	};
}

async function check(browser, file, screenshot) {
	const url = pathToFileURL(file).href;
	const context = await browser.newContext({
		viewport: { width: 1280, height: 900 },
	});
	const page = await context.newPage();
	const problems = [];
	const name = `browser: ${file}`;

	page.on('console', (m) => {
		if (m.type() === 'error' || m.type() === 'warning')
			problems.push(`console ${m.type()}: ${m.text()}`);
	});
	page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
	page.on('request', (r) => {
		if (r.url() !== url)
			problems.push(`request: ${r.url()}`);
	});
	const t0 = Date.now();

	await page.goto(url, { waitUntil: 'load' });
	await page.waitForFunction(() =>
		document.body.hasAttribute('data-charts') ||
		document.body.hasAttribute('data-errors'), null,
	{ timeout: 20000 });
	const ms = Date.now() - t0;
	const m = await page.evaluate(measure);
	const blank = m.charts.filter((c) => c.drawn < 200);

	if (m.errors)
		problems.push(`the page says: ${m.errors}`);
	if (!m.charts.length)
		problems.push('no chart in the page');
	if (String(m.charts.length) !== m.said)
		problems.push(`${m.charts.length} chart divs, the page drew ${m.said}`);
	for (const c of blank)
		problems.push(`chart ${c.id} blank (${c.drawn} pixels drawn)`);
	for (const c of m.charts) {
		const same = c.ticks.filter((t, i) => c.ticks.indexOf(t) !== i);

		if (same.length)
			problems.push(`chart ${c.id}: y tick labels read alike: ` +
				      `expected distinct labels, got ${c.ticks.join(' | ')}`);
	}
	if (screenshot)
		await page.screenshot({ path: screenshot, fullPage: true });
	await context.close();
	if (problems.length) {
		notOk(name, problems);
	} else {
		const px = m.charts.map((c) => c.drawn).join(', ');

		ok(`${name}: ${m.charts.length} charts drawn (pixels: ${px}), ` +
		   `no console error, no request, ${ms} ms to draw`);
	}
}

const browser = await chromium.launch({
	executablePath: chromiumPath,
	args: ['--no-sandbox', '--disable-gpu', '--disable-quic',
	       '--no-first-run', '--disable-background-networking',
	       '--disable-component-update', '--disable-sync'],
});

try {
	for (const [i, file] of pages.entries()) {
		try {
			await check(browser, file, i === 0 ? shot : null);
		} catch (e) {
			notOk(`browser: ${file}`, [String(e && e.message || e)]);
		}
	}
} finally {
	await browser.close();
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
