// llama-server's speculative decoding (-md, --spec-type ngram; docs/server.md): three servers on
// the same model, one plain (PORT_PLAIN), one with the model itself as draft (PORT_DRAFT: every
// draft the target would also pick, so most are accepted), one with the n-gram drafter
// (PORT_NGRAM). Greedy output, stop strings, max_tokens, streaming and log-probabilities with
// speculation must equal the plain server's; timings report the drafts; per-request options.
import { check, done } from './common.mjs';

const base = (port) => `http://127.0.0.1:${port}`;
const PLAIN = base(process.env.PORT_PLAIN), DRAFT = base(process.env.PORT_DRAFT), NGRAM = base(process.env.PORT_NGRAM);

async function post(url, path, body) {
    const res = await fetch(url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                          body: JSON.stringify(body) });
    const text = await res.text();
    let json = null;
    try {
        json = JSON.parse(text);
    } catch {}
    return { status: res.status, text, json };
}
const complete = async (url, body) => (await post(url, '/completion', { temperature: 0, ...body })).json;

const prompts = ['Once upon a time', 'The little dog', 'Lily and Tom went to the park. They', 'One day, a big bird'];
const N = 96;

// greedy: one request at a time, then four at once (four slots in one verification batch)
const plain = [];
for (const p of prompts) {
    plain.push(await complete(PLAIN, { prompt: p, n_predict: N }));
}
check(plain.every((r) => r && r.tokens_predicted > 0 && r.timings.draft_n === undefined),
      'plain server: no draft counters in timings');
for (const [name, url] of [['draft', DRAFT], ['ngram', NGRAM]]) {
    const one = [];
    for (const p of prompts) {
        one.push(await complete(url, { prompt: p, n_predict: N }));
    }
    check(one.every((r, i) => r.content === plain[i].content && r.tokens_predicted === plain[i].tokens_predicted),
          `${name}: greedy output = plain, one request at a time`, JSON.stringify(one.map((r) => r.content)));
    const par = await Promise.all(prompts.map((p) => complete(url, { prompt: p, n_predict: N })));
    check(par.every((r, i) => r.content === plain[i].content), `${name}: greedy output = plain, 4 slots at once`,
          JSON.stringify(par.map((r) => r.content)));
    const drafted  = one.reduce((a, r) => a + (r.timings.draft_n ?? 0), 0);
    const accepted = one.reduce((a, r) => a + (r.timings.draft_n_accepted ?? 0), 0);
    check(drafted > 0 && accepted > 0 && accepted <= drafted, `${name}: timings.draft_n > 0, draft_n_accepted > 0`,
          `${drafted} ${accepted}`);
    if (name === 'draft') {
        check(accepted >= 0.8 * drafted, 'draft: the model as its own draft gets most drafts accepted',
              `${accepted}/${drafted}`);
    }
}

// stop strings and max_tokens that fall inside an accepted run; the slot's cache keeps only what was
// emitted, so the same request again (prompt reuse) still gives the same text
const ref = plain[0].content;
for (const at of [20, 45, 70]) {
    const stop = ref.slice(at, at + 4);
    if (stop.length < 4) {
        continue;
    }
    const a = await complete(PLAIN, { prompt: prompts[0], n_predict: N, stop: [stop] });
    for (const [name, url] of [['draft', DRAFT], ['ngram', NGRAM]]) {
        const b  = await complete(url, { prompt: prompts[0], n_predict: N, stop: [stop] });
        const b2 = await complete(url, { prompt: prompts[0], n_predict: N, stop: [stop] });
        check(b.content === a.content && b.stopping_word === stop && b.tokens_predicted === a.tokens_predicted &&
              b2.content === a.content, `${name}: stop string '${stop}' inside a run = plain`,
              JSON.stringify([a.content, b.content, b2.content]));
    }
}
for (const n of [1, 2, 7, 13, 31]) {
    const a = await complete(PLAIN, { prompt: prompts[1], n_predict: n });
    const b = await complete(DRAFT, { prompt: prompts[1], n_predict: n });
    const c = await complete(NGRAM, { prompt: prompts[1], n_predict: n });
    check(b.content === a.content && c.content === a.content && b.tokens_predicted === n && c.tokens_predicted === n,
          `max_tokens ${n}: the same text, exactly ${n} tokens`, JSON.stringify([a.content, b.content, c.content]));
}
// a continuation of a finished request's text reuses the slot's cache: it must hold only what was emitted
{
    const a1 = await complete(PLAIN, { prompt: prompts[2], n_predict: 9 });
    const b1 = await complete(DRAFT, { prompt: prompts[2], n_predict: 9 });
    const a2 = await complete(PLAIN, { prompt: prompts[2] + a1.content, n_predict: 40 });
    const b2 = await complete(DRAFT, { prompt: prompts[2] + b1.content, n_predict: 40 });
    check(b1.content === a1.content && b2.content === a2.content && b2.tokens_cached > 0,
          'draft: a continuation reusing the cache = plain', JSON.stringify([a2.content, b2.content, b2.tokens_cached]));
}

