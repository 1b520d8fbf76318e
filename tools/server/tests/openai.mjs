// llama-server through the official OpenAI client (npm `openai`): models, completions, chat
// (streamed and not), stop strings, seeds, n, logit_bias, embeddings, errors, and 32 concurrent
// streamed requests; greedy outputs must equal the library's own greedy output (greedy-ref).
import { createRequire } from 'node:module';
import { BASE, check, done, greedyRef } from './common.mjs';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai');
const client = new OpenAI({ baseURL: BASE + '/v1', apiKey: 'unused', maxRetries: 0, timeout: 60000 });

// Every greedy reference is computed first: greedyRef blocks node's event loop, and a pooled
// keep-alive socket the server closed meanwhile (its 5 s idle timeout) would then be reused.
const prompts = ['Once upon a time', 'The little dog', 'Lily wanted to'];
const refs = greedyRef(prompts, 40);
const chatRef = greedyRef(['Tell me a story'], 48, true)[0];
const words = ['Once upon a time', 'The cat', 'A big red ball', 'Tom and Sue went to the park', 'The sun',
               'One day, a little bird', 'Mom said', 'There was a tree'];
const jobs = Array.from({ length: 32 }, (_, i) => ({ prompt: words[i % 8] + (i >= 8 ? ' ' + 'and'.repeat(1 + i % 3) : ''),
                                                   max_tokens: 8 + (i * 7) % 57 }));
const uniq = [...new Set(jobs.map((j) => j.prompt))];
const refMap = new Map(greedyRef(uniq, 64).map((r, i) => [uniq[i], r]));

const models = await client.models.list();
check(models.data.length === 1 && models.data[0].id === 'stories260K.gguf', 'models: one model, id = file name',
      JSON.stringify(models.data));

// completions, greedy, equal to the library's greedy output
for (let i = 0; i < prompts.length; i++) {
    const r = await client.completions.create({ model: 'x', prompt: prompts[i], max_tokens: 40, temperature: 0 });
    check(r.choices[0].text === refs[i], `completion greedy = library greedy (${prompts[i]})`,
          JSON.stringify([r.choices[0].text, refs[i]]));
    check(r.usage.prompt_tokens > 0 && r.usage.completion_tokens > 0 && r.usage.completion_tokens <= 40 &&
          r.usage.total_tokens === r.usage.prompt_tokens + r.usage.completion_tokens, 'completion usage', JSON.stringify(r.usage));
}

// chat, not streamed and streamed, greedy
const msgs = [{ role: 'user', content: 'Tell me a story' }];
const c1 = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 48, temperature: 0 });
check(c1.choices[0].message.role === 'assistant' && c1.choices[0].message.content === chatRef,
      'chat greedy = library greedy with the chat template', JSON.stringify([c1.choices[0].message.content, chatRef]));
const stream = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 48, temperature: 0,
                                                      stream: true, stream_options: { include_usage: true } });
let streamed = '', finish = null, usage = null, nChunks = 0;
for await (const chunk of stream) {
    nChunks++;
    if (chunk.usage) usage = chunk.usage;
    for (const ch of chunk.choices) {
        streamed += ch.delta?.content ?? '';
        if (ch.finish_reason) finish = ch.finish_reason;
    }
}
check(streamed === chatRef && nChunks > 3, 'chat streamed = not streamed', JSON.stringify([streamed, nChunks]));
check(finish === 'stop' || finish === 'length', 'chat stream ends with a finish_reason', finish);
check(usage && usage.completion_tokens === c1.usage.completion_tokens, 'chat stream usage chunk', JSON.stringify(usage));

