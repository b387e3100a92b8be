/// One page of a sync response: its items and where the sync goes next.
public struct SyncPage: Sendable {
  /// What follows this page.
  public enum Continuation: Sendable, Hashable {
    /// More pages: request this token next.
    case nextPage(token: String)
    /// The sync is complete; this token starts the next delta sync.
    case nextSync(token: String)
  }

  public var items: [SyncItem]
  public var continuation: Continuation

  public init(items: [SyncItem], continuation: Continuation) {
    self.items = items
    self.continuation = continuation
  }

  /// Decodes a page from the bytes of a sync response, validating every item before returning,
  /// so a bad item rejects the whole page before anything is written.
  ///
  /// - Throws: ``SyncError`` naming the offending item.
  public init(decoding bytes: [UInt8]) throws(SyncError) {
    let value: JSONValue
    let ranges: [Range<Int>]
    do {
      (value, ranges) = try JSONReader().read(bytes, elementRangesOf: "items")
    } catch {
      throw SyncError(
        .malformedResponse, "the sync response is not valid JSON (\(error))", cause: error)
    }
    guard let rawItems = value["items"]?.arrayValue else {
      throw SyncError(.malformedResponse, "the sync response has no items array")
    }
    var items: [SyncItem] = []
    items.reserveCapacity(rawItems.count)
    var seen = Set<ItemKey>()
    for (index, rawItem) in rawItems.enumerated() {
      let original = index < ranges.count ? Array(bytes[ranges[index]]) : nil
      let item = try Self.decodeItem(rawItem, original: original)
      guard seen.insert(item.key).inserted else {
        throw SyncError(
          .invalidResponse, "the sync page lists \(item.key) twice; the page was rejected")
      }
      items.append(item)
    }
    if let url = value["nextPageUrl"]?.stringValue {
      continuation = .nextPage(token: try Self.token(in: url))
    } else if let url = value["nextSyncUrl"]?.stringValue {
      continuation = .nextSync(token: try Self.token(in: url))
    } else {
      throw SyncError(
        .malformedResponse, "the sync response has neither nextPageUrl nor nextSyncUrl")
    }
    self.items = items
  }

  private static func decodeItem(_ value: JSONValue, original: [UInt8]?) throws(SyncError)
    -> SyncItem
  {
    guard let object = value.objectValue, let type = object["sys"]?["type"]?.stringValue else {
      throw SyncError(.invalidResponse, "a sync item has no sys.type")
    }
    switch type {
    case "Entry": return .upsert(try SyncedItem(raw: object, kind: .entry, rawJSON: original))
    case "Asset": return .upsert(try SyncedItem(raw: object, kind: .asset, rawJSON: original))
    case "DeletedEntry", "DeletedAsset":
      let kind: ItemKind = type == "DeletedEntry" ? .entry : .asset
      guard let id = object["sys"]?["id"]?.stringValue else {
        throw SyncError(.invalidResponse, "a \(type) item has no sys.id")
      }
      try Identifier.validate(id, as: kind == .entry ? .entryID : .assetID, in: "a \(type) item")
      return .deletion(ItemKey(kind, id))
    default:
      throw SyncError(
        .invalidResponse, "a sync item has the unknown type \(Identifier.quoted(type))")
    }
  }

  /// The `sync_token` query parameter of a next-page or next-sync URL. Only the token is used:
  /// the next request is built for the configured host, whatever host the URL names.
  static func token(in url: String) throws(SyncError) -> String {
    guard let query = url.split(separator: "?", maxSplits: 1).last, url.contains("?") else {
      throw SyncError(.invalidResponse, "the next sync URL has no sync_token")
    }
    for pair in query.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, parts[0] == "sync_token" else { continue }
      let token = String(parts[1]).removingPercentEncodingIfNeeded()
      guard !token.isEmpty, token.utf8.count <= 8192,
        token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
      else { break }
      return token
    }
    throw SyncError(.invalidResponse, "the next sync URL has no usable sync_token")
  }
}

extension String {
  /// Decodes `%XX` escapes; returns the text unchanged when it has none or they are malformed.
  fileprivate func removingPercentEncodingIfNeeded() -> String {
    guard contains("%") else { return self }
    var bytes: [UInt8] = []
    var iterator = utf8.makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = iterator.next(), let low = iterator.next(),
        let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
      else { return self }
      bytes.append(value)
    }
    return String(validating: bytes, as: UTF8.self) ?? self
  }
}
