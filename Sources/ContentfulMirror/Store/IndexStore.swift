import Dispatch
import Synchronization

/// The item index and the link index, sharded into small files under `index/`.
///
/// Each item's row (content type, revision, updatedAt, the items it links to) lives in
/// `index/items/<shard>.json`; each link target's row (who links to it, and whether it is
/// missing from the mirror, i.e. dangling) lives in `index/links/<shard>.json`. The shard of a
/// key is a fixed hash of its text (``shard(of:)``), so a delta of N items rewrites at most a few
/// N shard files whatever the size of the space, and at 100k entries each shard holds tens of rows.
///
/// Reverse rows are derived inside ``upsert(_:row:)`` and ``remove(_:)`` from the forward rows,
/// never edited on their own (a first sync's all at once, before its one flush). Shards are read
/// lazily, changed in memory, and written by ``flush(using:)`` at commit points, through an
/// ``IndexRedoLog`` so that the item and link shards of one flush land together or not at all.
final class IndexStore {
  /// One item's row.
  struct ItemRow: Hashable, Sendable {
    var contentType: String? = nil
    var revision: Int? = nil
    var updatedAt: String? = nil
    var linksTo: [ItemKey]
  }

  /// One link target's row.
  struct LinkRow: Hashable, Sendable {
    var linkedFrom: Set<ItemKey>
    var dangling: Bool
  }

  /// The number of shards of each index. Part of the on-disk format.
  static let shardCount = 4096

  private let layout: MirrorLayout
  private var itemShards: [Int: [ItemKey: ItemRow]] = [:]
  private var linkShards: [Int: [ItemKey: LinkRow]] = [:]
  private var dirtyItemShards: Set<Int> = []
  private var dirtyLinkShards: Set<Int> = []

  /// Set by the store when it has just removed every shard: shards are then not looked for on
  /// disk (a first sync would otherwise try to open each of them once).
  var isEmptyOnDisk = false

  /// A first sync's rows in arrival order, while the index is empty on disk and in memory and
  /// nothing but upserts has happened: the link index is then derived once, from the final rows
  /// (``deriveCollectedRows()``), instead of link by link as each row arrives.
  private var collected: [(key: ItemKey, row: ItemRow)] = []
  /// Where each key's row is in ``collected``.
  private var collectedPositions: [ItemKey: Int] = [:]

  /// Whether upserts are collected: nothing of the index exists yet but collected rows.
  private var collects: Bool { isEmptyOnDisk && itemShards.isEmpty && linkShards.isEmpty }

  init(layout: MirrorLayout) {
    self.layout = layout
  }

  /// FNV-1a 32-bit of the key's UTF-8 text, modulo ``shardCount``.
  static func shard(of key: ItemKey) -> Int {
    var hash: UInt32 = 0x811C_9DC5
    for byte in key.kind.rawValue.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
    hash = (hash ^ UInt32(UInt8(ascii: ":"))) &* 0x0100_0193
    for byte in key.id.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
    return Int(hash % UInt32(shardCount))
  }

  static func shardName(_ shard: Int) -> String {
    let hex = String(shard, radix: 16)
    return String(repeating: "0", count: max(0, 3 - hex.count)) + hex
  }

  // MARK: Queries

  /// The row of `key`, or `nil` when the item is not in the mirror.
  func row(for key: ItemKey, fileSystem: FileSystem) throws(MirrorError) -> ItemRow? {
    if collects { return collectedPositions[key].map { collected[$0].row } }
    return try itemShard(Self.shard(of: key), fileSystem)[key]
  }

  /// The row of link target `key`, or `nil` when nothing links to it.
  func referrers(of key: ItemKey, fileSystem: FileSystem) throws(MirrorError) -> LinkRow? {
    deriveCollectedRows()
    return try linkShard(Self.shard(of: key), fileSystem)[key]
  }

  /// Calls `body` with every committed item row, shard by shard, without keeping the shards.
  func forEachRow(fileSystem: FileSystem, _ body: (ItemKey, ItemRow) -> Void) throws(MirrorError) {
    deriveCollectedRows()
    for name in try fileSystem.contentsOfDirectory(layout.indexDirectory + "/items") {
      guard name.hasSuffix(".json"), let shard = Int(name.dropLast(5), radix: 16) else { continue }
      let wasCached = itemShards[shard] != nil
      for (key, row) in try itemShard(shard, fileSystem) { body(key, row) }
      if !wasCached { itemShards[shard] = nil }
    }
  }

  // MARK: Changes

