// llama-server's command line and environment (the shared option table, docs/server.md): HTTPS with
// a certificate made for this run, several API keys and a key file, LLAMA_ARG_* variables with argv
// winning, -c 0 (the model's context) split by -np, the auto slots' unified cache, CORS preflight,
// -n as the cap on max_tokens, --embeddings and --pooling, and unsupported llama.cpp flags refused in one line. Starts its own
// servers (SERVER, MODEL, WORK, CERT and KEY from run-server-test.sh).
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import https from 'node:https';
import { createRequire } from 'node:module';
import { check, done } from './common.mjs';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai');

const { SERVER, MODEL, WORK, CERT, KEY } = process.env;

// Starts the server with args and extra environment; resolves with its port and start-up line.
function start(args, env = {}) {
    const child = spawn(SERVER, ['-m', MODEL, '--port', '0', ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 60000);
        const onData = (d) => {
            out += d;
            const m = out.match(/listening on (https?):\/\/[^:]*:(\d+) \(([^)]*)\)/);
            if (m) {
                clearTimeout(timer);
                resolve({ child, scheme: m[1], port: Number(m[2]), line: m[3] });
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

// GET/OPTIONS over HTTPS trusting only this run's certificate.
function httpsRequest(port, method, path, headers = {}) {
    const ca = readFileSync(CERT);
    return new Promise((resolve, reject) => {
        const req = https.request({ host: '127.0.0.1', port, method, path, headers, ca }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
        });
        req.on('error', reject);
        req.end();
    });
}

// ---- flags refused before any model is loaded
{
    const r = spawnSync(SERVER, ['-m', MODEL, '--mmproj', 'x.gguf'], { encoding: 'utf8' });
    check(r.status === 1, 'an unsupported llama.cpp flag exits 1', `status ${r.status}`);
    check(r.stderr === 'llama-server: --mmproj is a llama.cpp option this build does not support\n',
        'and says so in one line naming it', JSON.stringify(r.stderr));
    const c = spawnSync(SERVER, ['-m', MODEL, '-sys', 'x'], { encoding: 'utf8' });
    check(c.status === 1 && c.stderr.includes('-sys is a llama-cli option'), "llama-cli's flags are refused by name",
        c.stderr);
    const e = spawnSync(SERVER, [], { encoding: 'utf8', env: { ...process.env, LLAMA_ARG_CTX_SIZE: 'big' } });
    check(e.status === 1 && e.stderr.includes('LLAMA_ARG_CTX_SIZE'), 'a bad LLAMA_ARG_* value names the variable',
        e.stderr);
}

// ---- HTTPS, keys from argv, a comma list and a file; the environment's key loses to argv; -c 0 from
// the environment is the model's 2048 tokens, split by -np 2 (no unified cache once -np is given)
{
    const keyFile = `${WORK}/args-keys.txt`;
    writeFileSync(keyFile, '# keys for args.mjs\nk3\n\nk4\n');
    const srv = await start(
        ['--ssl-key-file', KEY, '--ssl-cert-file', CERT, '--api-key', 'k1,k2', '--api-key-file', keyFile],
        { LLAMA_ARG_CTX_SIZE: '0', LLAMA_ARG_N_PARALLEL: '2', LLAMA_API_KEY: 'kenv' },
    );
    check(srv.scheme === 'https', 'with a key and certificate the server says https', srv.scheme);
    check(srv.line.startsWith('2 slots of 1024 tokens') && !srv.line.includes('shared'),
        '-c 0 (env) is the model context, -np 2 (env) splits it', srv.line);
    const none = await httpsRequest(srv.port, 'GET', '/v1/models');
    check(none.status === 401, 'no key: 401', none.status);
    const wrong = await httpsRequest(srv.port, 'GET', '/v1/models', { Authorization: 'Bearer nope' });
    check(wrong.status === 401, 'a wrong key: 401', wrong.status);
    const envKey = await httpsRequest(srv.port, 'GET', '/v1/models', { Authorization: 'Bearer kenv' });
    check(envKey.status === 401, 'LLAMA_API_KEY is ignored when --api-key is given', envKey.status);
    for (const k of ['k1', 'k2', 'k3', 'k4']) {
        const r = await httpsRequest(srv.port, 'GET', '/v1/models', { Authorization: `Bearer ${k}` });
        check(r.status === 200, `key ${k} is accepted`, r.status);
    }
    const xkey = await httpsRequest(srv.port, 'GET', '/v1/models', { 'X-Api-Key': 'k2' });
    check(xkey.status === 200, 'X-Api-Key is accepted too', xkey.status);
    const health = await httpsRequest(srv.port, 'GET', '/health');
    check(health.status === 200, '/health needs no key', health.status);
    const client = new OpenAI({
        baseURL: `https://127.0.0.1:${srv.port}/v1`,
        apiKey: 'k4',
        httpAgent: new https.Agent({ ca: readFileSync(CERT) }),
        maxRetries: 0,
    });
    const r = await client.chat.completions.create({
        model: 'x',
        messages: [{ role: 'user', content: 'Once upon a time' }],
        max_tokens: 8,
        temperature: 0,
    });
    check(r.choices[0].message.content.length > 0, 'the openai client completes over HTTPS with a file key');
    let plainFailed = false;
    try {
        await fetch(`http://127.0.0.1:${srv.port}/health`);
    } catch {
        plainFailed = true;
    }
    check(plainFailed, 'plain HTTP to the HTTPS port fails');
    check((await stop(srv)) === 0, 'the HTTPS server stops cleanly');
}

let lastPooled = null;  // the same text pooled by its last token (LLAMA_ARG_POOLING=last), then by the mean

// ---- defaults: -np auto is 4 slots sharing the whole context; CORS as upstream (the preflight is
// answered without the key, credentials allowed, the Origin echoed)
{
    const srv = await start(['-c', '1024', '--api-key', 'secret', '--embeddings'], { LLAMA_ARG_POOLING: 'last' });
    check(srv.scheme === 'http', 'no certificate: http');
    check(srv.line === '4 slots of 1024 tokens, one shared cache', '-np auto: 4 slots, each may use all of -c',
        srv.line);
    const base = `http://127.0.0.1:${srv.port}`;
    const pre = await fetch(`${base}/v1/chat/completions`, {
        method: 'OPTIONS',
        headers: {
            Origin: 'http://example.com',
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'authorization, content-type',
        },
    });
    check(pre.status === 200, 'the preflight needs no key', pre.status);
    check(pre.headers.get('access-control-allow-origin') === 'http://example.com', 'the Origin is echoed',
        pre.headers.get('access-control-allow-origin'));
    check(pre.headers.get('access-control-allow-credentials') === 'true', 'credentials allowed');
    check(pre.headers.get('access-control-allow-methods') === 'GET, POST, DELETE, OPTIONS', 'the methods',
        pre.headers.get('access-control-allow-methods'));
    check(pre.headers.get('access-control-allow-headers') === '*', 'the headers');
    const get = await fetch(`${base}/v1/models`, { headers: { Origin: 'http://example.com', Authorization: 'Bearer secret' } });
    check(get.status === 200 && get.headers.get('access-control-allow-origin') === 'http://example.com',
        'a real request carries the CORS header too');
    const denied = await fetch(`${base}/v1/models`, { headers: { Origin: 'http://example.com' } });
    check(denied.status === 401, 'but still needs the key', denied.status);
    const auth = { 'Content-Type': 'application/json', Authorization: 'Bearer secret' };
    const chat = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    check(chat.status === 501, '--embeddings: chat answers 501', chat.status);
    const emb = await fetch(`${base}/v1/embeddings`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ input: 'Once upon a time', encoding_format: 'float' }),
    });
    check(emb.status === 200, '--embeddings: /v1/embeddings is served', emb.status);
    lastPooled = (await emb.json()).data[0].embedding;
    check((await stop(srv)) === 0, 'the server stops cleanly');
}

