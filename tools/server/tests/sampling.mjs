// The sampler flags as request defaults (llama-server --temp, --seed, ...): three servers on
// stories260K. PORT_GREEDY runs with --temp 0: a request without `temperature` is greedy (equal to
// the library's greedy output), and a request's own temperature wins over the flag. PORT_SEED_A and
// PORT_SEED_B both run with --seed 1234 and the default samplers: the same request without a seed
// gives the same sampled text on both, and that text is not the greedy one.
import { check, done, greedyRef } from './common.mjs';

const prompt = 'Once upon a time';
const [ref] = greedyRef([prompt], 48);

async function complete(port, body) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'x', prompt, max_tokens: 48, ...body }),
    });
    const json = await res.json();
    return { status: res.status, text: json.choices?.[0]?.text, json };
}

const g = process.env.PORT_GREEDY, a = process.env.PORT_SEED_A, b = process.env.PORT_SEED_B;

// --temp 0: the default is greedy, also for an OpenAI request that leaves temperature out
const plain = await complete(g, {});
check(plain.status === 200 && plain.text === ref, '--temp 0: a request without temperature is greedy',
      JSON.stringify([plain.text, ref]));
const chat = await fetch(`http://127.0.0.1:${g}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: prompt }], max_tokens: 32 }),
}).then((r) => r.json());
const [chatRef] = greedyRef([prompt], 32, true);
check(chat.choices?.[0]?.message?.content === chatRef, '--temp 0: a chat request without temperature is greedy',
      JSON.stringify([chat.choices?.[0]?.message?.content, chatRef]));

// the native /completion starts from the same defaults, and /props reports them
const native = await fetch(`http://127.0.0.1:${g}/completion`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ prompt, n_predict: 48 }),
}).then((r) => r.json());
check(native.content === ref, '--temp 0: /completion without temperature is greedy', JSON.stringify([native.content, ref]));
const props = await fetch(`http://127.0.0.1:${g}/props`).then((r) => r.json());
check(props.default_generation_settings?.params?.temperature === 0, '/props reports --temp 0',
      JSON.stringify(props.default_generation_settings?.params));

// the request's own temperature (and seed) wins: sampled, reproducible, not the greedy text
const hot1 = await complete(g, { temperature: 1.5, seed: 7 });
const hot2 = await complete(g, { temperature: 1.5, seed: 7 });
check(hot1.status === 200 && hot1.text !== ref && hot1.text === hot2.text,
      "a request's temperature wins over --temp 0", JSON.stringify([hot1.text, hot2.text, ref]));

// --seed 1234 on two servers: the same sampled text without a seed in the request
const sa = await complete(a, {});
const sb = await complete(b, {});
check(sa.status === 200 && sb.status === 200 && sa.text === sb.text,
      '--seed: two servers sample the same text', JSON.stringify([sa.text, sb.text]));
check(sa.text !== ref, '--seed: the default samplers (temperature 0.8) sample, not greedy', JSON.stringify(sa.text));
// a request's own seed wins over --seed
const other = await complete(a, { seed: 99 });
check(other.status === 200 && other.text !== sa.text, "a request's seed wins over --seed",
      JSON.stringify([other.text, sa.text]));

done();
