// examples/nginx: three llama-server replicas behind nginx (least_conn). One replica is killed
// (SIGKILL) during a run of 60 requests; every request must still complete (nginx retries on
// another replica), and the survivors' /metrics must count exactly the requests nginx's access
// log says they answered.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { check, done } from './common.mjs';

const freePort = () => new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const prefix = process.env.WORK + '/nginx';
fs.rmSync(prefix, { recursive: true, force: true });
const port = await freePort();
const child = spawn('bash', [process.env.RUN_REPLICAS, process.env.SERVER, process.env.MODEL, String(port), '3', prefix],
                    { stdio: ['ignore', 'pipe', 'inherit'] });
process.on('exit', () => child.kill('SIGTERM'));  // never leave replicas behind
const replicas = [];
let out = '';
child.stdout.on('data', (d) => {
    out += d;
    for (const line of out.split('\n')) {
        const m = line.match(/^replica (\d+) (\d+)$/);
        if (m && !replicas.some((r) => r.pid === Number(m[1]))) replicas.push({ pid: Number(m[1]), port: Number(m[2]) });
    }
});
const base = `http://127.0.0.1:${port}`;
let up = false;
const tStart = Date.now();
while (!up && Date.now() - tStart < 120000) {
    await sleep(50);
    try { up = (await fetch(base + '/health')).status === 200; } catch {}
}
check(up && replicas.length === 3, `nginx and 3 replicas up (${Date.now() - tStart} ms)`, out);
if (!up) {
    // say why: the replicas' and nginx's logs
    for (const f of fs.existsSync(prefix) ? fs.readdirSync(prefix) : []) {
        if (f.endsWith('.log')) console.log(`--- ${f}\n` + fs.readFileSync(`${prefix}/${f}`, 'utf8').slice(-2000));
    }
    child.kill('SIGTERM');
    done();
}

const total = 60;
let next = 0, finished = 0, killed = null;
const results = [];
const worker = async () => {
    while (next < total) {
        const i = next++;
        try {
            const r = await fetch(base + '/v1/completions', {
                method: 'POST', headers: { 'Content-Type': 'application/json' },
                body: JSON.stringify({ prompt: 'Once upon a time', max_tokens: 48, ignore_eos: true, temperature: 0 }),
            });
            const j = await r.json().catch(() => null);
            results[i] = r.status === 200 && j?.usage?.completion_tokens === 48;
        } catch (e) {
            results[i] = false;
        }
        if (++finished === 15) {
            killed = replicas[1];
            try { process.kill(killed.pid, 'SIGKILL'); } catch { killed = null; }
        }
    }
};
await Promise.all(Array.from({ length: 6 }, worker));
const good = results.filter(Boolean).length;
check(killed !== null && good === total, `all ${total} requests completed with a replica killed (${good})`);

// who answered what, according to nginx; the survivors' metrics must agree
await sleep(200);
const log = fs.readFileSync(prefix + '/access.log', 'utf8').trim().split('\n')
    .filter((l) => l.startsWith('200 /v1/completions'));
const served = new Map();
let retried = 0;
for (const l of log) {
    const list = l.replace(/^200 \/v1\/completions /, '').split(' ');
    const last = list.filter((x) => /^127\.0\.0\.1:\d+,?$/.test(x)).pop().replace(',', '');
    if (list.length > 2) retried++;
    served.set(last, (served.get(last) ?? 0) + 1);
}
console.log(`  requests retried on another replica: ${retried}`);
for (const r of replicas.filter((r) => r !== killed)) {
    const text = await (await fetch(`http://127.0.0.1:${r.port}/metrics`)).text();
    const m = text.match(/llama_requests_total\{endpoint="\/v1\/completions",status="200"\} (\d+)/);
    const n = m ? Number(m[1]) : 0;
    const want = served.get(`127.0.0.1:${r.port}`) ?? 0;
    check(n === want && n > 0, `replica ${r.port}: /metrics counts the ${want} requests nginx sent it`, `metrics ${n}`);
}
child.kill('SIGTERM');
await new Promise((r) => child.on('exit', r));
done();