// ---- --cors-origins localhost echoes only local origins
{
    const srv = await start(['-c', '256', '-np', '1', '--cors-origins', 'localhost', '-n', '3']);
    const base = `http://127.0.0.1:${srv.port}`;
    const local = await fetch(`${base}/health`, { headers: { Origin: 'http://localhost:3000' } });
    check(local.headers.get('access-control-allow-origin') === 'http://localhost:3000', 'a localhost origin is echoed');
    const remote = await fetch(`${base}/health`, { headers: { Origin: 'http://example.com' } });
    check(remote.headers.get('access-control-allow-origin') === null, 'another origin gets no CORS header');
    check(srv.line === '1 slots of 256 tokens', '-np 1 -c 256', srv.line);
    const capped = await fetch(`${base}/v1/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ prompt: 'Once upon a time', max_tokens: 20, temperature: 0 }),
    });
    const body = await capped.json();
    check(capped.status === 200 && body.usage.completion_tokens === 3, '-n 3 caps max_tokens',
        JSON.stringify(body.usage));
    const emb = await fetch(`${base}/v1/embeddings`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ input: 'Once upon a time', encoding_format: 'float' }),
    });
    const mean = (await emb.json()).data[0].embedding;
    check(lastPooled && mean.length === lastPooled.length && mean.some((x, i) => Math.abs(x - lastPooled[i]) > 1e-4),
        '--pooling last pools differently from the default mean');
    check((await stop(srv)) === 0, 'the server stops cleanly');
}

done();