  /// Sets `key`'s row and re-derives the reverse rows of its old and new link targets.
  func upsert(_ key: ItemKey, row: ItemRow, fileSystem: FileSystem) throws(MirrorError) {
    if collects {
      if let position = collectedPositions[key] {
        collected[position].row = row
      } else {
        collectedPositions[key] = collected.count
        collected.append((key, row))
      }
      return
    }
    let shard = Self.shard(of: key)
    if itemShards[shard] == nil { _ = try itemShard(shard, fileSystem) }
    let old = itemShards[shard]?.updateValue(row, forKey: key)
    dirtyItemShards.insert(shard)
    var added = row.linksTo  // distinct (see LinkExtractor)
    if let old, !old.linksTo.isEmpty {
      let oldTargets = Set(old.linksTo)
      let newTargets = Set(row.linksTo)
      for target in oldTargets.subtracting(newTargets) {
        try updateLinkRow(target, fileSystem) { $0?.linkedFrom.remove(key) != nil }
      }
      added = row.linksTo.filter { !oldTargets.contains($0) }
    }
    for target in added {
      let present = try self.row(for: target, fileSystem: fileSystem) != nil
      try updateLinkRow(target, fileSystem) { linkRow in
        guard linkRow != nil else {
          linkRow = LinkRow(linkedFrom: [key], dangling: !present)
          return true
        }
        return linkRow?.linkedFrom.insert(key).inserted ?? false
      }
    }
    if old == nil { try updateLinkRow(key, fileSystem) { Self.setDangling(&$0, false) } }
  }

  /// Removes `key`'s row and its links; items that linked to it now have dangling links.
  func remove(_ key: ItemKey, fileSystem: FileSystem) throws(MirrorError) {
    deriveCollectedRows()
    let shard = Self.shard(of: key)
    guard let old = try itemShard(shard, fileSystem)[key] else { return }
    itemShards[shard]?[key] = nil
    dirtyItemShards.insert(shard)
    for target in Set(old.linksTo) {
      try updateLinkRow(target, fileSystem) { $0?.linkedFrom.remove(key) != nil }
    }
    try updateLinkRow(key, fileSystem) { Self.setDangling(&$0, true) }
  }

  /// Applies `change` to `target`'s reverse row in place (a popular target's set of referrers
  /// is not copied per link); `change` reports whether it changed anything. A row nobody links
  /// to any more is dropped.
  private func updateLinkRow(
    _ target: ItemKey, _ fileSystem: FileSystem, _ change: (inout LinkRow?) -> Bool
  ) throws(MirrorError) {
    let shard = Self.shard(of: target)
    if linkShards[shard] == nil { _ = try linkShard(shard, fileSystem) }  // loads it
    // One lookup: the row is changed, and dropped if emptied, through the subscripts' accessors.
    guard Self.apply(change, to: &linkShards[shard, default: [:]][target]) else { return }
    dirtyLinkShards.insert(shard)
  }

  private static func apply(_ change: (inout LinkRow?) -> Bool, to row: inout LinkRow?) -> Bool {
    let changed = change(&row)
    if row?.linkedFrom.isEmpty == true { row = nil }
    return changed
  }

  private static func setDangling(_ row: inout LinkRow?, _ dangling: Bool) -> Bool {
    guard row != nil, row?.dangling != dangling else { return false }
    row?.dangling = dangling
    return true
  }

  /// Turns the collected rows into shards, as if each had been upserted in turn: every item row
  /// goes to its shard; every link target gets the row of the items linking to it, dangling when
  /// the target is not among the items. It runs at the end of a first sync, while little else
  /// does: the even and the odd shards are derived on two threads.
  private func deriveCollectedRows() {
    guard !collected.isEmpty else { return }
    let rows = collected
    let positions = collectedPositions
    let parts = rows.count >= 1024 ? 2 : 1
    let derived = Mutex<[DerivedShards]>([])
    DispatchQueue.concurrentPerform(iterations: parts) { part in
      let shards = rows.withUnsafeBufferPointer { rows in
        Self.derive(part: part, of: parts, from: rows, positions: positions)
      }
      derived.withLock { $0.append(shards) }
    }
    for part in derived.withLock({ $0 }) {
      itemShards.merge(part.items) { $1 }
      linkShards.merge(part.links) { $1 }
      dirtyItemShards.formUnion(part.items.keys)
      dirtyLinkShards.formUnion(part.links.keys)
    }
    collected = []
    collectedPositions = [:]
  }

  private typealias DerivedShards = (
    items: [Int: [ItemKey: ItemRow]], links: [Int: [ItemKey: LinkRow]]
  )

