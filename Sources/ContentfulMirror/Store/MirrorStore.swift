/// The mirror directory as the sync engine sees it: documents, raw snapshots and the index.
///
/// Owned by one task (it holds the lock and a file-system cursor); not `Sendable`.
///
/// ## The commit protocol, in the order that makes a crash or a power loss harmless
///
/// 1. ``beginWriting()`` creates the writing marker; a sync that finds one sweeps the temporary
///    files a killed run left behind.
/// 2. Documents, raw snapshots and index shards are written atomically: a temporary file in the
///    same directory, then `rename(2)`. A reader sees the old file or the new one, never a mix.
///    An item's raw snapshot is written after its documents. A first sync, which has no old
///    files and whose mirror nobody reads before its manifest exists, saves the rename where a
///    kill is repaired anyway: a new item's files are created in place (a resume removes
///    snapshots that do not parse and item directories without a snapshot,
///    ``rebuildIndexFromSnapshots()``), and so are the index shards (a resume starts from an
///    empty index, ``resetIndex()``).
/// 3. Index shards change together: ``IndexStore/flush(using:)`` writes them all to an
///    ``IndexRedoLog`` and flushes it before writing any shard; opening a store rolls a found
///    log forward, and the log is cleared after the next flush of the file system.
/// 4. At a commit point, ``commit(_:flushIndex:)`` waits for the queued files, then flushes the
///    whole file system (`syncfs(2)`: file data, and the directory entries the renames created),
///    and only then writes the checkpoint that says those pages are done. A power loss before the
///    flush loses the checkpoint's pages too, so the resumed sync fetches them again. In a first
///    sync (no index flush, no journal) the flush and then the checkpoint run on a
///    ``BackgroundCommit`` thread while the next pages are written; the checkpoint still follows
///    the flush, and claims only the pages drained before the flush started.
/// 5. ``finish(with:journal:report:)`` flushes again, then writes the manifest with the new sync
///    token, flushes it, and only then removes the checkpoint and the writing marker. The token
///    therefore never moves past data that is not on disk, and the checkpoint is not dropped
///    before the manifest that replaces it is durable.
///
/// Applying a page twice gives the same files as applying it once, so redoing the pages after the
/// last durable checkpoint (or manifest) converges on the same mirror.
///
/// With ``Durability/unflushed`` every flush above is skipped and the order stays: a killed
/// process still recovers the same way, since what it wrote is in the page cache; a power loss
/// is no longer covered.
final class MirrorStore {
  let layout: MirrorLayout
  private(set) var fileSystem = FileSystem()
  private let index: IndexStore
  private let lock: MirrorLock

  /// Documents written and removed since the store was opened.
  private(set) var documentsWritten = 0
  private(set) var documentsRemoved = 0

  /// Opens (creating if needed) the mirror at `layout` and takes its lock.
  ///
  /// - Throws: ``MirrorError`` `.locked` when another process is syncing this mirror.
  init(layout: MirrorLayout) throws(MirrorError) {
    self.layout = layout
    try fileSystem.makeRoot(layout.root)
    // Creating (or checking) every fixed directory up front means a symbolic link planted at any
    // of them is refused before anything is read or written through it.
    for directory in [
      layout.privateDirectory, layout.rawItemsDirectory(.entry), layout.rawItemsDirectory(.asset),
      layout.entriesDirectory, layout.assetsDirectory, layout.indexDirectory + "/items",
      layout.indexDirectory + "/links",
    ] {
      try fileSystem.makeDirectory(directory)
    }
    lock = try MirrorLock(path: layout.lock)
    index = IndexStore(layout: layout)
    try IndexRedoLog(layout: layout).recover(fileSystem: &fileSystem)
  }

  // MARK: Reading state

  /// The committed manifest, or `nil` for a mirror that never finished a sync.
  func readManifest() throws(MirrorError) -> Manifest? {
    try Self.readManifest(layout: layout, fileSystem: fileSystem)
  }

