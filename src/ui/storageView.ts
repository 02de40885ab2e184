/**
 * The Storage view: a tree of the data target's blob containers (with virtual folders by `/`),
 * blobs, queues with their peeked messages, tables and their entities, in the "Azurite" view
 * container. It reads through the data layer (src/data/browse.ts, the Azure SDKs, loaded from
 * dist/data.js on first expand), so it browses the local emulator and an attached Azurite alike.
 *
 * Refresh: the local engine reports each change of data per service (Emulator.onDidChangeData, at
 * most about four times a second while clients write, nothing while idle); the view then reloads
 * what is expanded under that service. An attached Azurite reports nothing: its data is reloaded by
 * the view's Refresh button. Listings come in pages of {@link PAGE_SIZE}; "Load more…" fetches the next.
 *
 * Blob content opens through a read-only file system (`azurite-blob:` URIs, {@link BlobFileSystem}),
 * so VS Code picks the editor: text, its image preview, or (for other content) the hex editor when
 * installed. Messages and entities open as read-only JSON documents (`azurite-item:`).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { setMaxListeners } from 'node:events';
import * as vscode from 'vscode';
import { COMMANDS } from '../core/commandIds';
import { formatBytes } from '../core/memory';
import { attachAccountHint, describeRestError } from '../core/restErrors';
import { blobFileName, blobMtime, editorFor, fileNameKey } from '../core/blobEditor';
import { blobTooltipMarkdown, visibleName } from '../core/storageTooltip';
import { describeRef, listForConfirmation } from '../core/deleteText';
import { entityDocument, unwritableBlobName } from '../core/snapshotFormat';
import { serviceName, type ServiceKind } from '../core/services';
import type { Emulator } from '../emulator/emulator';
import type { BlobInfo, EntityInfo, ItemRef, MessageInfo, StorageClients, StorageEndpoints, UploadContent } from '../data/index';
import { dataLayer, type DataLayer } from './dataLayer';
import type { DataTarget } from './dataTarget';
import { notify } from './notify';
import { withDelayedProgress } from './progress';

/** The view's id (package.json `contributes.views`). */
export const STORAGE_VIEW_ID = 'azurite.storage';
/**
 * The URI scheme of blob content (read-only): `azurite-blob://<where>/<account>/<container>/<blob name>`,
 * `<where>` being {@link LOCAL_TARGET} or the attached Azurite's label ({@link targetAuthority}).
 */
export const BLOB_SCHEME = 'azurite-blob';
/** The URI scheme of a message's or an entity's JSON (read-only). */
export const ITEM_SCHEME = 'azurite-item';
/** What VS Code puts in a DataTransfer for items dragged from this view (its id in lower case). */
const OWN_DRAG_MIME = `application/vnd.code.tree.${STORAGE_VIEW_ID.toLowerCase()}`;
/** Items per page (the data layer's page size). */
export const PAGE_SIZE = 200;
/**
 * The most items one request of a reload asks for: Query Tables and Query Entities return at most
 * 1,000 (`$top`; azurite's QUERY_RESULT_MAX_NUM), List Containers, List Blobs and List Queues 5,000
 * (`maxresults`).
 */
function maxPageSize(parent: StorageNode): number {
  return parent.type === 'table' || (parent.type === 'service' && parent.kind === 'table') ? 1000 : 5000;
}
/** The most items a reload lists again (as many as were shown, within this). */
const MAX_SHOWN = 5000;
/** The engine's per-container and per-queue figures are read at most this often while clients write (ms). */
const FIGURES_MIN_INTERVAL_MS = 2000;
/** The most messages Peek Messages returns (the Queue service's limit; the data layer's PEEK_LIMIT, not imported: it loads with dist/data.js). */
const PEEK_LIMIT = 32;
/** How long one page of a listing may take before its requests abort and the view says so (ms). */
export const LIST_TIMEOUT_MS = 30_000;

/** A node of the tree. `account` names the storage account every node belongs to. */
export type StorageNode =
  | { readonly type: 'account'; readonly id: string; readonly account: string }
  | { readonly type: 'service'; readonly id: string; readonly account: string; readonly kind: ServiceKind }
  | { readonly type: 'container'; readonly id: string; readonly account: string; readonly name: string; readonly bytes?: number | undefined }
  | { readonly type: 'folder'; readonly id: string; readonly account: string; readonly container: string; readonly prefix: string }
  | { readonly type: 'blob'; readonly id: string; readonly account: string; readonly container: string; readonly info: BlobInfo }
  | { readonly type: 'queue'; readonly id: string; readonly account: string; readonly name: string; readonly count?: number | undefined; readonly bytes?: number | undefined }
  | { readonly type: 'message'; readonly id: string; readonly account: string; readonly queue: string; readonly info: MessageInfo }
  | { readonly type: 'table'; readonly id: string; readonly account: string; readonly name: string }
  | { readonly type: 'entity'; readonly id: string; readonly account: string; readonly table: string; readonly entity: EntityInfo }
  | { readonly type: 'more'; readonly id: string; readonly account: string; readonly parent: StorageNode }
  | { readonly type: 'note'; readonly id: string; readonly account: string; readonly text: string; readonly tooltip?: string | undefined; readonly error?: boolean };

/** What one node of the tree shows, for tests (TestingApi.storageTree). */
export interface StorageTreeSnapshot {
  readonly id: string;
  readonly label: string;
  readonly description?: string | undefined;
  readonly contextValue?: string | undefined;
  readonly children?: StorageTreeSnapshot[];
}

/** Arguments the view's commands accept besides the node (tests and other extensions). */
export interface StorageCommandArgs {
  /** Skip the confirmations (Upload: blobs that exist are replaced). */
  readonly skipConfirmation?: boolean;
  /** Save: the file to write (absolute). Upload: the files to upload (absolute paths). */
  readonly file?: string;
  readonly files?: readonly string[];
  /** Save of several blobs: the folder to write them in (absolute). */
  readonly folder?: string;
  /**
   * Upload: what to do with files whose blob exists, instead of asking: `'replace'` them, or
   * `'skip'` them and upload only the others. Save of several blobs: the same, for blobs whose file exists.
   */
  readonly existing?: 'replace' | 'skip';
}

/**
 * A view command's arguments as VS Code gives them from the context menu (the node clicked, then
 * the selected nodes) or a caller does (nodes or arrays of them, then an options object): the
 * nodes in order (repeats kept) and the last options object.
 */
function commandArguments(args: readonly unknown[]): { nodes: StorageNode[]; options: StorageCommandArgs } {
  const nodes: StorageNode[] = [];
  let options: StorageCommandArgs = {};
  for (const a of args) {
    if (Array.isArray(a)) nodes.push(...(a as StorageNode[]));
    else if (isNode(a)) nodes.push(a);
    else if (typeof a === 'object' && a !== null) options = a as StorageCommandArgs;
  }
  return { nodes, options };
}

/**
 * What a caller said to do with items that exist: `args.existing` when it is one of its values,
 * else `'replace'` with `skipConfirmation`; undefined (ask) otherwise, a caller's typo included.
 */
function existingChoice(args: StorageCommandArgs): 'replace' | 'skip' | undefined {
  if (args.existing === 'replace' || args.existing === 'skip') return args.existing;
  return args.skipConfirmation === true ? 'replace' : undefined;
}

/**
 * Asks (modal) whether to replace what exists: Replace, and Skip Existing when `skipDetail` is
 * given (something would still be written).
 * @param question e.g. `2 of these blobs exist in container docs. Replace?`
 * @param detail the modal's detail; `skipDetail`, when given, follows it
 * @returns the answer, or undefined when dismissed
 */
async function askReplaceOrSkip(question: string, detail: string, skipDetail: string | undefined): Promise<'replace' | 'skip' | undefined> {
  const skip = skipDetail !== undefined ? [SKIP_EXISTING] : [];
  const answer = await vscode.window.showWarningMessage(question, { modal: true, detail: `${detail}${skipDetail !== undefined ? ` ${SKIP_EXISTING} ${skipDetail}` : ''}` }, 'Replace', ...skip);
  return answer === 'Replace' ? 'replace' : answer === SKIP_EXISTING ? 'skip' : undefined;
}