  /// The item and link shards numbered `part` modulo `parts`, derived from collected `rows`
  /// (`positions`: where each row's key is).
  ///
  /// Each shard's rows and links are first gathered into plain arrays (a hash of the key's text
  /// and an append each); each shard's dictionaries and each target's set of referrers are then
  /// built once, at their final size, instead of growing link by link.
  private static func derive(
    part: Int, of parts: Int, from rows: UnsafeBufferPointer<(key: ItemKey, row: ItemRow)>,
    positions: [ItemKey: Int]
  ) -> DerivedShards {
    // For each shard of this part: the positions in `rows` of its items, and its links as
    // (target, position of the linking row) pairs.
    var shardRows = [[Int]](repeating: [], count: shardCount)
    var shardLinks = [[(target: ItemKey, source: Int)]](repeating: [], count: shardCount)
    for position in rows.indices {
      let itemShard = Self.shard(of: rows[position].key)
      if itemShard % parts == part { shardRows[itemShard].append(position) }
      for target in rows[position].row.linksTo {
        let linkShard = Self.shard(of: target)
        if linkShard % parts == part { shardLinks[linkShard].append((target, position)) }
      }
    }
    var items: [Int: [ItemKey: ItemRow]] = [:]
    var links: [Int: [ItemKey: LinkRow]] = [:]
    for shard in stride(from: part, to: shardCount, by: parts) {
      // Each shard's arrays are released once used: at 100k entries they hold ~600k links.
      let positionsInShard = shardRows[shard]
      shardRows[shard] = []
      if !positionsInShard.isEmpty {
        var shardItems = [ItemKey: ItemRow](minimumCapacity: positionsInShard.count)
        for position in positionsInShard { shardItems[rows[position].key] = rows[position].row }
        items[shard] = shardItems
      }
      var pairs = shardLinks[shard]
      shardLinks[shard] = []
      guard !pairs.isEmpty else { continue }
      // Each target's links next to each other, then one row per target.
      pairs.sort { $0.target < $1.target }
      var shardLinkRows: [ItemKey: LinkRow] = [:]
      var first = pairs.startIndex
      while first < pairs.endIndex {
        let target = pairs[first].target
        var end = first + 1
        while end < pairs.endIndex && pairs[end].target == target { end += 1 }
        var referrers = Set<ItemKey>(minimumCapacity: end - first)
        for pair in pairs[first..<end] { referrers.insert(rows[pair.source].key) }
        shardLinkRows[target] = LinkRow(linkedFrom: referrers, dangling: positions[target] == nil)
        first = end
      }
      links[shard] = shardLinkRows
    }
    return (items, links)
  }

  // MARK: Persistence

  /// Writes every changed shard (removing shards that became empty) and forgets the clean
  /// in-memory copies, so memory stays bounded between commit points.
  ///
  /// - Parameters:
  ///   - logged: Write the changed shards to the redo log first (made durable), then to their
  ///     files; the caller clears the log with ``IndexRedoLog/clear(fileSystem:)`` after its next
  ///     file-system flush. A first sync, whose index nothing relies on yet and which rebuilds it
  ///     from the raw snapshots when resumed, passes `false`.
  ///   - queue: For an unlogged flush, where the order of shard writes does not matter, the
  ///     shards are written by `queue`'s threads while the next ones are encoded (its few
  ///     batches in flight bound the memory); the caller drains it before relying on them.
  func flush(using fileSystem: inout FileSystem, logged: Bool = true, queue: FileWriteQueue? = nil)
    throws(MirrorError)
  {
    deriveCollectedRows()
    let log = IndexRedoLog(layout: layout)
    // A small flush (a delta's) keeps the bytes it logged for writing the shards; a large one
    // encodes each shard again, which costs less than holding every shard's bytes at once.
    let keepsLogged = dirtyItemShards.count + dirtyLinkShards.count <= Self.keptShards
    var loggedBatches: [[IndexRedoLog.Change]] = []
    if logged && !(dirtyItemShards.isEmpty && dirtyLinkShards.isEmpty) {
      let writer = try IndexRedoLog.Writer(log)
      try forEachBatch { changes throws(MirrorError) in
        for change in changes { try writer.append(change) }
        if keepsLogged { loggedBatches.append(changes) }
      }
      try writer.commit(fileSystem: fileSystem)
    }
    // With no shard on disk (a first sync, which a resume restarts with an empty index), a
    // shard cut short by a kill is never read, so shards need no temporary file and rename.
    let inPlace = isEmptyOnDisk
    func write(_ changes: [IndexRedoLog.Change]) throws(MirrorError) {
      var files: [[FileWriteQueue.File]] = []
      for change in changes {
        if !logged, queue != nil, let bytes = change.bytes {
          files.append([
            .init(path: layout.root + "/" + change.relativePath, bytes: bytes, inPlace: inPlace)
          ])
        } else {
          try log.apply(change, fileSystem: &fileSystem)
        }
      }
      if let queue, !files.isEmpty {
        try queue.reportFailure()
        queue.submit(files)
      }
    }
    if loggedBatches.isEmpty {
      try forEachBatch(write)
    } else {
      for changes in loggedBatches { try write(changes) }
    }
    dirtyItemShards.removeAll()
    dirtyLinkShards.removeAll()
    itemShards.removeAll()
    linkShards.removeAll()
    isEmptyOnDisk = false
  }

