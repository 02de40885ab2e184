/**
 * What an Azure SDK error (`RestError`) says, for a person. Pure: no vscode, no SDK.
 */

/**
 * The part of an SDK error's message a person needs: its first line, without the `RequestId:` and
 * `Time:` lines azurite adds. @azure/data-tables keeps a table error's whole body as its message:
 * the Table service's OData JSON error, `{"odata.error":{"code":…,"message":{"lang":…,"value":"…"}}}`
 * (Table service REST API, "Error Codes" and the JSON error format); its `value` is taken.
 * @param message the error's `message`
 * @returns e.g. "The specified resource does not exist."
 */
export function restErrorMessage(message: string): string {
  const trimmed = message.trim();
  if (trimmed.startsWith('{')) {
    try {
      const body = JSON.parse(trimmed) as { 'odata.error'?: { message?: { value?: unknown } | string } };
      const m = body['odata.error']?.message;
      const value = typeof m === 'string' ? m : m?.value;
      if (typeof value === 'string' && value.trim() !== '') return firstLine(value);
    } catch {
      // Not JSON after all: its first line, as any other message.
    }
  }
  return firstLine(trimmed);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
