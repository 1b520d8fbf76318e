// llama-server --prompt-cache-dir (docs/server.md, "Prompt cache on disk"), through the official
// `openai` client: a slot's cache written when a request ends survives a restart (SIGTERM) and is
// restored by prompt prefix, with the same greedy output as a server without the cache and the
// restored tokens reported as cached; damaged files (a flipped byte in the header or in the state,
// truncated, empty) are deleted with one message each and a file of another model is skipped, the
// server answering correctly; the size cap evicts the least recently used file; llama-cli
// --prompt-cache reads a file the server wrote and the server one llama-cli wrote. Starts its own
// servers (SERVER, MODEL, WORK, DATA and CLI from run-server-test.sh).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { check, done } from './common.mjs';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai');

const { SERVER, MODEL, WORK, DATA, CLI } = process.env;
const DIR = `${WORK}/pcache`;
const FOREIGN_DIR = `${WORK}/pcache-foreign`;

// Starts a server; resolves with its child, port and a getter of everything it printed.
function start(args, model = MODEL) {
    const child = spawn(SERVER, ['-m', model, '--port', '0', '-np', '1', '-c', '2048', '-t', '1', ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 60000);
        const onData = (d) => {
            out += d;
            const m = out.match(/listening on http:\/\/[^:]*:(\d+)/);
            if (m) {
                clearTimeout(timer);
                resolve({ child, port: Number(m[1]), log: () => out });
            }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
}

function stop(srv) {
    return new Promise((resolve) => {
        srv.child.removeAllListeners('exit');
        srv.child.on('exit', (code) => resolve(code));
        srv.child.kill('SIGTERM');
    });
}

async function complete(srv, prompt, maxTokens = 12) {
    // no keep-alive: an idle connection would hold up the server's SIGTERM for seconds
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${srv.port}/v1`, apiKey: 'none',
        httpAgent: new http.Agent({ keepAlive: false }) });
    const r = await client.completions.create({ model: 'x', prompt, max_tokens: maxTokens, temperature: 0 });
    return { text: r.choices[0].text, prompt: r.usage.prompt_tokens, cached: r.usage.prompt_tokens_details.cached_tokens };
}

const files = (dir) => readdirSync(dir).filter((f) => f.endsWith('.pcache')).sort();
// the server writes a file after the response was sent: wait for what is expected (up to 10 s)
async function waitFor(cond) {
    for (let i = 0; i < 200 && !cond(); i++) {
        await new Promise((r) => setTimeout(r, 50));
    }
    return cond();
}

// three prompts with different starts, ~580 tokens each: two files fit under a 1 MiB cap, three do not
const story = (who) => `Once upon a time there was a ${who}. ` + 'The sun was warm and the park was full of friends. '.repeat(28);
const P1 = 'Tom had a red ball and a big dog. '.repeat(12);
const P2 = P1 + 'One day the dog ran to the park and';

rmSync(DIR, { recursive: true, force: true });
rmSync(FOREIGN_DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });

// the outputs of a server without the cache
const ref = await start([]);
const want1 = await complete(ref, P1);
const want2 = await complete(ref, P2);
const wantS = {};
for (const who of ['cat', 'bird', 'frog']) {
    wantS[who] = await complete(ref, story(who), 4);
}
check((await stop(ref)) === 0, 'the reference server stops cleanly');

// 1. a cache that survives a restart
let srv = await start(['--prompt-cache-dir', DIR]);
const got1 = await complete(srv, P1);
check(got1.text === want1.text && got1.cached === 0, 'first request: output as without the cache', JSON.stringify(got1));
check((await stop(srv)) === 0, 'SIGTERM: exit 0');
check(files(DIR).length === 1, 'one file written when the request ended', files(DIR).join(' '));
const stored = files(DIR)[0];
srv = await start(['--prompt-cache-dir', DIR]);
const got2 = await complete(srv, P2);
check(got2.text === want2.text, 'after a restart: the longer prompt gives the output of a server without the cache',
    `${JSON.stringify(got2.text)} vs ${JSON.stringify(want2.text)}`);
check(got2.cached >= want1.prompt - 1 && got2.cached < got2.prompt,
    'after a restart: usage.prompt_tokens_details.cached_tokens counts the restored prefix', JSON.stringify(got2));
const nat = await (await fetch(`http://127.0.0.1:${srv.port}/completion`, {
    method: 'POST',
    headers: { Connection: 'close' },
    body: JSON.stringify({ prompt: P1 + 'The end.', n_predict: 4, temperature: 0 }),
})).json();
check(nat.timings && nat.timings.cache_n > 0 && nat.timings.prompt_n + nat.timings.cache_n === nat.tokens_evaluated,
    'native /completion: timings.cache_n and prompt_n split the prompt', JSON.stringify(nat.timings));
check(!/prompt cache/.test(srv.log()), 'no prompt-cache message for intact files', srv.log());
check((await stop(srv)) === 0, 'second server: exit 0');

// 2. damaged and foreign files
const good = readFileSync(`${DIR}/${stored}`);
rmSync(DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });
const flip = (buf, at) => {
    const b = Buffer.from(buf);
    b[at] ^= 0x10;
    return b;
};
writeFileSync(`${DIR}/flip-header.pcache`, flip(good, 10));
writeFileSync(`${DIR}/flip-state.pcache`, flip(good, good.length - 100));
writeFileSync(`${DIR}/truncated.pcache`, good.subarray(0, good.length >> 1));
writeFileSync(`${DIR}/empty.pcache`, Buffer.alloc(0));
writeFileSync(`${DIR}/other.txt`, 'not a cache file: left alone');
mkdirSync(FOREIGN_DIR, { recursive: true });
const foreign = await start(['--prompt-cache-dir', FOREIGN_DIR], `${DATA}/models/synthetic/llama-micro-f16.gguf`);
await complete(foreign, 'Hello there, this is another model speaking to you.', 2);
check((await stop(foreign)) === 0, 'the other model\'s server: exit 0');
check(files(FOREIGN_DIR).length === 1, 'the other model wrote its file');
copyFileSync(`${FOREIGN_DIR}/${files(FOREIGN_DIR)[0]}`, `${DIR}/foreign.pcache`);

