// Preload: node --import ./add-headers.mjs ... ; adds headers from CONFORMANCE_EXTRA_HEADERS (JSON object)
// to every HTTP request made via fetch() or undici.request() (both use undici's global dispatcher).
import { Agent, setGlobalDispatcher } from 'undici';
const extra = JSON.parse(process.env.CONFORMANCE_EXTRA_HEADERS || '{}');
const addHeaders = (dispatch) => (opts, handler) => {
  let h = opts.headers;
  if (Array.isArray(h)) h = [...h, ...Object.entries(extra).flat()];
  else h = { ...(h || {}), ...extra };
  return dispatch({ ...opts, headers: h }, handler);
};
setGlobalDispatcher(new Agent().compose(addHeaders));
