// llama-server through the official OpenAI client: log-probabilities (chat and completions,
// streamed and not), prompt lists and token-id prompts on /v1/completions. Greedy outputs must equal
// the library's own greedy output (greedy-ref); log-probabilities must be those of the model's
// distribution before the samplers.
import { createRequire } from 'node:module';
import { BASE, check, done, greedyRef, post } from './common.mjs';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai');
const client = new OpenAI({ baseURL: BASE + '/v1', apiKey: 'unused', maxRetries: 0, timeout: 60000 });

// greedy references first (greedyRef blocks the event loop; see openai.mjs)
const prompts = ['Once upon a time', 'The little dog', 'Lily wanted to'];
const refs = greedyRef(prompts, 24);
const chatRef = greedyRef(['Tell me a story'], 24, true)[0];

const status = async (f) => { try { await f(); return 200; } catch (err) { return err.status ?? -1; } };
const finiteLp = (x) => Number.isFinite(x) && x <= 0;
const bytesText = (entries) => Buffer.concat(entries.map((e) => Buffer.from(e.bytes))).toString('utf8');
const close = (a, b) => Math.abs(a - b) < 1e-4;

// chat, not streamed: every entry well formed, greedy picks the top-1 entry, tokens make the text
const msgs = [{ role: 'user', content: 'Tell me a story' }];
const c1 = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 24, temperature: 0,
                                                  logprobs: true, top_logprobs: 5 });
const content = c1.choices[0].logprobs?.content ?? [];
check(c1.choices[0].message.content === chatRef, 'chat greedy with logprobs = library greedy');
check(content.length === c1.usage.completion_tokens || content.length === c1.usage.completion_tokens - 1,
      'chat: one entry per generated token (end-of-generation excluded)', `${content.length} ${c1.usage.completion_tokens}`);
check(content.every((e) => finiteLp(e.logprob) && e.top_logprobs.length === 5 && e.top_logprobs.every((t) => finiteLp(t.logprob))),
      'chat: logprobs finite and <= 0, 5 top entries each');
check(content.every((e) => e.top_logprobs.every((t, i) => i === 0 || e.top_logprobs[i - 1].logprob >= t.logprob)),
      'chat: top_logprobs sorted, most probable first');
check(content.every((e) => e.top_logprobs.reduce((s, t) => s + Math.exp(t.logprob), 0) <= 1 + 1e-4),
      'chat: top probabilities sum to at most 1');
check(content.every((e) => e.top_logprobs.some((t) => t.token === e.token && close(t.logprob, e.logprob))),
      'chat: the chosen token is among the top entries (greedy)');
check(content.every((e) => e.top_logprobs[0].token === e.token && close(e.top_logprobs[0].logprob, e.logprob)),
      'chat: temperature 0 picks the top-1 entry');
check(bytesText(content) === c1.choices[0].message.content, 'chat: token bytes concatenate to the text');
check(content.every((e) => e.token === Buffer.from(e.bytes).toString('utf8') || e.bytes.length < 4),
      'chat: token text matches its bytes');

// chat, streamed: the same entries, spread over the chunks
const s1 = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 24, temperature: 0,
                                                  logprobs: true, top_logprobs: 2, stream: true });
let sText = '';
const sEntries = [];
for await (const chunk of s1) {
    for (const ch of chunk.choices) {
        sText += ch.delta?.content ?? '';
        sEntries.push(...(ch.logprobs?.content ?? []));
    }
}
check(sText === chatRef && bytesText(sEntries) === sText, 'chat stream: entries concatenate to the streamed text');
check(sEntries.length === content.length && sEntries.every((e, i) => e.token === content[i].token &&
      close(e.logprob, content[i].logprob) && e.top_logprobs.length === 2),
      'chat stream: the same tokens and logprobs as not streamed');

// before the samplers: top_k 1 at a high temperature still reports the model's log-probabilities
const c2 = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 24, temperature: 1.5, top_k: 1,
                                                  logprobs: true });
const c2e = c2.choices[0].logprobs.content;
check(c2.choices[0].message.content === chatRef && c2e.length === content.length &&
      c2e.every((e, i) => close(e.logprob, content[i].logprob) && e.top_logprobs.length === 0),
      'logprobs are pre-sampler (top_k 1 + temperature 1.5 report the same values)');
check(c2e.some((e) => e.logprob < -1e-3), 'logprobs are not the sampler\'s (some chosen token has p < 1)');
const c3 = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 4 });
check(c3.choices[0].logprobs === null, 'chat without logprobs: logprobs null');

// completions: the legacy arrays
const r1 = await client.completions.create({ model: 'x', prompt: prompts[0], max_tokens: 24, temperature: 0, logprobs: 3 });
const lp = r1.choices[0].logprobs;
check(r1.choices[0].text === refs[0], 'completion greedy with logprobs = library greedy');
check(lp && lp.tokens.join('') === r1.choices[0].text, 'completion: tokens concatenate to the text');
check(lp.token_logprobs.length === lp.tokens.length && lp.token_logprobs.every(finiteLp), 'completion: token_logprobs');
check(lp.top_logprobs.every((t, i) => Object.keys(t).length <= 3 && Object.keys(t).length >= 1 &&
      close(Math.max(...Object.values(t)), lp.token_logprobs[i]) && t[lp.tokens[i]] !== undefined),
      'completion: top_logprobs hold the greedy token as the most probable');
let off = 0;
check(lp.text_offset.every((o, i) => { const ok = o === off; off += Buffer.byteLength(lp.tokens[i]); return ok; }),
      'completion: text_offset is each token\'s byte offset in the text', JSON.stringify(lp.text_offset));
