// The public /v1 API, as any integrator calls it. The bearer token lives in localStorage
// under 'avalanche.token' and only ever travels in the Authorization header.

const KEY = 'avalanche.token';

export const token = {
  get: () => localStorage.getItem(KEY),
  set: (value) => localStorage.setItem(KEY, value),
  clear: () => localStorage.removeItem(KEY),
};

/** A problem+json answer (or a network failure) as an Error a player can read. */
export class ApiError extends Error {
  constructor(status, code, detail, retryAfter = null) {
    super(detail);
    this.status = status;
    this.code = code;
    this.detail = detail;
    // Seconds the server asked to wait before trying again (Retry-After), if it did.
    this.retryAfter = retryAfter;
  }
}

/** The banner that says the server cannot be reached: shown on a failed request, hidden by
 * the next answer (pages keep asking: the game page's long-poll, the lobby's refresh). */
function reachable(yes) {
  const banner = document.getElementById('offline');
  if (banner) banner.hidden = yes;
}

// Commands and joins carry an Idempotency-Key, so that sending one again never records it
// twice: when the server cannot say whether it was recorded (503 outcome_unknown, or the
// connection dropped) or could not record it (503 store_unavailable), the same request is sent
// again with the same key, a few times, waiting as the server asks.
const KEYED = /^\/games\/[^/]+\/(commands|join)$/;
const ATTEMPTS = 4;
const RETRYABLE = new Set(['outcome_unknown', 'store_unavailable', 'network']);

/** A fresh idempotency key: 128 random bits in hexadecimal. */
function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function pause(seconds, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, seconds * 1000);
    signal?.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
}

/** Calls /v1 + path; resolves to the JSON (or text) answer, rejects with an ApiError. */
export async function api(method, path, body, options = {}) {
  if (method !== 'POST' || !KEYED.test(path)) return send(method, path, body, options);
  const keyed = { ...options, headers: { 'idempotency-key': newKey(), ...options.headers } };
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send(method, path, body, keyed);
    } catch (e) {
      if (!RETRYABLE.has(e.code) || attempt >= ATTEMPTS) throw e;
      await pause(Math.min(e.retryAfter ?? attempt, 10), options.signal);
    }
  }
}

async function send(method, path, body, { signal, text = false, headers = {} } = {}) {
  const sent = { accept: text ? 'text/plain' : 'application/json', ...headers };
  const t = token.get();
  if (t) sent.authorization = `Bearer ${t}`;
  if (body !== undefined) sent['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(`/v1${path}`, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      cache: 'no-store',
    });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    reachable(false);
    throw new ApiError(0, 'network', 'The server cannot be reached; try again in a moment.');
  }
  reachable(res.status !== 502 && res.status !== 504);
  const raw = await res.text();
  if (!res.ok) {
    let problem = {};
    try { problem = JSON.parse(raw); } catch { /* not JSON */ }
    const retryAfter = Number.parseInt(res.headers.get('retry-after') ?? '', 10);
    const error = new ApiError(res.status, problem.code || `http_${res.status}`,
      problem.detail || problem.title || `The server answered ${res.status}.`,
      Number.isFinite(retryAfter) ? retryAfter : null);
    error.details = problem.details;
    throw error;
  }
  if (text) return raw;
  return raw ? JSON.parse(raw) : null;
}

export const get = (path, options) => api('GET', path, undefined, options);
/** Every item of a list (`items`, or the field `field` holds), page after page: each page says
 * where the next begins (`next`). */
export async function getAll(path, options, field = 'items') {
  const items = [];
  let after = null;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await get(after === null ? path : `${path}${sep}after=${encodeURIComponent(after)}`, options);
    items.push(...page[field]);
    if (page.next == null) return items;
    after = page.next;
  }
}
export const post = (path, body = {}, options) => api('POST', path, body, options);
export const del = (path, options) => api('DELETE', path, undefined, options);

/** Path segment for an id coming from the server or the address bar. */
export const seg = (id) => encodeURIComponent(id);
