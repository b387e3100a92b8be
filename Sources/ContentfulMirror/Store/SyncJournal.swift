/// A bounded record of recent syncs and what each changed, in `.mirror/journal/`.
///
/// It answers "what changed since token T" for `export --since` without the network: every
/// finished sync appends one file naming the token it started from, the token it ended with,
/// the items it wrote and the items it removed (with their former content type, so their former
/// paths are known). Only the newest ``capacity`` syncs are kept; older tokens are refused.
struct SyncJournal {
  /// One finished sync.
  struct Record: Hashable {
    var fromToken: String?
    var toToken: String
    var upserted: [ItemKey]
    var deleted: [Removal]
  }

  /// An item a sync removed.
  struct Removal: Hashable {
    var key: ItemKey
    var contentType: String?
  }

  /// The net changes between a token and now.
  struct Changes: Hashable {
    var upserted: Set<ItemKey>
    /// Items gone since, with their former content type.
    var deleted: [ItemKey: String?]
  }

  static let capacity = 50

  let layout: MirrorLayout

  var directory: String { layout.privateDirectory + "/journal" }

  /// Appends `record` and drops records beyond ``capacity``.
  ///
  /// When the last record starts from the same token but does not end at `committedToken` (the
  /// manifest's), it was written by an attempt at this same sync that was killed before its
  /// manifest: the two are merged into one (a deletion replayed after the item was already gone
  /// keeps the content type the first attempt recorded).
  func append(_ record: Record, committedToken: String?, fileSystem: inout FileSystem)
    throws(MirrorError)
  {
    let names = try recordNames(fileSystem)
    var record = record
    var next = (names.last.flatMap { Int($0.dropLast(5)) } ?? 0) + 1
    if let last = names.last, let bytes = try fileSystem.readFileIfPresent(directory + "/" + last),
      let value = try? JSONReader().read(bytes), let earlier = Self.record(from: value),
      earlier.fromToken == record.fromToken, earlier.toToken != committedToken
    {
      record = Self.merge(earlier, record)
      next -= 1
    }
    try fileSystem.writeAtomically(CanonicalJSON.encode(Self.json(record)), to: path(next))
    for name in names.dropLast(max(Self.capacity - 1, 0)) {
      try fileSystem.removeFile(directory + "/" + name)
    }
  }

  /// The net changes since `token`, or `nil` when the journal does not reach back that far.
  /// The current token gives empty changes.
  func changes(since token: String, currentToken: String, fileSystem: FileSystem)
    throws(MirrorError) -> Changes?
  {
    if token == currentToken { return Changes(upserted: [], deleted: [:]) }
    var records: [Record] = []
    for name in try recordNames(fileSystem) {
      guard let bytes = try fileSystem.readFileIfPresent(directory + "/" + name),
        let value = try? JSONReader().read(bytes), let record = Self.record(from: value)
      else { continue }
      records.append(record)
    }
    guard let start = records.lastIndex(where: { $0.fromToken == token }) else { return nil }
    var changes = Changes(upserted: [], deleted: [:])
    for record in records[start...] {
      // A later initial or --full sync rebuilt the mirror: its changes are not itemised.
      if record.fromToken == nil { return nil }
      for key in record.upserted {
        changes.upserted.insert(key)
        changes.deleted[key] = nil
      }
      for removal in record.deleted {
        changes.upserted.remove(removal.key)
        changes.deleted[removal.key] = .some(removal.contentType)
      }
    }
    return changes
  }

  /// `later` with what `earlier` knew and `later` did not.
  static func merge(_ earlier: Record, _ later: Record) -> Record {
    var merged = later
    merged.upserted = Array(Set(earlier.upserted).union(later.upserted)).sorted()
    let laterDeletions = Set(later.deleted.map(\.key))
    var contentTypes: [ItemKey: String] = [:]
    for removal in earlier.deleted + later.deleted {
      if let type = removal.contentType { contentTypes[removal.key] = type }
    }
    // An item the later attempt saw again (upserted) is no longer a deletion of the earlier one.
    let deletedKeys = Set(earlier.deleted.map(\.key)).subtracting(later.upserted).union(
      laterDeletions)
    merged.deleted = deletedKeys.sorted().map { Removal(key: $0, contentType: contentTypes[$0]) }
    return merged
  }

  private func recordNames(_ fileSystem: FileSystem) throws(MirrorError) -> [String] {
    try fileSystem.contentsOfDirectory(directory).filter {
      $0.hasSuffix(".json") && !$0.hasPrefix(".")
    }
  }

  private func path(_ sequence: Int) -> String {
    let digits = String(sequence)
    return directory + "/" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
      + ".json"
  }

  /// The record as canonical JSON; keys are sorted so the same changes give the same bytes
  /// whichever order the pages listed them in.
  static func json(_ record: Record) -> JSONValue {
    .object(
      JSONObject([
        "from": record.fromToken.map(JSONValue.string) ?? .null,
        "to": .string(record.toToken),
        "upserted": .array(Set(record.upserted).sorted().map { .string($0.description) }),
        "deleted": .array(
          record.deleted.sorted { $0.key < $1.key }.map { removal in
            .object(
              JSONObject([
                "key": .string(removal.key.description),
                "contentType": removal.contentType.map(JSONValue.string) ?? .null,
              ]))
          }),
      ]))
  }

  static func record(from value: JSONValue) -> Record? {
    guard let to = value["to"]?.stringValue else { return nil }
    return Record(
      fromToken: value["from"]?.stringValue, toToken: to,
      upserted: (value["upserted"]?.arrayValue ?? []).compactMap {
        $0.stringValue.flatMap(ItemKey.init)
      },
      deleted: (value["deleted"]?.arrayValue ?? []).compactMap { removal in
        guard let key = removal["key"]?.stringValue.flatMap(ItemKey.init) else { return nil }
        return Removal(key: key, contentType: removal["contentType"]?.stringValue)
      })
  }
}
