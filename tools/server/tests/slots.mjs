// Slot files (POST /slots/{id}?action=save|restore|erase, --slot-save-path): a saved slot restored
// into another slot keeps its KV cache and token list, so the same prompt reuses the whole cached
// prefix and gives the same greedy text; bad ids, actions and file names (path traversal) are 400,
// a missing or corrupt file leaves the slot empty; a server without --slot-save-path answers 501.
// Also /infill on a model without FIM tokens is a 400 naming them.
// Env: PORT (-np 2 --slot-save-path SLOT_DIR), PORT_NOPATH (a server without it), SLOT_DIR.
import { existsSync, writeFileSync } from 'node:fs';
import { BASE, check, done, greedyRef, post } from './common.mjs';

const slotDir = process.env.SLOT_DIR;
const slots = async () => (await fetch(BASE + '/slots')).json();
const act = (id, action, body = {}) => post(`/slots/${id}?action=${action}`, body);

const prompt = 'Once upon a time there was a little girl named Lily. She';
const [ref] = greedyRef([prompt], 16);
const c1 = (await post('/completion', { prompt, n_predict: 16, temperature: 0 })).json;
check(c1.content === ref, 'completion before saving = library greedy', JSON.stringify(c1.content));
const id = c1.id_slot, other = 1 - id;
const nCache = (await slots())[id].n_cache_tokens;

const saved = await act(id, 'save', { filename: 'story.bin' });
check(saved.status === 200 && saved.json.id_slot === id && saved.json.filename === 'story.bin' &&
      saved.json.n_saved === nCache && saved.json.n_written > 0 && saved.json.timings.save_ms >= 0,
      'save: id_slot, filename, n_saved = the slot\'s cached tokens, n_written, timings', saved.text);
check(existsSync(`${slotDir}/story.bin`), 'save: the file is in --slot-save-path');

const erased = await act(id, 'erase');
check(erased.status === 200 && erased.json.id_slot === id && erased.json.n_erased === nCache, 'erase: n_erased', erased.text);
check((await slots())[id].n_cache_tokens === 0, 'erase: the slot is empty');

// restore into the other slot: the next request with the same prompt runs there from its cache
const restored = await act(other, 'restore', { filename: 'story.bin' });
check(restored.status === 200 && restored.json.id_slot === other && restored.json.n_restored === nCache &&
      restored.json.n_read === saved.json.n_written && restored.json.timings.restore_ms >= 0,
      'restore: n_restored, n_read = n_written', restored.text);
check((await slots())[other].n_cache_tokens === nCache, 'restore: the slot holds the saved tokens');
const c2 = (await post('/completion', { prompt, n_predict: 16, temperature: 0 })).json;
check(c2.id_slot === other && c2.content === ref, 'after restore: same slot, same greedy text', JSON.stringify(c2));
check(c2.tokens_cached === c2.tokens_evaluated - 1, 'after restore: the whole prompt but its last token is reused',
      `${c2.tokens_cached} of ${c2.tokens_evaluated}`);

// bad input: 400 with the cause, nothing written, the server keeps serving
for (const f of ['../story.bin', '/tmp/story.bin', 'a/b.bin', 'a\\b.bin', '..', '', '.hidden']) {
    const r = await act(id, 'save', { filename: f });
    check(r.status === 400 && /filename/i.test(r.json?.error?.message), `save: filename ${JSON.stringify(f)} is 400`, r.text);
}
const noName = await act(id, 'restore', {});
check(noName.status === 400 && /'filename'/.test(noName.json.error.message), 'restore without filename: 400 naming it');
for (const sid of ['2', '-1', 'x', '99999999999999999999']) {
    const r = await act(sid, 'erase');
    check(r.status === 400 && /slot ID/.test(r.json?.error?.message), `slot id ${sid}: 400`, r.text);
}
const badAction = await act(id, 'load', { filename: 'story.bin' });
check(badAction.status === 400 && /action/.test(badAction.json.error.message), 'unknown action: 400');

// a missing or corrupt file: an error, and the slot is left empty (not half restored)
await post('/completion', { prompt, n_predict: 4, temperature: 0 });
const busy = (await slots()).findIndex((s) => s.n_cache_tokens > 0);
const missing = await act(busy, 'restore', { filename: 'missing.bin' });
check(missing.status === 400 && /Unable to restore slot/.test(missing.json.error.message), 'missing file: 400', missing.text);
check((await slots())[busy].n_cache_tokens === 0, 'missing file: the slot is empty');
writeFileSync(`${slotDir}/corrupt.bin`, 'not a slot file at all');
const corrupt = await act(other, 'restore', { filename: 'corrupt.bin' });
check(corrupt.status === 400 && (await slots())[other].n_cache_tokens === 0, 'corrupt file: 400, the slot is empty', corrupt.text);

// a request for a slot that is generating waits for it, then acts
const long = post('/completion', { prompt, n_predict: 900, temperature: 0, ignore_eos: true });
let gen = -1;
for (let i = 0; i < 200 && gen < 0; i++) {
    gen = (await slots()).findIndex((s) => s.is_processing);
}
const whileBusy = await act(gen < 0 ? 0 : gen, 'save', { filename: 'busy.bin' });
const longRes = (await long).json;
check(gen >= 0 && whileBusy.status === 200 && whileBusy.json.n_saved >= longRes.tokens_evaluated + 899,
      'save of a busy slot: done after its task, with all of its tokens', whileBusy.text);

// /infill needs FIM tokens: this model has none
const inf = await post('/infill', { input_prefix: 'a', input_suffix: 'b' });
check(inf.status === 400 && /FIM prefix, suffix, middle/.test(inf.json?.error?.message), '/infill without FIM tokens: 400', inf.text);

// without --slot-save-path: 501
const nopath = await fetch(`http://127.0.0.1:${process.env.PORT_NOPATH}/slots/0?action=save`, {
    method: 'POST', body: JSON.stringify({ filename: 'x.bin' }) });
const np = await nopath.json();
check(nopath.status === 501 && /--slot-save-path/.test(np.error.message), 'no --slot-save-path: 501 saying so');

const after = await post('/completion', { prompt, n_predict: 16, temperature: 0 });
check(after.status === 200 && after.json.content === ref, 'the server still serves');
done();