// stop strings, including one spanning token boundaries: the output ends right before it
const base = refs[0];
const stopStr = base.slice(12, 19);
const expect = base.slice(0, base.indexOf(stopStr));
for (const s of [false, true]) {
    let text = '';
    if (s) {
        const st = await client.completions.create({ model: 'x', prompt: prompts[0], max_tokens: 40, temperature: 0,
                                                    stop: [stopStr], stream: true });
        for await (const chunk of st) text += chunk.choices[0]?.text ?? '';
    } else {
        const r = await client.completions.create({ model: 'x', prompt: prompts[0], max_tokens: 40, temperature: 0,
                                                   stop: ['no such text', stopStr] });
        text = r.choices[0].text;
        check(r.choices[0].finish_reason === 'stop', 'stop string: finish_reason stop');
    }
    check(text === expect, `stop string across tokens (${s ? 'streamed' : 'not streamed'})`, JSON.stringify([text, expect]));
}

// seeds and n
const sampled = async (seed, n = 1) =>
    (await client.completions.create({ model: 'x', prompt: 'Once', max_tokens: 24, temperature: 1.0, top_p: 0.95,
                                      seed, n })).choices.map((c) => c.text);
const a = await sampled(7), b = await sampled(7);
check(a[0] === b[0] && a[0].length > 0, 'same seed, same sample', JSON.stringify([a, b]));
const many = await sampled(11, 3);
check(many.length === 3 && new Set(many).size > 1, 'n = 3 gives 3 different choices', JSON.stringify(many));

// logit_bias: one token forced everywhere
const forced = await client.completions.create({ model: 'x', prompt: 'Once', max_tokens: 4, temperature: 0,
                                                logit_bias: { '300': 100 } });
const t = forced.choices[0].text;
check(t.length > 0 && t === t.slice(0, t.length / 4).repeat(4), 'logit_bias forces one token', JSON.stringify(t));

// embeddings
const e = await client.embeddings.create({ model: 'x', input: ['a cat', 'a cat', 'the sea'] });
const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
check(e.data.length === 3 && e.data[0].embedding.length > 0 && Math.abs(norm(e.data[0].embedding) - 1) < 1e-3,
      'embeddings: normalised vectors');
check(JSON.stringify(e.data[0].embedding) === JSON.stringify(e.data[1].embedding) &&
      JSON.stringify(e.data[0].embedding) !== JSON.stringify(e.data[2].embedding), 'embeddings: deterministic, input-dependent');

// errors surface as the client's APIError with the status
const status = async (f) => { try { await f(); return 200; } catch (err) { return err.status ?? -1; } };
check(await status(() => client.chat.completions.create({ model: 'x', messages: 'hi' })) === 400, 'error: messages not an array');
check(await status(() => client.completions.create({ model: 'x', prompt: 'hi', temperature: 'hot' })) === 400, 'error: temperature type');
check(await status(() => client.completions.create({ model: 'x', prompt: 'hi', max_tokens: -5 })) === 400, 'error: negative max_tokens');

// 32 concurrent streamed requests of different lengths, each equal to its greedy reference
const t0 = Date.now();
const results = await Promise.all(jobs.map(async (j) => {
    const st = await client.completions.create({ model: 'x', prompt: j.prompt, max_tokens: j.max_tokens, temperature: 0,
                                                stream: true, stream_options: { include_usage: true } });
    let text = '', fin = null, u = null;
    for await (const chunk of st) {
        if (chunk.usage) u = chunk.usage;
        for (const ch of chunk.choices) { text += ch.text ?? ''; if (ch.finish_reason) fin = ch.finish_reason; }
    }
    return { text, fin, u };
}));
let good = 0;
results.forEach((r, i) => {
    const ref = refMap.get(jobs[i].prompt);
    const ok = r.u && (r.fin === 'length' ? r.u.completion_tokens === jobs[i].max_tokens && ref.startsWith(r.text)
                                          : r.fin === 'stop' && r.text === ref);
    if (ok) good++; else console.log('  mismatch', i, JSON.stringify([jobs[i], r, ref]));
});
check(good === 32, `32 concurrent streams complete and equal greedy (${good}/32, ${Date.now() - t0} ms)`);
done();
