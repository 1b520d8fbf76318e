// /infill (fill-in-the-middle) on a copy of the test model given FIM token ids (gguf-fim.mjs):
// the prompt it builds is checked token by token against upstream's layout — the greedy text and
// the evaluated token count equal those of /completion on the expected token ids — with extra
// chunks, the 3:1 prefix/suffix cut of one batch, mixed token/text input, streaming and bad input.
// Env: PORT (-np 1 -c 2048 -b 64), FIM_PRE / FIM_SUF / FIM_MID (the ids written into the model).
import { check, done, post } from './common.mjs';

const [PRE, SUF, MID] = [process.env.FIM_PRE, process.env.FIM_SUF, process.env.FIM_MID].map(Number);
const N_BATCH = 64;
const tok = async (text) => (await post('/tokenize', { content: text, add_special: false, parse_special: false })).json.tokens;
const BOS = (await post('/tokenize', { content: 'a', add_special: true })).json.tokens[0];

// upstream's layout without FIM_REP / FIM_SEP: [snippets] BOS PRE prefix prompt SUF suffix MID
async function expected(prefix, suffix, typed = '', extra = []) {
    let pre = await tok(prefix), suf = await tok(suffix);
    const t = typed ? await tok(typed) : [];
    pre = pre.slice(Math.max(0, pre.length - 3 * (N_BATCH / 4)));
    suf = suf.slice(0, Math.max(0, N_BATCH / 4 - (2 + t.length)));
    const ex = [];
    for (const c of extra) ex.push(...(await tok('\n\n--- snippet ---\n\n')), ...(await tok(c.text)));
    return [...ex, BOS, PRE, ...pre, ...t, SUF, ...suf, MID];
}

async function same(what, body, ids) {
    const inf = await post('/infill', { ...body, n_predict: 12, temperature: 0 });
    const ref = (await post('/completion', { prompt: ids, n_predict: 12, temperature: 0, cache_prompt: false })).json;
    check(inf.status === 200 && inf.json.content === ref.content && inf.json.tokens_evaluated === ids.length &&
          inf.json.tokens_predicted === 12, `${what}: same prompt as upstream's layout (${ids.length} tokens)`,
          `${inf.text} vs ${JSON.stringify(ref.content)} (${ids.length})`);
    return inf.json;
}

const prefix = 'def add(a, b):\n    ', suffix = '\n    return c\n';
const basic = await same('prefix + suffix', { input_prefix: prefix, input_suffix: suffix }, await expected(prefix, suffix));
check(basic.id_slot === 0 && basic.stop === true && basic.timings.predicted_n === 12, 'response shape as /completion');
await same('with prompt', { input_prefix: prefix, input_suffix: suffix, prompt: 'c = ' },
           await expected(prefix, suffix, 'c = '));
const extra = [{ filename: 'util.py', text: 'def sub(a, b):\n    return a - b\n' }, { text: 'x = 1' }];
await same('with input_extra', { input_prefix: prefix, input_suffix: suffix, input_extra: extra },
           await expected(prefix, suffix, '', extra));
// a long prefix keeps its last 3/4 batch, a long suffix its first part of the last quarter
const longPre = Array.from({ length: 80 }, (_, i) => `line${i}`).join(' ');
const longSuf = Array.from({ length: 80 }, (_, i) => `tail${i}`).join(' ');
await same('long prefix and suffix cut', { input_prefix: longPre, input_suffix: longSuf, prompt: 'x' },
           await expected(longPre, longSuf, 'x'));
// mixed input: token ids and text
const ids = await tok('def add');
const mixed = await same('mixed prefix', { input_prefix: [...ids, '(a, b):\n    '], input_suffix: suffix },
                         [BOS, PRE, ...ids, ...(await tok('(a, b):\n    ')), SUF, ...(await tok(suffix)), MID]);
check(mixed.content.length > 0, 'mixed prefix: generates');

// streamed: the pieces make the non-streamed content
const res = await fetch(`http://127.0.0.1:${process.env.PORT}/infill`, { method: 'POST',
    body: JSON.stringify({ input_prefix: prefix, input_suffix: suffix, n_predict: 12, temperature: 0, stream: true }) });
const events = (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
check(events.map((e) => e.content).join('') === basic.content && events.at(-1).stop === true, 'streamed = not streamed');

// bad input: 400 naming the field
const bad = [
    [{ input_suffix: 'x' }, 'input_prefix'],
    [{ input_prefix: 'x' }, 'input_suffix'],
    [{ input_prefix: 'x', input_suffix: 'y', prompt: 3 }, 'prompt'],
    [{ input_prefix: 'x', input_suffix: 'y', input_extra: 'z' }, 'input_extra'],
    [{ input_prefix: 'x', input_suffix: 'y', input_extra: [{ filename: 'a' }] }, 'input_extra'],
    [{ input_prefix: 'x', input_suffix: 'y', input_extra: [{ text: 'a', filename: 1 }] }, 'filename'],
    [{ input_prefix: 7, input_suffix: 'y' }, 'input_prefix'],
    [{ input_prefix: [999999], input_suffix: 'y' }, 'input_prefix'],
];
for (const [body, field] of bad) {
    const r = await post('/infill', body);
    check(r.status === 400 && r.json?.error?.message.includes(field), `bad ${JSON.stringify(body)}: 400 naming ${field}`, r.text);
}
const again = await post('/infill', { input_prefix: prefix, input_suffix: suffix, n_predict: 12, temperature: 0 });
check(again.status === 200 && again.json.content === basic.content, 'the server still serves');
done();