/** The first five of `failures`, then "… and N more", joined with "; " (for a notification). */
function firstFailures(failures: readonly string[]): string {
  const shown = failures.slice(0, 5);
  if (failures.length > 5) shown.push(`… and ${failures.length - 5} more`);
  return shown.join('; ');
}

/** The items of a listing a reload lists again: the notes beside them are made anew. */
function countShown(listing: Listing): number {
  return listing.items.filter((i) => i.type !== 'note').length;
}

/** A parent's loaded listing: its children so far and the continuation of the next page. */
interface Listing {
  items: StorageNode[];
  continuation: string | undefined;
  /** Set when the data changed: the next getChildren reloads as many items as were loaded. */
  stale: boolean;
  /** The "Load more…" item while there is a next page. */
  more: StorageNode | undefined;
  /** The next page's load under way: a second click waits for it instead of adding the page again. */
  loadingMore?: Promise<void> | undefined;
}

const SERVICE_LABELS: Record<ServiceKind, string> = { blob: 'Blob Containers', queue: 'Queues', table: 'Tables' };
const MORE = 'Load more…';
/** The upload question's button that uploads only the files whose blob does not exist. */
const SKIP_EXISTING = 'Skip Existing';

/** See the file comment. */
export class StorageView implements vscode.TreeDataProvider<StorageNode>, vscode.TreeDragAndDropController<StorageNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<StorageNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly dropMimeTypes = ['text/uri-list', 'files'];
  readonly dragMimeTypes: readonly string[] = [];
  private readonly listings = new Map<string, Listing>();
  /** Per parent id, how many items "Load more…" asked to show: what its reloads list at least (within MAX_SHOWN). */
  private readonly wanted = new Map<string, number>();
  /** Counts invalidate() and refreshListing() calls: a listing fetched across one is kept as stale. */
  private invalidations = 0;
  private readonly roots = new Map<string, StorageNode>();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** SDK clients per account, with the endpoints they were made for. */
  private readonly clientCache = new Map<string, { key: string; clients: StorageClients }>();
  /** The engine's figures per `<account>/<container or queue>`, with when they were read (ms, Date.now()). */
  private contentFigures: Partial<Record<'blob' | 'queue', { map: Map<string, { bytes: number; count: number }>; at: number }>> = {};
  /** Services whose figures changed since they were read. */
  private readonly figuresDirty = new Set<ServiceKind>();
  /** The figures being read per service: what a caller meanwhile (another account's list) awaits. */
  private readonly figuresReads = new Map<ServiceKind, Promise<Map<string, { bytes: number; count: number }> | undefined>>();
  private readonly figureTimers = new Map<ServiceKind, NodeJS.Timeout>();
  readonly blobs: BlobFileSystem;
  private readonly items = new ItemDocuments();
  private readonly view: vscode.TreeView<StorageNode>;

  constructor(private readonly deps: { readonly emulator: Emulator; readonly target: DataTarget; readonly extensionPath: string; readonly log: { error(line: string): void } }) {
    this.blobs = new BlobFileSystem(() => this.data(), (account) => this.clients(account), () => this.where());
    this.view = vscode.window.createTreeView(STORAGE_VIEW_ID, { treeDataProvider: this, dragAndDropController: this, canSelectMany: true, showCollapseAll: true });
    const dataChanged = deps.emulator.onDidChangeData((kind) => this.invalidate(kind));
    this.subscriptions.push(
      this.view,
      { dispose: () => dataChanged.dispose() },
      deps.target.onDidChange(() => this.invalidate()),
      vscode.workspace.registerFileSystemProvider(BLOB_SCHEME, this.blobs, { isReadonly: true, isCaseSensitive: true }),
      vscode.workspace.registerTextDocumentContentProvider(ITEM_SCHEME, this.items),
      vscode.commands.registerCommand(COMMANDS.storageRefresh, () => this.invalidate()),
      vscode.commands.registerCommand(COMMANDS.storageLoadMore, (node: StorageNode) => this.loadMore(node)),
      vscode.commands.registerCommand(COMMANDS.storageOpen, (node: StorageNode) => this.open(node)),
      vscode.commands.registerCommand(COMMANDS.storageSave, (...args: unknown[]) => this.saveSelection(args)),
      vscode.commands.registerCommand(COMMANDS.storageUpload, (node: StorageNode, args?: StorageCommandArgs) => this.upload(node, args)),
      vscode.commands.registerCommand(COMMANDS.storageDelete, (...args: unknown[]) => this.delete(args)),
    );
  }

  private data(): DataLayer {
    return dataLayer(this.deps.extensionPath);
  }

  /** The accounts the view shows and their endpoints: the data target's (several with `azurite.accounts`). */
  private accounts(): StorageEndpoints[] {
    return this.deps.target.accounts().map((a) => this.deps.target.endpoints(undefined, a.name)).filter((e): e is StorageEndpoints => e !== undefined);
  }

  /** SDK clients of an account, kept while the target's endpoints stay the same. */
  /** {@link targetAuthority} of where the view works now: the authority of the blob URIs it makes. */
  private where(): string {
    return targetAuthority(this.deps.target.attached());
  }

  private clients(account: string): StorageClients {
    const endpoints = this.accounts().find((e) => e.accountName === account);
    if (endpoints === undefined) throw vscode.FileSystemError.Unavailable(`No running service serves account ${account}.`);
    const key = JSON.stringify(endpoints);
    let cached = this.clientCache.get(account);
    if (cached?.key !== key) this.clientCache.set(account, (cached = { key, clients: this.data().storageClients(endpoints) }));
    return cached.clients;
  }

  /**
   * Marks what was loaded as stale and redraws: everything, or one service's part. Expanded nodes
   * reload as many items as they showed; collapsed ones reload when next expanded.
   */
  invalidate(kind?: ServiceKind): void {
    this.invalidations++;
    for (const [id, listing] of this.listings) if (kind === undefined || id.split('/')[1] === kind) listing.stale = true;
    if (kind !== undefined) this.figuresDirty.add(kind);
    else this.contentFigures = {};
    // Also on Refresh (no kind): an attached Azurite reports no changes, so open blobs reload then.
    if (kind === undefined || kind === 'blob') this.blobs.changed();
    const roots = [...this.roots.values()].filter((r) => kind === undefined || (r.type === 'service' && r.kind === kind));
    if (kind === undefined || roots.length === 0) this.changed.fire(undefined);
    else for (const r of roots) this.changed.fire(r);
  }

  getTreeItem(node: StorageNode): vscode.TreeItem {
    return treeItem(node, this.where());
  }

  getParent(): undefined {
    return undefined;
  }

  /**
   * The children VS Code shows under `node` (the accounts at the root): the services of an account,
   * or a parent's listing as loaded so far with a "Load more…" item while there is a next page. A
   * listing is fetched once and kept until a change of data makes it stale; it then reloads as
   * many items as were shown or asked for. A failed listing is an error note, not a throw.
   */
  async getChildren(node?: StorageNode): Promise<StorageNode[]> {
    if (node === undefined) return this.rootNodes();
    try {
      switch (node.type) {
        case 'account': return this.serviceNodes(node.account);
        case 'service': case 'container': case 'folder': case 'queue': case 'table': return await this.listed(node);
        default: return [];
      }
    } catch (err) {
      // A service's listing refused by an attached Azurite: its account or key may be what is wrong.
      const attached = node.type === 'service' ? this.deps.target.attached() : undefined;
      const hint = attached !== undefined ? attachAccountHint(err, attached) : '';
      return [{ type: 'note', id: `${node.id}/error`, account: node.account, text: `${errorText(err)}${hint}`, error: true }];
    }
  }

  private rootNodes(): StorageNode[] {
    const accounts = this.accounts();
    if (accounts.length === 1) return this.serviceNodes(accounts[0]!.accountName);
    return accounts.map((e) => this.root({ type: 'account', id: `${e.accountName}`, account: e.accountName }));
  }

  private serviceNodes(account: string): StorageNode[] {
    const endpoints = this.accounts().find((e) => e.accountName === account);
    if (endpoints === undefined) return [];
    return (['blob', 'queue', 'table'] as const).filter((k) => endpoints[k] !== undefined).map((kind) => this.root({ type: 'service', id: `${account}/${kind}`, account, kind }));
  }

  /** The same object for the same root, so that a refresh of one service names it. */
  private root(node: StorageNode): StorageNode {
    const known = this.roots.get(node.id);
    if (known !== undefined) return known;
    this.roots.set(node.id, node);
    return node;
  }

  private async listed(parent: StorageNode): Promise<StorageNode[]> {
    let listing = this.listings.get(parent.id);
    if (listing === undefined || listing.stale) {
      // As many as were shown or asked for (up to MAX_SHOWN), in requests of at most maxPageSize. A
      // listing that was complete asks for a page more: items added at its end show, as they would
      // have without the reload, rather than behind a "Load more…".
      const wanted = (): number => Math.min(MAX_SHOWN, Math.max(PAGE_SIZE, this.wanted.get(parent.id) ?? 0));
      const shown = listing === undefined ? 0 : countShown(listing) + (listing.continuation === undefined ? PAGE_SIZE : 0);
      const want = Math.max(wanted(), Math.min(MAX_SHOWN, shown));
      const seen = this.invalidations;
      const items: StorageNode[] = [];
      const ids = new Set<string>();
      let continuation: string | undefined;
      do {
        const page = await this.fetch(parent, continuation, Math.min(maxPageSize(parent), want - items.length));
        for (const item of page.items) if (!ids.has(item.id)) { ids.add(item.id); items.push(item); }
        continuation = page.continuation;
      } while (continuation !== undefined && items.length < want);
      // A change during the fetch may not be in the page, and a "Load more…" clicked meanwhile added
      // its page to the listing this one replaces: the redraw each asks for then reloads.
      listing = { items, continuation, stale: this.invalidations !== seen || wanted() > want, more: undefined };
      // What is there now is what the next reload lists (fewer once items are gone), unless a
      // "Load more…" raised it meanwhile.
      if (!listing.stale) this.wanted.set(parent.id, countShown(listing));
      this.listings.set(parent.id, listing);
    }
    if (listing.continuation === undefined) return listing.items;
    // The parent's node is a new object when its own parent's listing reloaded while this one did not:
    // Load more… fires a change for `more.parent`, and VS Code knows nodes by object, not by id.
    if (listing.more?.type !== 'more' || listing.more.parent !== parent) listing.more = { type: 'more', id: `${parent.id}\u0000more`, account: parent.account, parent };
    return [...listing.items, listing.more];
  }

  private async loadMore(more: StorageNode): Promise<void> {
    if (more?.type !== 'more') return;
    const listing = this.listings.get(more.parent.id);
    if (listing?.loadingMore !== undefined) return listing.loadingMore;
    if (listing?.continuation === undefined) return;
    const parent = more.parent;
    // Counted before the page comes: a reload begun meanwhile (or after) lists this many.
    this.wanted.set(parent.id, Math.max(this.wanted.get(parent.id) ?? 0, countShown(listing) + PAGE_SIZE));
    listing.loadingMore = (async () => {
      try {
        const page = await this.fetch(parent, listing.continuation, PAGE_SIZE);
        // A folder can come again on the next page: Azurite ends a page after a folder's last blob
        // at the time, and a blob added under that folder since sorts after it. VS Code refuses a
        // second element of the same id.
        const shown = new Set(listing.items.map((i) => i.id));
        listing.items.push(...page.items.filter((i) => !shown.has(i.id)));
        listing.continuation = page.continuation;
        if (page.continuation === undefined) listing.more = undefined;
      } catch (err) {
        void notify('error', `Azurite: listing more failed: ${errorText(err)}`);
      } finally {
        listing.loadingMore = undefined;
      }
      this.changed.fire(parent);
    })();
    return listing.loadingMore;
  }

  /**
   * One page of a parent's children, as nodes; its requests abort after {@link LIST_TIMEOUT_MS}.
   * VS Code's tree waits for a pending listing before it refreshes what holds it (the root holds
   * everything): an Azurite that takes connections but never answers (a paused container) would
   * otherwise freeze the view until the window reloads.
   * @throws Error saying the service did not answer, after the timeout; what the listing throws
   */
  private async fetch(parent: StorageNode, continuation: string | undefined, pageSize: number): Promise<{ items: StorageNode[]; continuation?: string | undefined }> {
    const signal = AbortSignal.timeout(LIST_TIMEOUT_MS);
    // Each request in flight listens to it (an attached Azurite's queue counts take up to 16 at once).
    setMaxListeners(64, signal);
    try {
      return await this.fetchPage(parent, continuation, pageSize, signal);
    } catch (err) {
      if (!signal.aborted) throw err;
      const kind = parent.type === 'service' ? parent.kind : parent.type === 'queue' ? 'queue' : parent.type === 'table' ? 'table' : 'blob';
      throw new Error(`the ${serviceName(kind)} service did not answer within ${LIST_TIMEOUT_MS / 1000} s (is that Azurite paused, or busy?); Refresh to try again`, { cause: err });
    }
  }

  private async fetchPage(parent: StorageNode, continuation: string | undefined, pageSize: number, signal: AbortSignal): Promise<{ items: StorageNode[]; continuation?: string | undefined }> {
    const data = this.data();
    const clients = this.clients(parent.account);
    const account = parent.account;
    switch (parent.type) {
      case 'service': {
        if (parent.kind === 'blob') {
          const [page, figures] = await Promise.all([data.listContainers(clients, continuation, pageSize, signal), this.figuresOf('blob')]);
          return { ...page, items: page.items.map((c) => ({ type: 'container', id: `${account}/blob/${c.name}`, account, name: c.name, bytes: figures?.get(`${account}/${c.name}`)?.bytes })) };
        }
        if (parent.kind === 'queue') {
          const [page, figures] = await Promise.all([data.listQueues(clients, continuation, pageSize, signal), this.figuresOf('queue')]);
          // The local engine counts messages as Get Queue Metadata does, in one request for every queue;
          // an attached Azurite is asked per queue.
          const counts = figures !== undefined
            ? page.items.map((q) => figures.get(`${account}/${q.name}`)?.count)
            : await data.queueCounts(clients, page.items.map((q) => q.name), signal);
          return { ...page, items: page.items.map((q, i) => ({ type: 'queue', id: `${account}/queue/${q.name}`, account, name: q.name, count: counts[i], bytes: figures?.get(`${account}/${q.name}`)?.bytes })) };
        }
        const page = await data.listTables(clients, continuation, pageSize, signal);
        return { ...page, items: page.items.map((t) => ({ type: 'table', id: `${account}/table/${t.name}`, account, name: t.name })) };
      }
      case 'container': case 'folder': {
        const container = parent.type === 'container' ? parent.name : parent.container;
        const prefix = parent.type === 'folder' ? parent.prefix : '';
        const page = await data.listBlobs(clients, container, prefix, continuation, pageSize, signal);
        return {
          ...page,
          items: page.items.map((b): StorageNode => (b.kind === 'folder'
            ? { type: 'folder', id: `${account}/blob/${container}/${b.name}`, account, container, prefix: b.name }
            // A blob named like a folder ("logs/", a marker some tools write) is listed inside that
            // folder: its id must differ from the folder's, or the tree cannot tell them apart.
            : { type: 'blob', id: `${account}/blob/${container}/${b.name}${b.name.endsWith('/') ? '\u0000blob' : ''}`, account, container, info: b })),
        };
      }
      case 'queue': {
        const peek = await data.peekMessages(clients, parent.name, signal);
        const items: StorageNode[] = peek.messages.map((m) => ({ type: 'message', id: `${account}/queue/${parent.name}/${m.messageId}`, account, queue: parent.name, info: m }));
        if (peek.approximateCount > peek.messages.length) {
          // Fewer than Peek's 32 shown: the others are invisible (received by a consumer and not yet
          // deleted, or sent with a visibility timeout), and counted. Nothing reports when they show again.
          const hidden = peek.approximateCount - peek.messages.length;
          items.push(peek.messages.length >= PEEK_LIMIT
            ? { type: 'note', id: `${parent.id}/…peek`, account, text: `The first ${peek.messages.length} of about ${peek.approximateCount.toLocaleString('en-US')} messages`, tooltip: 'Peek Messages returns at most 32 messages and never dequeues them.' }
            : { type: 'note', id: `${parent.id}/…peek`, account, text: `About ${hidden.toLocaleString('en-US')} more message${hidden === 1 ? '' : 's'} not visible now (received by a consumer, or sent with a delay)`, tooltip: 'Invisible until a visibility timeout ends: one a consumer gave when it received them, or one they were sent with. Refresh then to see them here.' });
        }
        return { items };
      }
      case 'table': {
        const page = await data.listEntities(clients, parent.name, continuation, pageSize, signal);
        return { ...page, items: page.items.map((e) => ({ type: 'entity', id: `${account}/table/${parent.name}/${e.partitionKey}\u0000${e.rowKey}`, account, table: parent.name, entity: e })) };
      }
      default:
        return { items: [] };
    }
  }

  /**
   * Content bytes and record counts per `<account>/<container or queue>` from the local engine
   * (Emulator.contentBytes, a pass over every record on the engine's thread); undefined while
   * attached. Read at most every {@link FIGURES_MIN_INTERVAL_MS} while clients write: a change within
   * that time gets the figures read before, and the service is refreshed again once it has passed.
   * Callers while a read is under way (each account's list of the service reloads at once) get
   * that read's figures, not the ones from before it.
   */
  private async figuresOf(kind: 'blob' | 'queue'): Promise<Map<string, { bytes: number; count: number }> | undefined> {
    if (!this.deps.target.isLocal()) return undefined;
    const reading = this.figuresReads.get(kind);
    if (reading !== undefined) return reading;
    const known = this.contentFigures[kind];
    const age = known !== undefined ? Date.now() - known.at : Infinity;
    if (known !== undefined && (!this.figuresDirty.has(kind) || age < FIGURES_MIN_INTERVAL_MS)) {
      if (this.figuresDirty.has(kind) && !this.figureTimers.has(kind)) {
        this.figureTimers.set(kind, setTimeout(() => { this.figureTimers.delete(kind); this.invalidate(kind); }, FIGURES_MIN_INTERVAL_MS - age));
      }
      return known.map;
    }
    this.figuresDirty.delete(kind);
    const read = (async () => {
      const figures = await this.deps.emulator.contentBytes(kind).catch(() => undefined);
      if (figures === undefined) return undefined;
      const map = new Map(figures.items.map((i) => [`${i.account}/${i.name}`, { bytes: i.bytes, count: i.count }] as const));
      this.contentFigures = { ...this.contentFigures, [kind]: { map, at: Date.now() } };
      return map;
    })().finally(() => this.figuresReads.delete(kind));
    this.figuresReads.set(kind, read);
    return read;
  }

  /**
   * Opens a blob (in the editor VS Code picks, or the hex editor for binary content), a message or
   * an entity as JSON, or a table's loaded entities as one JSON array.
   */
  private async open(node: StorageNode): Promise<void> {
    if (node.type === 'blob') {
      const uri = blobUri(node.account, node.container, node.info.name, this.where());
      const editor = editorFor(node.info.name, node.info.contentType);
      if (editor === 'image') await vscode.commands.executeCommand('vscode.openWith', uri, 'imagePreview.previewEditor');
      else if (editor === 'binary' && vscode.extensions.getExtension(HEX_EDITOR_EXTENSION) !== undefined) await vscode.commands.executeCommand('vscode.openWith', uri, 'hexEditor.hexedit');
      else await vscode.commands.executeCommand('vscode.open', uri);
      return;
    }
    if (node.type === 'table') {
      // The entities loaded so far (the first page, more after Load more…) as one JSON array.
      let listing = this.listings.get(node.id);
      if (listing === undefined || listing.stale) {
        try {
          await this.listed(node);
        } catch (err) {
          // The service stopped (or the attached Azurite went) since the table was shown.
          void notify('error', `Azurite: table ${node.name} could not be read: ${errorText(err)}`);
          return;
        }
        listing = this.listings.get(node.id);
      }
      const entities = (listing?.items ?? []).flatMap((n) => (n.type === 'entity' ? [entityDocument(n.entity)] : []));
      const uri = this.items.putJson(`/${node.account}/${node.name}.json`, entities);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
      return;
    }
    if (node.type === 'message' || node.type === 'entity') {
      const uri = this.items.put(node);
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: true });
    }
  }

  /**
   * Save Blob As… with the arguments VS Code gives a context-menu command (the node clicked, then
   * the selected nodes) or a caller's (`node, { file }`, `node, [nodes], { folder, existing }`):
   * one blob selected, {@link save}; several, {@link saveMany}.
   */
  private async saveSelection(args: readonly unknown[]): Promise<string | string[] | undefined> {
    const { nodes, options } = commandArguments(args);
    const blobs = [...new Map(nodes.filter((n) => n.type === 'blob').map((n) => [n.id, n] as const)).values()];
    if (blobs.length <= 1) return this.save(blobs[0] ?? (args[0] as StorageNode), options);
    return this.saveMany(blobs, options);
  }

  /**
   * Save Blobs…: several selected blobs into a folder the user picks (or `args.folder`), each as a
   * file named as the last part of its name. Refuses, saving nothing, when two would get the same
   * file name. Files that exist are replaced or skipped as `args.existing` says, or as the user
   * answers (Replace, or Skip Existing when some are new). Resolves to the files written.
   */
  private async saveMany(blobs: readonly (StorageNode & { type: 'blob' })[], args: StorageCommandArgs): Promise<string[]> {
    const target = this.deps.target.identity();
    const base = vscode.workspace.workspaceFolders?.[0]?.uri;
    const folder = args.folder ?? (await vscode.window.showOpenDialog({
      title: `Save ${blobs.length} blobs`, openLabel: 'Save Here', canSelectFiles: false, canSelectFolders: true, canSelectMany: false,
      ...(base !== undefined ? { defaultUri: base } : {}),
    }))?.[0]?.fsPath;
    if (folder === undefined || this.targetMoved(target, 'nothing was saved')) return [];
    // A last part that names no file of the folder: "." or ".." (no SDK sends such a name, since
    // URLs resolve those segments; checked all the same, as the file would be the folder or its parent).
    const unnamed = blobs.find((b) => ['', '.', '..'].includes(blobFileName(b.info.name)));
    if (unnamed !== undefined) {
      void notify('error', `Azurite: nothing was saved: the name of blob "${unnamed.info.name}" does not end in a file name. Save it on its own with Save Blob As….`);
      return [];
    }
    const named = blobs.map((b) => ({ blob: b, file: path.join(folder, blobFileName(b.info.name)) }));
    // Alike as the file system compares names (Report.csv and report.csv on macOS and Windows).
    const seen = new Set<string>();
    const twice = named.find((n) => (seen.has(fileNameKey(n.file)) ? true : (seen.add(fileNameKey(n.file)), false)));
    if (twice !== undefined) {
      void notify('error', `Azurite: nothing was saved: two of the blobs would both become file "${path.basename(twice.file)}" in ${folder}. Save them one at a time.`);
      return [];
    }
    const existing = (await Promise.all(named.map(async (n) => ((await fs.stat(n.file).then(() => true, () => false)) ? [n] : [])))).flat();
    let choice = existingChoice(args);
    if (existing.length > 0 && choice === undefined) {
      const what = existing.length === 1 ? `File "${path.basename(existing[0]!.file)}" exists` : `${existing.length} of these files exist`;
      choice = await askReplaceOrSkip(`${what} in ${folder}. Replace?`, 'The file content is replaced.',
        existing.length < named.length ? 'saves only the blobs whose file is new.' : undefined);
      if (choice === undefined || this.targetMoved(target, 'nothing was saved')) return [];
    }
    const items = named.filter((n) => choice === 'replace' || !existing.includes(n));
    const written: string[] = [];
    const failures: string[] = [];
    try {
      await withDelayedProgress(`Saving ${items.length} blobs`, true, async (o) => {
        for (const [i, { blob, file }] of items.entries()) {
          o.progress?.({ done: i, total: items.length, message: blob.info.name });
          try {
            await this.data().saveBlob(this.clients(blob.account), blob.container, blob.info.name, file, o.signal);
            written.push(file);
          } catch (err) {
            if ((err as Error).name === 'AbortError') throw err;
            failures.push(`${blob.info.name}: ${errorText(err)}`);
          }
        }
      });
    } catch (err) {
      if ((err as Error).name !== 'AbortError') void notify('error', `Azurite: saving blobs failed: ${errorText(err)}`);
      return written;
    }
    if (failures.length > 0) void notify('error', `Azurite: ${written.length} of ${items.length} blobs saved to ${folder}; not saved: ${firstFailures(failures)}.`);
    return written;
  }

  /** Save Blob As…: writes a blob's content to a file the user picks (or `args.file`). */
  private async save(node: StorageNode, args: StorageCommandArgs = {}): Promise<string | undefined> {
    if (node?.type !== 'blob') return undefined;
    const target = this.deps.target.identity();
    const base = vscode.workspace.workspaceFolders?.[0]?.uri;
    const file = args.file ?? (await vscode.window.showSaveDialog({
      title: `Save blob ${node.info.name}`,
      ...(base !== undefined ? { defaultUri: vscode.Uri.joinPath(base, blobFileName(node.info.name)) } : {}),
    }))?.fsPath;
    if (file === undefined || this.targetMoved(target, `blob ${node.info.name} was not saved`)) return undefined;
    try {
      await withDelayedProgress(`Saving ${node.info.name}`, true, (o) => this.data().saveBlob(this.clients(node.account), node.container, node.info.name, file, o.signal));
      return file;
    } catch (err) {
      if ((err as Error).name !== 'AbortError') void notify('error', `Azurite: saving blob ${node.info.name} failed: ${errorText(err)}`);
      return undefined;
    }
  }

  /** Upload Files…: files the user picks (or `args.files`) into a container or folder; resolves to the blob names written. */
  private async upload(node: StorageNode, args: StorageCommandArgs = {}): Promise<string[]> {
    const place = uploadPlace(node);
    if (place === undefined) return [];
    const target = this.deps.target.identity();
    const files = args.files ?? (await vscode.window.showOpenDialog({ canSelectMany: true, openLabel: 'Upload', title: `Upload to ${place.container}/${place.prefix}` }))?.map((u) => u.fsPath);
    if (files === undefined || files.length === 0 || this.targetMoved(target, 'nothing was uploaded')) return [];
    return this.uploadAll(node.account, place, files.map((f) => ({ name: path.basename(f), content: f })), existingChoice(args));
  }

  /**
   * Uploads `files` to `place`. Files whose blob exists are replaced or skipped as `existing` says;
   * when it is undefined, the user is asked (modal: Replace, or Skip Existing when some are new).
   * Resolves to the blob names written.
   */
  private async uploadAll(account: string, place: { container: string; prefix: string }, files: readonly { name: string; content: UploadContent }[], existingChoice: 'replace' | 'skip' | undefined): Promise<string[]> {
    const data = this.data();
    const target = this.deps.target.identity();
    try {
      const clients = this.clients(account);
      const named = files.map((f) => ({ ...f, blob: `${place.prefix}${f.name}` }));
      // Files of the same name from different folders would land on one blob, the last one winning.
      const seen = new Set<string>();
      const twice = named.find((f) => (seen.has(f.blob) ? true : (seen.add(f.blob), false)));
      if (twice !== undefined) {
        void notify('error', `Azurite: nothing was uploaded: two of the files would both become blob "${twice.blob}" in container ${place.container}. Upload them one at a time, or as the folders that hold them.`);
        return [];
      }
      // A name with a control character (a file name Linux and macOS allow): Azurite stores the blob,
      // and then no client, this view included, can list the container, nor so delete the blob.
      const unwritable = named.map((f) => unwritableBlobName(f.blob)).find((why) => why !== undefined);
      if (unwritable !== undefined) {
        void notify('error', `Azurite: nothing was uploaded: ${unwritable}. Rename that file first.`);
        return [];
      }
      let items = named;
      if (existingChoice !== 'replace') {
        const existing = await withDelayedProgress(`Checking which blobs exist in ${place.container}`, true, (o) => data.existingBlobs(clients, place.container, named.map((f) => f.blob), o));
        let replace = false;
        if (existing.length > 0 && existingChoice === undefined) {
          const what = existing.length === 1 ? `Blob "${existing[0]}" exists` : `${existing.length} of these blobs exist`;
          const fresh = named.length - existing.length;
          // Skipping is offered only when something would still be uploaded.
          const answer = await askReplaceOrSkip(`${what} in container ${place.container}. Replace?`, 'The blob content and properties are replaced; this cannot be undone.',
            fresh > 0 ? `uploads only the ${fresh === 1 ? 'file' : `${fresh} files`} whose blob is new.` : undefined);
          if (answer === undefined || this.targetMoved(target, 'nothing was uploaded')) return [];
          replace = answer === 'replace';
        }
        // Replaced only where the user said so: a blob that another client makes meanwhile stays
        // (a file skipped, or not asked about, is written only if its blob is still new).
        items = named.filter((f) => replace || !existing.includes(f.blob)).map((f) => ({ ...f, onlyIfNew: !(replace && existing.includes(f.blob)) }));
      }
      const { failures } = await withDelayedProgress(`Uploading to ${place.container}`, true, (o) => data.uploadBlobs(clients, place.container, items, o));
      this.refreshListing(`${account}/blob/${place.container}`);
      if (failures.length > 0) {
        const skipped = named.length - items.length;
        void notify('error', `Azurite: ${items.length - failures.length} of ${items.length} files uploaded to ${place.container}${skipped > 0 ? ` (${skipped} skipped: their blobs exist)` : ''}; not uploaded: ${firstFailures(failures.map((f) => `${f.blob}: ${f.message}`))}.`);
      }
      const failed = new Set(failures.map((f) => f.blob));
      return items.map((f) => f.blob).filter((b) => !failed.has(b));
    } catch (err) {
      this.refreshListing(`${account}/blob/${place.container}`);
      if ((err as Error).name !== 'AbortError') void notify('error', `Azurite: upload to ${place.container} failed: ${errorText(err)}`);
      return [];
    }
  }

  /** Drop files from the Explorer or the desktop onto a container, folder or blob (its folder). */
  async handleDrop(target: StorageNode | undefined, transfer: vscode.DataTransfer, token: vscode.CancellationToken): Promise<void> {
    const place = target !== undefined ? uploadPlace(target) : undefined;
    if (target === undefined || place === undefined) {
      void notify('info', 'Azurite: drop files onto a blob container or folder of the Storage view to upload them.');
      return;
    }
    // The view's own items dragged (VS Code adds their azurite-blob: URIs as a uri-list): read back
    // and uploaded, each would be rewritten as a block blob, its type, properties and metadata lost.
    const uriList = await transfer.get('text/uri-list')?.asString();
    const lines = (uriList ?? '').split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
    if (transfer.get(OWN_DRAG_MIME) !== undefined || lines.some((l) => vscode.Uri.parse(l).scheme === BLOB_SCHEME)) {
      void notify('info', 'Azurite: blobs cannot be moved or copied within the Storage view; nothing was uploaded. Drop files from the Explorer or the desktop to upload them.');
      return;
    }
    // The transfer's files themselves (read as each upload begins, four at a time, not all at once).
    const transferred: { name: string; content: UploadContent }[] = [];
    transfer.forEach((item) => {
      const file = item.asFile();
      if (file !== undefined) transferred.push({ name: file.name, content: async () => file.data() });
    });
    let files: { name: string; content: UploadContent }[] = [];
    try {
      if (lines.length > 0) {
        // A large folder, or one of a remote window, takes a while to walk.
        await withDelayedProgress('Reading the dropped files', false, async () => {
          for (const line of lines) {
            const uri = vscode.Uri.parse(line);
            const name = path.posix.basename(uri.path);
            // A remote window's Explorer gives vscode-remote: URIs, read through VS Code's file system.
            files.push(...await (uri.scheme === 'file' ? filesUnder(uri.fsPath, name) : filesUnderUri(uri, name)));
          }
        });
      } else {
        files = transferred;
      }
    } catch (err) {
      // Files dropped from the desktop into a remote window (SSH, a dev container, WSL): VS Code
      // lists them as file: URIs of the desktop's disk, which this side cannot read; the transfer
      // carries their content too.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && transferred.length > 0) {
        files = transferred;
      } else {
        void notify('error', `Azurite: the dropped files could not be read, nothing was uploaded: ${errorText(err)}`);
        return;
      }
    }
    if (token.isCancellationRequested || files.length === 0) return;
    await this.uploadAll(target.account, place, files, undefined);
  }

  /**
   * Delete, from the context menu (the node, then the selection) or a caller: nodes, then
   * optionally `{ skipConfirmation }`. Asks once (modal) for everything selected. Resolves to the
   * number of items deleted.
   */
  private async delete(args: readonly unknown[]): Promise<number> {
    const { nodes, options } = commandArguments(args);
    const unique = [...new Map(nodes.map((n) => [n.id, n] as const)).values()];
    const all = unique.map((n) => ({ node: n, ref: refOf(n) })).filter((r): r is { node: StorageNode; ref: ItemRef } => r.ref !== undefined);
    // A blob whose container is selected too goes with it (so do messages and entities): deleted
    // side by side, one of the two would fail with a 404.
    const refs = all.filter((r) => !all.some((o) => o !== r && o.node.account === r.node.account && holds(o.ref, r.ref)));
    if (refs.length === 0) return 0;
    const target = this.deps.target.identity();
    if (options.skipConfirmation !== true) {
      const first = refs[0]!;
      const title = refs.length === 1 ? `Delete ${describeRef(first.ref)}?` : `Delete ${refs.length} items?`;
      const messages = refs.length > 1 && refs.some((r) => r.ref.kind === 'message') ? `\nMessages are found by receiving the ones ahead of them. ${MESSAGE_DELETE_EFFECT}` : '';
      const detail = `${refs.length === 1 ? consequence(first.ref) : listForConfirmation(refs)}${messages}\nThis cannot be undone.`;
      if ((await vscode.window.showWarningMessage(title, { modal: true, detail }, 'Delete')) !== 'Delete') return 0;
      if (this.targetMoved(target, 'nothing was deleted')) return 0;
    }
    const data = this.data();
    let deleted = 0;
    let cancelled = false;
    const failures: string[] = [];
    // Usually one account; the selection may span several when azurite.accounts lists more.
    const byAccount = new Map<string, ItemRef[]>();
    for (const r of refs) byAccount.set(r.node.account, [...(byAccount.get(r.node.account) ?? []), r.ref]);
    try {
      // Cancellable: an Azurite that stopped answering (a paused container) would hold it for good.
      await withDelayedProgress('Deleting', true, async (o) => {
        for (const [account, accountRefs] of byAccount) {
          if (o.signal?.aborted === true) { cancelled = true; break; }
          const result = await data.deleteItems(this.clients(account), accountRefs, o);
          deleted += result.deleted;
          cancelled ||= result.cancelled;
          failures.push(...result.failures.map((f) => `${describeRef(f.ref)}: ${f.message}`));
        }
      });
    } catch (err) {
      // The service stopped (or the attached Azurite went) before the deletes of an account began.
      failures.push(errorText(err));
    }
    if (failures.length > 0) void notify('error', `Azurite: ${failures.length === 1 ? 'a delete' : `${failures.length} deletes`} failed: ${failures.slice(0, 3).join('; ')}`);
    // Requests in flight as the Cancel came are not counted, though the service may have done them.
    if (cancelled) void notify('info', `Azurite: delete cancelled; ${deleted} of ${refs.length} item${refs.length === 1 ? '' : 's'} deleted, and perhaps those whose delete was under way (up to 8 at a time): Refresh shows what is left.`);
    // An attached Azurite reports no changes: reload what the deletes touched.
    this.invalidate();
    return deleted;
  }

  /**
   * True, with an error notification saying `outcome` ("nothing was deleted"), when the data target
   * is no longer `before` (DataTarget.identity): `azurite.attach` changed while a dialog was open,
   * and the items named there are the other Azurite's; the same names here may be other data.
   */
  private targetMoved(before: string, outcome: string): boolean {
    if (this.deps.target.identity() === before) return false;
    const now = this.deps.target.attached();
    void notify('error', `Azurite: ${outcome}: azurite.attach changed while the question was open, and the Storage view now shows ${now === undefined ? 'the local emulator' : `the Azurite at ${now.label}`}. Do it again there if you meant to.`);
    return true;
  }

  /** After an upload into a container (`prefixId` is its id): reloads its listings and open blobs. */
  private refreshListing(prefixId: string): void {
    // Counted like a change of data: a reload under way may have fetched its page before the upload.
    this.invalidations++;
    for (const [id, listing] of this.listings) if (id.startsWith(prefixId)) listing.stale = true;
    this.changed.fire(undefined);
    // An attached Azurite reports no changes: an open blob the upload replaced reloads now.
    this.blobs.changed();
  }

  /**
   * The tree as it shows now, expanded down to `depth` levels (first pages only): for tests.
   * @param depth how many levels to expand (default 4: service, container, folder, blob)
   */
  async snapshot(depth = 4): Promise<StorageTreeSnapshot[]> {
    const walk = async (node: StorageNode | undefined, level: number): Promise<StorageTreeSnapshot[]> => {
      const children = await this.getChildren(node);
      return Promise.all(children.map(async (child) => {
        const item = treeItem(child, this.where());
        const label = typeof item.label === 'string' ? item.label : item.label?.label ?? '';
        const expandable = item.collapsibleState !== vscode.TreeItemCollapsibleState.None;
        return {
          id: child.id, label, description: typeof item.description === 'string' ? item.description : undefined, contextValue: item.contextValue,
          ...(expandable && level < depth ? { children: await walk(child, level + 1) } : {}),
        };
      }));
    };
    return walk(undefined, 1);
  }

  /** The node with this id among those loaded (after {@link snapshot} or expanding), for tests. */
  node(id: string): StorageNode | undefined {
    const root = this.roots.get(id);
    if (root !== undefined) return root;
    for (const listing of this.listings.values()) {
      const found = listing.items.find((n) => n.id === id) ?? (listing.more?.id === id ? listing.more : undefined);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  dispose(): void {
    for (const timer of this.figureTimers.values()) clearTimeout(timer);
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
    this.blobs.dispose();
    this.items.dispose();
  }
}

/** The hex editor extension (ms-vscode.hexeditor); VS Code's binary-file notice otherwise. */
const HEX_EDITOR_EXTENSION = 'ms-vscode.hexeditor';
/** The authority of a blob URI read from the local emulator (and of one without an authority, as earlier versions made them). */
export const LOCAL_TARGET = 'local';

/**
 * The authority of blob URIs read from where the Storage view works now: {@link LOCAL_TARGET}, or
 * the `host:port` of the attached Azurite's Blob endpoint (`attached` when it gives none).
 */
export function targetAuthority(attached: { readonly blob?: string } | undefined): string {
  if (attached === undefined) return LOCAL_TARGET;
  return attached.blob !== undefined ? new URL(attached.blob).host : 'attached';
}

/**
 * The URI of a blob's content in the read-only file system.
 * @param where {@link targetAuthority} of the emulator it is read from: an editor left open after
 *   `azurite.attach` changes does not show another Azurite's blob of the same name
 */
export function blobUri(account: string, container: string, name: string, where: string): vscode.Uri {
  return vscode.Uri.from({ scheme: BLOB_SCHEME, authority: where, path: `/${account}/${container}/${name}` });
}

/** Parses a blob URI. @returns undefined when it names no blob (an account or a container) */
export function parseBlobUri(uri: vscode.Uri): { where: string; account: string; container: string; name: string } | undefined {
  const match = /^\/([^/]+)\/([^/]+)\/(.+)$/s.exec(uri.path);
  return match === null ? undefined : { where: uri.authority === '' ? LOCAL_TARGET : uri.authority, account: match[1]!, container: match[2]!, name: match[3]! };
}

/**
 * Blob content as a read-only file system: `stat` is Get Blob Properties, `readFile` is Get Blob.
 * Everything else is refused (NoPermissions); VS Code shows such editors as read-only. Watched
 * blobs are told to reload on every change of blob data ({@link changed}).
 */
export class BlobFileSystem implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  private readonly watched = new Map<string, { uri: vscode.Uri; count: number }>();

  /**
   * @param data the data layer (loaded on first use)
   * @param clients the SDK clients of an account; throws FileSystemError.Unavailable when none serves it
   * @param where {@link targetAuthority} of where the Storage view works now
   */
  constructor(private readonly data: () => DataLayer, private readonly clients: (account: string) => StorageClients, private readonly where: () => string) {}

  private target(uri: vscode.Uri): { clients: StorageClients; container: string; name: string } {
    const parsed = parseBlobUri(uri);
    if (parsed === undefined) throw vscode.FileSystemError.FileNotFound(uri);
    const now = this.where();
    if (parsed.where !== now) {
      const said = (w: string): string => (w === LOCAL_TARGET ? 'the local emulator' : `the Azurite at ${w}`);
      throw vscode.FileSystemError.Unavailable(`This blob was opened from ${said(parsed.where)}; the Storage view now works on ${said(now)} (azurite.attach). Open it again from there.`);
    }
    return { clients: this.clients(parsed.account), container: parsed.container, name: parsed.name };
  }

  /** Get Blob Properties; a missing blob is FileNotFound. */
  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    if (parseBlobUri(uri) === undefined) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0, permissions: vscode.FilePermission.Readonly };
    const { clients, container, name } = this.target(uri);
    try {
      const s = await this.data().statBlob(clients, container, name);
      return { type: vscode.FileType.File, size: s.size, ctime: s.createdOn?.getTime() ?? 0, mtime: blobMtime(s.lastModified, s.etag), permissions: vscode.FilePermission.Readonly };
    } catch (err) {
      throw notFound(err, uri);
    }
  }

  /** Get Blob: the whole content. */
  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const { clients, container, name } = this.target(uri);
    try {
      return (await this.data().readBlob(clients, container, name)).content;
    } catch (err) {
      throw notFound(err, uri);
    }
  }

  /**
   * VS Code watches an open blob: counted per URI, so {@link changed} names it until the last
   * watcher is disposed. Nothing is polled; the engine's change events drive it.
   */
  watch(uri: vscode.Uri): vscode.Disposable {
    const key = uri.toString();
    const entry = this.watched.get(key) ?? { uri, count: 0 };
    entry.count++;
    this.watched.set(key, entry);
    return new vscode.Disposable(() => {
      if (--entry.count <= 0) this.watched.delete(key);
    });
  }

  /** Tells VS Code that every watched blob may have changed (it then stats and reloads open ones). */
  changed(): void {
    if (this.watched.size > 0) this.emitter.fire([...this.watched.values()].map((w) => ({ type: vscode.FileChangeType.Changed, uri: w.uri })));
  }

  readDirectory(): [string, vscode.FileType][] { throw vscode.FileSystemError.NoPermissions('The Storage view lists blobs; this file system only reads them.'); }
  createDirectory(): void { throw vscode.FileSystemError.NoPermissions('Blob content is read-only here: upload from the Storage view.'); }
  writeFile(): void { throw vscode.FileSystemError.NoPermissions('Blob content is read-only here: upload from the Storage view.'); }
  delete(): void { throw vscode.FileSystemError.NoPermissions('Delete blobs from the Storage view.'); }
  rename(): void { throw vscode.FileSystemError.NoPermissions('Blob content is read-only here.'); }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** How many message and entity documents {@link ItemDocuments} keeps, besides those open. */
