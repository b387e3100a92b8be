/// One item of a sync page: a full all-locale snapshot, or a deletion.
public enum SyncItem: Sendable {
  case upsert(SyncedItem)
  case deletion(ItemKey)

  /// The item's identity.
  public var key: ItemKey {
    switch self {
    case .upsert(let item): item.key
    case .deletion(let key): key
    }
  }
}

/// An entry or asset exactly as the sync API sent it, with every locale.
///
/// Snapshots replace what the mirror had; they are never merged.
public struct SyncedItem: Sendable, Hashable {
  public var key: ItemKey
  /// The entry's content type id; `nil` for assets.
  public var contentTypeID: String?
  public var revision: Int?
  public var updatedAt: String?
  /// The raw item (`sys`, `fields`, `metadata`, all locales).
  public var raw: JSONObject
  /// The item's JSON exactly as received, when known: kept as the raw snapshot without
  /// encoding the item again.
  public var rawJSON: [UInt8]?

  /// Reads an item of type `Entry` or `Asset`, validating everything that becomes a path.
  ///
  /// - Throws: ``SyncError`` naming the item when its shape or ids are wrong.
  public init(raw: JSONObject, kind: ItemKind, rawJSON: [UInt8]? = nil) throws(SyncError) {
    guard let sys = raw["sys"]?.objectValue, let id = sys["id"]?.stringValue else {
      throw SyncError(.invalidResponse, "a sync item of type \(kind.rawValue) has no sys.id")
    }
    let role: Identifier.Role = kind == .entry ? .entryID : .assetID
    try Identifier.validate(id, as: role, in: "a sync item of type \(kind.rawValue)")
    key = ItemKey(kind, id)
    if kind == .entry {
      guard let typeID = sys["contentType"]?["sys"]?["id"]?.stringValue else {
        throw SyncError(
          .invalidResponse, "entry \(id) has no sys.contentType; the page was rejected")
      }
      try Identifier.validate(typeID, as: .contentTypeID, in: "entry \(id)")
      contentTypeID = typeID
    }
    if let fields = raw["fields"], fields.objectValue == nil {
      throw SyncError(.invalidResponse, "\(key) has fields that are not an object")
    }
    for member in raw["fields"]?.objectValue?.members ?? [] {
      for locale in member.value.objectValue?.keys ?? [] {
        try Identifier.validate(locale, as: .localeCode, in: "\(key) field \(member.key)")
      }
    }
    revision = sys["revision"]?.intValue
    updatedAt = sys["updatedAt"]?.stringValue
    self.raw = raw
    self.rawJSON = rawJSON
  }

  /// The bytes of the raw snapshot file: the received JSON when known, else compact canonical.
  var snapshotBytes: [UInt8] {
    guard let rawJSON else { return CanonicalJSON.encodeCompact(.object(raw)) }
    return rawJSON.droppingTrailingWhitespace() + [0x0A]
  }
}

extension [UInt8] {
  /// The bytes without trailing JSON whitespace (space, tab, CR, LF).
  func droppingTrailingWhitespace() -> [UInt8] {
    var end = count
    while end > 0, [0x0A, 0x20, 0x0D, 0x09].contains(self[end - 1]) { end -= 1 }
    return Array(self[..<end])
  }
}
