/// Where everything lives inside a mirror directory. This is the product's public contract:
///
/// ```
/// <root>/manifest.json
/// <root>/entries/<contentTypeId>/<entryId>/<locale>.json
/// <root>/assets/<assetId>/<locale>.json
/// <root>/index/items/<shard>.json     item index rows (see ``IndexStore``)
/// <root>/index/links/<shard>.json     reverse link rows
/// <root>/.mirror/                     private: raw items, checkpoint, lock, last-sync report
/// ```
///
/// Every component comes from an id, content type id or locale code that ``Identifier``
/// validated, so no path built here can leave `root`.
public struct MirrorLayout: Sendable, Hashable {
  /// The mirror directory, without a trailing slash.
  public let root: String

  public init(root: String) {
    var root = root
    while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
    self.root = root.isEmpty ? "." : root
  }

  public var manifest: String { root + "/manifest.json" }
  public var entriesDirectory: String { root + "/entries" }
  public var assetsDirectory: String { root + "/assets" }
  public var indexDirectory: String { root + "/index" }
  public var privateDirectory: String { root + "/.mirror" }
  public var checkpoint: String { privateDirectory + "/checkpoint.json" }
  public var lock: String { privateDirectory + "/lock" }
  public var lastSyncReport: String { privateDirectory + "/last-sync.json" }
  /// Present while a sync writes; found at the start of a sync, it means the last one was killed.
  public var writingMarker: String { privateDirectory + "/writing" }

  /// The directory holding every locale document of an item.
  public func itemDirectory(for key: ItemKey, contentType: String?) -> String {
    switch key.kind {
    case .entry: "\(entriesDirectory)/\(contentType ?? "_")/\(key.id)"
    case .asset: "\(assetsDirectory)/\(key.id)"
    }
  }

  /// The document of an item in one locale.
  public func documentPath(for key: ItemKey, contentType: String?, locale: String) -> String {
    Self.documentPath(inItemDirectory: itemDirectory(for: key, contentType: contentType), locale)
  }

  /// The document in `locale` of the item whose ``itemDirectory(for:contentType:)`` is
  /// `directory`, built in one allocation (a sync builds one per document).
  static func documentPath(inItemDirectory directory: String, _ locale: String) -> String {
    var path = directory
    path.reserveCapacity(directory.utf8.count + locale.utf8.count + 6)
    path += "/"
    path += locale
    path += ".json"
    return path
  }

  /// The raw all-locale snapshot the mirror keeps to re-render offline.
  public func rawItemPath(for key: ItemKey) -> String {
    "\(rawItemsDirectory(key.kind))/\(key.id).json"
  }

  /// The directory of raw snapshots of one kind.
  public func rawItemsDirectory(_ kind: ItemKind) -> String {
    "\(privateDirectory)/items/\(kind == .entry ? "entries" : "assets")"
  }

  /// The item index shard file `shard`.
  public func itemShardPath(_ shard: Int) -> String { root + "/" + Self.itemShard(shard) }

  /// The reverse link index shard file `shard`.
  public func linkShardPath(_ shard: Int) -> String { root + "/" + Self.linkShard(shard) }

  /// ``itemShardPath(_:)`` relative to the root.
  static func itemShard(_ shard: Int) -> String {
    "index/items/\(IndexStore.shardName(shard)).json"
  }

  /// ``linkShardPath(_:)`` relative to the root.
  static func linkShard(_ shard: Int) -> String {
    "index/links/\(IndexStore.shardName(shard)).json"
  }
}