const ITEM_DOCUMENTS_KEPT = 500;

/** Messages and entities as read-only JSON documents, from what the view last listed. */
class ItemDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  /**
   * The documents' content by URI, oldest first. Past {@link ITEM_DOCUMENTS_KEPT}, the oldest that
   * VS Code does not hold open are dropped; an open one never is (VS Code asks for its content
   * again, on a revert for one), and a recent closed one stays for Reopen Closed Editor.
   */
  private readonly docs = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  /** Fires when a document's content was replaced (an item opened again after a change). */
  readonly onDidChange = this.changed.event;

  put(node: StorageNode): vscode.Uri {
    const [pathPart, json] = node.type === 'message'
      ? [`/${node.account}/${node.queue}/${node.info.messageId}.json`, itemJson(node.info)]
      : node.type === 'entity' ? [`/${node.account}/${node.table}/${encodeURIComponent(node.entity.partitionKey ?? '')}/${encodeURIComponent(node.entity.rowKey ?? '')}.json`, itemJson(entityDocument(node.entity))]
        : ['/unknown.json', '{}'];
    return this.set(vscode.Uri.from({ scheme: ITEM_SCHEME, path: pathPart }), json);
  }

  /** A JSON document of `value` at `pathPart` (replacing an earlier one of that path). */
  putJson(pathPart: string, value: unknown): vscode.Uri {
    return this.set(vscode.Uri.from({ scheme: ITEM_SCHEME, path: pathPart }), itemJson(value));
  }

  private set(uri: vscode.Uri, json: string): vscode.Uri {
    const key = uri.toString();
    this.docs.delete(key);
    this.docs.set(key, json);
    if (this.docs.size > ITEM_DOCUMENTS_KEPT) {
      const open = new Set(vscode.workspace.textDocuments.filter((d) => d.uri.scheme === ITEM_SCHEME).map((d) => d.uri.toString()));
      for (const old of this.docs.keys()) {
        if (this.docs.size <= ITEM_DOCUMENTS_KEPT) break;
        if (old !== key && !open.has(old)) this.docs.delete(old);
      }
    }
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? '// Gone: open it again from the Storage view.';
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The tree item of `node`; `where`: {@link targetAuthority} of its blob URIs. */
function treeItem(node: StorageNode, where: string): vscode.TreeItem {
  const C = vscode.TreeItemCollapsibleState;
  let item: vscode.TreeItem;
  switch (node.type) {
    case 'account':
      item = new vscode.TreeItem(node.account, C.Expanded);
      item.iconPath = new vscode.ThemeIcon('account');
      break;
    case 'service':
      item = new vscode.TreeItem(SERVICE_LABELS[node.kind], C.Collapsed);
      item.iconPath = new vscode.ThemeIcon(node.kind === 'blob' ? 'archive' : node.kind === 'queue' ? 'list-ordered' : 'table');
      break;
    case 'container':
      item = new vscode.TreeItem(node.name, C.Collapsed);
      item.iconPath = new vscode.ThemeIcon('package');
      if (node.bytes !== undefined) item.description = formatBytes(node.bytes);
      item.tooltip = node.bytes !== undefined ? `Container ${node.name}: ${formatBytes(node.bytes)} of blob content held by the engine` : `Container ${node.name}`;
      break;
    case 'folder':
      item = new vscode.TreeItem(visibleName(node.prefix.slice(0, -1).split('/').pop() || '/'), C.Collapsed);
      item.iconPath = vscode.ThemeIcon.Folder;
      item.tooltip = `Virtual folder ${visibleName(node.prefix)} (blob names that start with it)`;
      break;
    case 'blob': {
      const b = node.info;
      item = new vscode.TreeItem(visibleName(b.name.split('/').pop() || b.name), C.None);
      item.resourceUri = blobUri(node.account, node.container, b.name, where);
      item.description = [formatBytes(b.size), b.contentType, b.lastModified?.toLocaleString()].filter((p) => p !== undefined && p !== '').join(' · ');
      item.tooltip = new vscode.MarkdownString(blobTooltipMarkdown(b));
      item.command = { command: COMMANDS.storageOpen, title: 'Open', arguments: [node] };
      break;
    }
    case 'queue':
      item = new vscode.TreeItem(node.name, C.Collapsed);
      item.iconPath = new vscode.ThemeIcon('inbox');
      item.description = [node.count !== undefined ? `${node.count.toLocaleString('en-US')} message${node.count === 1 ? '' : 's'}` : undefined, node.bytes !== undefined ? formatBytes(node.bytes) : undefined].filter((p) => p !== undefined).join(' · ');
      item.tooltip = `Queue ${node.name}: about ${node.count ?? '?'} messages (approximate count)${node.bytes !== undefined ? `, ${formatBytes(node.bytes)} held by the engine` : ''}`;
      break;
    case 'message': {
      const m = node.info;
      // A base64 message (as Azure Functions writes them) shows what it says, and says it was base64.
      const shown = m.decodedText ?? m.text;
      item = new vscode.TreeItem(shown.length > 80 ? `${shown.slice(0, 80)}…` : shown || '(empty)', C.None);
      item.iconPath = new vscode.ThemeIcon('mail');
      item.description = `${m.decodedText !== undefined ? 'base64 · ' : ''}${m.insertedOn?.toLocaleString() ?? ''}${m.dequeueCount > 0 ? ` · dequeued ${m.dequeueCount}×` : ''}`;
      item.tooltip = `Message ${m.messageId}\nInserted ${m.insertedOn?.toISOString() ?? '?'}, expires ${m.expiresOn?.toISOString() ?? '?'}${m.decodedText !== undefined ? '\nBase64 of the text below (decoded; the JSON has both)' : ''}\n\n${shown.slice(0, 2000)}`;
      item.command = { command: COMMANDS.storageOpen, title: 'Open', arguments: [node] };
      break;
    }
    case 'table':
      item = new vscode.TreeItem(node.name, C.Collapsed);
      item.iconPath = new vscode.ThemeIcon('table');
      break;
    case 'entity': {
      const e = node.entity;
      item = new vscode.TreeItem(`${e.partitionKey} · ${e.rowKey}`, C.None);
      item.iconPath = new vscode.ThemeIcon('symbol-object');
      const props = Object.keys(e).filter((k) => !['partitionKey', 'rowKey', 'etag', 'timestamp'].includes(k) && !k.endsWith('@odata.type'));
      item.description = props.slice(0, 4).map((k) => `${k}: ${propertyText(e[k])}`).join(', ');
      item.tooltip = itemJson(entityDocument(e)).slice(0, 2000);
      item.command = { command: COMMANDS.storageOpen, title: 'Open', arguments: [node] };
      break;
    }
    case 'more':
      item = new vscode.TreeItem(MORE, C.None);
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      item.command = { command: COMMANDS.storageLoadMore, title: MORE, arguments: [node] };
      break;
    case 'note':
      item = new vscode.TreeItem(node.text, C.None);
      item.iconPath = new vscode.ThemeIcon(node.error === true ? 'error' : 'info');
      if (node.tooltip !== undefined) item.tooltip = node.tooltip;
      break;
  }
  item.id = node.id;
  item.contextValue = `azurite.${node.type}`;
  return item;
}

function isNode(value: unknown): value is StorageNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string' && typeof (value as { id?: unknown }).id === 'string';
}

