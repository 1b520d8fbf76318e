// llama-server against hostile or broken clients (raw HTTP, no client library). The server runs
// with --api-key secret -np 1 --queue-limit 2 --max-body 65536 (run-server-test.sh); after every
// case it must still answer a normal request.
import http from 'node:http';
import { BASE, PORT, check, done, metric, post } from './common.mjs';

const KEY = { Authorization: 'Bearer secret' };
const alive = async (what) => {
    const r = await post('/v1/completions', { prompt: 'Once', max_tokens: 4, temperature: 0 }, KEY);
    check(r.status === 200 && typeof r.json?.choices?.[0]?.text === 'string', `still serving after: ${what}`, r.text);
};
const expectError = async (what, status, body, headers = KEY, path = '/v1/chat/completions') => {
    const r = await post(path, body, headers);
    check(r.status === status && typeof r.json?.error?.message === 'string', `${what} -> ${status}`,
          `got ${r.status} ${r.text.slice(0, 200)}`);
    await alive(what);
};

const health = await fetch(BASE + '/health');
check(health.status === 200 && (await health.json()).status === 'ok', '/health without the key');
await expectError('no API key', 401, { messages: [{ role: 'user', content: 'hi' }] }, {});
await expectError('wrong API key', 401, { messages: [{ role: 'user', content: 'hi' }] }, { Authorization: 'Bearer nope' });
await expectError('malformed JSON', 400, '{"messages": [');
await expectError('JSON not an object', 400, '[1, 2, 3]');
await expectError('empty body', 400, '');
await expectError('messages wrong type', 400, { messages: 'hello' });
await expectError('message without role', 400, { messages: [{ content: 'hi' }] });
await expectError('content wrong type', 400, { messages: [{ role: 'user', content: 42 }] });
await expectError('max_tokens wrong type', 400, { messages: [{ role: 'user', content: 'hi' }], max_tokens: 'ten' });
await expectError('max_tokens float', 400, { messages: [{ role: 'user', content: 'hi' }], max_tokens: 1.5 });
await expectError('temperature out of range', 400, { messages: [{ role: 'user', content: 'hi' }], temperature: 9 });
await expectError('stop wrong type', 400, { messages: [{ role: 'user', content: 'hi' }], stop: 5 });
await expectError('n = 0', 400, { messages: [{ role: 'user', content: 'hi' }], n: 0 });
await expectError('logit_bias bad token', 400, { messages: [{ role: 'user', content: 'hi' }], logit_bias: { 'abc': 1 } });
await expectError('logit_bias token out of range', 400, { messages: [{ role: 'user', content: 'hi' }], logit_bias: { '99999999': 1 } });
await expectError('prompt wrong type', 400, { prompt: { text: 'hi' } }, KEY, '/v1/completions');
await expectError('embeddings input wrong type', 400, { input: 5 }, KEY, '/v1/embeddings');
await expectError('huge body', 413, JSON.stringify({ prompt: 'a '.repeat(40000) }), KEY, '/v1/completions');
await expectError('prompt longer than a slot', 400, { prompt: 'the cat sat. '.repeat(400), max_tokens: 4 }, KEY, '/v1/completions');
await expectError('unknown endpoint', 404, {}, KEY, '/v1/nothing');
// invalid UTF-8 inside a JSON string
const bad = Buffer.concat([Buffer.from('{"prompt": "abc'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('", "max_tokens": 2}')]);
await expectError('invalid UTF-8', 400, new Uint8Array(bad), KEY, '/v1/completions');

// unknown fields are ignored (clients send extras)
const extra = await post('/v1/completions', { prompt: 'Once', max_tokens: 3, whatever: { deep: [1, 2] }, user: 'u1' }, KEY);
check(extra.status === 200, 'unknown fields are accepted', extra.text);

// a client that disconnects mid-stream: generation stops (tokens counted stay far below the request)
const before = await metric('llama_generated_tokens_total');
await new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: PORT, path: '/v1/completions', method: 'POST',
                               headers: { 'Content-Type': 'application/json', ...KEY } }, (res) => {
        res.once('data', () => { req.destroy(); resolve(); });
    });
    req.on('error', () => resolve());
    req.end(JSON.stringify({ prompt: 'Once', max_tokens: 1000, ignore_eos: true, stream: true, temperature: 0 }));
});
let busy = 1;
for (let i = 0; i < 100 && busy !== 0; i++) {
    await new Promise((r) => setTimeout(r, 20));
    busy = await metric('llama_slots_busy');
}
const after = await metric('llama_generated_tokens_total');
check(busy === 0 && after - before < 1000, 'disconnect mid-stream cancels the generation',
      `busy ${busy}, generated ${after - before}`);
await alive('client disconnect');

// queue limit: 1 slot + 2 waiting; more at once get 503 with Retry-After, the others complete
const flood = await Promise.all(Array.from({ length: 6 }, () =>
    post('/v1/completions', { prompt: 'Once', max_tokens: 1000, ignore_eos: true, temperature: 0 }, KEY)));
const n503 = flood.filter((r) => r.status === 503 && r.headers.get('retry-after') === '1').length;
const n200 = flood.filter((r) => r.status === 200 && r.json.usage.completion_tokens === 1000).length;
check(n503 >= 1 && n200 >= 3 && n503 + n200 === 6, 'queue limit: 503 + Retry-After, the rest complete', `200: ${n200}, 503: ${n503}`);
await alive('queue overflow');

// the second identical prompt reuses the slot's KV cache (prompt-prefix reuse)
const p1 = await post('/v1/completions', { prompt: 'The cat sat on the mat and looked at the dog', max_tokens: 2 }, KEY);
const p2 = await post('/v1/completions', { prompt: 'The cat sat on the mat and looked at the dog', max_tokens: 2 }, KEY);
check(p2.json?.usage?.prompt_tokens_details?.cached_tokens === p2.json?.usage?.prompt_tokens - 1 &&
      p1.json?.usage?.prompt_tokens_details?.cached_tokens < p2.json?.usage?.prompt_tokens - 1,
      'prompt prefix reused from the slot cache', JSON.stringify([p1.json?.usage, p2.json?.usage]));

const m = await (await fetch(BASE + '/metrics')).text();
check(/llama_requests_total\{endpoint="\/v1\/completions",status="400"\} \d+/.test(m) &&
      /llama_kv_cache_usage_ratio \S+/.test(m) && /llama_queue_depth 0/.test(m), '/metrics: Prometheus text');

// SIGTERM: the in-flight request still completes, new work is refused, then the server exits
// (run-server-test.sh checks its exit status 0)
const long = post('/v1/completions', { prompt: 'Once', max_tokens: 1000, ignore_eos: true, temperature: 0 }, KEY);
for (let i = 0; i < 100 && (await metric('llama_slots_busy')) !== 1; i++) await new Promise((r) => setTimeout(r, 5));
process.kill(Number(process.env.SERVER_PID), 'SIGTERM');
await new Promise((r) => setTimeout(r, 20));
let during = 0;
try { during = (await post('/v1/completions', { prompt: 'Once', max_tokens: 2 }, KEY)).status; } catch { during = -1; }
const lr = await long;
check(lr.status === 200 && lr.json.usage.completion_tokens === 1000, 'SIGTERM: the in-flight request completes', lr.text.slice(0, 200));
check(during === 503 || during === -1, 'SIGTERM: new requests are refused while draining', String(during));
done();
