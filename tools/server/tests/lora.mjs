// LoRA per request (--lora, GET/POST /lora-adapters, the `lora` field): the greedy text of each
// request equals the library's greedy text of the model with the adapter merged at that request's
// scale (llama-gguf-synth --merge; scale 0 = the base model), also for concurrent requests with
// different scales on two slots (a batch holds one configuration) and for the same prompt again on
// a slot whose cache was computed with another scale; bad `lora` values are 400.
// Env: PORT (-np 2 --lora LORA), PORT_NOAPPLY (--lora LORA --lora-init-without-apply), LORA, MERGED_1, MERGED_05 (the model merged at scale 1 and 0.5).
import { execFileSync } from 'node:child_process';
import { BASE, check, done, post } from './common.mjs';

const N = 24;
const prompts = ['Once upon a time', 'The little dog'];
// the library's greedy continuation of each prompt on one model file (tests/greedy-ref.cpp)
const greedy = (model, chat = false) => execFileSync(process.env.GREEDY_REF,
    [model, String(N), ...(chat ? ['--chat'] : []), ...prompts], { encoding: 'utf8' })
    .trim().split('\n').map((hex) => Buffer.from(hex, 'hex').toString('utf8'));
const refs = { 0: greedy(process.env.MODEL), 0.5: greedy(process.env.MERGED_05), 1: greedy(process.env.MERGED_1) };
check(refs[0][0] !== refs[1][0] && refs[0.5][0] !== refs[1][0], 'the adapter changes the greedy text (else this test proves nothing)');

const complete = async (prompt, lora) =>
    post('/completion', { prompt, n_predict: N, temperature: 0, ...(lora === undefined ? {} : { lora }) });
const adapters = async () => (await fetch(BASE + '/lora-adapters')).json();

const list = await adapters();
check(list.length === 1 && list[0].id === 0 && list[0].path === process.env.LORA && list[0].scale === 1,
      'GET /lora-adapters: id, path, scale 1 (--lora)', JSON.stringify(list));

// one request at a time, the same prompts alternating scales: a slot's cache made with another
// scale is not reused
for (const [what, lora, scale] of [['no lora field: the global scale 1', undefined, 1], ['scale 0', [{ id: 0, scale: 0 }], 0],
                                   ['scale 1', [{ id: 0, scale: 1 }], 1], ['empty list: scale 0', [], 0],
                                   ['scale 0.5', [{ id: 0, scale: 0.5 }], 0.5], ['scale 0 again', [{ id: 0, scale: 0 }], 0]]) {
    const r = await complete(prompts[0], lora);
    check(r.status === 200 && r.json.content === refs[scale][0], `${what} = merged at ${scale}`, r.text);
}

// concurrent requests with different scales on two slots: each gets its own answer
const jobs = [[0, 0], [1, 1], [0, 0.5], [1, 0], [0, 1], [1, 0.5]];
const results = await Promise.all(jobs.map(([p, scale]) => complete(prompts[p], [{ id: 0, scale }])));
jobs.forEach(([p, scale], i) => check(results[i].json?.content === refs[scale][p],
                                      `concurrent: prompt ${p} at scale ${scale}`, results[i].text));
// streamed too
const res = await fetch(BASE + '/completion', { method: 'POST', body: JSON.stringify({ prompt: prompts[1], n_predict: N,
    temperature: 0, stream: true, lora: [{ id: 0, scale: 0.5 }] }) });
const text = (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)).content).join('');
check(text === refs[0.5][1], 'streamed at scale 0.5');

// the OpenAI endpoint takes the field too
const chat = await post('/v1/chat/completions', { messages: [{ role: 'user', content: prompts[0] }], max_tokens: N,
                                                  temperature: 0, lora: [{ id: 0, scale: 0 }] });
const chatRef = execFileSync(process.env.GREEDY_REF, [process.env.MODEL, String(N), '--chat', prompts[0]], { encoding: 'utf8' }).trim();
check(chat.json?.choices?.[0]?.message?.content === Buffer.from(chatRef, 'hex').toString('utf8'), 'chat completion at scale 0 = base',
      chat.text);

// POST /lora-adapters sets the global scale (unlisted adapters 0)
let set = await post('/lora-adapters', [{ id: 0, scale: 0.5 }]);
check(set.status === 200 && set.json.success === true && (await adapters())[0].scale === 0.5, 'POST /lora-adapters: scale 0.5');
check((await complete(prompts[1])).json.content === refs[0.5][1], 'no lora field after POST: the new global scale 0.5');
set = await post('/lora-adapters', []);
check(set.status === 200 && (await adapters())[0].scale === 0, 'POST /lora-adapters []: scale 0');
check((await complete(prompts[1])).json.content === refs[0][1], 'no lora field: global scale 0 = base');
check((await complete(prompts[1], [{ id: 0, scale: 1 }])).json.content === refs[1][1], 'a request still overrides it');

// bad input: 400 naming the field, the server keeps serving
for (const [lora, what] of [['x', 'not an array'], [[{ id: 1, scale: 1 }], 'unknown id'], [[{ id: -1, scale: 1 }], 'negative id'],
                            [[{ id: 0, scale: 'big' }], 'scale not a number'], [[{ scale: 1 }], 'no id'], [[3], 'not an object']]) {
    const r = await complete(prompts[0], lora);
    check(r.status === 400 && /'lora'/.test(r.json?.error?.message), `lora ${what}: 400 naming 'lora'`, r.text);
}
for (const body of ['{"id": 0}', '[{"id": 5, "scale": 1}]', 'nope']) {
    const r = await post('/lora-adapters', body);
    check(r.status === 400, `POST /lora-adapters ${body}: 400`, r.text);
}
check((await adapters())[0].scale === 0, 'a refused POST /lora-adapters changes nothing');
check((await complete(prompts[0], [{ id: 0, scale: 1 }])).json.content === refs[1][0], 'the server still serves');

// --lora-init-without-apply: global scale 0 until set
const noApply = `http://127.0.0.1:${process.env.PORT_NOAPPLY}`;
const na = await (await fetch(noApply + '/lora-adapters')).json();
check(na.length === 1 && na[0].scale === 0, '--lora-init-without-apply: scale 0', JSON.stringify(na));
const naRun = async (lora) => (await (await fetch(noApply + '/completion', { method: 'POST', body: JSON.stringify({ prompt: prompts[0],
    n_predict: N, temperature: 0, ...(lora ? { lora } : {}) }) })).json()).content;
check(await naRun() === refs[0][0], '--lora-init-without-apply: no lora field = base');
check(await naRun([{ id: 0, scale: 1 }]) === refs[1][0], '--lora-init-without-apply: a request applies it');
done();