// a slot file saved after a task that ended inside an accepted run holds exactly the emitted tokens
// (the restore checks the cache against the token list) and gives the plain continuation
for (const at of [10, 17, 24, 38]) {
    const stop = ref.slice(at, at + 4);
    const a    = await complete(DRAFT, { prompt: prompts[0], n_predict: N, stop: [stop] });
    const save = await post(DRAFT, `/slots/${a.id_slot}?action=save`, { filename: 'spec.bin' });
    const back = await post(DRAFT, `/slots/${a.id_slot}?action=restore`, { filename: 'spec.bin' });
    check(save.status === 200 && back.status === 200 && back.json.n_restored === save.json.n_saved &&
          save.json.n_saved === a.tokens_evaluated + a.tokens_predicted - 1,
          `draft: slot file after stop '${stop}' = the emitted tokens, restored`, save.text + back.text);
}

// a grammar: the grammar and the chain are one sampler of the step (drafts follow it too)
{
    const schema = { type: 'object', properties: { name: { type: 'string', maxLength: 20 }, age: { type: 'integer' } },
                     required: ['name', 'age'] };
    const gbnf   = 'root ::= "Once upon a time, " [a-z ,]+ "."';
    for (const [what, extra] of [['json_schema', { json_schema: schema }], ['grammar', { grammar: gbnf }]]) {
        const a = await complete(PLAIN, { prompt: prompts[2], n_predict: 64, ...extra });
        const b = await complete(DRAFT, { prompt: prompts[2], n_predict: 64, ...extra });
        const c = await complete(NGRAM, { prompt: prompts[2], n_predict: 64, ...extra });
        check(a && b && c && b.content === a.content && c.content === a.content && (b.timings.draft_n ?? 0) > 0,
              `${what}: the same greedy text with -md and ngram, drafts made`,
              JSON.stringify([a?.content, b?.content, c?.content, b?.timings]));
    }
}

// sampling with a seed: n-gram drafts are accepted only where the chain draws the same token, so the
// text is the plain server's (a draft model's acceptance draws differ: same distribution, not text)
{
    const body = { prompt: prompts[0], n_predict: 64, temperature: 0.8, seed: 42, repeat_penalty: 1.1 };
    const a    = await complete(PLAIN, body);
    const c    = await complete(NGRAM, body);
    check(c.content === a.content && (c.timings.draft_n ?? 0) > 0, 'ngram: seeded sampling = plain, drafts made',
          JSON.stringify([a.content, c.content, c.timings]));
}

// streaming: the pieces concatenate to the plain text, every token once
{
    const res    = await fetch(DRAFT + '/completion', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                                         body: JSON.stringify({ prompt: prompts[3], n_predict: N,
                                                                                temperature: 0, stream: true }) });
    const events = (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
    check(events.map((e) => e.content).join('') === plain[3].content &&
          events.flatMap((e) => e.tokens ?? []).length === plain[3].tokens_predicted,
          'draft: streamed pieces = plain text, every token once');
}

// log-probabilities of every emitted token, read from the verification batch: within 1e-3, relative
// for the improbable tail (a batch of 9 tokens rounds differently from a batch of one on the CPU:
// up to ~4e-3 at a log-probability of -10); top entries matched by id (close ones may swap)
{
    const a  = await complete(PLAIN, { prompt: prompts[0], n_predict: 48, n_probs: 4 });
    const b  = await complete(DRAFT, { prompt: prompts[0], n_predict: 48, n_probs: 4 });
    const pa = a.completion_probabilities ?? [], pb = b.completion_probabilities ?? [];
    const close = (x, y) => Math.abs(x - y) <= 1e-3 * Math.max(1, Math.abs(x));
    const same  = (p, q) => q && q.id === p.id && close(q.logprob, p.logprob) &&
                           p.top_logprobs.every((t) => {
                               const u = q.top_logprobs.find((v) => v.id === t.id);
                               const last = q.top_logprobs[q.top_logprobs.length - 1].logprob;
                               return u ? close(u.logprob, t.logprob) : close(t.logprob, last);
                           });
    const bad = pa.findIndex((p, i) => !same(p, pb[i]));
    check(pa.length === 48 && pb.length === 48 && (b.timings.draft_n_accepted ?? 0) > 0 && bad < 0,
          'draft: log-probabilities = plain (within 1e-3, relative below -1)', JSON.stringify([pa.length, pb.length, b.timings, pa[bad], pb[bad]]));
}

