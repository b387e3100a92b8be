/// A read-only summary of a mirror, for `contentful-mirror status`.
public struct MirrorStatus: Sendable {
  public var directory: String
  public var manifest: Manifest
  /// Entries per content type, counted from the item index.
  public var entryCounts: [String: Int]
  public var assetCount: Int
  /// Items that link to something not in the mirror, counted from the link index.
  public var danglingTargets: Int
  /// Whether an interrupted sync left a checkpoint to resume from.
  public var syncInProgress: Bool
  /// When the last sync finished (UTC, ISO 8601), if recorded.
  public var lastSyncFinishedAt: String?

  /// Reads the status of the mirror in `directory` without taking its lock or writing anything.
  ///
  /// - Throws: ``MirrorError`` `.notAMirror` when there is no manifest, `.corrupt` when it is damaged.
  public static func read(directory: String) throws(MirrorError) -> MirrorStatus {
    let layout = MirrorLayout(root: directory)
    let fileSystem = FileSystem()
    guard let manifest = try MirrorStore.readManifest(layout: layout, fileSystem: fileSystem) else {
      throw MirrorError(
        .notAMirror,
        "\(directory) has no manifest.json: it is not a mirror, or its first sync has not finished; "
          + "run `contentful-mirror sync \(directory) --space <id>`",
        path: layout.manifest)
    }
    let index = IndexStore(layout: layout)
    var entries: [String: Int] = [:]
    var assets = 0
    try index.forEachRow(fileSystem: fileSystem) { key, row in
      if key.kind == .asset {
        assets += 1
      } else {
        entries[row.contentType ?? "?", default: 0] += 1
      }
    }
    var dangling = 0
    for name in try fileSystem.contentsOfDirectory(layout.indexDirectory + "/links") {
      guard let bytes = try fileSystem.readFileIfPresent(layout.indexDirectory + "/links/" + name),
        let rows = (try? JSONReader().read(bytes))?.objectValue
      else { continue }
      dangling += rows.members.filter { $0.value["dangling"] == .bool(true) }.count
    }
    let report = (try? fileSystem.readFileIfPresent(layout.lastSyncReport)).flatMap { $0 }
      .flatMap { try? JSONReader().read($0) }
    return MirrorStatus(
      directory: directory, manifest: manifest, entryCounts: entries, assetCount: assets,
      danglingTargets: dangling, syncInProgress: fileSystem.exists(layout.checkpoint),
      lastSyncFinishedAt: report?["finishedAt"]?.stringValue)
  }

  /// The status as JSON (for `status --json`).
  public var json: JSONValue {
    var types = JSONObject()
    for (id, count) in entryCounts { types[id] = .number(String(count)) }
    let total = entryCounts.values.reduce(0, +)
    var perLocale = JSONObject()
    for locale in manifest.mirroredLocales {
      perLocale[locale] = .object(
        JSONObject(["entries": .number(String(total)), "assets": .number(String(assetCount))]))
    }
    return .object(
      JSONObject([
        "directory": .string(directory),
        "space": .string(manifest.space),
        "environment": .string(manifest.environment),
        "host": .string(manifest.host),
        "syncTokenPresent": .bool(!manifest.syncToken.isEmpty),
        "locales": .array(manifest.mirroredLocales.map(JSONValue.string)),
        "entries": .object(types),
        "entriesTotal": .number(String(total)),
        "assets": .number(String(assetCount)),
        "documentsPerLocale": .object(perLocale),
        "danglingLinkTargets": .number(String(danglingTargets)),
        "syncInProgress": .bool(syncInProgress),
        "lastSync": lastSyncFinishedAt.map(JSONValue.string) ?? .null,
      ]))
  }
}
