// The chat page at / in a real browser: Debian's chromium, headless, driven over the DevTools protocol
// (CDP) on a pipe (--remote-debugging-pipe: NUL-separated JSON on fds 3 and 4, no WebSocket or npm
// package needed). The server runs with --api-key: the page is served without it, asks for it, and
// sends it. Checks model info, Enter to send, a streamed reply that grows, Stop, the conversation
// kept across a reload, errors, and saves a screenshot. Also starts servers with --no-webui (404 at
// /) and with a template that opens a reasoning block (the collapsed reasoning box).
// run-server-test.sh skips the test without chromium.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASE, check, done, metric } from './common.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const WORK = process.env.WORK;
const API_KEY = process.env.API_KEY;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = new Set();  // killed if the test ends early (a failed check, an exception)
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

// ---- a minimal CDP client over the pipe ----
class Browser {
    constructor() {
        this.profile = join(WORK, 'webui-chromium-profile');
        rmSync(this.profile, { recursive: true, force: true });
        mkdirSync(this.profile, { recursive: true });
        const args = ['--headless', '--remote-debugging-pipe', '--no-first-run', '--no-default-browser-check',
                      '--disable-gpu', '--disable-extensions', '--disable-background-networking',
                      '--window-size=1100,760', `--user-data-dir=${this.profile}`, 'about:blank'];
        if (process.getuid && process.getuid() === 0) {
            args.unshift('--no-sandbox');  // chromium refuses to run as root with its sandbox
        }
        this.proc = spawn(CHROMIUM, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
        children.add(this.proc);
        this.stderr = '';
        this.proc.stderr.on('data', (d) => (this.stderr = (this.stderr + d).slice(-4000)));
        this.next = 1;
        this.pending = new Map();
        this.events = [];  // CDP events (method, params), e.g. Network.requestWillBeSent
        this.buf = Buffer.alloc(0);
        this.proc.stdio[4].on('data', (d) => this.onData(d));
        this.exited = new Promise((r) => this.proc.on('exit', r));
        this.proc.on('exit', () => {
            for (const { reject } of this.pending.values()) {
                reject(new Error('chromium exited: ' + this.stderr));
            }
            this.pending.clear();
        });
    }
    onData(d) {
        this.buf = Buffer.concat([this.buf, d]);
        let i;
        while ((i = this.buf.indexOf(0)) >= 0) {
            const msg = JSON.parse(this.buf.subarray(0, i).toString('utf8'));
            this.buf = this.buf.subarray(i + 1);
            if (msg.method) {
                this.events.push(msg);
            }
            const p = msg.id !== undefined && this.pending.get(msg.id);
            if (p) {
                this.pending.delete(msg.id);
                if (msg.error) {
                    p.reject(new Error(`${p.method}: ${msg.error.message}`));
                } else {
                    p.resolve(msg.result);
                }
            }
        }
    }
    send(method, params = {}, sessionId = undefined) {
        const id = this.next++;
        const msg = { id, method, params, ...(sessionId ? { sessionId } : {}) };
        return new Promise((resolve, reject) => {
            this.pending.set(id, { resolve, reject, method });
            this.proc.stdio[3].write(JSON.stringify(msg) + '\0');
        });
    }
    async close() {
        this.send('Browser.close').catch(() => {});
        const t = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
        await this.exited;
        children.delete(this.proc);
        clearTimeout(t);
        rmSync(this.profile, { recursive: true, force: true });
    }
}

class Page {
    constructor(browser, sessionId) {
        this.b = browser;
        this.s = sessionId;
    }
    send(method, params) {
        return this.b.send(method, params, this.s);
    }
    async eval(expr) {
        const r = await this.send('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
        if (r.exceptionDetails) {
            throw new Error(`evaluating ${expr}: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
        }
        return r.result.value;
    }
    // Polls expr until it is truthy; returns its value, or null after ms.
    async waitFor(expr, ms = 10000) {
        const until = Date.now() + ms;
        for (;;) {
            const v = await this.eval(expr);
            if (v) {
                return v;
            }
            if (Date.now() > until) {
                return null;
            }
            await sleep(25);
        }
    }
    // Navigates (or reloads) and waits for the new document: the old one carries a mark the new lacks.
    async load(url) {
        await this.eval('window.__oldDocument = true');
        await this.send('Page.navigate', { url });
        const ok = await this.waitFor(`!window.__oldDocument && document.readyState === 'complete'
            && location.href === ${JSON.stringify(url)}`);
        if (!ok) {
            throw new Error(`${url} did not load`);
        }
    }
    async key(key, code, vk, text, modifiers = 0) {
        const ev = { key, code, windowsVirtualKeyCode: vk, modifiers };
        await this.send('Input.dispatchKeyEvent', { type: 'keyDown', ...ev, ...(text ? { text } : {}) });
        await this.send('Input.dispatchKeyEvent', { type: 'keyUp', ...ev });
    }
    // Types into the focused element: real key events for Enter (Shift+Enter), insertText for the rest.
    async type(text) {
        await this.send('Input.insertText', { text });
    }
    async click(selector) {
        const box = await this.eval(`(() => { const r = document.querySelector(${JSON.stringify(selector)})
            .getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`);
        for (const type of ['mousePressed', 'mouseReleased']) {
            await this.send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 });
        }
    }
    // Sets a settings field as a user does: types the value, then leaves the field (change event).
    async setField(selector, value) {
        await this.eval(`(() => { const e = document.querySelector(${JSON.stringify(selector)}); e.focus(); e.select(); })()`);
        await this.type(String(value));
        await this.eval(`document.querySelector(${JSON.stringify(selector)}).blur()`);
    }
}

// ---- other servers: started here on free ports ----
async function startServer(name, args, withModel = true) {
    const model = withModel ? ['-m', process.env.MODEL] : [];
    const srv = spawn(process.env.SERVER, [...model, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(srv);
    let out = '';
    srv.stdout.on('data', (d) => (out += d));
    const exited = new Promise((r) => srv.on('exit', r));
    let port = null;
    for (let i = 0; i < 1200 && !port && srv.exitCode === null; i++) {
        port = out.match(/listening on http:\/\/[^:]+:(\d+)/)?.[1];
        await sleep(50);
    }
    check(!!port, `the ${name} server starts`);
    const stop = async () => {
        srv.kill('SIGTERM');
        const code = await exited;
        children.delete(srv);
        check(code === 0, `the ${name} server exits 0 on SIGTERM`, String(code));
    };
    return { base: port ? `http://127.0.0.1:${port}` : null, stop };
}

// --no-webui: / is a 404 and the API still answers
async function checkNoWebui() {
    const srv = await startServer('--no-webui', ['-np', '1', '-c', '256', '--no-webui']);
    if (srv.base) {
        const page = await fetch(srv.base + '/');
        check(page.status === 404, '--no-webui: GET / is 404', String(page.status));
        const models = await fetch(srv.base + '/v1/models');
        check(models.status === 200, '--no-webui: the API still answers', String(models.status));
    }
    await srv.stop();
}

// A template whose generation prompt opens a <think> block: everything stories260K writes is
// reasoning_content, which the page shows in a collapsed box.
const THINK_TEMPLATE = '{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}' +
                       '{% if add_generation_prompt %}<|assistant|><think>\n{% endif %}';

async function checkReasoning(page) {
    const srv = await startServer('<think> template', ['-np', '1', '-c', '1024', '--chat-template', THINK_TEMPLATE]);
    if (srv.base) {
        await page.load(srv.base + '/');  // another origin: its own, empty localStorage
        await page.waitFor(`document.getElementById('model-info').dataset.model`);
        await page.click('#settings-toggle');
        await page.setField('#set-max-tokens', 64);
        await page.click('#settings-toggle');
        await page.eval(`document.getElementById('input').focus()`);
        await page.type('Once upon a time');
        await page.key('Enter', 'Enter', 13, '\r');
        const r = await page.waitFor(`document.querySelector('.msg.assistant') && document.getElementById('stop').hidden
            && (() => { const d = document.querySelector('.msg.assistant .reasoning');
                        return { shown: !d.hidden, open: d.open, text: d.lastChild.textContent }; })()`, 20000);
        check(r && r.shown && !r.open && r.text.length > 0, 'reasoning_content is shown in a collapsed box', JSON.stringify(r));
    }
    return srv;
}

// Router mode (--models-dir with two copies of the model): the page offers the models, and a
// message goes to the chosen one, which loads for it.
async function checkRouter(page) {
    const dir = join(WORK, 'webui-router-models');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const m of ['alpha', 'beta']) {
        copyFileSync(process.env.MODEL, join(dir, m + '.gguf'));
    }
    const srv = await startServer('router', ['--models-dir', dir, '-np', '1', '-c', '1024'], false);
    if (srv.base) {
        await page.load(srv.base + '/');
        const opts = await page.waitFor(`(() => { const s = document.getElementById('model-select');
            return !s.hidden && s.options.length === 2 && [...s.options].map((o) => o.value).join(','); })()`);
        check(opts === 'alpha,beta', 'router: the page offers both models', String(opts));
        await page.eval(`(() => { const s = document.getElementById('model-select'); s.value = 'beta';
            s.dispatchEvent(new Event('change')); })()`);
        await page.waitFor(`document.getElementById('model-info').dataset.model === 'beta'`);
        await page.eval(`document.getElementById('input').focus()`);
        await page.type('Once upon a time');
        await page.key('Enter', 'Enter', 13, '\r');
        const text = await page.waitFor(`document.getElementById('stop').hidden && document.querySelector('.msg.assistant .text')
            && document.querySelector('.msg.assistant .text').textContent`, 20000);
        check(typeof text === 'string' && text.length > 0, 'router: the chosen model answers', String(text));
        const states = Object.fromEntries((await (await fetch(srv.base + '/v1/models')).json()).data
            .map((m) => [m.id, m.status.value]));
        check(states.beta === 'loaded' && states.alpha === 'unloaded', 'router: the message went to beta only',
              JSON.stringify(states));
        const info = await page.waitFor(`/slot/.test(document.getElementById('model-info').textContent)
            && document.getElementById('model-info').textContent`);
        check(/beta/.test(String(info)), "router: the loaded model's details are shown", String(info));
    }
    await srv.stop();
}

// ---- the served files ----
async function checkFiles() {
    for (const [path, type] of [['/', 'text/html'], ['/index.html', 'text/html'], ['/app.js', 'text/javascript'],
                                ['/style.css', 'text/css']]) {
        const res = await fetch(BASE + path);  // no API key: the page is public
        const body = await res.text();
        check(res.status === 200 && res.headers.get('content-type').startsWith(type),
              `GET ${path} without the key: 200 ${type}`, `${res.status} ${res.headers.get('content-type')}`);
        check(!/https?:\/\//.test(body.replace(/http:\/\/www\.w3\.org[^"]*/g, '')), `${path} names no other site`);
    }
    // the served script parses (node --check), and the page stays small
    const js = await (await fetch(BASE + '/app.js')).text();
    const jsFile = join(WORK, 'webui-app.js');
    writeFileSync(jsFile, js);
    let syntax = '';
    try {
        execFileSync(process.execPath, ['--check', jsFile], { stdio: 'pipe' });
    } catch (e) {
        syntax = String(e.stderr);
    }
    check(syntax === '', 'the served app.js passes node --check', syntax);
    let total = 0;
    for (const path of ['/', '/app.js', '/style.css']) {
        total += (await (await fetch(BASE + path)).arrayBuffer()).byteLength;
    }
    check(total > 1000 && total < 40 * 1024, 'the page is under 40 KB', String(total));
    const api = await fetch(BASE + '/v1/models');
    check(api.status === 401, 'the API still needs the key', String(api.status));
    const near = await fetch(BASE + '/appXjs');
    check(near.status === 401 || near.status === 404, 'a path near a file name is not served', String(near.status));
}

async function main() {
    await checkFiles();
    await checkNoWebui();

    // run-server-test.sh skips the test without chromium; here it is missing only if CHROMIUM is wrong
    if (!existsSync(CHROMIUM)) {
        check(false, `${CHROMIUM} exists`);
        done();
    }
    const browser = new Browser();
    let srv = null;
    try {
        srv = await browserChecks(browser);
    } finally {
        await browser.close();
    }
    // after the browser: its keep-alive connections would hold the server's shutdown for seconds
    await srv.stop();
    done();
}

async function browserChecks(browser) {
    const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(browser, sessionId);
    await page.send('Page.enable');
    await page.send('Runtime.enable');
    await page.send('Emulation.setDeviceMetricsOverride', { width: 1100, height: 760, deviceScaleFactor: 1, mobile: false });
    // slow the download so that a reply arrives over seconds, not in one piece: growth and Stop
    // are then seen the way a user on a slower model sees them
    await page.send('Network.enable');
    await page.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 6000, uploadThroughput: -1 });

    // 1. without the key: the page loads, says the API needs it (the 401 body is shown)
    await page.load(BASE + '/');
    const err = await page.waitFor(`!document.getElementById('error').hidden && document.getElementById('error').textContent`);
    check(err && err.includes('HTTP 401') && err.includes('API key'), 'without the key the 401 is shown', String(err));

    // 2. the key typed into Settings is kept and used: model info appears
    await page.click('#settings-toggle');
    check(await page.eval(`!document.getElementById('settings').hidden`), 'Settings opens');
    await page.setField('#set-api-key', API_KEY);
    const info = await page.waitFor(`document.getElementById('model-info').dataset.model && document.getElementById('model-info').textContent`);
    check(info && info.includes('stories260K'), 'model info shows the model', String(info));
    check(await page.eval(`document.getElementById('error').hidden`), 'the error is cleared');
    const props = await fetch(BASE + '/props', { headers: { Authorization: `Bearer ${API_KEY}` } });
    if (props.status === 200) {
        check(/slot/.test(info) && /context \d+/.test(info), 'model info shows slots and context from /props', info);
    }

    // 3. a short reply (max tokens from Settings), sent with Enter, streamed: its text grows
    await page.setField('#set-max-tokens', 48);
    await page.setField('#set-temperature', 0);
    await page.setField('#set-system', 'You tell stories.');
    await page.click('#settings-toggle');
    const gen0 = await metric('llama_generated_tokens_total');
    await page.eval(`document.getElementById('input').focus()`);
    await page.type('Once upon a time');
    await page.key('Enter', 'Enter', 13, '\r', 8);  // Shift+Enter: a new line, nothing sent
    await page.type('there was a cat');
    check(await page.eval(`document.getElementById('input').value`) === 'Once upon a time\nthere was a cat',
          'Shift+Enter adds a line');
    // record the reply's length at every change the page makes, to see it grow while streaming
    await page.eval(`window.__lengths = []; new MutationObserver(() => {
        const t = document.querySelector('.msg.assistant:last-child .text');
        if (t) window.__lengths.push(t.textContent.length);
    }).observe(document.getElementById('messages'), { childList: true, subtree: true, characterData: true }); 0`);
    await page.key('Enter', 'Enter', 13, '\r');
    check(await page.eval(`document.querySelector('.msg.user .text')?.textContent`) === 'Once upon a time\nthere was a cat',
          'Enter sends the message');
    const finished = await page.waitFor(`!document.getElementById('send').disabled && document.getElementById('stop').hidden
        && document.querySelector('.msg.assistant .text')?.textContent`, 30000);
    const lengths = await page.eval('window.__lengths');
    const grew = new Set(lengths.filter((n) => n > 0)).size;
    check(!!finished && finished.length > 0, 'the reply appears', String(finished));
    check(grew >= 3 && lengths.every((n, i) => i === 0 || n >= lengths[i - 1]),
          'the reply grows while streaming', JSON.stringify(lengths.slice(0, 40)));
    // the request the page sent: settings, history and the key
    const sent = browser.events.filter((e) => e.method === 'Network.requestWillBeSent' &&
                                              e.params.request.url.endsWith('/v1/chat/completions'));
    const req = sent.length === 1 ? sent[0].params.request : null;
    let reqBody = null;
    try {
        reqBody = JSON.parse(req.postData);
    } catch {}
    check(reqBody && reqBody.stream === true && reqBody.temperature === 0 && reqBody.max_tokens === 48 &&
          JSON.stringify(reqBody.messages) === JSON.stringify([{ role: 'system', content: 'You tell stories.' },
                                                               { role: 'user', content: 'Once upon a time\nthere was a cat' }]),
          'the request carries the settings and the messages', req ? req.postData : `${sent.length} requests`);
    check(req && req.headers.Authorization === `Bearer ${API_KEY}`, 'the request carries the key as Bearer');
    const gen = (await metric('llama_generated_tokens_total')) - gen0;
    check(gen > 0 && gen <= 48, 'Settings max tokens reached the server', String(gen));
    check(await page.eval(`document.querySelector('.msg.assistant .note').hidden`), 'a finished reply has no note');

    // 4. a long reply: Stop ends it (the page stops reading and marks it)
    await page.click('#settings-toggle');
    await page.setField('#set-max-tokens', 2000);
    await page.setField('#set-temperature', 1);
    await page.click('#settings-toggle');
    await page.eval(`document.getElementById('input').focus()`);
    await page.type('Tell me a long story');
    await page.click('#send');
    const started = await page.waitFor(`document.querySelectorAll('.msg.assistant').length === 2
        && document.querySelector('.msg.assistant:last-child .text').textContent.length > 0`, 20000);
    check(!!started, 'the second reply starts');
    check(await page.eval(`!document.getElementById('stop').hidden`), 'Stop is shown while streaming');
    await page.click('#stop');
    const stopped = await page.waitFor(`document.getElementById('stop').hidden
        && document.querySelector('.msg.assistant:last-child .note').textContent`, 5000);
    check(stopped === 'stopped', 'Stop marks the reply stopped', String(stopped));
    const len1 = await page.eval(`document.querySelector('.msg.assistant:last-child .text').textContent.length`);
    await sleep(700);
    const len2 = await page.eval(`document.querySelector('.msg.assistant:last-child .text').textContent.length`);
    check(len1 === len2, 'after Stop the text no longer grows', `${len1} -> ${len2}`);
    const before = await page.eval(`[...document.querySelectorAll('.msg .text')].map((e) => e.textContent)`);

    // 5. a reload keeps the conversation (localStorage), the key, and the settings
    await page.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.load(BASE + '/');
    await page.waitFor(`document.getElementById('model-info').dataset.model`);
    const after = await page.eval(`[...document.querySelectorAll('.msg .text')].map((e) => e.textContent)`);
    check(JSON.stringify(after) === JSON.stringify(before) && after.length === 4, 'a reload keeps the conversation',
          JSON.stringify(after).slice(0, 300));
    check(await page.eval(`document.querySelectorAll('#conversations li').length`) === 1, 'one conversation listed');
    check(await page.eval(`document.querySelector('.msg.assistant:last-child .note').textContent`) === 'stopped',
          'the stopped mark is kept');

    // 6. model output is text, never HTML: a reply with markup is shown as written
    await page.eval(`(() => {
        const convs = JSON.parse(localStorage.getItem('llama-webui-conversations'));
        convs.unshift({ id: 'html', title: '<b>x</b>', messages: [{ role: 'user', content: 'hi' },
            { role: 'assistant', content: '<img src=x onerror="window.__pwned=1"><b>bold</b>' }] });
        localStorage.setItem('llama-webui-conversations', JSON.stringify(convs));
        localStorage.setItem('llama-webui-current', JSON.stringify('html')); })()`);
    await page.load(BASE + '/');
    await sleep(200);
    check(await page.eval(`!window.__pwned && !document.querySelector('#messages img, #messages b')
        && document.querySelector('.msg.assistant .text').textContent.startsWith('<img')`), 'markup in a reply is shown as text');
    // delete that conversation: the first one is current again
    await page.click('#conversations li:first-child .delete');
    check(await page.eval(`document.querySelectorAll('#conversations li').length === 1
        && document.querySelectorAll('.msg .text').length === 4`), 'delete removes a conversation');

    // 7. New chat
    await page.click('#new-chat');
    check(await page.eval(`document.querySelectorAll('#conversations li').length === 2
        && document.querySelectorAll('.msg').length === 0`), 'New chat starts an empty conversation');
    // 8. a 400 is shown with the server's message: a prompt larger than the slot (4096 tokens)
    await page.eval(`document.getElementById('input').focus()`);
    await page.type('once upon a time '.repeat(2000));
    await page.key('Enter', 'Enter', 13, '\r');
    const err400 = await page.waitFor(`!document.getElementById('error').hidden && document.getElementById('error').textContent`);
    check(err400 && err400.startsWith('HTTP 400: the prompt has') && err400.includes('tokens'), 'a 400 shows its message',
          String(err400));
    check(await page.eval(`document.querySelector('.msg.assistant .note').textContent.startsWith('failed: HTTP 400')
        && !document.getElementById('send').disabled`), 'the failed reply is marked and Send is back');

    await page.click('#conversations li:last-child .title');
    await page.waitFor(`document.querySelectorAll('.msg').length === 4`);
    check(await page.eval(`document.getElementById('error').hidden`), 'switching conversations clears the error');
    const shot = await page.send('Page.captureScreenshot', { format: 'png' });
    const file = join(WORK, 'webui-screenshot.png');
    writeFileSync(file, Buffer.from(shot.data, 'base64'));
    console.log(`screenshot: ${file}`);

    await checkRouter(page);
    return await checkReasoning(page);
}

main().catch((e) => {
    console.log('FAIL', e.stack || e);
    process.exit(1);
});