function refOf(node: StorageNode): ItemRef | undefined {
  switch (node.type) {
    case 'container': return { kind: 'container', name: node.name };
    case 'blob': return { kind: 'blob', container: node.container, name: node.info.name };
    case 'queue': return { kind: 'queue', name: node.name };
    case 'message': return { kind: 'message', queue: node.queue, messageId: node.info.messageId };
    case 'table': return { kind: 'table', name: node.name };
    case 'entity': return { kind: 'entity', table: node.table, partitionKey: node.entity.partitionKey ?? '', rowKey: node.entity.rowKey ?? '' };
    default: return undefined;
  }
}

/**
 * What finding a message to delete does to the messages ahead of it (data/browse.ts deleteMessage):
 * the REST API deletes only with a pop receipt, which only a receive gives.
 */
const MESSAGE_DELETE_EFFECT = 'The messages ahead of it are made visible again at once, but their dequeue counts go up by one, '
  + 'and they move behind the messages that follow it. A consumer with a dequeue limit (Azure Functions: 5) may then move one to the poison queue.';

/** True when deleting `outer` deletes `inner` too: a blob in that container, a message in that queue, an entity in that table. */
function holds(outer: ItemRef, inner: ItemRef): boolean {
  return (outer.kind === 'container' && inner.kind === 'blob' && inner.container === outer.name)
    || (outer.kind === 'queue' && inner.kind === 'message' && inner.queue === outer.name)
    || (outer.kind === 'table' && inner.kind === 'entity' && inner.table === outer.name);
}