  /// Up to how many changed shards a logged flush keeps the bytes it logged (a 100-item delta
  /// changes a few hundred).
  static let keptShards = 2048

  /// Each changed shard's new contents (`nil`: remove the shard), item shards then link shards,
  /// each in shard order, in batches of 256. A large batch is encoded on two threads: the first
  /// sync's one flush encodes every shard at its end, while nothing else runs (0.95 s on one
  /// thread for 100k entries).
  private func forEachBatch(_ body: ([IndexRedoLog.Change]) throws(MirrorError) -> Void)
    throws(MirrorError)
  {
    let shards =
      dirtyItemShards.sorted().map(ShardChange.items)
      + dirtyLinkShards.sorted().map(ShardChange.links)
    for start in stride(from: 0, to: shards.count, by: 256) {
      let batch = shards[start..<min(start + 256, shards.count)]
      try body(Self.encode(batch, items: itemShards, links: linkShards))
    }
  }

  /// A changed shard of one of the two indexes.
  private enum ShardChange: Sendable {
    case items(Int)
    case links(Int)
  }

  private static func encode(
    _ shards: ArraySlice<ShardChange>, items: [Int: [ItemKey: ItemRow]],
    links: [Int: [ItemKey: LinkRow]]
  ) -> [IndexRedoLog.Change] {
    @Sendable func change(_ shard: ShardChange) -> IndexRedoLog.Change {
      switch shard {
      case .items(let shard):
        let rows = items[shard] ?? [:]
        return .init(
          relativePath: MirrorLayout.itemShard(shard),
          bytes: rows.isEmpty ? nil : IndexShardCodec.encode(items: rows))
      case .links(let shard):
        let rows = links[shard] ?? [:]
        return .init(
          relativePath: MirrorLayout.linkShard(shard),
          bytes: rows.isEmpty ? nil : IndexShardCodec.encode(links: rows))
      }
    }
    guard shards.count >= 32 else { return shards.map(change) }
    let middle = shards.startIndex + shards.count / 2
    let halves = Mutex<[[IndexRedoLog.Change]]>([[], []])
    DispatchQueue.concurrentPerform(iterations: 2) { half in
      let changes = (half == 0 ? shards[..<middle] : shards[middle...]).map(change)
      halves.withLock { $0[half] = changes }
    }
    return halves.withLock { $0[0] + $0[1] }
  }

  /// Forgets unflushed changes (after a failed page).
  func discardChanges() {
    collected = []
    collectedPositions = [:]
    dirtyItemShards.removeAll()
    dirtyLinkShards.removeAll()
    itemShards.removeAll()
    linkShards.removeAll()
  }

  private func itemShard(_ shard: Int, _ fileSystem: FileSystem) throws(MirrorError) -> [ItemKey:
    ItemRow]
  {
    if let rows = itemShards[shard] { return rows }
    let rows = try readShard(layout.itemShardPath(shard), fileSystem, IndexShardCodec.items)
    itemShards[shard] = rows
    return rows
  }

  private func linkShard(_ shard: Int, _ fileSystem: FileSystem) throws(MirrorError) -> [ItemKey:
    LinkRow]
  {
    if let rows = linkShards[shard] { return rows }
    let rows = try readShard(layout.linkShardPath(shard), fileSystem, IndexShardCodec.links)
    linkShards[shard] = rows
    return rows
  }

  /// The rows of the shard file at `path` (none when it does not exist, or when the store knows
  /// no shard is on disk), read by `decode`.
  private func readShard<Row>(
    _ path: String, _ fileSystem: FileSystem, _ decode: ([UInt8]) -> [ItemKey: Row]?
  ) throws(MirrorError) -> [ItemKey: Row] {
    guard !isEmptyOnDisk, let bytes = try fileSystem.readFileIfPresent(path) else { return [:] }
    guard let rows = decode(bytes) else { throw Self.corrupt(path) }
    return rows
  }

  private static func corrupt(_ path: String) -> MirrorError {
    MirrorError(
      .corrupt,
      "the index file \(path) is damaged; run `contentful-mirror sync --full` to rebuild it",
      path: path)
  }
}

extension IndexStore.ItemRow {
  /// The row of a synced item: its content type, revision, update time and link targets.
  init(for item: SyncedItem) {
    self.init(
      contentType: item.contentTypeID, revision: item.revision, updatedAt: item.updatedAt,
      linksTo: LinkExtractor.targets(of: item))
  }
}