  static func readManifest(layout: MirrorLayout, fileSystem: FileSystem) throws(MirrorError)
    -> Manifest?
  {
    guard let bytes = try fileSystem.readFileIfPresent(layout.manifest) else { return nil }
    let value: JSONValue
    do {
      value = try JSONReader().read(bytes)
    } catch {
      throw MirrorError(
        .corrupt,
        "manifest.json is not valid JSON (\(error)); run `contentful-mirror sync --full` to rebuild the mirror",
        path: layout.manifest)
    }
    return try Manifest(json: value)
  }

  /// The checkpoint of an interrupted sync, if any.
  func readCheckpoint() throws(MirrorError) -> Checkpoint? {
    guard let bytes = try fileSystem.readFileIfPresent(layout.checkpoint),
      let value = try? JSONReader().read(bytes)
    else { return nil }
    return Checkpoint(json: value)
  }

  // MARK: Applying items

  /// Where documents and raw snapshots are written, in the background.
  private lazy var writeQueue = FileWriteQueue(
    root: layout.root, durability: durability, writers: writerThreads)

  /// The items of the last page submitted to ``writeQueue``, which may still be being written.
  private var keysBeingWritten: Set<ItemKey> = []

  /// The first sync's commit point being made durable while the next pages are written.
  private let backgroundCommit = BackgroundCommit()

  /// How many threads create files.
  var writerThreads = 1

  /// How written documents are made durable before a commit point records them.
  var durability = Durability.syncPerCommit {
    didSet { fileSystem.flushes = durability != .unflushed }
  }

  /// The sync token of the manifest on disk when the sync started (journal records of an
  /// attempt that never reached it are merged, see ``SyncJournal``).
  var committedSyncToken: String?

  /// Whether this is a first sync: no manifest is committed yet, so nothing relies on the
  /// mirror's files. Its index flushes skip the redo log (a resumed first sync rebuilds the index
  /// with ``resetIndex()``), and new items' files are written in place, without a temporary file
  /// and a rename (its resume removes every item whose raw snapshot is missing or cut short, see
  /// ``rebuildIndexFromSnapshots()``).
  var isFirstSync = false

  /// How many threads encode a page's items (files are written by one thread).
  var encoderThreads = 1

  /// Encodes the raw snapshots and documents of a page's items on ``encoderThreads`` threads,
  /// queues their files for writing, and updates their index rows in page order. The files are
  /// written while the caller goes on to the next page; ``commit(_:flushIndex:)`` waits for them.
  func upsert(_ items: [SyncedItem], renderer: DocumentRenderer, locales: [String]) throws {
    var inPlace: [Bool] = []
    inPlace.reserveCapacity(items.count)
    for item in items {
      let old = try index.row(for: item.key, fileSystem: fileSystem)
      if let old, old.contentType != item.contentTypeID {
        try writeQueue.drain()
        try removeDocuments(of: item.key, contentType: old.contentType)
      }
      inPlace.append(old == nil && isFirstSync)
    }
    let encoded = ItemEncoder(layout: layout, renderer: renderer, locales: locales)
      .encode(items, inPlace: inPlace, threads: encoderThreads)
    // The previous page may still be being written: an item in both waits for it.
    if items.contains(where: { keysBeingWritten.contains($0.key) }) { try writeQueue.drain() }
    try writeQueue.reportFailure()
    writeQueue.submit(encoded.map(\.files))
    keysBeingWritten = Set(items.map(\.key))
    documentsWritten += items.count * locales.count
    for (item, encodedItem) in zip(items, encoded) {
      try index.upsert(item.key, row: encodedItem.row, fileSystem: fileSystem)
    }
  }

  /// Waits for queued writes and for a commit point being made durable in the background.
  func drainWrites() throws(MirrorError) {
    try writeQueue.drain()
    try backgroundCommit.wait()
  }