function consequence(ref: ItemRef): string {
  switch (ref.kind) {
    case 'container': return 'Every blob in it is deleted too.';
    case 'blob': return 'Its snapshots are deleted too.';
    case 'queue': return 'Every message in it is deleted too.';
    case 'message': return `Queue ${ref.queue}'s visible messages ahead of it are received, one at a time, to find it. ${MESSAGE_DELETE_EFFECT}`;
    case 'table': return 'Every entity in it is deleted too.';
    case 'entity': return `From table ${ref.table}.`;
  }
}

function uploadPlace(node: StorageNode): { container: string; prefix: string } | undefined {
  if (node.type === 'container') return { container: node.name, prefix: '' };
  if (node.type === 'folder') return { container: node.container, prefix: node.prefix };
  if (node.type === 'blob') {
    const slash = node.info.name.lastIndexOf('/');
    return { container: node.container, prefix: slash < 0 ? '' : node.info.name.slice(0, slash + 1) };
  }
  return undefined;
}

function notFound(err: unknown, uri: vscode.Uri): Error {
  if (err instanceof vscode.FileSystemError) return err;
  const status = (err as { statusCode?: number }).statusCode;
  return status === 404 ? vscode.FileSystemError.FileNotFound(uri) : vscode.FileSystemError.Unavailable(`${uri.path}: ${errorText(err)}`);
}

