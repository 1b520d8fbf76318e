// llama-server's speculative decoding on a hybrid target (the lfm2 micro model: conv states that
// cannot be cut back, so every step that rejects a draft sets them to the state after the kept tokens,
// recorded by the verification; docs/speculative.md). Three
// servers: plain (PORT_PLAIN), a plain llama model with the same vocabulary as draft (PORT_DRAFT: most
// drafts rejected), the n-gram drafter (PORT_NGRAM). Greedy output, one request at a time and four at
// once, equals the plain server's, and the same prompt again (prompt reuse) still does.
import { check, done } from './common.mjs';

const base = (port) => `http://127.0.0.1:${port}`;
const PLAIN = base(process.env.PORT_PLAIN), DRAFT = base(process.env.PORT_DRAFT), NGRAM = base(process.env.PORT_NGRAM);

async function complete(url, body) {
    const res = await fetch(url + '/completion', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                                   body: JSON.stringify({ temperature: 0, ...body }) });
    return res.json();
}

const prompts = ['Once upon a time', 'The little dog', 'one two three one two three one two', 'A big red ball'];
const N = 48;
const plain = [];
for (const p of prompts) {
    plain.push(await complete(PLAIN, { prompt: p, n_predict: N }));
}
check(plain.every((r) => r && r.tokens_predicted > 0), 'plain server answers');
for (const [name, url] of [['draft', DRAFT], ['ngram', NGRAM]]) {
    const one = [];
    for (const p of prompts) {
        one.push(await complete(url, { prompt: p, n_predict: N }));
    }
    check(one.every((r, i) => r.content === plain[i].content && r.tokens_predicted === plain[i].tokens_predicted),
          `${name}: greedy output = plain, one request at a time`,
          JSON.stringify([one.map((r) => r.content), plain.map((r) => r.content)]));
    const par = await Promise.all(prompts.map((p) => complete(url, { prompt: p, n_predict: N })));
    check(par.every((r, i) => r.content === plain[i].content), `${name}: greedy output = plain, 4 slots at once`,
          JSON.stringify(par.map((r) => r.content)));
    const drafted = one.reduce((a, r) => a + (r.timings.draft_n ?? 0), 0);
    const accepted = one.reduce((a, r) => a + (r.timings.draft_n_accepted ?? 0), 0);
    check(drafted > accepted, `${name}: drafts were proposed and some rejected (states restored)`,
          `${accepted}/${drafted}`);
    const again = await complete(url, { prompt: prompts[0], n_predict: N });
    check(again.content === plain[0].content, `${name}: the same prompt again = plain`, again.content);
}
done();