  /// Removes the index of a first sync that was interrupted, before it is rebuilt from the raw
  /// snapshots: a flush cut short may have left item and link shards out of step.
  func resetIndex() throws(MirrorError) {
    index.discardChanges()
    for directory in [layout.indexDirectory + "/items", layout.indexDirectory + "/links"] {
      try fileSystem.removeTree(directory)
      try fileSystem.makeDirectory(directory)
    }
    index.isEmptyOnDisk = true
  }

  /// Re-derives the (uncommitted) index rows of every raw snapshot on disk: how an initial sync
  /// that stopped before its index was written resumes without refetching what it had.
  ///
  /// A first sync writes a new item's files in place, its raw snapshot after its documents. A
  /// snapshot that is not valid JSON was therefore cut short by a kill (JSON cut short never
  /// parses), and an item directory without a valid snapshot belongs to an item cut short: both
  /// are removed, and the resumed pages write the item again if the space still has it.
  func rebuildIndexFromSnapshots() throws(MirrorError) -> Int {
    var known = Set<ItemKey>()
    for key in try snapshotKeys() {
      let bytes = try fileSystem.readFileIfPresent(layout.rawItemPath(for: key))
      guard let item = bytes.flatMap({ Self.snapshot($0, of: key) }) else {
        try fileSystem.removeFile(layout.rawItemPath(for: key))
        continue
      }
      try index.upsert(key, row: IndexStore.ItemRow(for: item), fileSystem: fileSystem)
      known.insert(key)
    }
    try removeItemDirectories(notIn: known)
    return known.count
  }

  /// Removes every item directory of the document tree whose item is not in `known`.
  private func removeItemDirectories(notIn known: Set<ItemKey>) throws(MirrorError) {
    for name in try fileSystem.contentsOfDirectory(layout.assetsDirectory)
    where !known.contains(ItemKey(.asset, name)) {
      try fileSystem.removeTree(layout.assetsDirectory + "/" + name)
    }
    for type in try fileSystem.contentsOfDirectory(layout.entriesDirectory) {
      let directory = layout.entriesDirectory + "/" + type
      guard try fileSystem.isRealDirectory(directory) else { continue }
      for name in try fileSystem.contentsOfDirectory(directory)
      where !known.contains(ItemKey(.entry, name)) {
        try fileSystem.removeTree(directory + "/" + name)
      }
      fileSystem.removeDirectoryIfEmpty(directory)
    }
  }

  /// Removes every document, the raw snapshot and the index rows of `key`. Removing an item that
  /// is not there is a no-op, so replaying a deletion is harmless.
  ///
  /// - Returns: The content type the item had, when it was an entry the mirror knew.
  @discardableResult
  func delete(_ key: ItemKey) throws(MirrorError) -> String? {
    try writeQueue.drain()
    var contentType = try index.row(for: key, fileSystem: fileSystem)?.contentType
    if contentType == nil, key.kind == .entry {
      // Written by a sync that stopped before its index rows were committed.
      contentType = try rawItem(key)?.contentTypeID
    }
    if key.kind == .asset || contentType != nil {
      try removeDocuments(of: key, contentType: contentType)
    }
    try fileSystem.removeFile(layout.rawItemPath(for: key))
    try index.remove(key, fileSystem: fileSystem)
    return contentType
  }

  private func writeDocuments(of item: SyncedItem, renderer: DocumentRenderer, locales: [String])
    throws(MirrorError)
  {
    let documents = renderer.encodedDocuments(for: item, locales: locales)
    let directory = layout.itemDirectory(for: item.key, contentType: item.contentTypeID)
    for (locale, bytes) in zip(locales, documents) {
      let path = MirrorLayout.documentPath(inItemDirectory: directory, locale)
      try fileSystem.writeAtomically(bytes, to: path)
      documentsWritten += 1
    }
  }

  private func removeDocuments(of key: ItemKey, contentType: String?, keeping: Set<String> = [])
    throws(MirrorError)
  {
    let directory = layout.itemDirectory(for: key, contentType: contentType)
    guard try fileSystem.isRealDirectory(directory) else { return }
    for name in try fileSystem.contentsOfDirectory(directory) {
      guard name.hasSuffix(".json"), !keeping.contains(String(name.dropLast(5))) else { continue }
      try fileSystem.removeFile(directory + "/" + name)
      documentsRemoved += 1
    }
    if keeping.isEmpty, fileSystem.removeDirectoryIfEmpty(directory), key.kind == .entry {
      fileSystem.removeDirectoryIfEmpty(FileSystem.parent(of: directory))
    }
  }

