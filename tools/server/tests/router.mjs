// Router mode (--models-dir with alpha, beta, gamma: three copies of the model; broken.gguf: not a
// model; --models-memory-max 3M holds two copies; --sleep-idle-seconds 2): the official client's
// requests go to the instance of the model they name, alternating; a third model unloads the least
// recently used one; idle instances unload and load again on demand; errors are 4xx/5xx with a
// message and the router keeps serving.
import { execSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { BASE, check, done, greedyRef, post } from './common.mjs';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai');
const client = new OpenAI({ baseURL: BASE + '/v1', apiKey: 'unused', maxRetries: 0, timeout: 60000 });
const ref = greedyRef(['Once upon a time'], 24)[0];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function states() {
    const r = await (await fetch(BASE + '/v1/models')).json();
    return Object.fromEntries(r.data.map((m) => [m.id, m.status.value]));
}
const loaded = (s) => Object.keys(s).filter((k) => s[k] === 'loaded').sort().join(',');

let s = await states();
check(JSON.stringify(Object.keys(s).sort()) === '["alpha","beta","broken","delta","gamma"]' && loaded(s) === '',
      'models listed, none loaded', JSON.stringify(s));
const listed = await client.models.list();
check(listed.data.length === 5 && listed.data.every((m) => m.object === 'model'), 'the openai client lists them');

// alternating by name: each answer comes from the named model's instance and equals greedy
let allOk = true;
for (let i = 0; i < 6; i++) {
    const name = i % 2 ? 'beta' : 'alpha';
    const r = await client.completions.create({ model: name, prompt: 'Once upon a time', max_tokens: 24, temperature: 0 });
    allOk &&= r.model === name && r.choices[0].text === ref;
}
check(allOk, 'six requests alternating alpha/beta: each served by its model, greedy output');
s = await states();
check(loaded(s) === 'alpha,beta', 'alpha and beta loaded', JSON.stringify(s));

// chat, streamed, through the router
const stream = await client.chat.completions.create({ model: 'beta', messages: [{ role: 'user', content: 'Hi' }],
                                                      max_tokens: 16, temperature: 0, stream: true });
let text = '', chunks = 0;
for await (const c of stream) {
    text += c.choices[0]?.delta?.content ?? '';
    chunks++;
}
check(chunks > 3 && text.length > 0, 'a streamed chat arrives in chunks', `${chunks} chunks`);

// gamma does not fit beside both (3 MiB): alpha, the least recently used, makes room
const g = await client.completions.create({ model: 'gamma', prompt: 'Once upon a time', max_tokens: 24, temperature: 0 });
check(g.model === 'gamma' && g.choices[0].text === ref, 'gamma answers');
s = await states();
check(loaded(s) === 'beta,gamma', 'past the memory cap the least recently used model (alpha) was unloaded',
      JSON.stringify(s));

// two models at once
const both = await Promise.all(['alpha', 'gamma'].map((m) =>
    client.completions.create({ model: m, prompt: 'Once upon a time', max_tokens: 24, temperature: 0 })));
check(both[0].model === 'alpha' && both[1].model === 'gamma' && both.every((r) => r.choices[0].text === ref),
      'concurrent requests to two models');

// GET endpoints route by ?model=
const h = await fetch(BASE + '/metrics?model=gamma');
const mt = await h.text();
check(h.status === 200 && /llama_requests_total/.test(mt), 'GET /metrics?model=gamma reaches its instance');

// idle: after 2 s without requests every instance is unloaded; the next request loads again
await sleep(3500);
s = await states();
check(loaded(s) === '', 'idle instances unloaded', JSON.stringify(s));
const again = await client.completions.create({ model: 'beta', prompt: 'Once upon a time', max_tokens: 24, temperature: 0 });
check(again.choices[0].text === ref && loaded(await states()) === 'beta', 'a request loads an unloaded model again');

// a preset model: its instance runs with the preset's flags ([*] and its own section)
const d = await client.completions.create({ model: 'delta', prompt: 'Once upon a time', max_tokens: 24, temperature: 0 });
const dm = (await (await fetch(BASE + '/v1/models')).json()).data.find((m) => m.id === 'delta');
const dargs = (dm.status.args ?? []).join(' ');
check(d.choices[0].text === ref && /--max-tokens 512/.test(dargs) && /-c 1024/.test(dargs) && /--jinja/.test(dargs) &&
      dm.path.endsWith('alpha.gguf'), 'a preset model runs with its flags', dargs);
check(!/--api-key [0-9a-f]{8}/.test(dargs), "the instance's key is not shown");
check(/-np 2/.test(dargs) && !/--models-|--sleep-idle-seconds|--port 0 .*--port/.test(dargs),
      "the instance gets the router's flags but not its own", dargs);

// an instance that dies takes only itself down: the next request starts it again
execSync("pkill -KILL -f -- '--alias [d]elta '");  // [d]: not this shell's own command line
await sleep(600);
const dead = (await (await fetch(BASE + '/v1/models')).json()).data.find((m) => m.id === 'delta');
check(dead.status.value === 'unloaded' && dead.status.failed === true, 'a killed instance shows as failed',
      JSON.stringify(dead.status));
const revived = await client.completions.create({ model: 'delta', prompt: 'Once upon a time', max_tokens: 24, temperature: 0 });
check(revived.choices[0].text === ref, 'and the next request loads it again');

// explicit load / unload
let r = await post('/models/load', { model: 'alpha' });
check(r.status === 200 && r.json?.success === true && (await states()).alpha === 'loaded', 'POST /models/load');
r = await post('/models/unload', { model: 'alpha' });
check(r.status === 200 && (await states()).alpha === 'unloaded', 'POST /models/unload');

// errors
r = await post('/v1/completions', { model: 'nope', prompt: 'x' });
check(r.status === 404 && /nope/.test(r.json?.error?.message ?? ''), 'unknown model: 404 naming it', r.text);
r = await post('/v1/completions', { prompt: 'x' });
check(r.status === 400 && /'model' is required/.test(r.json?.error?.message ?? ''), 'no model: 400', r.text);
r = await post('/v1/completions', '{"model": "alpha", ');
check(r.status === 400, 'malformed JSON: 400', r.text);
r = await post('/v1/completions', { model: 7, prompt: 'x' });
check(r.status === 400 && /'model' must be a string/.test(r.json?.error?.message ?? ''), 'model not a string: 400');
r = await post('/v1/completions', { model: 'broken', prompt: 'x' });
check(r.status === 500 && /cannot load model 'broken'/.test(r.json?.error?.message ?? ''),
      'a file that is not a model: 500 with the instance\'s reason', r.text.slice(0, 300));
const b = (await (await fetch(BASE + '/v1/models')).json()).data.find((m) => m.id === 'broken');
check(b.status.value === 'unloaded' && b.status.failed === true && b.status.exit_code !== 0,
      '/v1/models shows the failure', JSON.stringify(b.status));
r = await post('/models/load', { model: 'nope' });
check(r.status === 404, '/models/load of an unknown model: 404');
const last = await client.completions.create({ model: 'gamma', prompt: 'Once upon a time', max_tokens: 24, temperature: 0 });
check(last.choices[0].text === ref, 'still serving after the errors');
done();