function errorText(err: unknown): string {
  const e = err as { message?: string; code?: string; statusCode?: number };
  if (e?.code === 'ECONNREFUSED') return 'the service does not answer (stopped?)';
  const first = describeRestError(err);
  return e?.statusCode !== undefined ? `${first} (HTTP ${e.statusCode})` : first;
}

/**
 * A dropped file, or every file under a dropped folder with blob names below the folder's name
 * (`photos/2024/a.jpg`), as a drop of a folder in a file manager would copy it.
 */
async function filesUnder(file: string, name: string): Promise<{ name: string; content: string }[]> {
  const stat = await fs.stat(file);
  if (!stat.isDirectory()) return [{ name, content: file }];
  const entries = await fs.readdir(file, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => {
    const full = path.join(e.parentPath, e.name);
    return { name: `${name}/${path.relative(file, full).split(path.sep).join('/')}`, content: full };
  });
}

/**
 * The files of a dropped URI that is not on the local disk (a remote window's `vscode-remote:`),
 * through VS Code's file system: the file itself, or every file under a folder (symbolic links
 * inside it are skipped, as {@link filesUnder} does), with names relative to the dropped item.
 */
async function filesUnderUri(uri: vscode.Uri, name: string): Promise<{ name: string; content: UploadContent }[]> {
  const stat = await vscode.workspace.fs.stat(uri);
  // Read as its upload begins (four at a time): a large folder is never all in memory.
  if ((stat.type & vscode.FileType.Directory) === 0) return [{ name, content: () => Promise.resolve(vscode.workspace.fs.readFile(uri)) }];
  const out: { name: string; content: UploadContent }[] = [];
  for (const [child, type] of await vscode.workspace.fs.readDirectory(uri)) {
    if (type === vscode.FileType.File || type === vscode.FileType.Directory) out.push(...await filesUnderUri(vscode.Uri.joinPath(uri, child), `${name}/${child}`));
  }
  return out;
}

/** An item as indented JSON: a message (its dates in ISO 8601), or an entity as core/snapshotFormat.ts `entityDocument` gives it. */
function itemJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** The Edm type names the Tables SDK puts in a `{ value, type }` property. */
const EDM_TYPES: ReadonlySet<string> = new Set(['Binary', 'Boolean', 'DateTime', 'Double', 'Guid', 'Int32', 'Int64', 'String']);

/**
 * The Tables SDK's form of a property as the view lists it (`disableTypeConversion`):
 * `{ value, type }` and nothing else, `type` an Edm type name. Not an entity that has properties
 * named `value` and `type` of its own.
 */
function isTypedValue(v: unknown): v is { value: unknown; type: string } {
  if (typeof v !== 'object' || v === null || v instanceof Date) return false;
  const keys = Object.keys(v);
  return keys.length === 2 && 'value' in v && EDM_TYPES.has(String((v as { type?: unknown }).type));
}

/** An entity property as short text: a typed value's text as the service keeps it (a DateTime with all its digits). */
function propertyText(v: unknown): string {
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (v instanceof Date) return v.toISOString();
  if (isTypedValue(v)) return String(v.value);
  return String(v);
}
