/**
 * Credentials taken out of what the engine logs. Pure: no vscode, no azurite.
 */

/**
 * A line of azurite's debug or access log without the credentials it may hold. azurite's storage-context
 * middleware of each service logs every request's headers as JSON (`RequestHeaders:{…}`), so with
 * `azurite.oauth` a client's bearer token (a real Microsoft Entra token, valid against real storage
 * accounts for about an hour) would reach the output channel and VS Code's log files. The value of
 * an `authorization`, `proxy-authorization` or `x-ms-copy-source-authorization` header keeps its
 * scheme only (`"authorization":"Bearer ***"`; a value without one becomes `***`), and a SAS's
 * signature becomes `***`: its `sig` query parameter (also in the access log's request lines), and
 * the signature the SAS authenticators log as read and as calculated.
 * @param line one debug line as azurite writes it
 */
export function redactCredentials(line: string): string {
  return line
    // A value with a scheme keeps it ("Bearer ***"); one without (a bare token) is all hidden.
    .replace(/("(?:authorization|proxy-authorization|x-ms-copy-source-authorization)"\s*:\s*")([^"\s]*)(\s[^"]*)?"/gi, (_m, key: string, first: string, rest: string | undefined) => (rest === undefined ? `${key}***"` : `${key}${first} ***"`))
    .replace(/([?&]sig=)[^&"\s]+/gi, '$1***')
    // The SAS authenticators' own lines: "Retrieved signature from URL parameter sig: …", "Calculated signature is: …".
    .replace(/(signature from URL parameter sig: |Calculated signature is: )\S+/g, '$1***')
    // A shared-key authorization anywhere else (the shared-key authenticators log the one they calculate).
    .replace(/\b(SharedKey(?:Lite)? [^:\s"]+:)[A-Za-z0-9+/=]+/g, '$1***');
}
