/**
 * What a Reset that could not empty every account says (src/ui/snapshotCommands.ts). A Reset empties
 * each account of the engine (the development account and `azurite.accounts`), then loads the seed
 * into the development account; an account whose emptying leaves an item does not stop the others.
 */

/** One account's failure: its name, and the data layer's message (resetAccount in src/data/snapshot.ts). */
export interface AccountFailure {
  readonly account: string;
  readonly message: string;
}

/**
 * The text after "Reset failed: ": one sentence per account that failed, in the order given, each
 * naming the account, then that the seed was loaded when it was.
 * Example: `account a: could not delete queue q (…); everything else was deleted. The seed was
 * loaded into devstoreaccount1.`
 * @param failures at least one
 * @param seedLoadedInto the account the seed was loaded into; undefined when none was loaded
 *   (no seed, or the development account's own emptying or seed failed, which its message says)
 */
export function resetFailureText(failures: readonly AccountFailure[], seedLoadedInto?: string): string {
  const sentences = failures.map((f) => `account ${f.account}: ${f.message.replace(/\.$/, '')}.`);
  if (seedLoadedInto !== undefined) sentences.push(`The seed was loaded into ${seedLoadedInto}.`);
  return sentences.join(' ');
}
