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
/// Snapshots replace what the mirror had; they are never merged. The item stays on the tape it
/// was read from (a sync page's items share their page's), so rendering it copies its bytes
/// instead of walking a tree of values.
public struct SyncedItem: Sendable {
  public var key: ItemKey
  /// The entry's content type id; `nil` for assets.
  public var contentTypeID: String?
  public var revision: Int?
  public var updatedAt: String?
  /// The tape holding the item.
  let tape: JSONTape
  /// The item's object node in ``tape``.
  let node: Int

  /// The raw item (`sys`, `fields`, `metadata`, all locales) as a value tree.
  public var raw: JSONObject {
    tape.withView { $0.value(node).objectValue ?? JSONObject() }
  }

  /// The item's JSON exactly as received.
  public var rawJSON: [UInt8] {
    tape.withView { Array($0.slice(node)) }
  }

  /// Reads an item of type `Entry` or `Asset` from a value tree.
  ///
  /// - Throws: ``SyncError`` naming the item when its shape or ids are wrong.
  public init(raw: JSONObject, kind: ItemKind) throws(SyncError) {
    try self.init(json: CanonicalJSON.encodeCompact(.object(raw)), kind: kind)
  }

  /// Reads an item of type `Entry` or `Asset` from its JSON (a raw snapshot file).
  ///
  /// - Throws: ``SyncError`` when the bytes are not JSON, or the item's shape or ids are wrong.
  public init(json: [UInt8], kind: ItemKind) throws(SyncError) {
    let tape: JSONTape
    do {
      tape = try JSONTape(parsing: json)
    } catch {
      throw SyncError(.invalidResponse, "a stored \(kind.rawValue) is not valid JSON (\(error))")
    }
    self = try tape.withView { view throws(SyncError) in
      try SyncedItem(tape: tape, view: view, node: JSONTape.root, kind: kind)
    }
  }

  /// Reads the item at `node` of `tape`, validating everything that becomes a path.
  init(tape: JSONTape, view: JSONTape.View, node: Int, kind: ItemKind) throws(SyncError) {
    guard let sys = view.object("sys", of: node), let idNode = view.member("id", of: sys),
      let id = view.string(idNode)
    else {
      throw SyncError(.invalidResponse, "a sync item of type \(kind.rawValue) has no sys.id")
    }
    let role: Identifier.Role = kind == .entry ? .entryID : .assetID
    try Identifier.validate(id, as: role, in: "a sync item of type \(kind.rawValue)")
    key = ItemKey(kind, id)
    if kind == .entry {
      guard let contentType = view.object("contentType", of: sys),
        let typeSys = view.object("sys", of: contentType),
        let typeNode = view.member("id", of: typeSys), let typeID = view.string(typeNode)
      else {
        throw SyncError(
          .invalidResponse, "entry \(id) has no sys.contentType; the page was rejected")
      }
      try Identifier.validate(typeID, as: .contentTypeID, in: "entry \(id)")
      contentTypeID = typeID
    }
    if let fields = view.member("fields", of: node) {
      guard view.kind(fields) == .object else {
        throw SyncError(.invalidResponse, "\(key) has fields that are not an object")
      }
      var field = fields + 1
      while field < view.next(fields) {
        let perLocale = field + 1
        if view.kind(perLocale) == .object {
          var locale = perLocale + 1
          while locale < view.next(perLocale) {
            if view.kind(locale) != .string
              || !Identifier.isValidLocaleCode(utf8: view.slice(locale))
            {
              let name = view.string(field) ?? ""
              try Identifier.validate(
                view.string(locale) ?? "", as: .localeCode, in: "\(key) field \(name)")
            }
            locale = view.next(locale + 1)
          }
        }
        field = view.next(perLocale)
      }
    }
    revision = view.member("revision", of: sys).flatMap { view.value($0).intValue }
    updatedAt = view.member("updatedAt", of: sys).flatMap { view.string($0) }
    self.tape = tape
    self.node = node
  }

  /// The bytes of the raw snapshot file: the item's JSON as received, and a newline.
  var snapshotBytes: [UInt8] {
    tape.withView { view in
      let slice = view.slice(node)
      return [UInt8](unsafeUninitializedCapacity: slice.count + 1) { buffer, initialized in
        _ = buffer.initialize(from: slice)
        buffer[slice.count] = 0x0A
        initialized = slice.count + 1
      }
    }
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
