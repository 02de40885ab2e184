/**
 * Caches for azurite's request dispatch: the second hot spot of small requests.
 *
 * azurite 3.37 finds the operation of every request by testing its path against the URI template
 * of each operation the server knows (blob/queue/table generated/middleware/dispatch.middleware.js
 * → generated/utils/utils.js `isURITemplateMatch(url, template)`: 72 operations for blob), and
 * that function parses the template text again on every call (`uriTemplates(template)` from the
 * `uri-templates` package) before matching. That was ~15% of the CPU of a 1 KiB in-memory upload
 * (SDK client included); cached, the upload's median drops 15–25% (bench/ab.mjs). Both steps
 * are pure functions of their text arguments: a parsed template is immutable (`fromUri` only
 * reads what the constructor built), and the match depends only on (url, template). The url is a normalised pattern for blob and queue ("/container/blob",
 * "/queue/messages"), the table name (and keys) for table.
 *
 * The seam: esbuild.mjs's azurite plugin appends two lines to each of those three utils.js files
 * when bundling: `uri_templates_1.default = memoizeUriTemplate(uri_templates_1.default)` (parse
 * each template once) and `exports.isURITemplateMatch = memoizeTemplateMatch(exports.isURITemplateMatch)`
 * (azurite's own function answers each distinct (url, template) once; the dispatch middleware
 * reads it from the exports at call time). node_modules is untouched; nothing of azurite or
 * uri-templates is copied here, and this file imports neither.
 * Verified by test/unit/engine/uriTemplateCache.test.ts (same answers as azurite's uncached
 * function for every operation path of the three services) and the SDK suites through the bundle.
 */

/** Beyond this many distinct templates the cache starts over (azurite has a handful of constant paths per service). */
export const MAX_CACHED_TEMPLATES = 1024;

/**
 * Wraps a template factory (uri-templates' `UriTemplate`, callable without `new`) so each distinct
 * template text is parsed once.
 */
export function memoizeUriTemplate<T>(create: (template: string) => T): (template: string) => T {
  const cache = new Map<string, T>();
  return (template: string): T => {
    let parsed = cache.get(template);
    if (parsed === undefined) {
      if (cache.size >= MAX_CACHED_TEMPLATES) cache.clear();
      parsed = create(template);
      cache.set(template, parsed);
    }
    return parsed;
  };
}

/** Beyond this many distinct (url, template) pairs the match cache starts over. */
export const MAX_CACHED_MATCHES = 8192;

/**
 * Wraps azurite's `isURITemplateMatch(url, template)` so each distinct pair is computed once
 * (bounded: table urls carry table names and keys).
 */
export function memoizeTemplateMatch(match: (url: string, template: string) => boolean): (url: string, template: string) => boolean {
  const byTemplate = new Map<string, Map<string, boolean>>();
  let size = 0;
  const cached = (url: string, template: string): boolean => {
    let byUrl = byTemplate.get(template);
    if (byUrl === undefined) {
      byUrl = new Map();
      byTemplate.set(template, byUrl);
    }
    let result = byUrl.get(url);
    if (result === undefined) {
      result = match(url, template);
      if (size >= MAX_CACHED_MATCHES) {
        for (const m of byTemplate.values()) m.clear();
        size = 0;
      }
      byUrl.set(url, result);
      size++;
    }
    return result;
  };
  return cached;
}