const rs = await client.completions.create({ model: 'x', prompt: prompts[0], max_tokens: 24, temperature: 0, logprobs: 1,
                                            stream: true });
let rsText = '';
const rsTokens = [], rsLps = [];
for await (const chunk of rs) {
    for (const ch of chunk.choices) {
        rsText += ch.text;
        rsTokens.push(...(ch.logprobs?.tokens ?? []));
        rsLps.push(...(ch.logprobs?.token_logprobs ?? []));
    }
}
check(rsText === refs[0] && rsTokens.join('') === rsText, 'completion stream: tokens concatenate to the text');
check(rsLps.length === lp.token_logprobs.length && rsLps.every((x, i) => close(x, lp.token_logprobs[i])),
      'completion stream: the same logprobs as not streamed');

// upstream's n_probs on the OpenAI endpoints
const r7 = await client.completions.create({ model: 'x', prompt: prompts[0], max_tokens: 4, temperature: 0, n_probs: 2 });
check(r7.choices[0].logprobs?.top_logprobs.length === 4 && r7.choices[0].logprobs.top_logprobs.every((t) => Object.keys(t).length === 2),
      'completion: n_probs gives 2 top entries per token');
const c4 = await client.chat.completions.create({ model: 'x', messages: msgs, max_tokens: 4, temperature: 0, n_probs: 3 });
check(c4.choices[0].logprobs?.content.every((e) => e.top_logprobs.length === 3), 'chat: n_probs gives 3 top entries per token');

// a stop string holds text back: the entries are those of the tokens that made the returned text
const stopStr = refs[0].slice(9, 15);
const r2 = await client.completions.create({ model: 'x', prompt: prompts[0], max_tokens: 24, temperature: 0, logprobs: 0,
                                            stop: stopStr });
const t2 = r2.choices[0].text, k2 = r2.choices[0].logprobs.tokens;
check(t2 === refs[0].slice(0, refs[0].indexOf(stopStr)) && k2.join('').startsWith(t2) &&
      k2.slice(0, -1).join('').length < t2.length, 'stop string: entries cover exactly the returned text',
      JSON.stringify([t2, k2]));

// bad log-probability fields
check(await status(() => client.chat.completions.create({ model: 'x', messages: msgs, logprobs: true, top_logprobs: 21 })) === 400,
      'error: top_logprobs > 20');
check(await status(() => client.chat.completions.create({ model: 'x', messages: msgs, top_logprobs: 2 })) === 400,
      'error: top_logprobs without logprobs');
check(await status(() => client.chat.completions.create({ model: 'x', messages: msgs, logprobs: 'yes' })) === 400,
      'error: chat logprobs not a boolean');
check(await status(() => client.completions.create({ model: 'x', prompt: 'hi', logprobs: 1.5 })) === 400,
      'error: completion logprobs not an integer');

// prompt lists: one choice per prompt x n, index = prompt * n + i, each the single-prompt answer
const r3 = await client.completions.create({ model: 'x', prompt: prompts, n: 2, max_tokens: 24, temperature: 0 });
check(r3.choices.length === 6 && r3.choices.every((c, i) => c.index === i && c.text === refs[Math.floor(i / 2)]),
      'prompt list x n=2: 6 choices in order, each = library greedy', JSON.stringify(r3.choices.map((c) => c.text)));
const singles = await Promise.all(prompts.map((p) => client.completions.create({ model: 'x', prompt: p, max_tokens: 1 })));
check(r3.usage.prompt_tokens === singles.reduce((s, r) => s + r.usage.prompt_tokens, 0),
      'prompt list: usage counts every prompt once');
const r4 = await client.completions.create({ model: 'x', prompt: prompts, max_tokens: 24, temperature: 0, stream: true });
const texts4 = ['', '', ''];
for await (const chunk of r4) {
    for (const ch of chunk.choices) texts4[ch.index] += ch.text;
}
check(texts4.every((t, i) => t === refs[i]), 'prompt list streamed: each index = library greedy', JSON.stringify(texts4));

// token-id prompts: the text prompt's tokens (with BOS, as text prompts get) give the same answer
const ids = await Promise.all(prompts.map(async (p) => (await post('/tokenize', { content: p, add_special: true })).json.tokens));
const r5 = await client.completions.create({ model: 'x', prompt: ids[0], max_tokens: 24, temperature: 0 });
check(r5.choices.length === 1 && r5.choices[0].text === refs[0] && r5.usage.prompt_tokens === ids[0].length,
      'token-id prompt = text prompt');
const r6 = await client.completions.create({ model: 'x', prompt: [ids[1], ids[2]], max_tokens: 24, temperature: 0 });
check(r6.choices.length === 2 && r6.choices[0].text === refs[1] && r6.choices[1].text === refs[2],
      'list of token-id prompts = the text prompts');
for (const [bad, what] of [[[1, 512], 'id = n_vocab'], [[1, -1], 'negative id'], [[1, 2.5], 'fractional id'],
                           [[], 'empty array'], [[[]], 'empty token prompt'], [[1, {}], 'object in a prompt'],
                           [[[1, 2], 7], 'list mixing an array and an id'], [true, 'boolean']]) {
    check(await status(() => client.completions.create({ model: 'x', prompt: bad, max_tokens: 2 })) === 400,
          `error: token prompt, ${what}`);
}
check(await status(() => client.completions.create({ model: 'x', prompt: Array(65).fill('a'), max_tokens: 1 })) === 400,
      'error: more than 64 prompts');
const after = await client.completions.create({ model: 'x', prompt: prompts[1], max_tokens: 24, temperature: 0 });
check(after.choices[0].text === refs[1], 'the server keeps serving after the errors');

done();
