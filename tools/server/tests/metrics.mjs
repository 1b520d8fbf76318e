// /metrics under load: the gateway gauges (requests waiting and running, KV-cache use 0..1) follow
// the work in flight, and upstream's llamacpp:* counters agree with what the requests report. The
// server runs with -np 2 -c 8192: four long requests keep both slots busy and two waiting.
import { BASE, check, done, metric, post } from './common.mjs';

async function scrape() {
    const text = await (await fetch(BASE + '/metrics')).text();
    const get = (name) => {
        const m = text.match(new RegExp(`^${name.replace(/[:]/g, '\\:')} (\\S+)$`, 'm'));
        return m ? Number(m[1]) : NaN;
    };
    return { text, get };
}

const before = await scrape();
for (const name of ['llama_requests_waiting', 'llama_requests_running', 'llama_kv_cache_usage_ratio',
                    'llamacpp:requests_processing', 'llamacpp:requests_deferred', 'llamacpp:kv_cache_usage_ratio',
                    'llamacpp:tokens_predicted_total', 'llamacpp:prompt_tokens_total', 'llamacpp:n_decode_total']) {
    check(Number.isFinite(before.get(name)), `${name} is exported`);
}
check(/# TYPE llamacpp:requests_deferred gauge/.test(before.text) &&
      /# TYPE llamacpp:tokens_predicted_total counter/.test(before.text), 'types as upstream declares them');
const predicted0 = before.get('llamacpp:tokens_predicted_total');

// four streamed requests of 3000 forced tokens; each reports its usage in the last chunk
async function stream(prompt) {
    const res = await fetch(BASE + '/v1/completions', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ prompt, max_tokens: 3000, ignore_eos: true, temperature: 0, stream: true,
                               stream_options: { include_usage: true } }),
    });
    const text = await res.text();
    const usage = text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)))
                      .find((j) => j.usage)?.usage;
    return usage;
}
const reqs = ['Once upon a time', 'The cat', 'Lily wanted', 'One day'].map(stream);
let maxRunning = 0, maxWaiting = 0, maxKv = 0, minKv = 1, upstreamAgrees = true, finished = false;
Promise.all(reqs).then(() => { finished = true; });
while (!finished) {
    const m = await scrape();
    const running = m.get('llama_requests_running'), waiting = m.get('llama_requests_waiting');
    const kv = m.get('llama_kv_cache_usage_ratio');
    maxRunning = Math.max(maxRunning, running);
    maxWaiting = Math.max(maxWaiting, waiting);
    maxKv = Math.max(maxKv, kv);
    minKv = Math.min(minKv, kv);
    upstreamAgrees &&= m.get('llamacpp:requests_processing') === running &&
                       m.get('llamacpp:requests_deferred') === waiting && m.get('llamacpp:kv_cache_usage_ratio') === kv;
    await new Promise((r) => setTimeout(r, 20));
}
const usages = await Promise.all(reqs);
check(usages.every((u) => u && u.completion_tokens === 3000), 'every request generated 3000 tokens',
      JSON.stringify(usages));
check(maxRunning === 2, 'running requests reach the 2 slots', String(maxRunning));
check(maxWaiting >= 1 && maxWaiting <= 4, 'requests wait while both slots are busy', String(maxWaiting));
check(maxKv > 0.3 && maxKv <= 1 && minKv >= 0, 'KV-cache use rises within 0..1', `${minKv}..${maxKv}`);
check(upstreamAgrees, "upstream's gauges equal ours in the same scrape");

const after = await scrape();
check(after.get('llama_requests_running') === 0 && after.get('llama_requests_waiting') === 0, 'gauges fall back to 0');
check(after.get('llamacpp:tokens_predicted_total') - predicted0 === 12000, 'tokens_predicted_total counts them',
      String(after.get('llamacpp:tokens_predicted_total') - predicted0));
check(after.get('llamacpp:prompt_seconds_total') > 0 && after.get('llamacpp:tokens_predicted_seconds_total') > 0 &&
      after.get('llamacpp:predicted_tokens_seconds') > 0, 'prompt and generation time and throughput');
const perDecode = after.get('llamacpp:n_busy_slots_per_decode');
check(perDecode > 1 && perDecode <= 2, 'busy slots per decode between 1 and the 2 slots', String(perDecode));
check(after.get('llamacpp:n_tokens_max') >= 3000 && after.get('llamacpp:n_tokens_max') <= 4096,
      'n_tokens_max: the longest sequence', String(after.get('llamacpp:n_tokens_max')));
const one = await post('/v1/completions', { prompt: 'Once', max_tokens: 4, temperature: 0 });
check(one.status === 200 && (await metric('llama_requests_running')) === 0, 'served afterwards');
done();
