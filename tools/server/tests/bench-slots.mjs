// Aggregate decode throughput of 4 slots vs 1 slot (continuous batching): 4 concurrent requests of
// BENCH_TOKENS (default 128) generated tokens each, on a 1-slot server (they queue) and a 4-slot
// server, measured alternately 3 times each so both see the same machine load. Prints both and the
// ratio of the medians; fails when a request is incomplete or the ratio is below BENCH_MIN_RATIO
// (default 0: stories260K is so small that a decode step costs its fixed overhead, and batching
// cannot win there; run with BENCH_MODEL=<a real-size model> BENCH_MIN_RATIO=2.5 for the target).
const N = Number(process.env.BENCH_TOKENS ?? 128);
const run = async (port) => {
    const t0 = performance.now();
    const rs = await Promise.all([0, 1, 2, 3].map((i) => fetch(`http://127.0.0.1:${port}/v1/completions`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ prompt: ['Once', 'The dog', 'Lily', 'A boy'][i], max_tokens: N, ignore_eos: true, temperature: 0 }),
    }).then((r) => r.json())));
    const secs = (performance.now() - t0) / 1000;
    const toks = rs.reduce((s, r) => s + (r.usage?.completion_tokens ?? 0), 0);
    if (toks !== 4 * N) throw new Error(`incomplete: ${toks} tokens`);
    return toks / secs;
};
const one = [], four = [];
await run(process.env.PORT1); await run(process.env.PORT4);  // warm-up
for (let rep = 0; rep < 3; rep++) {
    one.push(await run(process.env.PORT1));
    four.push(await run(process.env.PORT4));
}
const med = (a) => [...a].sort((x, y) => x - y)[1];
const ratio = med(four) / med(one);
console.log(`1 slot : ${one.map((x) => x.toFixed(0)).join(', ')} tokens/s`);
console.log(`4 slots: ${four.map((x) => x.toFixed(0)).join(', ')} tokens/s`);
console.log(`ratio (median 4 slots / median 1 slot): ${ratio.toFixed(2)} (issue target >= 2.5)`);
const minRatio = Number(process.env.BENCH_MIN_RATIO ?? 0);
if (!(ratio >= minRatio)) { console.log(`FAIL: ratio below ${minRatio}`); process.exit(1); }