  /// The keys of every raw snapshot on disk (temporary files, which end in `.tmp`, and invalid
  /// names skipped; an id may start with a dot).
  private func snapshotKeys() throws(MirrorError) -> [ItemKey] {
    var keys: [ItemKey] = []
    for kind in ItemKind.allCases {
      for name in try fileSystem.contentsOfDirectory(layout.rawItemsDirectory(kind))
      where name.hasSuffix(".json") {
        let key = ItemKey(kind, String(name.dropLast(5)))
        if Identifier.isValid(key.id) { keys.append(key) }
      }
    }
    return keys
  }

  /// The raw snapshot of `key`, if the mirror has one.
  func rawItem(_ key: ItemKey) throws(MirrorError) -> SyncedItem? {
    let path = layout.rawItemPath(for: key)
    guard let bytes = try fileSystem.readFileIfPresent(path) else { return nil }
    guard let item = Self.snapshot(bytes, of: key) else {
      throw MirrorError(
        .corrupt, "\(path) is damaged; run `contentful-mirror sync --full` to rebuild the mirror",
        path: path)
    }
    return item
  }

  /// `bytes` read as the raw snapshot of `key`, or `nil` when they are not one.
  private static func snapshot(_ bytes: [UInt8], of key: ItemKey) -> SyncedItem? {
    guard let item = try? SyncedItem(json: bytes, kind: key.kind), item.key == key else {
      return nil
    }
    return item
  }

  /// Re-renders every document from the raw snapshots, without the network, after the locales or
  /// content types changed; documents of locales no longer mirrored are removed.
  func rerenderAll(renderer: DocumentRenderer, locales: [String]) throws(MirrorError) -> Int {
    var count = 0
    for key in try snapshotKeys() {
      guard let item = try rawItem(key) else { continue }
      try removeDocuments(of: key, contentType: item.contentTypeID, keeping: Set(locales))
      try writeDocuments(of: item, renderer: renderer, locales: locales)
      count += 1
    }
    return count
  }

  /// Deletes every item of the mirror not in `keep` (the end of a `--full` sync).
  func deleteItems(notIn keep: Set<ItemKey>) throws(MirrorError) -> Int {
    try writeQueue.drain()
    try index.flush(using: &fileSystem, logged: !isFirstSync)
    var stale = Set<ItemKey>()
    try index.forEachRow(fileSystem: fileSystem) { key, _ in
      if !keep.contains(key) { stale.insert(key) }
    }
    stale.formUnion(try snapshotKeys().filter { !keep.contains($0) })
    for key in stale.sorted() { try delete(key) }
    return stale.count
  }

  // MARK: Commit points

  /// Makes everything applied so far durable, then records `checkpoint`.
  ///
  /// - Parameter flushIndex: Write the changed index shards too. An initial sync passes `false`:
  ///   every shard would be rewritten at every commit point, so it writes the index once at the
  ///   end and, if interrupted, re-derives it from the raw snapshots on resume.
  func commit(_ checkpoint: Checkpoint, flushIndex: Bool = true) throws(MirrorError) {
    try drainWrites()
    if !flushIndex && checkpoint.journalRecord == nil {
      // Nothing but the checkpoint depends on this flush (a first sync's): the next pages are
      // written while it runs. They may or may not be flushed with it; the checkpoint, written
      // once the flush returns, claims only the pages written before it started.
      return backgroundCommit.start(
        checkpoint: CanonicalJSON.encode(checkpoint.json), layout: layout,
        flush: fileSystem.flushes)
    }
    if let record = checkpoint.journalRecord {
      // Before the index loses the rows of deleted items, the journal keeps their content types.
      try SyncJournal(layout: layout).append(
        record, committedToken: committedSyncToken, fileSystem: &fileSystem)
    }
    if flushIndex { try index.flush(using: &fileSystem, logged: !isFirstSync) }
    try fileSystem.syncFileSystem(of: layout.root)
    try IndexRedoLog(layout: layout).clear(fileSystem: fileSystem)
    try fileSystem.writeAtomically(CanonicalJSON.encode(checkpoint.json), to: layout.checkpoint)
  }

