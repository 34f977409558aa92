// The REST API with the session: JSON in and out, the CSRF token in X-CSRFToken on every unsafe request,
// problem details (RFC 9457) turned into an ApiError that keeps the stable `code`.

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.code = (problem && problem.code) || "";
    this.problem = problem || {};
  }
}

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return "";
}

// A fresh Idempotency-Key: a retry of the same click is the same request, a new click a new one.
export function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return "play-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function api(method, path, { body, headers } = {}) {
  const sent = { Accept: "application/json", ...(headers || {}) };
  const init = { method, headers: sent, credentials: "same-origin" };
  if (method !== "GET") {
    sent["X-CSRFToken"] = cookie("csrftoken");
    sent["Content-Type"] = "application/json";
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (_) {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return { status: response.status, data };
}
