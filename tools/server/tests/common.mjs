// Helpers shared by the llama-server test scripts (run by run-server-test.sh).
import { execFileSync } from 'node:child_process';

export const PORT = process.env.PORT;
export const BASE = `http://127.0.0.1:${PORT}`;

let failures = 0;
export function check(cond, what, detail = '') {
    if (cond) {
        console.log(`ok   ${what}`);
    } else {
        failures++;
        console.log(`FAIL ${what} ${detail}`);
    }
}
export function done() {
    if (failures > 0) {
        console.log(`${failures} check(s) failed`);
        process.exit(1);
    }
    console.log('all checks passed');
}

// The library's own greedy continuation of each prompt (tests/greedy-ref.cpp).
export function greedyRef(prompts, nPredict, chat = false) {
    const args = [process.env.MODEL, String(nPredict), ...(chat ? ['--chat'] : []), ...prompts];
    const out = execFileSync(process.env.GREEDY_REF, args, { encoding: 'utf8' }).trim().split('\n');
    return out.map((hex) => Buffer.from(hex, 'hex').toString('utf8'));
}

export async function post(path, body, headers = {}) {
    const res = await fetch(BASE + path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json = null;
    try {
        json = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, text, json };
}

export async function metric(name) {
    const text = await (await fetch(BASE + '/metrics')).text();
    const m = text.match(new RegExp(`^${name} (\\S+)$`, 'm'));
    return m ? Number(m[1]) : NaN;
}