  /// Ends a sync: flushes, writes the manifest (the new token) last, then drops the checkpoint.
  func finish(with manifest: Manifest, journal record: SyncJournal.Record?, report: JSONValue)
    throws(MirrorError)
  {
    if isFirstSync && record == nil {
      // Nothing reads the documents before the flush below: the index is derived and encoded
      // while the writers finish the last page.
      try backgroundCommit.wait()
    } else {
      try drainWrites()
    }
    // The journal first: once the index is flushed, deleted items' content types are gone from
    // it, and a replay after a crash could not record them again (records of one sync merge).
    if let record {
      try SyncJournal(layout: layout).append(
        record, committedToken: committedSyncToken, fileSystem: &fileSystem)
    }
    try index.flush(using: &fileSystem, logged: !isFirstSync, queue: writeQueue)
    try writeQueue.drain()
    try fileSystem.syncFileSystem(of: layout.root)
    try IndexRedoLog(layout: layout).clear(fileSystem: fileSystem)
    try fileSystem.writeAtomically(CanonicalJSON.encode(manifest.json), to: layout.manifest)
    try fileSystem.syncFileSystem(of: layout.root)
    try fileSystem.removeFile(layout.checkpoint)
    try fileSystem.writeAtomically(CanonicalJSON.encode(report), to: layout.lastSyncReport)
    try endWriting()
  }

  /// Marks the mirror as being written. If the marker is already there, the last sync was killed
  /// (or lost power) while writing: its temporary files are removed first.
  ///
  /// - Returns: How many temporary files were removed.
  @discardableResult
  func beginWriting() throws(MirrorError) -> Int {
    var removed = 0
    if fileSystem.exists(layout.writingMarker) {
      removed = try Self.removeTemporaryFiles(layout: layout, fileSystem: &fileSystem)
    } else {
      try fileSystem.writeAtomically([], to: layout.writingMarker)
    }
    return removed
  }

  /// Removes the temporary files of the mirror's own writers: in the root and in the trees the
  /// mirror owns (not in other directories a user keeps there, such as `.git`).
  static func removeTemporaryFiles(layout: MirrorLayout, fileSystem: inout FileSystem)
    throws(MirrorError) -> Int
  {
    var removed = try fileSystem.removeTemporaryFiles(under: layout.root, recursive: false)
    for tree in [
      layout.entriesDirectory, layout.assetsDirectory, layout.indexDirectory,
      layout.privateDirectory,
    ] where try fileSystem.isRealDirectory(tree) {
      removed += try fileSystem.removeTemporaryFiles(under: tree)
    }
    return removed
  }

  /// Removes the writing marker once nothing the sync started is left half-done.
  func endWriting() throws(MirrorError) {
    try fileSystem.removeFile(layout.writingMarker)
  }

  /// Forgets index changes not yet committed (the page that failed is replayed next time).
  func discardUncommitted() {
    index.discardChanges()
  }

  /// Removes everything the mirror wrote, before a `--full` sync into a damaged mirror.
  func removeAllContent() throws(MirrorError) {
    try drainWrites()
    index.discardChanges()
    for path in [
      layout.entriesDirectory, layout.assetsDirectory, layout.indexDirectory,
      layout.privateDirectory + "/items", layout.manifest, layout.checkpoint,
    ] {
      try fileSystem.removeTree(path)
    }
    try fileSystem.makeDirectory(layout.entriesDirectory)
    try fileSystem.makeDirectory(layout.assetsDirectory)
    index.isEmptyOnDisk = true
  }
}