// per-request options: speculative.n_max 0 turns it off, a small n_max still speculates
{
    const off = await complete(DRAFT, { prompt: prompts[1], n_predict: N, 'speculative.n_max': 0 });
    check(off.content === plain[1].content && off.timings.draft_n === undefined,
          'speculative.n_max 0: no drafts, the same text');
    const two = await complete(DRAFT, { prompt: prompts[1], n_predict: N, 'speculative.n_max': 2,
                                        'speculative.n_min': 1, 'speculative.p_min': 0.5 });
    check(two.content === plain[1].content && two.timings.draft_n > 0 && two.timings.draft_n <= 2 * N,
          'speculative.n_max 2: drafts, the same text', JSON.stringify(two.timings));
    const chat = await post(DRAFT, '/v1/chat/completions', { messages: [{ role: 'user', content: 'Hi' }],
                                                             max_tokens: 8, 'speculative.n_max': 4 });
    check(chat.status === 200, 'speculative.n_max on /v1/chat/completions', chat.text.slice(0, 200));
    const oa = await post(DRAFT, '/v1/completions', { prompt: prompts[0], max_tokens: 48, temperature: 0 });
    const op = await post(PLAIN, '/v1/completions', { prompt: prompts[0], max_tokens: 48, temperature: 0 });
    check(oa.json?.choices?.[0]?.text === op.json?.choices?.[0]?.text && oa.json.timings.draft_n > 0 &&
          oa.json.timings.draft_n_accepted > 0 && op.json.timings.draft_n === undefined,
          '/v1/completions: the plain text; timings.draft_n and draft_n_accepted (upstream\'s extra field)',
          JSON.stringify([oa.json?.timings, op.json?.timings]));
    // streamed OpenAI answers: each choice's last chunk carries that task's timings, the usage chunk
    // (one choice) too; with n 2 not streamed, each choice carries its own
    const sse = async (path, body) => {
        const res = await fetch(DRAFT + path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                                body: JSON.stringify(body) });
        return (await res.text()).split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)));
    };
    const cs = await sse('/v1/chat/completions', { messages: [{ role: 'user', content: 'Tell me a story' }],
                                                   max_tokens: 40, temperature: 0, stream: true,
                                                   stream_options: { include_usage: true } });
    const fin = cs.find((e) => e.choices?.[0]?.finish_reason), use = cs[cs.length - 1];
    check(fin?.timings?.predicted_n === use?.usage?.completion_tokens && fin.timings.draft_n > 0 &&
          use.timings?.draft_n === fin.timings.draft_n,
          'streamed chat: timings (with draft_n) on the finishing chunk and the usage chunk',
          JSON.stringify([fin, use]));
    const ts = await sse('/v1/completions', { prompt: prompts, max_tokens: 24, temperature: 0, stream: true });
    const ends = ts.filter((e) => e.choices?.[0]?.finish_reason);
    check(ends.length === prompts.length && ends.every((e) => e.timings?.predicted_n === 24 && e.timings.draft_n > 0),
          'streamed prompt list: every choice\'s last chunk has its timings', JSON.stringify(ends.map((e) => e.timings)));
    const n2 = await post(DRAFT, '/v1/completions', { prompt: prompts[2], max_tokens: 16, n: 2, temperature: 0 });
    check(n2.json?.choices?.length === 2 && n2.json.choices.every((c) => c.timings?.predicted_n === 16) &&
          n2.json.timings === undefined, 'n 2: timings in each choice', n2.text.slice(0, 400));
}
for (const [path, body, what] of [
    ['/completion', { prompt: 'x', 'speculative.n_max': -1 }, "'speculative.n_max'"],
    ['/completion', { prompt: 'x', 'speculative.n_max': 65 }, "'speculative.n_max'"],
    ['/completion', { prompt: 'x', 'speculative.n_max': 'many' }, "'speculative.n_max'"],
    ['/completion', { prompt: 'x', 'speculative.n_min': 1.5 }, "'speculative.n_min'"],
    ['/completion', { prompt: 'x', 'speculative.p_min': 2 }, "'speculative.p_min'"],
    ['/completion', { prompt: 'x', 'speculative.n_max': 2, 'speculative.n_min': 3 }, "'speculative.n_min'"],
    ['/v1/completions', { prompt: 'x', 'speculative.n_max': -5 }, "'speculative.n_max'"],
    ['/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], 'speculative.p_min': -1 },
     "'speculative.p_min'"],
]) {
    const r = await post(DRAFT, path, body);
    check(r.status === 400 && r.json?.error?.message?.includes(what), `400: ${path} ${JSON.stringify(body)}`,
          `${r.status} ${r.text.slice(0, 200)}`);
}

// /props and /slots say whether the server speculates
const props = await (await fetch(DRAFT + '/props')).json();
const pprops = await (await fetch(PLAIN + '/props')).json();
const slots = await (await fetch(NGRAM + '/slots')).json();
check(props.default_generation_settings.speculative === true &&
      props.default_generation_settings.params['speculative.types'] === 'draft' &&
      pprops.default_generation_settings.speculative === false && slots.every((s) => s.speculative === true),
      '/props and /slots: speculative');

// the server keeps serving greedy text after all that
const last = await complete(DRAFT, { prompt: prompts[2], n_predict: N });
check(last.content === plain[2].content, 'draft: still = plain at the end');
done();
