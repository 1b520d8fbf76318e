// Throughput of one llama-server with and without speculation (docs/benchmarks.md): greedy
// /completion requests, one at a time (CONC=1) or CONC at once, ROUNDS rounds over four prompts,
// N_PREDICT tokens each (ignore_eos). Prints generated tokens per second of wall time, the server's
// mean predicted_per_second and the drafts accepted.
//   PORT=8080 [N_PREDICT=256] [ROUNDS=5] [CONC=1] node bench-spec.mjs
const base = `http://127.0.0.1:${process.env.PORT}`;
const nPredict = Number(process.env.N_PREDICT ?? 256), rounds = Number(process.env.ROUNDS ?? 5);
const conc = Number(process.env.CONC ?? 1);
const prompts = ['Once upon a time', 'The little dog', 'Lily and Tom went to the park. They', 'One day, a big bird'];

async function one(prompt) {
    const res = await fetch(base + '/completion', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ prompt, n_predict: nPredict, temperature: 0, ignore_eos: true, cache_prompt: false }),
    });
    return (await res.json());
}
await one(prompts[0]);  // warm-up
let tokens = 0, drafted = 0, accepted = 0;
const rates = [];
const t0 = performance.now();
for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < prompts.length; i += conc) {
        const out = await Promise.all(prompts.slice(i, i + conc).map(one));
        for (const o of out) {
            tokens += o.tokens_predicted;
            drafted += o.timings.draft_n ?? 0;
            accepted += o.timings.draft_n_accepted ?? 0;
            rates.push(o.timings.predicted_per_second);
        }
    }
}
const secs = (performance.now() - t0) / 1000;
const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
console.log(JSON.stringify({ conc, requests: rates.length, tokens, wall_tok_s: +(tokens / secs).toFixed(1),
                             mean_predicted_per_second: +mean.toFixed(1), drafted, accepted }));