srv = await start(['--prompt-cache-dir', DIR]);
const got3 = await complete(srv, P2);
const log = srv.log();
check(got3.text === want2.text, 'with damaged files: the output of a server without the cache', JSON.stringify(got3));
const said = (name, re) => check(new RegExp(`${name}: .*${re}`).test(log), `${name}: one message (${re})`, log);
said('flip-header.pcache', 'header checksum mismatch \\(deleted\\)');
said('truncated.pcache', 'truncated: \\d+ bytes, the header says \\d+ \\(deleted\\)');
said('empty.pcache', 'empty file \\(deleted\\)');
said('foreign.pcache', 'another model \\(skipped\\)');
said('flip-state.pcache', 'checksum mismatch \\(deleted\\)');  // found when its prefix was restored
check(got3.cached === 0, 'the damaged file restored nothing', JSON.stringify(got3));
for (const name of ['flip-header', 'flip-state', 'truncated', 'empty']) {
    const count = log.split(`${name}.pcache:`).length - 1;
    check(count === 1, `${name}: exactly one message`, String(count));
}
check(!files(DIR).some((f) => /flip|truncated|empty/.test(f)), 'damaged files deleted', files(DIR).join(' '));
check(files(DIR).includes('foreign.pcache') && readdirSync(DIR).includes('other.txt'), 'other files left alone');
check((await stop(srv)) === 0, 'third server: exit 0');

// 3. the cap: the least recently used file goes first
rmSync(DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });
srv = await start(['--prompt-cache-dir', DIR, '--prompt-cache-max-mib', '1']);
const sizes = {};
const seen = new Set();
const newFile = () => {
    const f = files(DIR).find((x) => !seen.has(x));
    if (f) {
        seen.add(f);
    }
    return f;
};
const cat = await complete(srv, story('cat'), 4);
await waitFor(() => files(DIR).length === 1);
const fCat = newFile();
const bird = await complete(srv, story('bird'), 4);
await waitFor(() => files(DIR).length === 2);
const fBird = newFile();
sizes.cat = fCat && statSync(`${DIR}/${fCat}`).size;
sizes.bird = fBird && statSync(`${DIR}/${fBird}`).size;
check(fCat && fBird && sizes.cat + sizes.bird < 1 << 20 && sizes.cat * 3 > 1 << 20,
    'two story files fit under 1 MiB, three do not', JSON.stringify(sizes));
check(cat.text === wantS.cat.text && bird.text === wantS.bird.text, 'cap server: outputs as without the cache');
// the cat story again: restored from its file (the slot holds the bird one), which becomes the most recent
await new Promise((r) => setTimeout(r, 20));
const catAgain = await complete(srv, story('cat'), 4);
check(catAgain.cached > cat.prompt / 2 && catAgain.text === wantS.cat.text, 'the cat story restored from disk',
    JSON.stringify(catAgain));
const frog = await complete(srv, story('frog'), 4);
await waitFor(() => files(DIR).some((f) => !seen.has(f)) && files(DIR).length === 2);
const fFrog = newFile();
check(frog.text === wantS.frog.text, 'frog story: output as without the cache');
const left = files(DIR);
check(left.includes(fCat) && fFrog && left.includes(fFrog) && !left.includes(fBird),
    'over the cap: the least recently used file (bird) was evicted', `${left.join(' ')} cat=${fCat} bird=${fBird}`);
check((await stop(srv)) === 0, 'cap server: exit 0');

// 4. llama-cli and llama-server read each other's files
if (CLI) {
    const cli = (prompt, file) => {
        const r = spawnSync(CLI, ['-m', MODEL, '--raw', '-p', prompt, '-n', '12', '--temp', '0', '--json', '-t', '1',
            '--prompt-cache', file], { encoding: 'utf8' });
        return { ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr };
    };
    copyFileSync(`${DIR}/${fFrog}`, `${WORK}/from-server.pcache`);
    const c = cli(story('frog'), `${WORK}/from-server.pcache`);
    check(c.tokens_cached === c.tokens_prompt - 1, 'llama-cli reuses a file llama-server wrote', JSON.stringify(c));
    rmSync(DIR, { recursive: true, force: true });
    mkdirSync(DIR, { recursive: true });
    rmSync(`${WORK}/from-cli.pcache`, { force: true });
    const first = cli(P1, `${WORK}/from-cli.pcache`);  // llama-cli writes before it exits
    copyFileSync(`${WORK}/from-cli.pcache`, `${DIR}/from-cli.pcache`);
    srv = await start(['--prompt-cache-dir', DIR]);
    const got4 = await complete(srv, P2);
    check(first.tokens_cached === 0 && got4.cached >= first.tokens_prompt - 1 && got4.text === want2.text,
        'llama-server restores a file llama-cli wrote', JSON.stringify(got4));
    check((await stop(srv)) === 0, 'last server: exit 0');
} else {
    console.log('(no llama-cli: the cross-tool checks did not run)');
}
done();
