// --timeout: a request still running when it expires ends with 504 (not streamed) or an error
// event (streamed), the engine drops its work, and the next request is served. The server runs
// with --timeout 1 -np 1 -c 4096; 16 choices of 3000 forced tokens take far longer than 1 s.
import { BASE, check, done, post } from './common.mjs';

const long = { prompt: 'Once', max_tokens: 3000, ignore_eos: true, n: 16, temperature: 0 };
let t0 = Date.now();
const r = await post('/v1/completions', long);
let dt = (Date.now() - t0) / 1000;
check(r.status === 504 && /timed out/.test(r.json?.error?.message ?? ''), 'not streamed: 504 with a message',
      `${r.status} ${r.text.slice(0, 200)}`);
check(dt >= 0.9 && dt < 30, 'not streamed: after about the timeout', String(dt));

t0 = Date.now();
const res = await fetch(BASE + '/v1/completions', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                                    body: JSON.stringify({ ...long, stream: true }) });
const text = await res.text();
dt = (Date.now() - t0) / 1000;
check(res.status === 200 && /data: \{"error"/.test(text) && /timed out/.test(text), 'streamed: an error event',
      text.slice(-300));
check(dt < 30, 'streamed: ends after about the timeout', String(dt));

const ok = await post('/v1/completions', { prompt: 'Once', max_tokens: 8, temperature: 0 });
check(ok.status === 200 && ok.json.choices[0].text.length > 0, 'the next request is served', ok.text.slice(0, 200));
const m = await (await fetch(BASE + '/metrics')).text();
check(/llama_requests_total\{endpoint="\/v1\/completions",status="504"\} [1-9]/.test(m), '/metrics counts the 504');
done();
